#!/usr/bin/env bash
# bench.sh - `make bench`: builds the reference solutions and your exercise files into one timing program
# with CUB, runs it on the GPU, prints the table and draws the chart.
set -u
. checker/scripts/lib.sh
if [ -z "${HAVE_GPU:-}" ]; then
    say "make bench times kernels on an NVIDIA GPU, and this machine has none (nvidia-smi -L finds no GPU)."
    say "Without a GPU, \`make metrics\` shows every version's emulator counters side by side: instructions,"
    say "bank conflicts, memory sectors and barriers, which are what the speed-ups come from."
    exit 1
fi
out="$BUILD/gpu/bench"
rm -rf "$out"
mkdir -p "$out"
objects=()
# Each file is compiled alone, then every global symbol but the contract's functions is made local and
# those are renamed, so that the reference and your version of the same function link side by side.
add_object() {
    local nn=$1 src=$2 prefix=$3 obj
    obj="$out/${prefix}$(basename "$src" .cu).o"
    $NVCC $GPU_NVCCFLAGS -include "checker/contracts/ex$nn.h" -c "$src" -o "$obj" 2>"$obj.log" || return 1
    local keep=() rename=()
    for fn in $(sed -n 's/^[a-z].* \**\([a-z_0-9]*\)(.*);$/\1/p' "checker/contracts/ex$nn.h"); do
        keep+=(--keep-global-symbol="$fn")
        rename+=(--redefine-sym "$fn=$prefix$fn")
    done
    objcopy "${keep[@]}" "$obj" && objcopy "${rename[@]}" "$obj" && objects+=("$obj")
}
for nn in $(exercise_numbers); do
    case $nn in 09|10) continue ;; esac  # float operators and accuracy: not sums of ints
    add_object "$nn" "$(solution_file "$nn")" ref_ || say "The reference solution of exercise $nn did not compile."
    if [ "$(checker/scripts/progress.sh state "$nn")" = done ]; then
        add_object "$nn" "$(exercise_file "$nn")" my_ || say "Your exercise $nn did not compile, so it is left out."
    fi
done
if ! $NVCC $GPU_NVCCFLAGS -I"$CUDA_HOME/include/cccl" checker/bench/bench.cu "${objects[@]}" -o "$out/bench" \
        >"$out/build.log" 2>&1; then
    say "The benchmark did not build:"; sed 's/^/    /' "$out/build.log" | head -n 20
    exit 1
fi
say "Timing every version at 2^20 to 2^${BENCH_MAX_LOG2:-28} ints (your exercises appear once \`make exNN\` passes)..."
"$out/bench" "${BENCH_MAX_LOG2:-28}" "$out/bench.csv" | tee "$out/bench.txt"
if command -v python3 >/dev/null && python3 -c 'import matplotlib' 2>/dev/null; then
    python3 checker/bench/chart.py "$out/bench.csv" "$out/bench.png" && say "" && say "Chart: $out/bench.png"
else
    python3 checker/bench/chart.py "$out/bench.csv" 2>/dev/null || true
fi
