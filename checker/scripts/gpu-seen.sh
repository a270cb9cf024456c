#!/bin/sh
# gpu-seen.sh - what nvidia-smi says of this machine's GPUs, on one line: the first GPU's architecture and
# compute mode, how many GPUs there are, and the first one's name ("sm_90 Default 1 NVIDIA H200"), or "none"
# where it finds no GPU. Each call of nvidia-smi starts the driver, so the Makefile asks this once per command and
# hands the line on in COURSE_GPU_SEEN (lib.sh's gpu_seen reads it).
line=""
if seen=$(nvidia-smi --query-gpu=compute_cap,compute_mode,name --format=csv,noheader 2>/dev/null); then
    line=$(printf '%s\n' "$seen" | awk -F', *' '
        NR == 1 { sm = $1; mode = $2; name = $0; sub(/^[^,]*, *[^,]*, */, "", name) }
        END { gsub(/[.]/, "", sm); if (NR && sm ~ /^[0-9]+$/) printf "sm_%s %s %d %s", sm, mode, NR, name }')
fi
echo "${line:-none}"
