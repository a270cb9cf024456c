#!/usr/bin/env bash
# batch-check.sh [WORKDIR] - make test's check of the batch workers (checker/harness/harness_batch.c), which run
# a learner's tests on a GPU a few to a process: each kernel below, graded by its suite with the workers and
# without them (each test in its own process, as make test and the emulator run them), must get the same
# verdict and the same message in every test. The kernels pass, fail in the middle of a suite, crash the host
# code, exit, run out of memory, never end and flood the output. On the emulator, also on a GPU machine: its
# verdicts are the same at every run, where a GPU's racing kernel may give another sum each time (the
# workers' CUDA calls are the emulator's there, the same calls).
# And in warm processes (checker/harness/warm.h): the workers are `warm-run serve` processes started before
# the suite, which run its shared object, as a GPU's grade runs them; the same verdicts again.
# A test that the emulator stops at once because an earlier test found its kernel never ends ("not run
# again") is left out: a worker does not share that memory (its run, alone, is the same either way).
set -u
. checker/scripts/lib.sh
work=${1:-$BUILD/emu/batch-check}
rm -rf "$work"
mkdir -p "$work"
export SEED=20261129 HARNESS_TIMEOUT=10 NO_COLOR=1 COURSE_LANG=en
kernels=(
    solutions/ex13_half_allreduce.cu
    checker/badinputs/exit_in_launcher.cu
    checker/badinputs/host_pointer.cu
    checker/badinputs/deep_recursion.cu
    checker/badinputs/huge_malloc.cu
    checker/badinputs/endless_loop.cu
    checker/badinputs/printf_flood.cu
    checker/corpus/ex02/forgot_sync_in_loop.patch
    checker/corpus/ex03/strided_index.patch
    checker/corpus/ex14/combine_adds_sums.patch
    checker/corpus/ex16/dispatch_counts_packs.patch
)
# A verdicts file (--results) without the times and the addresses, which differ from run to run.
verdicts() { awk -F'\t' -v OFS='\t' '$1 == "test" && $4 !~ /not-run=1/ { $3 = ""; print }' "$1" |
                 sed -E 's/0x[0-9a-f]{6,}/ADDRESS/g; s/[0-9]+\.[0-9]+ s\b/N s/g'; }
same=0 failed=0
for kernel in "${kernels[@]}"; do
    name=$(basename "$kernel" | sed 's/\.[a-z]*$//')
    case $kernel in
    # Where make test and make show write the same kernel (corpus_source): whichever job compiles it first, the
    # other finds the object in the cache.
    *.patch) nn=$(basename "$(dirname "$kernel")" | sed 's/^ex//'); src=$(corpus_source "$kernel")
             corpus_apply "$kernel" "$src" || { echo "$kernel no longer applies"; failed=$((failed + 1)); continue; } ;;
    checker/badinputs/*) nn=$(sed -n 's:^// exercise\: *::p' "$kernel" | head -n 1); src=$kernel ;;
    *) nn=$(basename "$kernel" | sed -E 's/^ex([0-9]+).*/\1/'); src=$kernel ;;
    esac
    out="$work/$name"
    if ! SUITE_SHARED=1 checker/scripts/build-suite.sh "$nn" "$src" "$out" emu >/dev/null 2>&1 || [ ! -f "$out/suite.so" ]; then
        echo "$kernel does not build (log: $out/build.log)"; failed=$((failed + 1)); continue
    fi
    HARNESS_BATCH=0 HARNESS_JOBS=1 timeout 600 "$out/suite" --results "$out/alone" >"$out/alone.txt" 2>&1
    alone=$?
    HARNESS_BATCH=1 HARNESS_JOBS=4 timeout 600 "$out/suite" --results "$out/batch" >"$out/batch.txt" 2>&1
    batch=$?
    mkdir -p "$out/warm"
    servers=()
    for k in 0 1 2 3; do
        "$BUILD/bin/warm-run" serve "$out/warm/worker.$k" 60 </dev/null >/dev/null 2>&1 &
        servers+=($!)
    done
    # Listening before the suite starts, as they are in a grade (started before the compile).
    for _ in $(seq 100); do
        [ -S "$out/warm/worker.0" ] && [ -S "$out/warm/worker.3" ] && break
        sleep 0.05
    done
    HARNESS_WARM_DIR="$out/warm" HARNESS_BATCH=1 HARNESS_JOBS=4 timeout 600 "$out/suite" --results "$out/warm.res" \
        >"$out/warm.txt" 2>&1
    warm=$?
    # A warm process took the first worker's job (it removes its socket then): else the runner forked them all.
    [ -e "$out/warm/worker.0" ] && warm="none taken"
    kill "${servers[@]}" 2>/dev/null
    wait "${servers[@]}" 2>/dev/null
    if [ "$alone" = "$batch" ] && [ "$alone" = "$warm" ] && [ -s "$out/alone" ] &&
            diff <(verdicts "$out/alone") <(verdicts "$out/batch") >"$out/diff" &&
            diff <(verdicts "$out/alone") <(verdicts "$out/warm.res") >"$out/diff"; then
        same=$((same + 1))
    else
        echo "$kernel: not the same in batch workers (exit status $alone alone, $batch there, $warm in warm processes): $out/diff"
        failed=$((failed + 1))
    fi
done
echo "$same of ${#kernels[@]} kernels get the verdicts they get alone, in batch workers and in warm processes"
[ $failed = 0 ]
