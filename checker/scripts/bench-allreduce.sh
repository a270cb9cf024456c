#!/usr/bin/env bash
# bench-allreduce.sh - `make bench` for Part IV (bench.sh runs it): builds checker/bench/bench_allreduce.cu with
# the references of exercises 17 and 19 (and yours, once `make ex17` or `make ex19` passes) and NCCL, times
# them on every GPU of this machine, and on 2 where there are more, at 16 KB to 1 GB, and draws the chart.
# Writes allreduce.csv and allreduce.txt into $BUILD/gpu/bench/ (speed.sh cache keeps them per GPU).
# bench-allreduce.sh --check BACKEND: builds the references alone for BACKEND (emu: the emulator's devices and
# its NCCL) and checks every contender at 4 KB to 256 KB on the devices there, with no timing; `make test`
# does this, so that the program is known to build and be right before anyone times it on GPUs.
set -u
. checker/scripts/lib.sh
mode=time backend=gpu
[ "${1:-}" = --check ] && mode=check backend=${2:-emu}

if [ "$backend" = gpu ]; then
    gpus=$(gpu_seen count)
    if [ "$gpus" -lt 2 ]; then
        [ $mode = time ] && sayf "Part IV's all-reduces are timed across GPUs, and this machine has %s: make bench times them beside NCCL on a machine of several, and the emulator's devices grade them here." "$gpus"
        [ $mode = check ] && echo "not run: bench_allreduce needs 2 GPUs, and this machine has $gpus"
        exit 0
    fi
fi
out="$BUILD/$backend/bench/allreduce"
# Not inside bench.sh's check folder: make test runs both checks at once, and bench.sh starts by emptying its own.
[ $mode = check ] && out="$BUILD/$backend/allreduce-check"
rm -rf "$out"
mkdir -p "$out"
flags=$(program_nvcc_flags "$backend")
link=()
if [ "$backend" = gpu ]; then
    flags="$flags $(nccl_gpu_flags compile)"
    # shellcheck disable=SC2206 # flags, split as words
    link=($GPU_LDFLAGS $(nccl_gpu_flags link))
else
    # shellcheck disable=SC2206
    link=($EMU_LDFLAGS)
fi

# add_object NN SOURCE PREFIX: exercise NN's file compiled as its suite compiles it (one compile serves both),
# its functions renamed PREFIX<name>.
objects=()
add_object() {
    local obj="$out/$3$(basename "$2" .cu).o"
    kernel_object "$backend" "$1" "$2" "$obj" "$3" && objects+=("$obj")
}
for nn in 17 19; do
    add_object "$nn" "$(solution_file "$nn")" ref_ || sayf 'The reference %s did not compile.' "$(solution_file "$nn")"
    if [ $mode = time ] && [ "$(checker/scripts/progress.sh state "$nn")" = done ]; then
        add_object "$nn" "$(exercise_file "$nn")" my_ ||
            sayf 'Your exercise %s did not compile, so it is left out.' "$nn"
    fi
done
if ! { checker/scripts/nvcc-cached.sh "$out/main.o" checker/bench/bench_allreduce.cu $flags -c &&
        $CXX "$out/main.o" "${objects[@]}" "${link[@]}" -o "$out/bench_allreduce"; } >"$out/build.log" 2>&1; then
    sayf 'The all-reduce benchmark did not build:'
    sed 's/^/    /' "$out/build.log" | head -n 20
    exit 1
fi

if [ $mode = check ]; then
    # 4 KB to 256 KB: chunks of every ring size, the one-shot's grids of one to 16 blocks, at a pace the
    # emulator keeps.
    EMU_QUIET=1 "$out/bench_allreduce" "${BENCH_ALLREDUCE_CHECK_LOG2:-18}" - --check
    exit
fi
say ""
sayf 'Timing the all-reduces of Part IV on %s GPUs beside NCCL, at 16 KB to 1 GB (your exercises 17 and 19 appear once `make exNN` passes)...' "$gpus"
bench="$BUILD/gpu/bench"
# Never NVLink multicast (the program sets it again before NCCL starts, whatever it was started with).
NCCL_NVLS_ENABLE=0 "$out/bench_allreduce" "${BENCH_ALLREDUCE_MAX_LOG2:-30}" "$bench/allreduce.csv" |
    tee "$bench/allreduce.txt"
if python3 -c 'import matplotlib' 2>/dev/null; then
    python3 checker/bench/chart_allreduce.py "$bench/allreduce.csv" "$bench/allreduce.png" &&
        say "" && sayf 'Chart: %s' "$bench/allreduce.png"
elif command -v python3 >/dev/null; then
    python3 checker/bench/chart_allreduce.py "$bench/allreduce.csv"
fi
exit 0
