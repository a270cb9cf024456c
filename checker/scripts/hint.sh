#!/usr/bin/env bash
# hint.sh NN - shows the next hint of exercise NN, one at a time. The hints are the numbered (or bulleted)
# items of the "## Hints" section of the exercise's lesson.md; how many the learner has seen is kept in
# .state/hints/exNN. After the last one, every hint is shown again. Works before and after success.
# Exit status: 0 a hint was shown, 2 no such exercise or no hints.
set -u
. checker/scripts/lib.sh
nn=${1:-}
require_exercise "$nn" hint
dir=$(exercise_dir "$nn")
lesson="$dir/lesson.md"

# One hint per line: an item starts with "1. " or "- " and goes on over its indented lines.
hints=$(awk '
    /^## / { inside = ($0 ~ /^## Hints/); next }
    !inside { next }
    /^([0-9]+\.|[-*]) / { if (item != "") print item; sub(/^([0-9]+\.|[-*]) +/, ""); item = $0; next }
    /^[ \t]+[^ \t]/ && item != "" { sub(/^[ \t]+/, ""); item = item " " $0; next }
    /^[ \t]*$/ { next }
    END { if (item != "") print item }
' "$lesson")
count=$(printf '%s\n' "$hints" | grep -c .)
if [ "$count" = 0 ]; then
    say "The lesson $lesson has no \"## Hints\" section, so there is no hint to give."
    exit 2
fi

seen_file="$STATE_DIR/hints/ex$nn"
mkdir -p "$STATE_DIR/hints"
seen=$(cat "$seen_file" 2>/dev/null || echo 0)
case $seen in '' | *[!0-9]*) seen=0 ;; esac

# Prints hint K (1-based), wrapped to fit 100 columns, after a bold label.
show() {
    local k=$1
    printf '%s\n' "$hints" | sed -n "${k}p" | fold -s -w 92 | sed 's/ *$//' |
        awk -v label="${BOLD}Hint $k of $count:${RESET}" -v pad="$(printf '%*s' $((${#k} + ${#count} + 11)) '')" \
            'NR == 1 { print label " " $0; next } { print pad $0 }'
}

if [ "$seen" -ge "$count" ]; then
    say "You have seen all $count hints of exercise $nn ($(exercise_title "$nn")). Here they are again:"
    say ""
    for k in $(seq 1 "$count"); do show "$k"; done
    say ""
    say "The lesson, $lesson, explains the ideas behind them; \`make ex$nn\` shows what the tests say now."
    exit 0
fi

next=$((seen + 1))
echo "$next" >"$seen_file"
say "Exercise $nn: $(exercise_title "$nn")"
say ""
show "$next"
say ""
if [ "$next" -lt "$count" ]; then
    say "Try to answer it before you change the code. \`make hint ex$nn\` again gives hint $((next + 1)) of $count."
else
    say "That was the last hint of exercise $nn. \`make hint ex$nn\` again shows all $count of them."
fi
