#!/usr/bin/env bash
# speed.sh NN - the speed line of a passing grade on a GPU: the learner's kernel of exercise NN timed at one
# size that fits the exercise, beside a copy of the same bytes, by `make bench`'s own code (checker/bench/
# bench.cu --speed: the L2 flushed, each run queued behind a busy GPU, the median of repeats). The version
# before it, the exercise's reference and the library (CUB; PyTorch for Part III) come from the times that
# `make bench` left for this GPU in .state/bench-cache/ (by the GPU's name). Where it left none (a GPU's
# first day), the first passing grade times them once, in the same run as the learner's kernel, and keeps
# them there (first-*.csv): no grade needs `make bench` first. Prints nothing on the emulator.
#   speed.sh cache      after `make bench`: keeps its tables for this GPU's speed lines
#   speed.sh measure NN only the timing (build, then run); speed.sh show NN then prints the line from its files.
#   speed.sh build NN   the timing program alone (grade.sh builds it while the GPU's suite runs, and runs it
#   speed.sh run NN     as soon as that suite has passed, while the emulator's suite still runs)
#   speed.sh first NN   exit status 0 when this grade's timing will time the reference too (a GPU's first day)
# Exercises 17 and 19 (across GPUs, beside NCCL) are checker/scripts/speed-allreduce.sh's.
set -u
. checker/scripts/lib.sh
gpu_name() { gpu_seen name; }
cache_dir() { echo "$STATE_DIR/bench-cache/$(gpu_name | tr 'A-Z' 'a-z' | sed -E 's/[^a-z0-9]+/-/g; s/^-|-$//g')"; }
# The kept times are those of the references and of make bench's code that timed them: after a change to
# either (a course update), fresh_cache drops them, and the next passing grade times the references again.
references_sum() {
    cat solutions/*.cu checker/bench/bench.cu checker/bench/*.cuh checker/bench/rows_torch.py 2>/dev/null |
        sha256sum | cut -c1-16
}
fresh_cache() {   # DIR
    local sum
    sum=$(references_sum)
    [ "$(cat "$1/references.sum" 2>/dev/null)" = "$sum" ] && return 0
    rm -rf "$1" && mkdir -p "$1" && echo "$sum" >"$1/references.sum"
}

if [ "${1:-}" = cache ]; then
    [ -n "$(gpu_name)" ] || exit 0
    fresh_cache "$(cache_dir)"
    for f in bench.csv rows.csv roofline.csv allreduce.csv; do
        [ -f "$BUILD/gpu/bench/$f" ] && cp "$BUILD/gpu/bench/$f" "$(cache_dir)/"
    done
    exit 0
fi
mode=both
case ${1:-} in measure | build | run | show | first) mode=$1; shift ;; esac
nn=$1
[ "$BACKEND" = gpu ] && [ -n "${HAVE_GPU:-}" ] || exit 0
case $mode in both | measure | build) fresh_cache "$(cache_dir)" ;; esac   # a grade's first call
# Part IV's all-reduces: timed across the GPUs, busbw beside NCCL's (checker/scripts/speed-allreduce.sh).
case $nn in 17 | 19) exec checker/scripts/speed-allreduce.sh "$mode" "$nn" "$(cache_dir)" "$(gpu_name)" ;; esac

# What make bench calls this exercise's kernels, the version before them (and its exercise), and the size
# they are timed at.
sums_log2=24 before_nn=""
case $nn in
01) mine="ex01 atomic" before="" ;;
02) mine="v1 interleaved" before="ex01 atomic" before_nn=01 ;;
03) mine="v2 sequential" before="v1 interleaved" before_nn=02 ;;
04) mine="v3 first add" before="v2 sequential" before_nn=03 ;;
05) mine="v4 last warp" before="v3 first add" before_nn=04 ;;
06) mine="v5 unrolled" before="v4 last warp" before_nn=05 ;;
07) mine="v6 shuffle" before="v5 unrolled" before_nn=06 ;;
08) mine="ex08 multi-level" before="v6 shuffle" before_nn=07 ;;
10) mine="ex10 compensated" before="" ;;
11) mine="ex11 fastest" before="v6 shuffle" before_nn=07 ;;
13 | 14 | 15 | 16) mine="ex$nn" before="" ;;
*) [ "$mode" = first ] && exit 1
   # Said once, where the line would be (a grade calls build, run, then show).
   case $mode in show | both) sayf 'make bench does not time exercise %s, so its grade shows no speed.' "$nn" ;; esac
   exit 0 ;;
esac
type=int
[ "$nn" = 10 ] && type=float
n=$((1 << sums_log2)) shape=65536x1024
cache=$(cache_dir)
# PyTorch's time for a kernel's work at the line's shape (KERNEL is make bench's name, TYPE its type), in us:
# "eager / torch.compile" from make bench's table, or the first grade's "eager"; nothing where there is none.
torch_us() {   # KERNEL TYPE
    local op t=$2
    case $1 in *softmax*) op=softmax ;; *layernorm*) op=layer_norm ;; *rmsnorm*) op=rms_norm ;; *) op=row_stats ;; esac
    [ "$t" = float ] && t=fp32
    if [ -f "$cache/roofline.csv" ]; then
        awk -F, -v s="$shape" -v o="$op" -v t="$t" '$1 == s && $2 == o && $3 == t && $4 == "ours" {
            printf ($10 != "" ? "%.1f / %.1f" : "%.1f"), $9, $10; exit }' "$cache/roofline.csv"
    elif [ -f "$cache/first-eager.csv" ]; then
        awk -F, -v s="$shape" -v o="$op" -v t="$t" '$1 == s && $2 == o && $3 == t { printf "%.1f", $4; exit }' \
            "$cache/first-eager.csv"
    fi
}
# The PyTorch operations this exercise's line compares with (a regular expression of rows_torch.py's labels).
torch_ops() { case $nn in 13) echo row_stats ;; 14) echo softmax ;; 15) echo 'layer_norm|rms_norm' ;; *) echo . ;; esac; }

# cold_us of LABEL in a CSV of make bench (VERSION column 3 for sums, KERNEL column 3 for rows), matching
# the size or shape (column 1) and the type (column 2).
cold() {   # FILE SIZE TYPE LABEL
    [ -f "$1" ] && awk -F, -v n="$2" -v t="$3" -v l="$4" '$1 == n && $2 == t && $3 == l && $NF == 1 { print $4; exit }' "$1"
}
# The same from make bench's table for this GPU, else from the first grade's (first-NAME).
kept() {   # NAME SIZE TYPE LABEL
    local us
    us=$(cold "$cache/$1" "$2" "$3" "$4")
    [ -n "$us" ] || us=$(cold "$cache/first-$1" "$2" "$3" "$4")
    echo "$us"
}
# Whether this GPU has the reference's time for this exercise's line (from make bench or a first grade).
reference_kept() {
    if [ "$nn" -le 11 ]; then
        [ -n "$(kept bench.csv "$n" "$type" "$mine")" ]
    else
        cat "$cache/rows.csv" "$cache/first-rows.csv" 2>/dev/null | grep -q "^$shape,[^,]*,ex$nn [^(]*,[^(]*$"
    fi
}

if [ "$mode" = first ]; then reference_kept && exit 1; exit 0; fi

# The timing program with the learner's kernel: bench.cu built once, the grade's own object renamed; the first
# time on this GPU, the reference (and the version before it) too, and CUB's bench.cu for sums.
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
main_built() {   # OBJECT [FLAGS]: whether bench.cu's main is built, from the bench code of now, with these flags
    [ -f "$out/$1" ] && [ "$out/$1" -nt checker/bench/bench.cu ] && [ "$out/$1" -nt checker/bench/bench_rows.cuh ] &&
        [ "$(cat "$out/$1.flags" 2>/dev/null)" = "$flags ${*:2}" ]
}
main_object() {   # OBJECT [FLAGS]: bench.cu's main, built once (again when the flags change)
    main_built "$@" && return 0
    $NVCC $flags -I"$CUDA_HOME/include/cccl" "${@:2}" -c checker/bench/bench.cu -o "$out/$1" 2>>"$out/build.log" &&
        echo "$flags ${*:2}" >"$out/$1.flags"
}
first=""
reference_kept || first=1
if [ "$mode" != run ]; then
rm -f "$out/build.log" "$out/first.said" "$out/speed"
date +%s >"$out/started"
main=bench_main.o main_flags=-DBENCH_NO_CUB objects=()
# The main with CUB, once a first timing has built it, serves the later grades too (it times CUB only when asked):
# the grade after a first one would otherwise compile the other main, some 4 s on an H200's machine.
main_built bench_main_cub.o && main=bench_main_cub.o main_flags=""
if [ -n "$first" ]; then
    progress_note "$(textf 'Timing the reference on this GPU, once: later grades reuse its times...')"
    [ "$nn" -le 11 ] && main=bench_main_cub.o main_flags=""
    for ref in $nn $before_nn; do
        kernel_object gpu "$ref" "$(solution_file "$ref")" "$out/ref_ex$ref.o" ref_ 2>>"$out/build.log" || not_built
        objects+=("$out/ref_ex$ref.o")
    done
fi
# shellcheck disable=SC2086 # no flags, or one
main_object "$main" $main_flags || not_built
# (The object carries the emulator's host checks on a GPU machine: ubsan_quiet.o answers them.)
rm -f "$out/speed.so"
cp "$obj" "$out/mine.o" && localize_object "$out/mine.o" "$nn" my_ || not_built
link() { $NVCC $flags "$@" "$out/$main" "${objects[@]}" "$out/mine.o" "$BUILD/obj/ubsan_quiet.o" 2>>"$out/build.log"; }
# In a grade's warm process too (checker/harness/warm.h), as a shared object, linked beside the program.
shared=""
if [ -n "${HARNESS_WARM_DIR:-}" ]; then
    { link -shared -o "$out/speed.so" || rm -f "$out/speed.so"; } &
    shared=$!
fi
link -o "$out/speed" || not_built
[ -z "$shared" ] || wait "$shared"
fi
[ "$mode" = build ] && exit 0
[ -x "$out/speed" ] || exit 0   # not built: its build said why
progress_note "$(textf 'Timing your kernel on the GPU...')"
rm -f "$out/speed.csv" "$out/rows.csv"
timing=("$sums_log2" "$out/speed.csv" --speed ${first:+--library})
# In the grade's warm process where there is one (125: none took it).
warm_status=125
[ -f "$out/speed.so" ] && [ -n "${HARNESS_WARM_DIR:-}" ] &&
    { "$BUILD/bin/warm-run" run "$HARNESS_WARM_DIR/speed" "$out/speed.so" "${timing[@]}" >"$out/speed.txt" 2>&1
      warm_status=$?; }
[ $warm_status = 125 ] && "$out/speed" "${timing[@]}" >"$out/speed.txt" 2>&1
if [ -n "$first" ]; then
    # Kept for this GPU (the learner's kernel and the copy are timed again at every grade).
    mkdir -p "$cache"
    # Every row but the header, the learner's and the copy's, added to this GPU's first-NAME.
    keep_rows() { tail -n +2 "$out/$1" 2>/dev/null | grep -v -e ' (yours),' -e ',copy (reference),' >>"$cache/first-$2"; }
    if [ "$nn" -le 11 ]; then
        keep_rows speed.csv bench.csv
    else
        keep_rows rows.csv rows.csv
        # PyTorch eager at the same shape, for the operations of this exercise, where PyTorch is installed.
        if python3 -c 'import torch' 2>/dev/null; then
            python3 checker/bench/rows_torch.py --eager "$out/eager.csv" "${shape%x*}" "${shape#*x}" "$(torch_ops)" \
                >>"$out/speed.txt" 2>&1 && tail -n +2 "$out/eager.csv" >>"$cache/first-eager.csv"
        fi
    fi
    textf 'The reference was timed once on this GPU (%s s in all); later grades reuse its times.' \
        "$(($(date +%s) - $(cat "$out/started")))" >"$out/first.said"
fi
progress_done
fi
case $mode in measure | run) exit 0 ;; esac

line() {   # LABEL US BYTES COPY_GBPS: bytes moved over the time, and that against the copy's GB/s
    [ -n "$2" ] || return 0
    awk -v l="$1" -v us="$2" -v b="$3" -v c="$4" 'BEGIN {
        gbps = b / us / 1e3
        printf "  %-34s %9.1f us %7.0f GB/s %6.0f%%\n", l, us, gbps, c ? 100 * gbps / c : 0 }'
}
mine_label=$(textf 'yours')
shown=0
if [ "$nn" -le 11 ]; then
    bytes=$((4 << sums_log2))
    mine_us=$(cold "$out/speed.csv" "$n" "$type" "$mine (yours)")
    copy_us=$(cold "$out/speed.csv" "$n" "$type" "copy (reference)")
    [ -n "$mine_us" ] && [ -n "$copy_us" ] || exit 0
    copy_gbps=$(awk -v b="$bytes" -v c="$copy_us" 'BEGIN { print 2 * b / c / 1e3 }')   # it reads and writes
    say ""
    say "$BOLD$(textf 'Speed on %s, %s %ss (%s MB), cold L2; %% of a copy of the same bytes:' \
        "$(gpu_name)" "2^$sums_log2" "$type" "$((bytes / 1000000))")$RESET"
    line "$mine ($mine_label)" "$mine_us" "$bytes" "$copy_gbps"
    [ -n "$before" ] && line "$before ($(textf 'before'))" "$(kept bench.csv "$n" "$type" "$before")" "$bytes" "$copy_gbps"
    line "$mine ($(textf 'reference'))" "$(kept bench.csv "$n" "$type" "$mine")" "$bytes" "$copy_gbps"
    line "CUB DeviceReduce" "$(kept bench.csv "$n" "$type" "CUB DeviceReduce")" "$bytes" "$copy_gbps"
    shown=1
else
    say ""
    say "$BOLD$(textf 'Speed on %s, %s rows of %s, cold L2; %% of a copy of the same bytes:' \
        "$(gpu_name)" "${shape%x*}" "${shape#*x}")$RESET"
    # One line per kernel: yours (timed now) beside the reference (make bench's or the first grade's) and
    # PyTorch's call for the same work (make bench's eager and torch.compile, or the first grade's eager).
    torch_head=""
    if [ -f "$cache/roofline.csv" ]; then torch_head=$(textf 'PyTorch eager / compile')
    elif [ -f "$cache/first-eager.csv" ]; then torch_head=$(textf 'PyTorch eager'); fi
    reference_kept && printf '  %-22s %30s %18s  %s\n' "" "$mine_label" "$(textf 'reference')" "$torch_head"
    while IFS=, read -r sh type kernel us _ _ ok; do
        case "$kernel" in "ex$nn "*" (yours)") ;; *) continue ;; esac
        [ "$sh" = "$shape" ] && [ "$ok" = 1 ] || continue
        base=${kernel% (yours)}
        size=2 out_size=2
        [ "$type" = float ] && size=4 out_size=4
        case "$base" in *row_stats*) out_size=0 ;; esac
        bytes=$(( ${shape%x*} * ${shape#*x} * (size + out_size) ))
        copy_gbps=$(awk -F, -v s="$shape" -v t="$([ $size = 2 ] && echo 16-bit || echo float)" \
            '$1 == s && $2 == t && $3 == "copy (reference)" { print $6; exit }' "$out/rows.csv")
        awk -v l="${base#ex$nn } $type" -v us="$us" -v ref="$(kept rows.csv "$shape" "$type" "$base")" \
            -v torch="$(torch_us "$base" "$type")" -v b="$bytes" -v c="$copy_gbps" 'BEGIN {
            gbps = b / us / 1e3
            printf "  %-22s %8.1f us %5.0f GB/s %4.0f%%", l, us, gbps, c ? 100 * gbps / c : 0
            if (ref != "") printf " %9.1f us %4.0f%%", ref, c ? 100 * (b / ref / 1e3) / c : 0
            else if (torch != "") printf " %18s", ""
            if (torch != "") printf "  %s us", torch
            printf "\n" }'
        shown=1
    done <"$out/rows.csv"
fi
[ $shown = 1 ] && [ -f "$out/first.said" ] && say "$DIM$(cat "$out/first.said")$RESET"
if [ $shown = 1 ] && ! reference_kept; then
    sayf 'Run `make bench` once on this GPU to see the reference and the library beside your time.'
fi
exit 0
