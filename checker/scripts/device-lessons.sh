#!/usr/bin/env bash
# device-lessons.sh - for course developers, on a GPU machine, in one call: every number the lessons quote
# that `make bench` does not print.
#   1. times the candidate kernels of checker/bench/candidates/ (patches of the reference solutions) beside
#      the references they change, at 2^20 and 2^28 elements (candidates.cu, make bench's method): the
#      ladder, exercise 07 one change at a time, exercise 08's ways to one total, exercise 09's kernels;
#   2. asks what the runtime answers to launches with too much dynamic shared memory;
#   3. profiles the versions once each at 2^26 ints with Nsight Compute (time, DRAM throughput, occupancy,
#      issue activity, why warps stall, predicated-off lanes, shared-memory wavefronts, reductions to L2);
#   4. compares the lessons' SASS boxes with this machine's nvcc (checker/scripts/sass.sh --check).
# Everything it prints and every log goes to $OUT (build/device-lessons without it): summary.txt and
# logs.tgz. The short tables come last.
#   checker/scripts/device-lessons.sh              all of it (needs a GPU, and ncu for step 3)
#   checker/scripts/device-lessons.sh --emu-only   builds for the emulator and runs steps 1 and 2 there at
#                                                  small sizes, checking every result (no GPU, no timing)
#   checker/scripts/device-lessons.sh --build-only builds the GPU program (sm_90 where there is no GPU)
#                                                  into build/gpu/device-lessons/ and stops: build it here,
#   checker/scripts/device-lessons.sh --prebuilt   then carry that folder to the GPU machine and run it
#                                                  there without building (minutes of GPU time saved)
set -u
cd "$(dirname "$0")/../.."
. checker/scripts/lib.sh
# The build settings (GPU_NVCCFLAGS, EMU_LDFLAGS...) come from the Makefile: run under make when they are
# missing.
if [ -z "${GPU_NVCCFLAGS:-}" ]; then
    exec make -s --no-print-directory --eval "device-lessons-env: ; @checker/scripts/device-lessons.sh $*" device-lessons-env
fi
backend=gpu mode=${1:-all}
[ "$mode" = --emu-only ] && backend=emu
out=${OUT:-$BUILD/device-lessons}
logs=$(mktemp -d)
work="$BUILD/$backend/device-lessons"
if [ "$mode" = --prebuilt ] && [ ! -x "$work/candidates" ]; then
    say "--prebuilt: $work/candidates is missing: run device-lessons.sh --build-only first, and carry $work."
    exit 2
fi
[ "$mode" = --prebuilt ] || rm -rf "$work"
mkdir -p "$out" "$work"
[ -d .deps ] && export PATH="$PWD/.deps/bin:$PATH"
export NO_COLOR=1

pack() { tar -czf "$out/logs.tgz" -C "$logs" . 2>/dev/null; }

# ---- Build: make bench's reference objects, the candidates, and candidates.cu ------------------------------

# The exercise whose contract FILE implements: a reference solution's, or the exNN folder it sits in.
exercise_of() {
    local nn
    case $1 in */ex[0-9][0-9]/*) echo "$1" | sed 's:.*/ex\([0-9][0-9]\)/.*:\1:'; return ;; esac
    [ "$1" = solutions/v2_strided_index.cu ] && { echo 03; return; }
    for nn in $(exercise_numbers); do [ "$(solution_file "$nn")" = "$1" ] && { echo "$nn"; return; }; done
}

