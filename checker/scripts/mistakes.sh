#!/usr/bin/env bash
# mistakes.sh [WORKDIR] - realistic mistakes, graded as a learner meets them: each corpus entry whose
# header has "# report-..." lines is applied to its reference solution in a scratch copy of the exercise
# (never the real exercises/ folder), graded by checker/scripts/grade.sh (what `make exNN` runs) with
# NO_COLOR=1, and its report is checked against the entry's header:
#   # expect: TEXT        the report contains TEXT (may repeat)
#   # report-lines: N     the report has at most N lines (default 40: one bug, one screen)
#   # report-once: TEXT   TEXT appears exactly once (a finding described once, whatever fails after)
#   # report-at: PLACE    the report names PLACE (file:line, relative to the repository)
#   # report-not: TEXT    the report does not contain TEXT (the misleading words)
#   # report-seconds: N   the grade ends within N seconds (default 20)
#   # report-hint: K      `make hint` then starts at hint K of the lesson (after the failure's own question)
#   # needs: WORK         the report depends on work not merged yet: the entry is shown as waiting
# Every report must also have no line wider than 100 columns. Texts are compared with runs of spaces and
# line breaks made one space (the report wraps long lines). On a GPU the report is one too (the GPU's
# verdicts beside the emulator's), held to the same number of lines; a test that never ends waits its
# whole (shorter) timeout there, so the seconds are half as many again, plus 30 s.
#
# Prints one line per entry as it ends: "ok NAME: ...", "FAIL NAME: why", or "WAIT NAME: why" for an
# entry marked "# needs:". Exit status 0 when no entry failed.
#   mistakes.sh --count     how many entries there are
#   mistakes.sh --list      the entries, one a line
#   mistakes.sh --one ENTRY WORKDIR   grades that one (make test runs each as one of its jobs)
#   mistakes.sh --waiting   the entries marked "# needs:", one a line, with what they wait for
set -u
. checker/scripts/lib.sh
root=$(pwd)

