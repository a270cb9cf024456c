#!/usr/bin/env bash
# ncu_compare.sh - `make ncu-compare`: the emulator's metrics beside Nsight Compute's, for v1 to v6.
#
# Builds checker/gpu/metrics_runner.cu with the reference kernels v1, v2 (strided index), v2, v3, v4, v5, v6
# for the GPU and for the emulator; runs the GPU build under `ncu --metrics ... --csv` and the emulator
# build with the GPU's multiprocessor count (so v6 launches the same grid); prints one table per metric
# (ncu_table.py): emulator | ncu | ratio, the ratios to v1 for both, and a verdict per row.
#
#   checker/gpu/ncu_compare.sh              everything (needs a GPU and ncu with access to its counters)
#   checker/gpu/ncu_compare.sh --emu-only   build both, run the emulator half, print its metrics only
#
# Results go to $BUILD/ncu-verify/ (and to $OUT/ncu-compare/ when OUT is set). Exit status 0 when global
# requests and sectors match exactly and no row says "differs" for the metrics that must match.
set -u
cd "$(dirname "$0")/../.."
. checker/scripts/lib.sh
if [ -z "${EMU_NVCCFLAGS:-}" ] || [ -z "${GPU_NVCCFLAGS:-}" ]; then
    exec make --no-print-directory ncu-compare NCU_COMPARE_ARGS="$*"
fi
mode=full
case "${1:-}" in
--emu-only) mode=emu ;;
"") ;;
*) echo "usage: $0 [--emu-only]" >&2; exit 2 ;;
esac

NVCC=${NVCC:-nvcc}
CXX=${CXX:-g++}
NCU=${NCU:-ncu}
out="$BUILD/ncu-verify"
mkdir -p "$out"

# What ncu is asked for, in the order of the table. The barrier count has no fixed name across Nsight
# Compute versions: the first of BARRIER_CANDIDATES that `ncu --query-metrics` lists is used.
METRICS="smsp__inst_executed.sum smsp__thread_inst_executed.sum smsp__sass_branch_targets_threads_divergent.sum
l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum
l1tex__t_requests_pipe_lsu_mem_global_op_st.sum l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum
smsp__inst_executed_op_shared_ld.sum smsp__inst_executed_op_shared_st.sum"
BARRIER_CANDIDATES="smsp__inst_executed_op_barrier.sum sm__sass_inst_executed_op_barrier.sum
smsp__sass_inst_executed_op_barrier.sum smsp__inst_executed_op_bar.sum"

step() { printf '%s\n' "$*"; }
save() { if [ -n "${OUT:-}" ]; then mkdir -p "$OUT/ncu-compare" && cp "$@" "$OUT/ncu-compare/" 2>/dev/null; fi; }

