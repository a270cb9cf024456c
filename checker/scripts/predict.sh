#!/usr/bin/env bash
# predict.sh - predict, then measure: before running an exercise, the learner says which of its metrics
# will move most since the previous version, and by how much; after it passes, `make exNN` shows the
# prediction beside the emulator's measurement. Optional: nothing else depends on it.
#   predict.sh NN        asks two multiple-choice questions; the answers go to .state/predictions/exNN
#   predict.sh show NN   the prediction beside the measurement (grade.sh calls it after a pass)
#   predict.sh offer NN  one line inviting a prediction for NN, when it has metrics and none was made
# The versions, their metrics and their predecessors come from checker/metrics/manifest.txt; the numbers
# from checker/metrics/metrics.sh. Exit status: 0 done, 2 no such exercise, nothing to predict, or no answer.
set -u
. checker/scripts/lib.sh
manifest=checker/metrics/manifest.txt

# The manifest record of version NAME, or of the version exercise NN shows: name nn fn shape sol prev show
record_of_name() { awk -v k="$1" '/^[^ \t#]/ && $1 == k { print $1, $2, $3, $4, $5, $6; exit }' "$manifest"; }
record_of_exercise() {
    awk -v n="$1" '/^#/ { next } /^[^ \t]/ { cur = $1 " " $2 " " $3 " " $4 " " $5 " " $6; nn = $2; next }
                   $1 == "show" && nn == n { sub(/^[ \t]*show[ \t]+/, ""); print cur, $0; exit }' "$manifest" 2>/dev/null
}

label() { metric_label "$1"; }
# The answers about a change, as the question lists them and, shorter, as a sentence says them ("it grows").
change_text() {
    case $1 in
    0) textf 'grows' ;;
    1) textf 'stays about the same (within 10%%)' ;;
    2) textf 'shrinks, but by less than 2x' ;;
    3) textf 'shrinks 2x to 4x (halved counts here)' ;;
    *) textf 'shrinks more than 4x, or to zero' ;;
    esac
}
change_short() {
    case $1 in
    1) textf 'stays about the same' ;;
    3) textf 'shrinks 2x to 4x' ;;
    *) change_text "$1" ;;
    esac
}
# The answer (0-4) that a change from BEFORE to AFTER deserves.
bucket() {
    awk -v a="$1" -v b="$2" 'BEGIN {
        if (a + 0 == 0) { print (b + 0 == 0 ? 1 : 0); exit }
        r = b / a
        print (r > 1.1 ? 0 : r >= 0.9 ? 1 : r > 0.5 ? 2 : r > 0.25 ? 3 : 4) }'
}
# A metric's value in a metrics line (key=value ...).
value() {
    local m=$1 line=$2
    case $m in
    shared) awk -v l="$line" 'BEGIN { n = split(l, f, " "); for (i = 1; i <= n; i++) { split(f[i], kv, "=");
                                       if (kv[1] ~ /^shared_(loads|stores)$/) s += kv[2] } print s + 0 }' ;;
    global_loads) value load_requests "$line" ;;
    *) tr ' ' '\n' <<<"$line" | sed -n "s/^$m=//p" ;;
    esac
}

mode=ask
case "${1:-}" in show | offer) mode=$1; shift ;; esac
nn=${1:-}
if [ "$mode" = ask ]; then require_exercise "$nn" predict; fi
[ -n "$nn" ] && [ -n "$(exercise_dir "$nn")" ] || exit 2
read -r name _ fn shape sol prev show <<<"$(record_of_exercise "$nn")"
if [ -z "${name:-}" ] || [ "${prev:--}" = - ]; then
    [ "$mode" = ask ] &&
        sayf 'Exercise %s has no earlier version to compare its metrics with, so there is nothing to predict; `make ex%s` grades it.' "$nn" "$nn"
    exit 2
fi
saved="$STATE_DIR/predictions/ex$nn"
read -r pname pnn pfn pshape psol _ <<<"$(record_of_name "$prev")"
metrics=($show)

case $mode in
offer)
    [ -f "$saved" ] && exit 0
    # A previous version of the same exercise is not met yet when this line invites the prediction.
    if [ "$pnn" = "$nn" ]; then
        sayf 'Before you run it: `make predict ex%s` records what you expect to change between its two versions (two quick questions).' "$nn"
    else
        sayf 'Before you run it: `make predict ex%s` records what you expect to change since %s (two quick questions).' "$nn" "$prev"
    fi
    exit 0 ;;

