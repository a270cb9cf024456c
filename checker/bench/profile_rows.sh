#!/bin/bash
# profile_rows.sh - the Nsight Compute metrics lesson 16 quotes: one launch (the second) of each path of
# exercise 16's reference at a shape that takes it, and exercise 14's one-block-per-row kernel beside it.
# Run on a GPU machine from the repository root; prints one block of metrics per kernel.
#   profile_rows.sh          the reference's list below
#   profile_rows.sh --list   the lines "LIBRARY FUNCTION ROWSxCOLS" of standard input instead, each library a
#                            build of a Part III kernel file (rows-candidates.sh profiles its candidates so)
# NCU_CACHE=none with DIRTY_L2=1: L2 as the timing leaves it, full of lines still to be written (probe_rows.py).
# (checker/bench/results/nvidia-h100-2026-11-25/profile.txt is its output on an H100.)
set -u
. checker/scripts/lib.sh
out=$BUILD/gpu/profile
m=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed
m=$m,lts__t_sector_hit_rate.pct,l1tex__t_sector_hit_rate.pct,launch__registers_per_thread,launch__block_size
m=$m,launch__grid_size,launch__shared_mem_per_block_dynamic,sm__warps_active.avg.pct_of_peak_sustained_active
m=$m,smsp__issue_active.avg.pct_of_peak_sustained_active,l1tex__throughput.avg.pct_of_peak_sustained_active
m=$m,smsp__inst_executed.sum
st='regex:smsp__average_warps_issue_stalled_(long_scoreboard|barrier|mio_throttle|lg_throttle|short_scoreboard|membar|wait|math_pipe_throttle|not_selected)_per_issue_active.ratio'
profile() {   # LIBRARY FUNCTION ROWSxCOLS: one block of metrics
    echo "=== $(basename "$1" .so) $2 $3"
    timeout 60 ncu --csv ${NCU_CACHE:+--cache-control $NCU_CACHE} -k 'regex:warp_rows|block_rows|reread_rows|softmax_online_kernel' --metrics "$m,$st" -s 1 -c 1 \
        python3 checker/bench/probe_rows.py "$1" "$2" "$3" 0 2>/dev/null |
        grep -v '^==' | awk -F'","' 'NR > 1 { gsub(/"/, "", $NF); print "  " $(NF - 2), $NF }'
}
if [ "${1:-}" = --list ]; then
    while read -r lib fn shape; do profile "$lib" "$fn" "$shape"; done
    exit 0
fi
mkdir -p "$out"
for nn in 14 16; do
    rows_library "$nn" "$(solution_file "$nn")" "$out/librows_ex$nn.so" || { cat "$out/librows_ex$nn.so.log"; exit 1; }
done
while read -r nn fn shape; do
    profile "$out/librows_ex$nn.so" "$fn" "$shape"
done <<'LIST'
16 softmax_rows 65536x1024
14 softmax_online 1048576x64
16 softmax_rows 1048576x64
16 softmax_rows 8192x8192
16 layernorm_rows_f16 8192x8192
16 softmax_rows 256x262144
LIST
