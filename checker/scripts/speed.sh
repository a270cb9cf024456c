#!/usr/bin/env bash
# speed.sh NN - the speed line of a passing grade on a GPU: the learner's kernel of exercise NN timed at one
# size that fits the exercise, beside a copy of the same bytes, by `make bench`'s own code (checker/bench/
# bench.cu --speed: the L2 flushed, each run queued behind a busy GPU, the median of repeats). The version
# before it, the exercise's reference and the library (CUB; PyTorch for Part III) come from the times that
# `make bench` left for this GPU in .state/bench-cache/ (by the GPU's name): only the learner's kernel and
# the copy are timed here. Prints nothing on the emulator (the grade said there are no timings there).
#   speed.sh cache      after `make bench`: keeps its tables for this GPU's speed lines
# Exercises 17 and 19 (across GPUs, beside NCCL) are checker/scripts/speed-allreduce.sh's.
#   speed.sh measure NN only the timing (grade.sh starts it as soon as the GPU's suite has passed, while the
#                       emulator's suite still runs); speed.sh show NN then prints the line from its files.
set -u
. checker/scripts/lib.sh
gpu_name() { nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1; }
cache_dir() { echo "$STATE_DIR/bench-cache/$(gpu_name | tr 'A-Z' 'a-z' | sed -E 's/[^a-z0-9]+/-/g; s/^-|-$//g')"; }

if [ "${1:-}" = cache ]; then
    [ -n "$(gpu_name)" ] || exit 0
    mkdir -p "$(cache_dir)"
    for f in bench.csv rows.csv roofline.csv allreduce.csv; do
        [ -f "$BUILD/gpu/bench/$f" ] && cp "$BUILD/gpu/bench/$f" "$(cache_dir)/"
    done
    exit 0
fi
mode=both
case ${1:-} in measure | show) mode=$1; shift ;; esac
nn=$1
[ "$BACKEND" = gpu ] && [ -n "${HAVE_GPU:-}" ] || exit 0
# Part IV's all-reduces: timed across the GPUs, busbw beside NCCL's (checker/scripts/speed-allreduce.sh).
case $nn in 17 | 19) exec checker/scripts/speed-allreduce.sh "$mode" "$nn" "$(cache_dir)" "$(gpu_name)" ;; esac

# What make bench calls this exercise's kernels, the version before them, and the size they are timed at.
sums_log2=24
case $nn in
01) mine="ex01 atomic" before="" ;;
02) mine="v1 interleaved" before="ex01 atomic" ;;
03) mine="v2 sequential" before="v1 interleaved" ;;
04) mine="v3 first add" before="v2 sequential" ;;
05) mine="v4 last warp" before="v3 first add" ;;
06) mine="v5 unrolled" before="v4 last warp" ;;
07) mine="v6 shuffle" before="v5 unrolled" ;;
08) mine="ex08 multi-level" before="v6 shuffle" ;;
10) mine="ex10 compensated" before="" ;;
11) mine="ex11 fastest" before="v6 shuffle" ;;
13 | 14 | 15 | 16) mine="ex$nn" before="" ;;
*) sayf 'make bench does not time exercise %s, so its grade shows no speed.' "$nn"; exit 0 ;;
esac

# The timing program with the learner's kernel alone: bench.cu built once, the grade's own object renamed.
out="$BUILD/gpu/speed"
mkdir -p "$out"
obj="$BUILD/gpu/learner/ex$nn/kernel.o"
[ -f "$obj" ] || exit 0
if [ "$mode" != show ]; then
flags=$(program_nvcc_flags gpu)
# The timing program did not build: the grade says where the compiler's words are, and shows no speed.
not_built() {
    progress_done
    sayf 'The speed is not shown: the timing program did not build (%s says why).' "$out/build.log"
    exit 0
}
if [ ! -f "$out/bench_main.o" ] || [ checker/bench/bench.cu -nt "$out/bench_main.o" ] ||
        [ checker/bench/bench_rows.cuh -nt "$out/bench_main.o" ]; then
    progress_note "$(textf 'Building the timing program of make bench (once)...')"
    $NVCC $flags -DBENCH_NO_CUB -c checker/bench/bench.cu -o "$out/bench_main.o" 2>"$out/build.log" || not_built
fi
# (The object carries the emulator's host checks on a GPU machine: ubsan_quiet.o answers them.)
cp "$obj" "$out/mine.o" && localize_object "$out/mine.o" "$nn" my_ &&
    $NVCC $flags "$out/bench_main.o" "$out/mine.o" "$BUILD/obj/ubsan_quiet.o" -o "$out/speed" 2>>"$out/build.log" ||
    not_built
progress_note "$(textf 'Timing your kernel on the GPU...')"
rm -f "$out/speed.csv" "$out/rows.csv"
"$out/speed" "$sums_log2" "$out/speed.csv" --speed >"$out/speed.txt" 2>&1
progress_done
fi
[ "$mode" = measure ] && exit 0

