#!/usr/bin/env bash
# compare.sh - `make gpu-compare`: do the GPU and the emulator give the same answers?
#
# Builds checker/gpu/same_answers.cu, the extra kernels of checker/gpu/kernels/ and every reference
# solution that exists twice: for the GPU (CUDA runtime) and for the emulator (-cudart none, linked against
# libcudaemu.a). Runs both on the same fixed inputs and compares the answers case by case (compare.py).
#
#   checker/gpu/compare.sh               build both, run both, compare (needs a GPU)
#   checker/gpu/compare.sh --emu-only    build both, run the emulator half only (no GPU needed)
#   checker/gpu/compare.sh --build-only  build both, run nothing
#
# Results go to $BUILD/gpu-verify/ (and to $OUT as well when that is set). Exit status: 0 when every case
# is identical or within its tolerance, 1 otherwise, 2 when something did not build.
set -u
cd "$(dirname "$0")/../.."
. checker/scripts/lib.sh

# The build settings come from the Makefile (GPU_NVCCFLAGS, EMU_NVCCFLAGS, ...): run through make if they
# are missing.
if [ -z "${EMU_NVCCFLAGS:-}" ] || [ -z "${GPU_NVCCFLAGS:-}" ]; then
    exec make --no-print-directory gpu-compare GPU_COMPARE_ARGS="$*"
fi

mode=full
case "${1:-}" in
--emu-only) mode=emu ;;
--build-only) mode=build ;;
"") ;;
*) echo "usage: $0 [--emu-only|--build-only]" >&2; exit 2 ;;
esac

NVCC=${NVCC:-nvcc}
CXX=${CXX:-g++}
out="$BUILD/gpu-verify"
mkdir -p "$out/obj-gpu" "$out/obj-emu"
jobs_max=$(nproc 2>/dev/null || echo 4)

# The reference solutions and the contract each is compiled against.
solutions="01:ex01_atomic 02:v1_interleaved 03:v2_strided_index 03:v2_sequential 04:v3_first_add
05:v4_unroll_last_warp 06:v5_complete_unroll 07:v6_shuffle 08:ex08_multi_level 09:ex09_beyond_sum
10:ex10_compensated 11:ex11_fastest 12:ex12_library"

step() { printf '%s\n' "$*"; }

# compile VARIANT SRC OBJ [EXTRA FLAGS...]: one nvcc, its messages in OBJ.log; status in OBJ.status.
# An object newer than its source, every header here and the contracts is kept (a second run is quick).
compile() {
    local variant=$1 src=$2 obj=$3
    shift 3
    if [ -f "$obj" ] && [ "$(cat "$obj.status" 2>/dev/null)" = ok ] &&
       [ -z "$(find "$src" checker/gpu -name '*.h' -newer "$obj" 2>/dev/null | head -n 1)" ] &&
       [ -z "$(find "$src" checker/contracts -newer "$obj" 2>/dev/null | head -n 1)" ]; then
        return 0
    fi
    local flags
    flags=$(program_nvcc_flags "$variant")
    # shellcheck disable=SC2086
    if $NVCC $flags "$@" -c "$src" -o "$obj" >"$obj.log" 2>&1; then echo ok >"$obj.status"; else echo failed >"$obj.status"; fi
}

