#!/usr/bin/env bash
# hint.sh NN - shows the next hint of exercise NN, one at a time. The hints are the numbered (or bulleted)
# items of the "## Hints" section of the exercise's lesson.md (in Chinese, of lesson.zh-CN.md's section in
# the same place, "## 提示": the same hints in the same order). The first one shown is the one that
# answers the symptom of the last grade's first failure (checker/suites/hints.txt maps symptoms to hint
# numbers); each call then shows the next, wrapping around, and once every hint was shown, all of them.
# Works before and after success.
#   hint.sh record NN TAP   after a grade: remembers the hint for the first failure in TAP (grade.sh)
#   hint.sh describe NN     "a question about this failure (hint 3 of 5)", for the report's last line
# State: .state/hints/exNN ("START SHOWN": the hint the run of hints began at, how many were shown since)
# and .state/hints/exNN.symptom (the hint for the last grade's first failure). Exit status: 0 a hint was
# shown, 2 no such exercise or no hints.
set -u
. checker/scripts/lib.sh
manifest=checker/suites/hints.txt
mkdir -p "$STATE_DIR/hints"

# The hint (a number) for a failure (the failed test's name and TAP block, read on stdin), in this order:
#  1. the lesson hint that the bug model it matches names ("evidence: bug-model name=N hint=K"), when every
#     model it matches names the same one (two that disagree leave the choice to the table, unless a line
#     "evidence: settled name=N" says which of them a second input showed it to be);
#  2. the first line of the manifest for exercise NN whose key is one of its evidence or finding lines:
#     "evidence:TAG [key=value...]" matches a line "evidence: TAG key=value..." that starts with it;
#     "finding:KIND" matches a finding of that kind (the emulator's tag "[KIND at FILE:LINE]" in the
#     message, or a "finding: kind=KIND ..." line, KIND quoted or with its spaces made hyphens);
#  3. only for a failure that carries no evidence (a check that did not look at what came back): the first
#     line whose text is in the failure's name or message, in English (the emulator's tags stay English) or
#     in the learner's language.
# A line with no text matches any failure: its number is followed by "any" (the hint is where to start, not
# an answer to this failure). Nothing when no line matches.
symptom_hint() {
    local nn=$1 failure translated facts hints fact key
    failure=$(cat)
    [ -f "$manifest" ] || return 0
    # What the block says as data, one a line: "evidence:TAG key=value..." and "finding:KIND".
    facts=$(awk '/^ *evidence: / { sub(/^ *evidence: /, ""); print "evidence:" $0; next }
                 /^ *finding: / && match($0, /kind=("[^"]*"|[^ ]*)/) { k = substr($0, RSTART + 5, RLENGTH - 5)
                                                                      gsub(/"/, "", k); print "finding:" k; next }
                 /^ *\[[^]]*\] / { k = $0; sub(/^ *\[/, "", k); sub(/\].*/, "", k); sub(/ at .*/, "", k)
                                   print "finding:" k }' <<<"$failure")
    # Two models that one input could not tell apart, settled by another input: the one it settled on.
    local settled
    settled=$(sed -n 's/^evidence:settled name=\([^ ]*\).*/\1/p' <<<"$facts" | head -n 1)
    [ -n "$settled" ] && facts=$(grep -v '^evidence:bug-model ' <<<"$facts"
                                 grep "^evidence:bug-model name=$settled\( \|$\)" <<<"$facts")
    hints=$(sed -n 's/^evidence:bug-model .*hint=\([0-9][0-9]*\).*/\1/p' <<<"$facts" | sort -u)
    if [ -n "$hints" ] && [ "$(wc -l <<<"$hints")" = 1 ] &&
        [ "$(grep -c '^evidence:bug-model ' <<<"$facts")" = "$(grep -c '^evidence:bug-model .*hint=' <<<"$facts")" ]; then
        echo "$hints"
        return 0
    fi
    awk -F'|' -v nn="$nn" '
        function trim(s) { gsub(/^[ \t]+|[ \t]+$/, "", s); return s }
        /^[ \t]*(#|$)/ { next }
        trim($1) == nn { print trim($3) "|" trim($2) }' "$manifest" |
    while IFS='|' read -r hint text; do
        case $text in
        evidence:* | finding:*)
            while IFS= read -r fact; do
                [ -n "$fact" ] || continue
                key=$text
                [[ $key == finding:* ]] && [ "${fact//-/ }" = "$key" ] && fact=$key
                case "$fact " in "$key "* | "$key"[=-]*) echo "$hint"; break 2 ;; esac
            done <<<"$facts"
            continue ;;
        esac
        if [ -z "$text" ]; then echo "$hint any"; break; fi
        grep -q '^evidence:' <<<"$facts" && continue
        translated=$text
        [ "$(course_language)" != en ] && translated=$(course_phrase "$text")
        if grep -qF -e "$text" -e "$translated" <<<"$failure"; then echo "$hint"; break; fi
    done
}

# The first failed test of a TAP file (this checker's: "not ok N - NAME" and a YAML message block).
first_failure() {
    awk '/^not ok / { if (found) exit; found = 1; print; next }
         found && /^ok / { exit }
         found { print }' "$1" 2>/dev/null
}

if [ "${1:-}" = record ]; then
    nn=$2 tap=$3
    failure=$(first_failure "$tap")
    hint=""
    [ -n "$failure" ] && hint=$(symptom_hint "$nn" <<<"$failure")
    if [ -n "$hint" ]; then echo "$hint" >"$STATE_DIR/hints/ex$nn.symptom"; else rm -f "$STATE_DIR/hints/ex$nn.symptom"; fi
    exit 0
fi

describe=0
[ "${1:-}" = describe ] && { describe=1; shift; }
nn=${1:-}
require_exercise "$nn" hint
lesson=$(exercise_lesson "$nn")
section=$(lesson_section "$lesson" "## Hints")

# One hint per line: an item starts with "1. " or "- " and goes on over its indented lines, joined by a
# space (none between two Chinese lines: bytes above 0x7f on both sides, read as bytes under LC_ALL=C).
hints=$(LC_ALL=C awk -v section="$section" '
    /^## / { inside = ($0 == section); next }
    !inside { next }
    /^([0-9]+\.|[-*]) / { if (item != "") print item; sub(/^([0-9]+\.|[-*]) +/, ""); item = $0; next }
    /^[ \t]+[^ \t]/ && item != "" { sub(/^[ \t]+/, "")
                                      wide = substr(item, length(item), 1) > "\177" && substr($0, 1, 1) > "\177"
                                      item = item (wide ? "" : " ") $0; next }
    /^[ \t]*$/ { next }
    END { if (item != "") print item }
' "$lesson")
count=$(printf '%s\n' "$hints" | grep -c .)

# Where the run of hints stands: start (1-based) and shown; a new symptom starts a new run at its hint.
state_file="$STATE_DIR/hints/ex$nn"
start="" shown=""
[ -f "$state_file" ] && read -r start shown _ <"$state_file"
case ${shown:-x} in '' | *[!0-9]*) shown=${start:-0} start=1 ;; esac   # the older one-number state: seen
case ${start:-x} in '' | *[!0-9]*) start=1 ;; esac
symptom="" matched=""
[ -f "$STATE_DIR/hints/ex$nn.symptom" ] && read -r symptom matched _ <"$STATE_DIR/hints/ex$nn.symptom"
case $symptom in '' | *[!0-9]*) symptom="" ;; esac
if [ -n "$symptom" ] && [ "$symptom" -le "$count" ] && [ "$symptom" != "$start" ]; then start=$symptom shown=0; fi
[ "$start" -ge 1 ] && [ "$start" -le "$count" ] || start=1

