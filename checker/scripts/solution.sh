#!/usr/bin/env bash
# solution.sh NN - once exercise NN is done (see .state/progress), shows where its reference solution is,
# a diff between the learner's file and it, and what the next exercise changes. Before that it refuses.
# Exit status: 0 shown, 2 no such exercise, or not done yet.
set -u
. checker/scripts/lib.sh
nn=${1:-}
require_exercise "$nn" solution
dir=$(exercise_dir "$nn")
file=$(exercise_file "$nn")
sol=$(solution_file "$nn")

if [ "$(checker/scripts/progress.sh state "$nn")" != done ]; then
    say "The reference solution of exercise $nn opens once your own version passes: run \`make ex$nn\` until"
    say "every test is green. Until then, \`make hint ex$nn\` gives a hint, one question at a time."
    exit 2
fi

say "${BOLD}Exercise $nn is done.${RESET} The reference solution is $sol."
say ""
if [ -z "$file" ] || [ ! -f "$file" ]; then
    say "Your file is missing from $dir, so there is nothing to compare; \`make reset ex$nn\` brings the starting file back."
elif cmp -s "$file" "$sol"; then
    say "Your $file is identical to it."
else
    # Comment-only lines are left out (the reference's comments would bury the code); ALL=1 keeps them.
    code_only() {
        if [ -n "${ALL:-}" ]; then cat "$1"
        else sed -e '/^[[:space:]]*\/\//d' -e '/^[[:space:]]*\/\*.*\*\/[[:space:]]*$/d' -e '/^[[:space:]]*$/d' "$1"; fi
    }
    if [ -z "${ALL:-}" ] && diff -q <(code_only "$file") <(code_only "$sol") >/dev/null; then
        say "Your $file has the same code as the reference; only comments or blank lines differ."
    else
        if [ -n "${ALL:-}" ]; then
            say "How it differs from yours, every line (lines with - are yours, + the reference's):"
        else
            say "How its code differs from yours (lines with - are yours, + the reference's; comment lines"
            say "are left out: \`make solution ex$nn ALL=1\` shows them too):"
        fi
        say ""
        colour=never
        [ -n "$GREEN" ] && colour=always
        labels=(--label "yours: $file" --label "reference: $sol")
        # Without the comment lines, a hunk's line numbers are not the file's: they are left out.
        hunks() { if [ -n "${ALL:-}" ]; then cat; else sed -E 's/@@ -[0-9,]+ \+[0-9,]+ @@/@@/'; fi; }
        diff -u --color="$colour" "${labels[@]}" <(code_only "$file") <(code_only "$sol") 2>/dev/null | hunks
        # A diff without --color (not GNU diff) says 2: try again plainly.
        [ "${PIPESTATUS[0]}" -gt 1 ] && diff -u "${labels[@]}" <(code_only "$file") <(code_only "$sol") | hunks
        say ""
        say "Both pass the same tests; differences in names or in the order of independent steps are fine."
    fi
fi

# What this version changed from the previous one: the diff between the two references is that lesson.
prev=$(exercise_numbers | awk -v n="$nn" '$1 < n { p = $1 } END { print p }')
if [ -n "$prev" ] && [[ $(basename "$sol") == v[0-9]* ]] && [[ $(basename "$(solution_file "$prev")") == v[0-9]* ]]; then
    say ""
    say "What this version changed from the previous one, as the course's references have it:"
    say "    diff -u $(solution_file "$prev") $sol"
fi

next=$(exercise_numbers | awk -v n="$nn" '$1 > n { print; exit }')
if [ -n "$next" ]; then
    say ""
    say "${BOLD}What the next exercise changes${RESET} ($(exercise_dir "$next")/lesson.md, \"$(exercise_title "$next")\"):"
    say ""
    awk '/^## / { inside = ($0 ~ /^## Goal/); next } inside' "$(exercise_dir "$next")/lesson.md" |
        sed '/./,$!d' | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}' | sed 's/^/    /'
    say ""
    say "Then run \`make ex$next\`. Before you do, \`make predict ex$next\` records what you expect to change."
else
    say ""
    say "That was the last exercise. \`make check\` shows the whole course; on a GPU, \`make bench\` races every version."
fi
