#!/usr/bin/env bash
# library-gpu.sh - exercise 12 on a GPU machine, in one call, for course developers:
#   1. `make ex12` with the reference solution in place: graded on the GPU, then on the emulator;
#   2. gpu-compare's library cases (bmsk, CUB's block, warp and device reductions, Thrust's reduce,
#      transform_reduce, max_element and sort): the emulator must answer what the GPU answers;
#   3. `make bench`, then the table lesson 12 quotes (checker/bench/library_table.py): thrust::reduce, CUB
#      and exercise 11 at 2^20 and 2^28 ints and floats, the GPU's work and a caller's wait.
# Prints each step's tail and the table; every log goes to $OUT/library-logs.tgz (and bench.txt, bench.csv
# beside it). Needs .deps/ from checker/scripts/device-deps.sh where Check is not installed.
set -u
out=${OUT:-build/device}
logs=$(mktemp -d)
mkdir -p "$out"
[ -d .deps ] && export PATH="$PWD/.deps/bin:$PATH"
export NO_COLOR=1
nvidia-smi -L | tee "$logs/gpu.txt"

save() {
    cp build/gpu/bench/bench.txt build/gpu/bench/bench.csv "$logs/" 2>/dev/null
    cp build/gpu/bench/bench.txt build/gpu/bench/bench.csv "$out/" 2>/dev/null
    tar -czf "$out/library-logs.tgz" -C "$logs" .
}

# step NAME LINES COMMAND...: runs it with its output in NAME.log, prints the last LINES lines, packs the logs.
step() {
    local name=$1 lines=$2 start=$SECONDS
    shift 2
    echo "=== $name"
    "$@" >"$logs/$name.log" 2>&1
    echo "exit $? after $((SECONDS - start)) s" >>"$logs/$name.log"
    tail -n "$lines" "$logs/$name.log"
    save
}

# The learner's view of a finished exercise 12: the solution in the exercise's file, then the file put back.
grade_solution() {
    local file=exercises/12-library/ex12_library.cu
    cp "$file" "$logs/ex12_library.cu.orig"
    cp solutions/ex12_library.cu "$file"
    make --no-print-directory ex12
    local status=$?
    cp "$logs/ex12_library.cu.orig" "$file"
    return $status
}

make -s checker >"$logs/build.log" 2>&1 || { echo "the checker did not build:"; tail -n 30 "$logs/build.log"; }
step ex12-solution 45 grade_solution
step gpu-compare-library 30 env ONLY=library make --no-print-directory gpu-compare
step bench 12 make --no-print-directory bench
echo "=== the table of lesson 12"
python3 checker/bench/library_table.py build/gpu/bench/bench.txt | tee "$logs/library-table.txt"
save