# ---- Build: the seven solutions and the runner, for both -------------------------------------------
solutions="02:v1_interleaved 03:v2_strided_index 03:v2_sequential 04:v3_first_add 05:v4_unroll_last_warp
06:v5_complete_unroll 07:v6_shuffle"
build() {   # build VARIANT: prints what failed; the binary is $out/metrics_runner-VARIANT
    local variant=$1 flags objs=() extra=""
    flags=$(program_nvcc_flags "$variant")
    [ "$variant" = gpu ] || extra="-DEMU_METRICS"
    mkdir -p "$out/obj-$variant"
    for entry in $solutions; do
        local nn=${entry%%:*} name=${entry#*:} obj="$out/obj-$variant/${entry#*:}.o"
        if [ ! -s "solutions/$name.cu" ]; then step "  $variant: solutions/$name.cu is missing"; continue; fi
        # shellcheck disable=SC2086
        if $NVCC $flags -include "checker/contracts/ex$nn.h" -include checker/gpu/pin_device.h \
                -c "solutions/$name.cu" -o "$obj" >"$obj.log" 2>&1; then
            objs+=("$obj")
        else
            step "  $variant: solutions/$name.cu does not compile:"; head -n 8 "$obj.log" | sed 's/^/      /'
        fi
    done
    # shellcheck disable=SC2086
    $NVCC $flags $extra -c checker/gpu/metrics_runner.cu -o "$out/obj-$variant/runner.o" \
        >"$out/obj-$variant/runner.log" 2>&1 ||
        { step "  $variant: metrics_runner.cu does not compile:"; head -n 20 "$out/obj-$variant/runner.log"; return 1; }
    objs+=("$out/obj-$variant/runner.o")
    if [ "$variant" = gpu ]; then
        # shellcheck disable=SC2086
        $NVCC $GPU_NVCCFLAGS "${objs[@]}" -o "$out/metrics_runner-gpu" >"$out/link-gpu.log" 2>&1
    else
        # shellcheck disable=SC2086
        $CXX "${objs[@]}" $EMU_LDFLAGS -o "$out/metrics_runner-emu" >"$out/link-emu.log" 2>&1
    fi || { step "  $variant: the link failed:"; head -n 20 "$out/link-$variant.log"; return 1; }
}

step "Building the emulator library..."
make -s --no-print-directory emu-lib || { step "The emulator library did not build."; exit 2; }
step "Building metrics_runner for the GPU and for the emulator..."
build gpu & gpu_pid=$!
build emu & emu_pid=$!
wait $gpu_pid; gpu_ok=$?
wait $emu_pid; emu_ok=$?
[ $emu_ok = 0 ] || exit 2
[ $mode = emu ] || [ $gpu_ok = 0 ] || exit 2

# ---- ncu: which metrics it knows, then one run of the GPU build ------------------------------------
pin=""
runner_gpu=${RUNNER_GPU:-$out/metrics_runner-gpu}   # RUNNER_GPU: only for testing this script without a GPU
if [ $mode = full ]; then
    command -v "$NCU" >/dev/null 2>&1 || NCU=$(ls -d /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -n 1)
    [ -n "$NCU" ] && command -v "$NCU" >/dev/null 2>&1 || { step "ncu (Nsight Compute) is not on this machine's PATH."; exit 2; }
    device=$("$runner_gpu" --device) || { step "The GPU build finds no CUDA device."; exit 2; }
    step "Device: $device; $("$NCU" --version 2>/dev/null | tail -n 1)"
    sms=$(printf '%s\n' "$device" | sed -n 's/.*sms=\([0-9]*\).*/\1/p')
    threads=$(printf '%s\n' "$device" | sed -n 's/.*threads_per_sm=\([0-9]*\).*/\1/p')
    pin="PIN_SMS=$sms PIN_THREADS_PER_SM=$threads"

    "$NCU" --query-metrics >"$out/query-metrics.txt" 2>&1
    known=$(grep -oE '^[a-z0-9]+__[A-Za-z0-9_]+' "$out/query-metrics.txt" | sort -u)
    # A listing that failed or names almost nothing is no evidence that a metric is unknown: keep them all.
    [ "$(printf '%s\n' "$known" | grep -c .)" -ge 100 ] || { step "  note: ncu --query-metrics listed too little to judge by (see $out/query-metrics.txt)"; known=""; }
    wanted=""
    for m in $METRICS; do
        if [ -z "$known" ] || printf '%s\n' "$known" | grep -qx "${m%.*}"; then
            wanted="$wanted,$m"
        else
            step "  note: this ncu does not list $m; it is left out"
        fi
    done
    barrier=""
    [ -n "$known" ] || barrier=$(echo $BARRIER_CANDIDATES | cut -d' ' -f1)   # ncu refuses it below if unknown
    for m in $BARRIER_CANDIDATES; do
        if [ -n "$known" ] && printf '%s\n' "$known" | grep -qx "${m%.*}"; then barrier=$m; break; fi
    done
    if [ -n "$barrier" ]; then
        wanted="$wanted,$barrier"
        step "  barriers: $barrier"
    else
        step "  note: none of $(echo $BARRIER_CANDIDATES) is listed by this ncu: barriers are shown for the emulator only"
    fi
    wanted=${wanted#,}

    # One run; a metric ncu refuses all the same is dropped (with a note) and the run repeated.
    for attempt in 1 2 3 4; do
        step "Profiling the seven kernels with ncu (attempt $attempt)..."
        start=$(date +%s)
        "$NCU" --metrics "$wanted" --csv --print-units base -k regex:reduce_ "$runner_gpu" \
            >"$out/ncu.csv" 2>"$out/ncu.stderr"
        status=$?
        step "  ncu exited with $status after $(( $(date +%s) - start )) s"
        if grep -q "print-units" "$out/ncu.stderr"; then   # an ncu without --print-units
            "$NCU" --metrics "$wanted" --csv -k regex:reduce_ "$runner_gpu" >"$out/ncu.csv" 2>"$out/ncu.stderr"
            status=$?
        fi
        # A metric named on one of ncu's error lines is one it does not know (or cannot collect here).
        bad=""
        for m in ${wanted//,/ }; do
            grep -h '==ERROR==' "$out/ncu.stderr" "$out/ncu.csv" 2>/dev/null | grep -qE "${m%.sum}([^A-Za-z0-9_]|$)" && bad="$bad $m"
        done
        if [ -n "$bad" ] && [ "$(echo $bad | wc -w)" -lt "$(echo ${wanted//,/ } | wc -w)" ]; then
            for m in $bad; do
                step "  note: ncu does not know $m; it is left out"
                wanted=$(printf '%s' ",$wanted," | sed "s/,$m,/,/; s/^,//; s/,$//")
            done
            continue
        fi
        break
    done
    if grep -q "ERR_NVGPUCTRPERM" "$out/ncu.stderr" "$out/ncu.csv" 2>/dev/null; then
        step "ncu may not read the GPU's performance counters as this user (ERR_NVGPUCTRPERM): run as root,"
        step "or see https://developer.nvidia.com/ERR_NVGPUCTRPERM"
        exit 2
    fi
    if ! grep -q '"Metric Name"\|Metric Name' "$out/ncu.csv"; then
        step "ncu gave no metrics; its messages:"; tail -n 20 "$out/ncu.stderr" "$out/ncu.csv" | sed 's/^/    /'
        save "$out/ncu.csv" "$out/ncu.stderr" "$out/query-metrics.txt"
        exit 2
    fi
fi

# ---- The emulator --------------------------------------------------------------------------------
step "Running the seven kernels on the emulator${pin:+ ($pin)}..."
start=$(date +%s)
env $pin "$out/metrics_runner-emu" >"$out/emu.txt" 2>"$out/emu.stderr"
rc=$?
step "  done in $(( $(date +%s) - start )) s (exit status $rc)"
grep -q WRONG "$out/emu.txt" && step "  a version's sum is WRONG on the emulator: see $out/emu.txt"

if [ $mode = emu ]; then
    python3 checker/gpu/ncu_table.py "$out/emu.txt" | tee "$out/report-emu.txt"
    save "$out/emu.txt" "$out/emu.stderr" "$out/report-emu.txt"
    exit 0
fi
python3 checker/gpu/ncu_table.py "$out/emu.txt" "$out/ncu.csv" | tee "$out/report.txt"
status=${PIPESTATUS[0]}
save "$out/emu.txt" "$out/emu.stderr" "$out/ncu.csv" "$out/ncu.stderr" "$out/query-metrics.txt" "$out/report.txt"
exit "$status"
