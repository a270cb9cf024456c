#!/usr/bin/env bash
# device-check.sh STEP... - what the course verifies on a GPU machine, in as few calls as possible.
# Steps: test (make test on the GPU and the emulator), report (make ex05 as a skeleton, as the solution and
# with a missing __syncthreads(); make ex02 and ex01 with two of the corpus's realistic mistakes), bench
# (make bench), compare (GPU vs emulator answers), ncu (emulator metrics vs Nsight Compute), sass (the SASS
# of exercise 01's atomics on ints and floats, by checker/scripts/sass.sh), part3 (exercises 13 to 15: each
# reference graded on the GPU, gpu-compare's 16-bit and approximate instructions, make bench's row-wise
# table beside PyTorch), part4 (exercises 17 to 19: each reference graded on the GPUs, and make bench's
# all-reduces beside NCCL, the sums' tables at 2^20 only). Needs .deps/ from
# checker/scripts/device-deps.sh where Check is not installed.
# Each step's whole log goes to $OUT/logs.tgz (the device tool brings $OUT back); its tail is printed.
set -u
out=${OUT:-build/device}
logs=$(mktemp -d)
mkdir -p "$out"
[ -d .deps ] && export PATH="$PWD/.deps/bin:$PATH"
nvidia-smi -L | tee "$logs/gpu.txt"
export NO_COLOR=1

step() {
    local name=$1 lines=$2
    shift 2
    echo "=== $name"
    local start=$SECONDS
    "$@" >"$logs/$name.log" 2>&1
    echo "exit $? after $((SECONDS - start)) s" >>"$logs/$name.log"
    tail -n "$lines" "$logs/$name.log"
    save
}

# Packs the logs so far into $OUT/logs.tgz: after every step, so a run cut short still brings back its
# finished steps.
save() {
    cp build/gpu/bench/bench.png build/gpu/bench/bench.csv build/gpu/bench/bench.txt "$out/" 2>/dev/null
    cp build/gpu/bench/bench.csv build/gpu/bench/bench.txt "$logs/" 2>/dev/null
    cp build/gpu/bench/rows.csv build/gpu/bench/rows_torch.txt "$logs/" 2>/dev/null
    cp build/gpu/bench/allreduce.png build/gpu/bench/allreduce.csv build/gpu/bench/allreduce.txt "$out/" 2>/dev/null
    cp build/gpu/bench/allreduce.csv build/gpu/bench/allreduce.txt "$logs/" 2>/dev/null
    tar -czf "$out/logs.tgz" -C "$logs" .
}

# The exercise 05 report with the learner's file in three states (this machine's copy of the tree only).
report() {
    local file=exercises/05-last-warp/v4_unroll_last_warp.cu
    echo "----- skeleton"; make --no-print-directory ex05
    cp solutions/v4_unroll_last_warp.cu "$file"
    echo "----- solution"; make --no-print-directory ex05
    sed '0,/__syncthreads();/s//\/\/ (the barrier after the load is missing)/' solutions/v4_unroll_last_warp.cu >"$file"
    echo "----- missing __syncthreads() after the load"; make --no-print-directory ex05
    git checkout -q -- "$file" 2>/dev/null || true
    # Realistic mistakes as a learner meets them on a GPU: the GPU's report, then the emulator's.
    . checker/scripts/lib.sh
    local entry target
    for entry in checker/corpus/ex02/forgot_sync_in_loop.patch checker/corpus/ex01/no_index_check.patch; do
        target=$(exercise_file "$(basename "$(dirname "$entry")" | sed 's/^ex//')")
        corpus_apply "$entry" "$target" || continue
        echo "----- $entry"; make --no-print-directory "$(basename "$(dirname "$entry")")"
        # The same, in Chinese: the GPU's name, the second opinion and the findings through the catalog.
        [ "$entry" = checker/corpus/ex02/forgot_sync_in_loop.patch ] &&
            echo "----- $entry (COURSE_LANG=zh)" && COURSE_LANG=zh make --no-print-directory ex02
        git checkout -q -- "$target" 2>/dev/null || true
    done
}

# references_graded NN...: each exercise's reference solution graded on this machine's GPUs.
references_graded() {
    local nn
    for nn in "$@"; do
        echo "----- solution of exercise $nn on the GPU"
        make --no-print-directory grade-file EX="$nn" FILE="$(ls solutions/ex"${nn}"_*.cu)"
    done
}

# Part III on the GPU: each reference solution graded (the emulator-only tests are skipped there), the
# emulator's 16-bit and approximate instructions against the GPU's, and the row-wise bench (the sums'
# tables at 2^20 only, to save time) with PyTorch beside it.
part3() {
    references_graded 13 14 15
    echo "----- gpu-compare, the half group"
    ONLY=half make --no-print-directory gpu-compare
    echo "----- bench"
    BENCH_MAX_LOG2=20 make --no-print-directory bench
}

# Part IV on the GPUs: each reference solution graded, then make bench, whose all-reduces are timed on every
# GPU and on 2 of them beside NCCL (the sums' tables at 2^20 only, to save time).
part4() {
    references_graded 17 18 19
    echo "----- bench"
    BENCH_MAX_LOG2=20 make --no-print-directory bench
}

# The scripts' own files go into the archive too: the device tool brings back only a few files.
export OUT="$logs/files"
mkdir -p "$OUT"
make -s checker >"$logs/build.log" 2>&1 || { echo "the checker did not build:"; tail -n 30 "$logs/build.log"; }
for s in "$@"; do
    case $s in
    test) step make-test 12 make --no-print-directory test ;;
    report) step report-ex05 0 report ;;
    bench) step bench 30 make --no-print-directory bench ;;
    compare) step gpu-compare 40 make --no-print-directory gpu-compare ;;
    ncu) step ncu-compare 60 make --no-print-directory ncu-compare ;;
    sass) step atomics-sass 40 bash -c 'checker/scripts/sass.sh atomic-int; checker/scripts/sass.sh atomic-float' ;;
    part3) step part3 80 part3 ;;
    part4) step part4 80 part4 ;;
    *) echo "device-check: unknown step $s" ;;
    esac
done
save