if [ $describe = 1 ]; then
    # (Each textf starts its line: xgettext finds a keyword only there.)
    if [ "$count" = 0 ]; then
        textf 'nothing: the lesson has no hints'
    elif [ "$shown" -ge "$count" ]; then
        textf 'all %s hints again' "$count"
    elif [ -n "$symptom" ] && [ "$matched" != any ] && [ "$shown" = 0 ]; then
        textf 'a question about this failure (hint %s of %s)' "$start" "$count"
    else
        textf 'a question that points the way (hint %s of %s)' "$(( (start - 1 + shown) % count + 1 ))" "$count"
    fi
    echo
    exit 0
fi
if [ "$count" = 0 ]; then
    sayf 'The lesson %s has no "## Hints" section, so there is no hint to give.' "$lesson"
    exit 2
fi

# Prints hint K (1-based) after a bold label, wrapped to fit 100 columns, its later lines under its text.
show() {
    local k=$1 label space=" "
    label=$(textf 'Hint %s of %s:' "$k" "$count")
    case $label in *：) space="" ;; esac   # no space after a full-width colon
    printf '%s\n' "$BOLD$label$RESET$space$(printf '%s\n' "$hints" | sed -n "${k}p")" |
        if [ -x "$COURSE_TEXT" ]; then "$COURSE_TEXT" wrap 100 $(($(text_width "$label$space"))); else cat; fi
}

if [ "$shown" -ge "$count" ]; then
    sayf 'You have seen all %s hints of exercise %s (%s). Here they are again:' "$count" "$nn" "$(exercise_title "$nn")"
    say ""
    for k in $(seq 1 "$count"); do show "$k"; done
    say ""
    sayf 'The lesson, %s, explains the ideas behind them; `make ex%s` shows what the tests say now.' "$lesson" "$nn"
    exit 0
fi

k=$(( (start - 1 + shown) % count + 1 ))
shown=$((shown + 1))
echo "$start $shown" >"$state_file"
sayf 'Exercise %s: %s' "$nn" "$(exercise_title "$nn")"
[ "$shown" = 1 ] && [ -n "$symptom" ] && [ "$matched" != any ] && [ "$start" = "$k" ] &&
    say "$DIM$(textf 'The hint for the first failure of your last `make ex%s`:' "$nn")$RESET"
say ""
show "$k"
say ""
if [ "$shown" -lt "$count" ]; then
    sayf 'Try to answer it before you change the code. `make hint ex%s` again gives hint %s of %s.' "$nn" \
        "$(( (start - 1 + shown) % count + 1 ))" "$count"
else
    sayf 'That was the last hint of exercise %s you had not seen. `make hint ex%s` again shows all %s.' "$nn" "$nn" \
        "$count"
fi