show)
    [ -f "$saved" ] || exit 0
    guess=$(sed -n 's/^metric=//p' "$saved") change=$(sed -n 's/^change=//p' "$saved")
    if [ -z "${EMU_LIB:-}" ] || [ ! -f "$EMU_LIB" ]; then
        sayf 'Your prediction for exercise %s: %s %s. The emulator is not built here, so there is no measurement to set beside it.' \
            "$nn" "$(label "$guess")" "$(change_text "$change")"
        exit 0
    fi
    before=$(checker/metrics/metrics.sh line "$pnn" "$pfn" "$pshape" "solutions/$psol" 2>/dev/null)
    after=$(checker/metrics/metrics.sh line "$nn" "$fn" "$shape" "$(exercise_file "$nn")" 2>/dev/null)
    if [ -z "$before" ] || [ -z "$after" ]; then
        sayf 'Your prediction for exercise %s: %s %s. The emulator could not measure your file just now, so there is nothing to set beside it.' \
            "$nn" "$(label "$guess")" "$(change_text "$change")"
        exit 0
    fi
    # The metric that moved most: the largest ratio either way (to zero counts as the most).
    most=$(for m in "${metrics[@]}"; do
        echo "$m $(value "$m" "$before") $(value "$m" "$after")"
    done | awk '{ a = $2 + 0; b = $3 + 0; r = (a == b) ? 1 : (a == 0 || b == 0) ? 1e9 : (a > b ? a / b : b / a)
                  if (r > best || (r == best && $1 == g)) { best = r; m = $1 } } END { print m }' g="$guess")
    fmt() { awk -v v="$1" 'BEGIN { if (v ~ /\./) { print v; exit } s = ""; while (length(v) > 3) {
            s = "," substr(v, length(v) - 2) s; v = substr(v, 1, length(v) - 3) } print v s }'; }
    measured() {
        local m=$1 a b
        a=$(value "$m" "$before") b=$(value "$m" "$after")
        textf '%s: %s in %s, %s in yours' "$(label "$m")" "$(fmt "$a")" "$pname" "$(fmt "$b")"
    }
    say ""
    say "$(joined "$BOLD$(textf 'Your prediction beside the measurement')$RESET" \
        "$(textf '(on the emulator, n = %s):' "$(fmt "$(value n "$after")")")")"
    sayf '  You expected %s to move most, and that it %s.' "$(label "$guess")" "$(change_short "$change")"
    a=$(value "$guess" "$before") b=$(value "$guess" "$after")
    right_change=$([ "$(bucket "$a" "$b")" = "$change" ] && echo 1)
    if [ -n "$right_change" ]; then
        sayf '  Measured: %s: %sas you said%s.' "$(measured "$guess")" "$GREEN" "$RESET"
    else
        sayf '  Measured: %s: it %s.' "$(measured "$guess")" "$(change_short "$(bucket "$a" "$b")")"
    fi
    if [ "$most" = "$guess" ]; then
        say "  $GREEN$(textf 'It is indeed the number that moved most.')$RESET"
    else
        sayf '  The number that moved most is %s.' "$(measured "$most")"
    fi
    say "  $DIM$(textf "Why: the lesson's \"The cost model\" (%s). \`make predict ex%s\` asks again." "$(exercise_lesson "$nn")" "$nn")$RESET"
    exit 0 ;;
esac

# ---- Asking --------------------------------------------------------------------------------------------
if [ ! -t 0 ]; then
    say "$DIM$(textf '(No terminal: reading the two answers from standard input.)')$RESET"
fi
say "$BOLD$(textf 'Predict, then measure: exercise %s, %s.' "$nn" "$(exercise_title "$nn")")$RESET"
sayf 'Compared with the previous version (%s, %s), for the same input on the emulator:' "$prev" "solutions/$psol"
say ""
sayf '1. Which of these numbers will change the most (up or down)?'
for i in "${!metrics[@]}"; do say "     $((i + 1))) $(label "${metrics[$i]}")"; done
ask() {   # ask PROMPT MAX: reads a number from 1 to MAX; empty or EOF gives up
    local answer
    while :; do
        printf '%s' "$1"
        read -r answer || { say ""; return 1; }
        [ -z "$answer" ] && return 1
        if [[ $answer =~ ^[0-9]+$ ]] && [ "$answer" -ge 1 ] && [ "$answer" -le "$2" ]; then
            echo "$answer" >"$STATE_DIR/.answer"
            return 0
        fi
        sayf 'Please type a number from 1 to %s, or just Enter to stop.' "$2"
    done
}
mkdir -p "$STATE_DIR/predictions"
ask "$(textf '   Your answer (1-%s, Enter to skip): ' "${#metrics[@]}")" "${#metrics[@]}" || {
    sayf 'No prediction recorded. It is optional; `make ex%s` grades as usual.' "$nn"
    exit 2
}
m=${metrics[$(($(cat "$STATE_DIR/.answer") - 1))]}
say ""
sayf '2. And %s?' "$(label "$m")"
for i in 0 1 2 3 4; do
    sayf '     %s) it %s' "$((i + 1))" "$(change_text "$i")"
done
if ! ask "$(textf '   Your answer (1-5): ')" 5; then
    sayf 'No prediction recorded.'
    exit 2
fi
c=$(($(cat "$STATE_DIR/.answer") - 1))
rm -f "$STATE_DIR/.answer"
printf 'metric=%s\nchange=%s\ndate=%s\n' "$m" "$c" "$(date +%Y-%m-%d)" >"$saved"
say ""
sayf 'Recorded: %s %s. Once `make ex%s` passes, it shows this beside the measurement.' "$(label "$m")" "$(change_short "$c")" "$nn"
