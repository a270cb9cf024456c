#!/usr/bin/env bash
# bench-candidates.sh NN FILE... - for course developers, on a GPU machine: times candidate versions of
# exercise NN's reference, one after another, each beside the reference and CUB in the same run of
# `make bench` (as "yours"). Each candidate is graded first (`make exNN`); one that fails is not timed.
# The learner's file is restored afterwards, and .state/ is left as it was. BENCH_MAX_LOG2 caps the sizes;
# ROW names the rows to show beside CUB and the copy (default "exNN ", e.g. ROW="v6 " for exercise 07).
set -u
. checker/scripts/lib.sh
nn=$1
shift
file=$(exercise_file "$nn")
saved=$(mktemp -d)
cp "$file" "$saved/file"
[ -d "$STATE_DIR" ] && cp -r "$STATE_DIR" "$saved/state"
restore() {
    cp "$saved/file" "$file"
    rm -rf "$STATE_DIR"
    [ -d "$saved/state" ] && cp -r "$saved/state" "$STATE_DIR"
}
trap restore EXIT
for candidate in "$@"; do
    say "=== $candidate"
    cp "$candidate" "$file"
    if ! make --no-print-directory "ex$nn" >"$saved/grade.log" 2>&1; then
        say "It does not pass exercise $nn's tests:"; tail -n 15 "$saved/grade.log"; continue
    fi
    make --no-print-directory bench 2>&1 | grep -E "^n = |^=== |version|CUB|copy|^  ${ROW:-ex$nn }"
done