# The entries: corpus patches with at least one "# report-" line in their header (the lines before the diff's
# "--- ", as corpus_header reads them), in one pass: make test lists them before its jobs start.
entries() {
    local f nn selected=()
    for f in checker/corpus/ex*/*.patch; do
        nn=${f#checker/corpus/ex}
        [ -e "$f" ] && test_selects "${nn%%/*}" && selected+=("$f")
    done
    [ ${#selected[@]} = 0 ] ||
        awk 'FNR == 1 { header = 1 } /^--- / { header = 0 }
             header && /^# report-[a-z]*(:|$)/ { print FILENAME; header = 0 }' "${selected[@]}"
    return 0
}

case "${1:-}" in
--count) entries | wc -l; exit 0 ;;
--list) entries; exit 0 ;;
--waiting)
    for f in $(entries); do
        needs=$(corpus_header "$f" needs | paste -sd, -)
        [ -n "$needs" ] && echo "$f needs $needs"
    done
    exit 0 ;;
esac
if [ "$BACKEND" = gpu ]; then export HARNESS_TIMEOUT=${HARNESS_TIMEOUT:-10}; fi
work=${1:-$BUILD/$BACKEND/mistakes}
[ "$work" = --one ] && work=$3
mkdir -p "$work"
work=$(cd "$work" && pwd)

# squeeze: every run of spaces and line breaks made one space.
squeeze() { tr -s ' \n' '  ' | sed 's/^ //; s/ $//'; }

run_entry() {
    local entry=$1 nn name dir rel file report start end rc why="" lines width needs
    nn=$(basename "$(dirname "$entry")" | sed 's/^ex//')
    name="ex$nn/$(basename "$entry" .patch)"
    dir="$work/$(basename "$(dirname "$entry")")-$(basename "$entry" .patch)"
    rel=$(scratch_copy "$dir" "$nn" "$root")
    file="$dir/$rel"
    if ! corpus_apply "$entry" "$file" 2>"$dir.apply"; then
        echo "FAIL $name: $(head -n 1 "$dir.apply")"
        return
    fi
    report="$dir/report.txt"
    local limit
    limit=$(corpus_header "$entry" report-seconds | head -n 1)
    limit=${limit:-20}
    [ "$BACKEND" = gpu ] && limit=$((limit * 3 / 2 + 30))
    local seconds seed="" busy="" try
    # A grade slower than its limit is graded once more with the same seed: a machine busy with other work
    # (make test's other jobs, a CI neighbour) says nothing about the report; slow twice is a failure.
    for try in 1 2; do
        start=$(date +%s.%N)
        (cd "$dir" && env ${seed:+SEED=$seed} BUILD=build STATE_DIR=.state NO_COLOR=1 timeout -k 5 120 \
            checker/scripts/grade.sh "$nn") >"$report" 2>&1 </dev/null
        rc=$?
        end=$(date +%s.%N)
        seconds=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }')
        [ "$rc" -lt 124 ] && awk -v s="$seconds" -v l="$limit" 'BEGIN { exit !(s <= l) }' && break
        seed=$(grep -o 'SEED=[0-9]*' "$report" | head -n 1 | cut -d= -f2)
        [ "$try" = 1 ] && busy=" (the first try took $seconds s)"
    done
    lines=$(wc -l <"$report")
    width=$(wc -L <"$report")
    local max_lines
    max_lines=$(corpus_header "$entry" report-lines | head -n 1)
    max_lines=${max_lines:-40}
    local text flat
    flat=$(squeeze <"$report")
    if [ "$rc" = 0 ]; then why="the grade passed"
    elif [ "$rc" -ge 124 ]; then why="the grade did not end within 120 s"
    elif [ "$lines" -gt "$max_lines" ]; then why="the report has $lines lines (at most $max_lines)"
    elif [ "$width" -gt 100 ]; then why="a line of the report is $width columns wide (at most 100)"
    elif awk -v s="$seconds" -v l="$limit" 'BEGIN { exit !(s > l) }'; then why="the grade took $seconds s (at most $limit)"
    fi
    while [ -z "$why" ] && IFS= read -r text; do
        grep -qF -- "$(squeeze <<<"$text")" <<<"$flat" || why="the report lacks '$text'"
    done < <(corpus_header "$entry" expect; corpus_header "$entry" report-at)
    while [ -z "$why" ] && IFS= read -r text; do
        local times
        times=$(grep -oF -- "$(squeeze <<<"$text")" <<<"$flat" | wc -l)
        [ "$times" = 1 ] || why="'$text' appears $times times in the report (once expected)"
    done < <(corpus_header "$entry" report-once)
    while [ -z "$why" ] && IFS= read -r text; do
        grep -qF -- "$(squeeze <<<"$text")" <<<"$flat" && why="the report says '$text'"
    done < <(corpus_header "$entry" report-not)
    local hint
    hint=$(corpus_header "$entry" report-hint | head -n 1)
    if [ -z "$why" ] && [ -n "$hint" ]; then
        (cd "$dir" && BUILD=build STATE_DIR=.state NO_COLOR=1 checker/scripts/hint.sh "$nn") >"$dir/hint.txt" 2>&1
        # (after the failure's own question, when make hint shows that first: "... again gives hint K of N")
        grep -q -e "^Hint $hint of " -e "again gives hint $hint of " "$dir/hint.txt" ||
            why="make hint starts at $(grep -o '^Hint [0-9]* of [0-9]*' "$dir/hint.txt" || echo nothing), not hint $hint"
    fi
    needs=$(corpus_header "$entry" needs | paste -sd, -)
    if [ -n "$needs" ]; then
        echo "WAIT $name: needs ${needs%% *} (${why:-its report is right already})"
    elif [ -n "$why" ]; then
        echo "FAIL $name: $why (report: $report)"
    else
        echo "ok $name: $lines lines, $seconds s$busy, the finding and its place said as they should be"
    fi
}

if [ "${1:-}" = --one ]; then
    result=$(run_entry "$2")
    echo "$result"
    [ "${result#FAIL}" = "$result" ]
    exit
fi
export -f run_entry squeeze scratch_copy scratch_course corpus_header corpus_base corpus_apply exercise_dir exercise_file
export work root
entries | xargs -r -P "${JOBS:-2}" -I{} bash -c 'run_entry "$1"' _ {} | tee "$work/results"
! grep -q '^FAIL' "$work/results"