cache=$(cache_dir)
# cold_us of LABEL in a CSV of make bench (VERSION column 3 for sums, KERNEL column 3 for rows), matching
# the size or shape (column 1) and the type (column 2).
cold() {   # FILE SIZE TYPE LABEL
    [ -f "$1" ] && awk -F, -v n="$2" -v t="$3" -v l="$4" '$1 == n && $2 == t && $3 == l && $NF == 1 { print $4; exit }' "$1"
}
line() {   # LABEL US BYTES COPY_GBPS: bytes moved over the time, and that against the copy's GB/s
    [ -n "$2" ] || return 0
    awk -v l="$1" -v us="$2" -v b="$3" -v c="$4" 'BEGIN {
        gbps = b / us / 1e3
        printf "  %-34s %9.1f us %7.0f GB/s %6.0f%%\n", l, us, gbps, c ? 100 * gbps / c : 0 }'
}
mine_label=$(textf 'yours')
shown=0
if [ "$nn" -le 11 ]; then
    type=int
    [ "$nn" = 10 ] && type=float
    n=$((1 << sums_log2)) bytes=$((4 << sums_log2))
    mine_us=$(cold "$out/speed.csv" "$n" "$type" "$mine (yours)")
    copy_us=$(cold "$out/speed.csv" "$n" "$type" "copy (reference)")
    [ -n "$mine_us" ] && [ -n "$copy_us" ] || exit 0
    copy_gbps=$(awk -v b="$bytes" -v c="$copy_us" 'BEGIN { print 2 * b / c / 1e3 }')   # it reads and writes
    say ""
    say "$BOLD$(textf 'Speed on %s, %s %ss (%s MB), cold L2; %% of a copy of the same bytes:' \
        "$(gpu_name)" "2^$sums_log2" "$type" "$((bytes / 1000000))")$RESET"
    line "$mine ($mine_label)" "$mine_us" "$bytes" "$copy_gbps"
    if [ -f "$cache/bench.csv" ]; then
        [ -n "$before" ] && line "$before ($(textf 'before'))" "$(cold "$cache/bench.csv" "$n" "$type" "$before")" "$bytes" "$copy_gbps"
        line "$mine ($(textf 'reference'))" "$(cold "$cache/bench.csv" "$n" "$type" "$mine")" "$bytes" "$copy_gbps"
        line "CUB DeviceReduce" "$(cold "$cache/bench.csv" "$n" "$type" "CUB DeviceReduce")" "$bytes" "$copy_gbps"
    fi
    shown=1
else
    shape=65536x1024
    say ""
    say "$BOLD$(textf 'Speed on %s, %s rows of %s, cold L2; %% of a copy of the same bytes:' \
        "$(gpu_name)" 65536 1024)$RESET"
    # One line per kernel: yours (timed now) beside the reference (make bench's, from the cache, when there).
    [ -f "$cache/rows.csv" ] && printf '  %-30s %29s %19s\n' "" "$mine_label" "$(textf 'reference')"
    while IFS=, read -r sh type kernel us _ _ ok; do
        case "$kernel" in "ex$nn "*" (yours)") ;; *) continue ;; esac
        [ "$sh" = "$shape" ] && [ "$ok" = 1 ] || continue
        base=${kernel% (yours)}
        size=2 out_size=2
        [ "$type" = float ] && size=4 out_size=4
        case "$base" in *row_stats*) out_size=0 ;; esac
        bytes=$((65536 * 1024 * (size + out_size)))
        copy_gbps=$(awk -F, -v s="$shape" -v t="$([ $size = 2 ] && echo 16-bit || echo float)" \
            '$1 == s && $2 == t && $3 == "copy (reference)" { print $6; exit }' "$out/rows.csv")
        awk -v l="${base#ex$nn } $type" -v us="$us" -v ref="$(cold "$cache/rows.csv" "$shape" "$type" "$base")" \
            -v b="$bytes" -v c="$copy_gbps" 'BEGIN {
            gbps = b / us / 1e3
            printf "  %-30s %9.1f us %6.0f GB/s %4.0f%%", l, us, gbps, c ? 100 * gbps / c : 0
            if (ref != "") printf " %10.1f us %4.0f%%", ref, c ? 100 * (b / ref / 1e3) / c : 0
            printf "\n" }'
        shown=1
    done <"$out/rows.csv"
    [ $shown = 1 ] && [ -f "$cache/roofline.csv" ] && awk -F, -v shape="$shape" '
        NR > 1 && $1 == shape && $4 == "ours" {
            printf "  PyTorch %-22s %9.1f us eager, %.1f us torch.compile\n", $2 " " $3, $9, $10 }' \
        "$cache/roofline.csv" | grep -iE "$(case $nn in 13) echo row_stats ;; 14) echo softmax ;; 15) echo 'layer_norm|rms_norm' ;; *) echo . ;; esac)"
fi
if [ $shown = 1 ] && [ ! -f "$cache/bench.csv" ]; then
    sayf 'Run `make bench` once on this GPU to see the reference and the library beside your time.'
fi
exit 0
