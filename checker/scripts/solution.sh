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
        # A line of code longer than the terminal is broken between words, its later lines indented 4 columns
        # past its own indent, each in the line's colour: the terminal would break it anywhere.
        fit() {
            awk -v width=100 '
            { if (length($0) <= width) { print; next }
              on = ""; off = ""; body = $0
              if (match(body, /^\033\[[0-9;]*m/)) { on = substr(body, 1, RLENGTH); body = substr(body, RLENGTH + 1) }
              if (match(body, /\033\[[0-9;]*m$/)) { off = substr(body, RSTART); body = substr(body, 1, RSTART - 1) }
              match(body, /^[-+ ]? */); hang = sprintf("%*s", RLENGTH + 4, ""); first = 1
              while (length(body) > width) {
                  cut = width; while (cut > RLENGTH + 4 && substr(body, cut + 1, 1) != " ") cut--
                  if (cut <= RLENGTH + 4) cut = width   # one word longer than the line: cut it
                  print on substr(body, 1, cut) off
                  body = substr(body, cut + 1); sub(/^ +/, "", body); body = hang body
              }
              print on body off }'
        }
        diff -u --color="$colour" "${labels[@]}" <(code_only "$file") <(code_only "$sol") 2>/dev/null | hunks | fit
        # A diff without --color (not GNU diff) says 2: try again plainly.
        [ "${PIPESTATUS[0]}" -gt 1 ] && diff -u "${labels[@]}" <(code_only "$file") <(code_only "$sol") | hunks | fit
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
    # The section's paragraphs and list items, joined and wrapped again 4 columns in (the lesson's own
    # lines are 100 columns wide already); a code block as it is, 4 columns in where it fits, else less.
    awk -v section="$(lesson_section "$next_lesson" "## Goal")" '/^## / { inside = ($0 == section); next } inside' \
        "$next_lesson" |
        sed '/./,$!d' | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}' |
        awk 'function flush() { if (para != "") print "P\037" hang "\037" para; para = "" }
             function block(   i, in_) {
                 in_ = 100 - widest; if (in_ > 4) in_ = 4; if (in_ < 0) in_ = 0
                 for (i = 1; i <= lines; i++) print "C\037" in_ "\037" kept[i]
                 lines = widest = 0 }
             /^```/ { flush(); kept[++lines] = $0; if (length($0) > widest) widest = length($0)
                      if (code) block(); code = !code; next }
             code { kept[++lines] = $0; if (length($0) > widest) widest = length($0); next }
             /^[ \t]*$/ { flush(); print "C\0370\037"; next }
             /^([0-9]+\.|-) / || /^#/ { flush(); para = $0; match($0, /^([0-9]+\.|-) /); hang = 4 + RLENGTH; next }
             { sub(/^ +/, ""); para = para == "" ? $0 : para " " $0; if (hang == "" || para == $0) hang = 4 }
             END { flush(); if (lines) block() }' |
        while IFS=$'\037' read -r kind hang text; do
            if [ "$kind" = P ]; then printf '    %s\n' "$text" | wrap_to 100 "$hang"
            elif [ -z "$text" ]; then echo
            else printf '%*s%s\n' "$hang" "" "$text"; fi
        done
    say ""
    sayf 'Then run `make ex%s`. Before you do, `make predict ex%s` records what you expect to change.' "$next" "$next"
else
    say ""
    sayf 'That was the last exercise. `make check` shows the whole course; on a GPU, `make bench` races every version.'
fi
