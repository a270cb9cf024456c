#!/usr/bin/env bash
# bench.sh - `make bench`: builds the reference solutions and your exercise files into one timing program
# with CUB (checker/bench/bench.cu), runs it on the GPU, prints the tables and draws the chart.
# bench.sh --check BACKEND: builds the references alone for BACKEND (gpu or emu) and runs each version
# once per size, checking its sums with no timing; `make test` does this, so that the float versions of
# the references (checker/bench/as_float.sed) are known to be right before anyone times them (and runs
# checker/scripts/bench-allreduce.sh --check for Part IV's all-reduces).
# bench.sh --build BACKEND: builds the references' objects and the program for BACKEND and stops there
# (checker/scripts/device-lessons.sh links those objects with its own candidates).
set -u
. checker/scripts/lib.sh
mode=time backend=gpu
case "${1:-}" in
--check) mode=check backend=${2:-emu} ;;
--build) mode=build backend=${2:-gpu} ;;
esac
if [ $mode = time ] && [ -z "${HAVE_GPU:-}" ]; then
    say "make bench times kernels on an NVIDIA GPU, and this machine has none (nvidia-smi -L finds no GPU)."
    say "Without a GPU, \`make metrics\` shows every version's emulator counters side by side: instructions,"
    say "bank conflicts, memory sectors and barriers, which are what the speed-ups come from."
    exit 1
fi
out="$BUILD/$backend/bench"
[ $mode = check ] && out="$out-check"
rm -rf "$out"
mkdir -p "$out"
flags=$(program_nvcc_flags "$backend")
objects=()

# Compiles one file alone, then makes every global symbol local but the contract's functions, and renames
# those PREFIX<name>: so the reference, its float version and your version of one function link side by
# side. SCRIPTS are sed scripts for the source, applied in turn (the contract is then not included: its
# types differ).
add_object() {
    local nn=$1 src=$2 prefix=$3 obj script
    shift 3
    obj="$out/${prefix}$(basename "$src" .cu).o"
    if [ $# -gt 0 ]; then
        cp "$src" "${obj%.o}.cu" && src="${obj%.o}.cu"
        for script in "$@"; do sed -E -i -f "$script" "$src" || return 1; done
        checker/scripts/nvcc-cached.sh "$obj" "$src" $flags -c 2>"$obj.log" && localize_object "$obj" "$nn" "$prefix" ||
            return 1
    else
        kernel_object "$backend" "$nn" "$src" "$obj" "$prefix" || return 1   # one compile serves the suite too
    fi
    objects+=("$obj")
}
# A reference that sums ints, as it is and rewritten to sum floats (exercise 11's with one more script).
add_reference() {
    local extra=()
    [ -e "checker/bench/ex$1_as_float.sed" ] && extra=("checker/bench/ex$1_as_float.sed")
    add_object "$1" "$2" ref_ || say "The reference $2 did not compile."
    add_object "$1" "$2" flt_ checker/bench/as_float.sed "${extra[@]}" ||
        say "The float version of $2 did not compile (see $out/flt_*.log)."
}
for nn in $(exercise_numbers); do
    sol=$(solution_file "$nn")
    case $nn in
    09) continue ;;  # max, min and dot product: not sums
    12) continue ;;  # the library itself: bench.cu times thrust::reduce and CUB directly
    # 10 sums floats already; Part III's row-wise kernels have their own table (checker/bench/bench_rows.cuh)
    10 | 13 | 14 | 15) add_object "$nn" "$sol" ref_ || say "The reference $sol did not compile." ;;
    16) continue ;;  # the row mapping: a library for rows_torch.py, built below
    17 | 18 | 19) continue ;;  # Part IV's all-reduces over several devices: bench-allreduce.sh, below
    *) add_reference "$nn" "$sol" ;;
    esac
    if [ $mode = time ] && [ "$(checker/scripts/progress.sh state "$nn")" = done ]; then
        add_object "$nn" "$(exercise_file "$nn")" my_ || say "Your exercise $nn did not compile, so it is left out."
    fi
done
add_reference 03 solutions/v2_strided_index.cu  # the seed notes' v2 with bank conflicts: no exercise of its own

if [ "$backend" = emu ]; then
    build() {
        $NVCC $flags -DBENCH_NO_CUB -c checker/bench/bench.cu -o "$out/bench_main.o" &&
            $CC "$out/bench_main.o" "${objects[@]}" $EMU_LDFLAGS -o "$out/bench"
    }
else
    build() { $NVCC $flags -I"$CUDA_HOME/include/cccl" checker/bench/bench.cu "${objects[@]}" -o "$out/bench"; }
fi
if ! build >"$out/build.log" 2>&1; then
    say "The benchmark did not build:"; sed 's/^/    /' "$out/build.log" | head -n 20
    exit 1
fi
[ $mode = build ] && exit 0

if [ $mode = check ]; then
    # Sizes 2^10 to 2^16: every version's partial passes and tails, at a pace the emulator keeps.
    EMU_QUIET=1 "$out/bench" "${BENCH_CHECK_MAX_LOG2:-16}" - --check
    exit
fi
say "Timing every version at 2^20 to 2^${BENCH_MAX_LOG2:-28} ints, then floats (your exercises appear once \`make exNN\` passes)..."
"$out/bench" "${BENCH_MAX_LOG2:-28}" "$out/bench.csv" | tee "$out/bench.txt"
# Part III at the roofline: exercise 16's dispatch (and yours, once it passes) as libraries that
# rows_torch.py calls beside PyTorch eager, torch.compile and a copy, where this machine's python3 has torch.
if python3 -c 'import torch' 2>/dev/null; then
    say ""
    if rows_library 16 solutions/ex16_row_mapping.cu "$out/librows_ref.so"; then
        if [ "$(checker/scripts/progress.sh state 16)" = done ]; then
            rows_library 16 "$(exercise_file 16)" "$out/librows_my.so" || say "Your exercise 16 did not compile, so it is left out."
        fi
        python3 checker/bench/rows_torch.py "$out" | tee "$out/rows_torch.txt"
    else
        say "The reference solutions/ex16_row_mapping.cu did not build as a library:"; head -n 20 "$out/librows_ref.so.log"
    fi
else
    say ""
    say "PyTorch is not installed for python3 here, so Part III's kernels are not timed beside it."
fi
if command -v python3 >/dev/null && python3 -c 'import matplotlib' 2>/dev/null; then
    python3 checker/bench/chart.py "$out/bench.csv" "$out/bench.png" && say "" && say "Chart: $out/bench.png"
else
    python3 checker/bench/chart.py "$out/bench.csv" 2>/dev/null || true
fi
# Part IV: the all-reduces across this machine's GPUs beside NCCL, with their chart (on one GPU, a sentence
# that says why not).
checker/scripts/bench-allreduce.sh
# This GPU's tables for the speed line of every later passing grade (checker/scripts/speed.sh).
checker/scripts/speed.sh cache
