#!/usr/bin/env bash
# badinputs.sh [WORKDIR] - the learner's path (`make exNN`, i.e. checker/scripts/grade.sh) on files that are
# not wrong kernels but bad inputs: a syntax error, an empty or deleted file, a changed signature, a
# terabyte cudaMalloc, a printf flood, deep recursion, a host pointer in a kernel, an endless loop, exit().
# Each case runs in a scratch copy of its exercise (never the real exercises/ folder) and must end with
# a non-zero exit status, within its time limit, with the message its case names, in a report of bounded
# length, and with the exercise folder byte for byte as it was.
#
# A case is checker/badinputs/NAME.cu, whose first lines say what it is, which exercise grades it and
# what the report must contain:   // Bad input: ...   // exercise: NN   // expect: TEXT
# Two cases need no file: an empty exercise file and a deleted one.
#
# Prints one line per case as it ends: "ok NAME: ..." or "FAIL NAME: why"; exit status 0 when every case
# is ok. `badinputs.sh --count` prints how many cases there are, `--list` the cases one a line, and
# `--one CASE WORKDIR` runs one of them (make test runs each as one of its jobs).
# Run by `make test` (selftest.sh), which exports what the Makefile knows (BUILD, BACKEND, NVCC, ...).
set -u
. checker/scripts/lib.sh
root=$(pwd)
mode=${1:-}
case $mode in
--count | --list) work=$BUILD/$BACKEND/badinputs ;;
--one) work=$3 ;;
*) work=${1:-$BUILD/$BACKEND/badinputs} ;;
esac
mkdir -p "$work"
work=$(cd "$work" && pwd)
limit=${BADINPUT_LIMIT:-150}   # seconds a case may take (the per-test timeout is HARNESS_TIMEOUT)
# On a GPU, grade.sh runs the GPU and then the emulator, and a kernel that never returns costs a GPU test
# its whole timeout: shorter tests, a longer limit (the emulator's run still names the endless loop).
if [ "$BACKEND" = gpu ]; then
    export HARNESS_TIMEOUT=${HARNESS_TIMEOUT:-10}
    limit=${BADINPUT_LIMIT:-300}
fi
max_lines=200                  # a report longer than this is not "one clear message"
[ "$BACKEND" = gpu ] && max_lines=400   # two reports: the GPU's, then the emulator's

# The cases: NAME|NN|SOURCE (a file, or EMPTY, or DELETED)|expected text
cases() {
    if test_selects 02; then
        echo "empty_file|02|EMPTY|is missing or empty"
        echo "deleted_file|02|DELETED|has no .cu file"
    fi
    for f in checker/badinputs/*.cu; do
        [ -e "$f" ] || continue
        nn=$(sed -n 's:^// exercise\: *::p' "$f" | head -n 1)
        expect=$(sed -n 's:^// expect\: *::p' "$f" | head -n 1)
        test_selects "$nn" || continue
        echo "$(basename "$f" .cu)|$nn|$f|$expect"
    done
}

# --count: how many cases there are (make test announces the number before it runs them).
[ "$mode" = --count ] && { cases | wc -l; exit 0; }
[ "$mode" = --list ] && { cases; exit 0; }

# The exercise folder's files and their checksums: what must not change.
fingerprint() { (cd "$1" && find . -type f -print0 | sort -z | xargs -0 -r sha256sum; find . | sort); }

run_case() {
    local name=$1 nn=$2 src=$3 expect=$4
    local dir="$work/$name" exdir file rel start end rc why=""
    rel=$(scratch_copy "$dir" "$nn" "$root")
    exdir=$(exercise_dir "$nn")
    file="$dir/$rel"
    case "$src" in
    EMPTY) : >"$file" ;;
    DELETED) rm -f "$file" ;;
    *) cp "$src" "$file" ;;
    esac
    local before after
    before=$(fingerprint "$dir/$exdir")
    start=$(date +%s)
    # The compile with its two front ends side by side, as on a machine with a free core (make test's own
    # machine is busy): its messages for a file that does not compile are the ones checked here.
    (cd "$dir" && BUILD=build STATE_DIR=.state NO_COLOR=1 NVCC_SIDES=1 \
        timeout -k 10 "$limit" checker/scripts/grade.sh "$nn") >"$dir/report.txt" 2>&1 </dev/null
    rc=$?
    end=$(date +%s)
    after=$(fingerprint "$dir/$exdir")
    local lines
    lines=$(wc -l <"$dir/report.txt")
    if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then why="did not end within $limit s"
    elif [ "$rc" = 0 ]; then why="grading exited 0"
    elif [ "$before" != "$after" ]; then why="the exercise folder changed during grading"
    elif [ "$lines" -gt "$max_lines" ]; then why="the report has $lines lines (at most $max_lines)"
    elif ! tr -s ' \n' '  ' <"$dir/report.txt" | grep -qF -- "$(tr -s ' ' <<<"$expect")"; then
        why="the report lacks '$expect'"
    elif [ "$name" = syntax_error ]; then
        # nvcc's first message names the learner's file and line, before anything else it says.
        local first
        first=$(sed -n '/nvcc says:/{n;p;q}' "$dir/report.txt")
        grep -qE "^ *$rel:[0-9]+:" <<<"$first" || why="nvcc's first line does not start with $rel:LINE: ($first)"
    fi
    if [ -z "$why" ]; then
        echo "ok $name: exit $rc in $((end - start)) s, $lines lines, the file unchanged"
    else
        echo "FAIL $name: $why (report: $dir/report.txt)"
    fi
}

if [ "$mode" = --one ]; then
    IFS="|" read -r a b c d <<<"$2"
    run_case "$a" "$b" "$c" "$d" | tee "$work/$a.result"
    ! grep -q '^FAIL' "$work/$a.result"
    exit
fi
export -f run_case fingerprint exercise_dir exercise_file scratch_copy scratch_course
export work root limit max_lines
# Each case's line as it ends (make test shows them as they come).
cases | tr '\n' '\0' | xargs -0 -P "${JOBS:-2}" -I{} bash -c 'IFS="|" read -r a b c d <<<"$1"; run_case "$a" "$b" "$c" "$d"' _ {} |
    tee "$work/results"
! grep -q '^FAIL' "$work/results"
