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
    sayf 'The reference solution of exercise %s opens once your own version passes: run `make ex%s` until every test is green. Until then, `make hint ex%s` gives a hint, one question at a time.' "$nn" "$nn" "$nn"
    exit 2
fi

say "$(joined "$BOLD$(textf 'Exercise %s is done.' "$nn")$RESET" "$(textf 'The reference solution is %s.' "$sol")")"
say ""
if [ -z "$file" ] || [ ! -f "$file" ]; then
    sayf 'Your file is missing from %s, so there is nothing to compare; `make reset ex%s` brings the starting file back.' "$dir" "$nn"
elif cmp -s "$file" "$sol"; then
    sayf 'Your %s is identical to it.' "$file"
else
    # Comment-only lines are left out (the reference's comments would bury the code); ALL=1 keeps them.
    code_only() {
        if [ -n "${ALL:-}" ]; then cat "$1"
        else sed -e '/^[[:space:]]*\/\//d' -e '/^[[:space:]]*\/\*.*\*\/[[:space:]]*$/d' -e '/^[[:space:]]*$/d' "$1"; fi
    }
    if [ -z "${ALL:-}" ] && diff -q <(code_only "$file") <(code_only "$sol") >/dev/null; then
        sayf 'Your %s has the same code as the reference; only comments or blank lines differ.' "$file"
    else
        if [ -n "${ALL:-}" ]; then
            sayf "How it differs from yours, every line (lines with - are yours, + the reference's):"
        else
            sayf "How its code differs from yours (lines with - are yours, + the reference's; comment lines are left out: \`make solution ex%s ALL=1\` shows them too):" "$nn"
        fi
        say ""
        colour=never
        [ -n "$GREEN" ] && colour=always
        labels=(--label "$(textf 'yours: %s' "$file")" --label "$(textf 'reference: %s' "$sol")")
        # Without the comment lines, a hunk's line numbers are not the file's: they are left out.
        hunks() { if [ -n "${ALL:-}" ]; then cat; else sed -E 's/@@ -[0-9,]+ \+[0-9,]+ @@/@@/'; fi; }
        diff -u --color="$colour" "${labels[@]}" <(code_only "$file") <(code_only "$sol") 2>/dev/null | hunks
        # A diff without --color (not GNU diff) says 2: try again plainly.
        [ "${PIPESTATUS[0]}" -gt 1 ] && diff -u "${labels[@]}" <(code_only "$file") <(code_only "$sol") | hunks
        say ""
        sayf 'Both pass the same tests; differences in names or in the order of independent steps are fine.'
    fi
fi

# What this version changed from the previous one: the diff between the two references is that lesson.
prev=$(exercise_numbers | awk -v n="$nn" '$1 < n { p = $1 } END { print p }')
if [ -n "$prev" ] && [[ $(basename "$sol") == v[0-9]* ]] && [[ $(basename "$(solution_file "$prev")") == v[0-9]* ]]; then
    say ""
    sayf "What this version changed from the previous one, as the course's references have it:"
    say "    diff -u $(solution_file "$prev") $sol"
fi

next=$(exercise_numbers | awk -v n="$nn" '$1 > n { print; exit }')
if [ -n "$next" ]; then
    say ""
    next_lesson=$(exercise_lesson "$next")
    say "$(joined "$BOLD$(textf 'What the next exercise changes')$RESET" \
        "$(textf '(%s, "%s"):' "$next_lesson" "$(exercise_title "$next")")")"
    say ""
    awk -v section="$(lesson_section "$next_lesson" "## Goal")" '/^## / { inside = ($0 == section); next } inside' \
        "$next_lesson" |
        sed '/./,$!d' | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}' | sed 's/^/    /'
    say ""
    sayf 'Then run `make ex%s`. Before you do, `make predict ex%s` records what you expect to change.' "$next" "$next"
else
    say ""
    sayf 'That was the last exercise. `make check` shows the whole course; on a GPU, `make bench` races every version.'
fi