build() {
    local flags objects=() entry name prefix base nn obj
    flags=$(program_nvcc_flags "$backend")
    checker/scripts/bench.sh --build "$backend" || return 1
    objects=("$BUILD/$backend"/bench/ref_*.o "$BUILD/$backend"/bench/flt_*.o)
    # Exercise 09's reference (make bench does not time it), exercise 08's last-block-done kernel, and each
    # candidate: its patch applied to its reference. Each is compiled with its exercise's contract, and its
    # functions are renamed: ref_<function>, or <candidate>_<function>.
    for entry in ref_:solutions/ex09_beyond_sum.cu ex08_last_block_done_:checker/unusual/ex08/last_block_done.cu \
                 checker/bench/candidates/*.patch; do
        case $entry in
        *.patch)
            name=$(basename "$entry" .patch) prefix=$(basename "$entry" .patch)_ base=$(corpus_base "$entry")
            corpus_apply "$entry" "$work/$name.cu" || return 1 ;;
        *)
            prefix=${entry%%:*} base=${entry#*:} name=$(basename "${entry#*:}" .cu)
            cp "$base" "$work/$name.cu" ;;
        esac
        nn=$(exercise_of "$base")
        obj="$work/$name.o"
        $NVCC $flags -include "checker/contracts/ex$nn.h" -c "$work/$name.cu" -o "$obj" &&
            localize_object "$obj" "$nn" "$prefix" || return 1
        objects+=("$obj")
    done
    if [ "$backend" = emu ]; then
        $NVCC $flags -DBENCH_NO_CUB -c checker/bench/candidates/candidates.cu -o "$work/main.o" &&
            $CC "$work/main.o" "${objects[@]}" $EMU_LDFLAGS -o "$work/candidates"
    else
        $NVCC $flags -I"$CUDA_HOME/include/cccl" checker/bench/candidates/candidates.cu "${objects[@]}" \
            -o "$work/candidates"
    fi
}

{
    echo "=== device-lessons.sh on $backend, $(date -u +%Y-%m-%dT%H:%MZ)"
    [ $backend = gpu ] && [ "$mode" != --build-only ] && nvidia-smi -L
    $NVCC --version | tail -n 2
} 2>&1 | tee "$logs/summary.txt"
if [ "$mode" != --prebuilt ] && ! build >"$logs/build.log" 2>&1; then
    say "The candidates did not build:"; tail -n 25 "$logs/build.log"
    pack
    exit 1
fi
if [ "$mode" = --build-only ]; then
    say "Built $work/candidates; run \`checker/scripts/device-lessons.sh --prebuilt\` on the GPU machine."
    exit 0
fi

if [ $backend = emu ]; then
    # Every row once, checked, at 2^10 and 2^14: the candidates are right before anyone times them.
    EMU_QUIET=1 "$work/candidates" 10 14 --check 2>&1 | tee -a "$logs/summary.txt"
    status=${PIPESTATUS[0]}
    say "--- what the emulator answers to too much dynamic shared memory (the GPU's answers: a GPU run)"
    EMU_QUIET=1 "$work/candidates" --smem 2>&1 | tee -a "$logs/summary.txt"
    cp "$logs/summary.txt" "$out/"
    pack
    exit "$status"
fi

# ---- On the GPU -----------------------------------------------------------------------------------------
say "Timing the candidates (a few minutes)..."
"$work/candidates" 20 28 "$logs/candidates.csv" >"$logs/timings.txt" 2>&1
echo "exit $?" >>"$logs/timings.txt"
"$work/candidates" --smem >"$logs/smem.txt" 2>&1
pack

ncu=$(command -v ncu || ls -d /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -n 1)
if [ -n "$ncu" ]; then
    "$ncu" --version >"$logs/ncu-version.txt" 2>&1
    "$work/candidates" --profile 26 >"$logs/profile-order.txt" 2>&1
    # One ncu run per group, so that a metric this ncu does not know costs its group only.
    groups="speed:gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum
stalls:smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_wait_per_issue_active.ratio
lanes:smsp__thread_inst_executed.sum,smsp__thread_inst_executed_pred_on.sum,smsp__inst_executed_op_shared_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum
atomics:smsp__inst_executed_op_global_red.sum,lts__t_requests_srcunit_tex_op_red.sum"
    while IFS=: read -r group metrics; do
        say "Profiling ($group)..."
        "$ncu" --metrics "$metrics" --csv --print-units base -k regex:reduce_ --log-file "$logs/ncu-$group.csv" \
            "$work/candidates" --profile 26 >"$logs/ncu-$group.stdout" 2>&1
        echo "exit $?" >>"$logs/ncu-$group.stdout"
        pack
    done <<<"$groups"
    python3 checker/bench/candidates/ncu_summary.py "$logs/profile-order.txt" "$logs"/ncu-*.csv \
        >"$logs/profile.txt" 2>&1
else
    say "ncu (Nsight Compute) is not on this machine: no profiles." >"$logs/profile.txt"
fi
checker/scripts/sass.sh --check >"$logs/sass-check.txt" 2>&1

# ---- The short tables, last ---------------------------------------------------------------------------------
{
    cat "$logs/timings.txt"
    echo; cat "$logs/smem.txt"
    echo; cat "$logs/profile.txt"
    echo; tail -n 3 "$logs/sass-check.txt"
} | tee -a "$logs/summary.txt"
cp "$logs/summary.txt" "$out/"
pack