build_variant() {
    local variant=$1 dir="$out/obj-$1" pids=() objs=() missing=()
    # Objects built with other flags (another GPU, another emulator build) are not reused.
    local flags_now="$NVCC $GPU_NVCCFLAGS | $EMU_NVCCFLAGS"
    if [ "$(cat "$dir/flags" 2>/dev/null)" != "$flags_now" ]; then
        rm -f "$dir"/*.o "$dir"/*.status "$dir"/*.log
        printf '%s\n' "$flags_now" >"$dir/flags"
    fi
    for entry in $solutions; do
        local nn=${entry%%:*} name=${entry#*:}
        if [ ! -s "solutions/$name.cu" ]; then
            missing+=("$name")
            rm -f "$dir/sol_$name.o" "$dir/sol_$name.o.status"
            continue
        fi
        compile "$variant" "solutions/$name.cu" "$dir/sol_$name.o" \
            -include "checker/contracts/ex$nn.h" -include checker/gpu/pin_device.h &
        pids+=($!)
        if [ ${#pids[@]} -ge "$jobs_max" ]; then wait "${pids[0]}"; pids=("${pids[@]:1}"); fi
    done
    for src in checker/gpu/same_answers.cu checker/gpu/kernels/*.cu; do
        compile "$variant" "$src" "$dir/$(basename "$src" .cu).o" &
        pids+=($!)
        if [ ${#pids[@]} -ge "$jobs_max" ]; then wait "${pids[0]}"; pids=("${pids[@]:1}"); fi
    done
    wait
    local ok=1
    for src in checker/gpu/same_answers.cu checker/gpu/kernels/*.cu; do
        local obj="$dir/$(basename "$src" .cu).o"
        if [ "$(cat "$obj.status")" != ok ]; then
            step "  $variant: $src does not compile:"; sed 's/^/      /' "$obj.log" | head -n 20
            ok=0
        fi
        objs+=("$obj")
    done
    for entry in $solutions; do
        local nn=${entry%%:*} name=${entry#*:} obj="$dir/sol_${entry#*:}.o"
        [ -f "$obj.status" ] || continue
        # A solution built on Thrust and CUB (12) shares the library's inline code with kernels/library.cu:
        # made local, those symbols could no longer merge. It defines nothing else global but its contract.
        if [ "$(cat "$obj.status")" = ok ] && { [ "$nn" = 12 ] || localize_object "$obj" "$nn"; }; then
            objs+=("$obj")
        else
            step "  $variant: solutions/$name.cu does not compile; its cases will read MISSING:"
            sed 's/^/      /' "$obj.log" | head -n 8
        fi
    done
    [ ${#missing[@]} -gt 0 ] && step "  $variant: solutions not written yet (their cases read MISSING): ${missing[*]}"
    [ $ok = 1 ] || return 1
    if [ "$variant" = gpu ]; then
        # shellcheck disable=SC2086
        $NVCC $GPU_NVCCFLAGS "${objs[@]}" -o "$out/same_answers-gpu" >"$out/link-gpu.log" 2>&1
    else
        # shellcheck disable=SC2086
        $CXX "${objs[@]}" $EMU_LDFLAGS -o "$out/same_answers-emu" >"$out/link-emu.log" 2>&1
    fi || { step "  $variant: the link failed:"; sed 's/^/      /' "$out/link-$variant.log" | head -n 20; return 1; }
}

step "Building the emulator library..."
make -s --no-print-directory emu-lib || { step "The emulator library did not build."; exit 2; }
start=$(date +%s)
step "Building same_answers for the GPU ($GPU_NVCCFLAGS) and for the emulator..."
build_variant gpu & gpu_pid=$!
build_variant emu & emu_pid=$!
wait $gpu_pid; gpu_status=$?
wait $emu_pid; emu_status=$?
step "  built in $(( $(date +%s) - start )) s"
[ $gpu_status = 0 ] && [ $emu_status = 0 ] || exit 2
[ $mode = build ] && exit 0

save() { if [ -n "${OUT:-}" ]; then mkdir -p "$OUT/gpu-compare" && cp "$@" "$OUT/gpu-compare/"; fi; }

pin=""
if [ $mode = full ]; then
    step "Running on the GPU..."
    device=$("$out/same_answers-gpu" --device) || { step "The GPU build finds no CUDA device."; exit 2; }
    step "  $device"
    sms=$(printf '%s\n' "$device" | sed -n 's/.*sms=\([0-9]*\).*/\1/p')
    threads=$(printf '%s\n' "$device" | sed -n 's/.*threads_per_sm=\([0-9]*\).*/\1/p')
    pin="PIN_SMS=$sms PIN_THREADS_PER_SM=$threads"
    start=$(date +%s)
    "$out/same_answers-gpu" "$out/answers-gpu.txt" >"$out/stdout-gpu.txt" 2>"$out/stderr-gpu.txt" ||
        step "  the GPU run exited with status $? (see $out/stderr-gpu.txt)"
    step "  done in $(( $(date +%s) - start )) s"
fi
step "Running on the emulator${pin:+ (with $pin from the GPU build)}..."
start=$(date +%s)
env $pin "$out/same_answers-emu" "$out/answers-emu.txt" >"$out/stdout-emu.txt" 2>"$out/stderr-emu.txt" ||
    step "  the emulator run exited with status $? (see $out/stderr-emu.txt)"
step "  done in $(( $(date +%s) - start )) s"
findings=$(grep -c '^emulator:' "$out/stderr-emu.txt" 2>/dev/null)
[ "${findings:-0}" -gt 0 ] && step "  the emulator reported $findings finding(s): see $out/stderr-emu.txt"

if [ $mode = emu ]; then
    python3 checker/gpu/compare.py --summary "$out/answers-emu.txt" | tee "$out/report-emu.txt"
    save "$out/answers-emu.txt" "$out/report-emu.txt" "$out/stderr-emu.txt"
    exit 0
fi
python3 checker/gpu/compare.py "$out/answers-gpu.txt" "$out/answers-emu.txt" | tee "$out/report.txt"
status=${PIPESTATUS[0]}
save "$out/answers-gpu.txt" "$out/answers-emu.txt" "$out/report.txt" "$out/stderr-emu.txt" "$out/stderr-gpu.txt"
exit "$status"
