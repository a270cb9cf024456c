#!/usr/bin/env bash
# speed-allreduce.sh MODE NN CACHE GPU - the speed line of a passing grade of exercise 17 or 19 (speed.sh runs
# it), on a machine of at least 2 GPUs: your all-reduce timed on every GPU, by make bench's own program and
# method (checker/bench/bench_allreduce.cu --speed), at one size that fits the exercise (256 MB for the ring,
# 1 MB for the one-shot and two-shot), its busbw beside NCCL's and the reference's. Those come from the times
# `make bench` left in CACHE (GPU: the GPU's name); where it left none, the first passing grade times them
# once, in the same run as yours, and keeps them there (first-allreduce.csv), as speed.sh does for the sums.
# MODE: measure (the timing alone: build, then run), build, run, show (the line from its files), both (as
# speed.sh). Prints nothing on fewer than 2 GPUs:
# the emulator's devices graded the exercise there.
set -u
. checker/scripts/lib.sh
mode=$1 nn=$2 cache=$3 gpu=$4
# Nothing to time here: no line (and, asked "first", no first timing either).
nothing() { [ "$mode" = first ] && exit 1; exit 0; }
gpus=$(gpu_seen count)
[ "$gpus" -ge 2 ] || nothing
[ "$gpus" -le 16 ] || gpus=16   # the largest ring of exercise 17's contract, and of the program
case $nn in
17) log2=28 kinds="ring" ;;
19) log2=20 kinds="one-shot two-shot" ;;
*) nothing ;;
esac
bytes=$((1 << log2))
out="$BUILD/gpu/speed"
obj="$BUILD/gpu/learner/ex$nn/kernel.o"
[ -f "$obj" ] || nothing

# us and busbw of CONTENDER at this size on every GPU in a CSV of bench_allreduce ("" when not there).
row() {   # FILE CONTENDER
    [ -f "$1" ] && awk -F, -v s="$bytes" -v r="$gpus" -v c="$2" '$1 == s && $2 == r && $3 == c && $7 == 1 {
        print $4, $6; exit }' "$1"
}
# The same from make bench's table for this GPU, else from the first grade's.
kept() {   # CONTENDER
    local found
    found=$(row "$cache/allreduce.csv" "$1")
    [ -n "$found" ] || found=$(row "$cache/first-allreduce.csv" "$1")
    echo "$found"
}
first_kind=${kinds%% *}
reference_kept() { [ -n "$(kept "NCCL ncclAllReduce")" ] && [ -n "$(kept "$first_kind (reference)")" ]; }
if [ "$mode" = first ]; then reference_kept && exit 1; exit 0; fi

if [ "$mode" != show ]; then
    mkdir -p "$out"
    flags="$(program_nvcc_flags gpu) $(nccl_gpu_flags compile)"
    not_built() {
        progress_done
        sayf 'The speed is not shown: the timing program did not build (%s says why).' "$out/allreduce-build.log"
        exit 0
    }
    first=""
    reference_kept || first=1
fi
if [ "$mode" != show ] && [ "$mode" != run ]; then
    rm -f "$out/allreduce-build.log" "$out/allreduce-first.said" "$out/speed_allreduce"
    date +%s >"$out/allreduce-started"
    main="$out/allreduce_main.o" objects=()
    if [ -n "$first" ]; then
        progress_note "$(textf 'Timing the reference on this GPU, once: later grades reuse its times...')"
        kernel_object gpu "$nn" "$(solution_file "$nn")" "$out/ref_allreduce_ex$nn.o" ref_ 2>>"$out/allreduce-build.log" ||
            not_built
        objects+=("$out/ref_allreduce_ex$nn.o")
    fi
    if [ ! -f "$main" ] || [ -n "$(find checker/bench/bench_allreduce.cu checker/bench/allreduce_*.cuh -newer "$main")" ]; then
        progress_note "$(textf 'Building the timing program of make bench (once)...')"
        $NVCC $flags -c checker/bench/bench_allreduce.cu -o "$main" 2>>"$out/allreduce-build.log" || not_built
    fi
    # (The object carries the emulator's host checks on a GPU machine: ubsan_quiet.o answers them.)
    # shellcheck disable=SC2046 # flags, split as words
    cp "$obj" "$out/mine_allreduce.o" && localize_object "$out/mine_allreduce.o" "$nn" my_ &&
        $CXX "$main" "${objects[@]}" "$out/mine_allreduce.o" "$BUILD/obj/ubsan_quiet.o" $GPU_LDFLAGS \
            $(nccl_gpu_flags link) -o "$out/speed_allreduce" 2>>"$out/allreduce-build.log" || not_built
fi
[ "$mode" = build ] && exit 0
if [ "$mode" != show ]; then
    [ -x "$out/speed_allreduce" ] || exit 0   # not built: its build said why
    progress_note "$(textf 'Timing your kernel on the GPU...')"
    rm -f "$out/allreduce.csv"
    NCCL_NVLS_ENABLE=0 "$out/speed_allreduce" "$log2" "$out/allreduce.csv" --speed ${first:+--library} \
        >"$out/allreduce.txt" 2>&1
    if [ -n "$first" ]; then
        # Kept for this GPU: every row but yours (timed again at every grade).
        mkdir -p "$cache"
        tail -n +2 "$out/allreduce.csv" 2>/dev/null | grep -v ' (yours),' >>"$cache/first-allreduce.csv"
        textf 'The reference was timed once on this GPU (%s s in all); later grades reuse its times.' \
            "$(($(date +%s) - $(cat "$out/allreduce-started")))" >"$out/allreduce-first.said"
    fi
    progress_done
fi
case $mode in measure | run) exit 0 ;; esac

nccl=$(kept "NCCL ncclAllReduce")
line() {   # LABEL "US BUSBW"
    [ -n "$2" ] || return 0
    awk -v l="$1" -v t="$2" -v nccl="${nccl#* }" 'BEGIN {
        split(t, f, " ")
        printf "  %-30s %9.1f us %6.0f GB/s", l, f[1], f[2]
        if (nccl > 0) printf " %5.0f%%", 100 * f[2] / nccl
        printf "\n" }'
}
shown=0
for kind in $kinds; do
    [ -n "$(row "$out/allreduce.csv" "$kind (yours)")" ] && shown=1
done
[ $shown = 1 ] || exit 0
say ""
if [ -n "$nccl" ]; then
    say "$BOLD$(textf "Speed on %s x %s, an all-reduce of %s MB of floats; busbw, and %% of NCCL's:" \
        "$gpus" "$gpu" "$((bytes >> 20))")$RESET"
else
    say "$BOLD$(textf 'Speed on %s x %s, an all-reduce of %s MB of floats; busbw:' "$gpus" "$gpu" "$((bytes >> 20))")$RESET"
fi
for kind in $kinds; do
    line "$kind ($(textf 'yours'))" "$(row "$out/allreduce.csv" "$kind (yours)")"
    line "$kind ($(textf 'reference'))" "$(kept "$kind (reference)")"
done
line "NCCL ncclAllReduce" "$nccl"
[ -f "$out/allreduce-first.said" ] && say "$DIM$(cat "$out/allreduce-first.said")$RESET"
reference_kept || sayf 'Run `make bench` once on this GPU to see the reference and the library beside your time.'
exit 0
