#!/usr/bin/env bash
# check-all.sh - grades every exercise quietly and prints one line each, then a progress bar.
set -u
. checker/scripts/lib.sh

done_count=0 total=0
printf '%s  %-4s %-58s %-7s %s%s\n' "$BOLD" ex exercise tests state "$RESET"
for nn in $(exercise_numbers); do
    total=$((total + 1))
    file=$(exercise_file "$nn")
    out="$BUILD/$BACKEND/learner/ex$nn"
    title=$(exercise_title "$nn" | cut -c1-58)
    if ! checker/scripts/build-suite.sh "$nn" "$file" "$out" >/dev/null 2>&1; then
        printf '  %-4s %-58s %-7s %s\n' "$nn" "$title" "-" "${RED}does not compile${RESET}"
        checker/scripts/progress.sh record "$nn" failing
        continue
    fi
    result=$(timeout 1800 "$out/suite" --summary 2>/dev/null | grep '^RESULT ' | tail -n 1)
    passed=$(sed -n 's/.*passed=\([0-9]*\).*/\1/p' <<<"$result")
    failed=$(sed -n 's/.*failed=\([0-9]*\).*/\1/p' <<<"$result")
    skipped=$(sed -n 's/.*skipped=\([0-9]*\).*/\1/p' <<<"$result")
    passed=${passed:-0} failed=${failed:-1} skipped=${skipped:-0}
    tests="$passed/$((passed + failed))"
    if [ "$failed" = 0 ] && [ "$skipped" = 0 ]; then
        state="${GREEN}✓ done${RESET}"; done_count=$((done_count + 1))
        checker/scripts/progress.sh record "$nn" done
    elif [ "$failed" = 0 ]; then
        state="${DIM}not graded: no device ran its kernels${RESET}"
    elif [ "$passed" = 0 ]; then
        state="not started"
        checker/scripts/progress.sh record "$nn" failing
    else
        state="in progress"
        checker/scripts/progress.sh record "$nn" failing
    fi
    printf '  %-4s %-58s %-7s %s\n' "$nn" "$title" "$tests" "$state"
done

width=33 filled=$((done_count * 33 / (total > 0 ? total : 1)))
bar=$(printf '%*s' "$filled" '' | tr ' ' '#')$(printf '%*s' $((width - filled)) '' | tr ' ' '.')
say ""
say "Progress: [$bar] $done_count of $total exercises done."
first=$(for nn in $(exercise_numbers); do
    [ "$(checker/scripts/progress.sh state "$nn")" = done ] || { echo "$nn"; break; }
done)
if [ -n "$first" ]; then
    say "Next: \`make ex$first\` ($(exercise_dir "$first")/lesson.md)."
    exit 1
fi
say "${GREEN}Every exercise is done.${RESET}"
