#!/usr/bin/env bash
# atomics_sass.sh - what the GPU runs for exercise 01's atomicAdd, on ints and on floats: compiles the
# reference and its float version (checker/bench/as_float.sed) to SASS for this GPU (sm_90 where there is
# none) and prints the lines that reduce or atomically add, with the instructions that feed them.
# It backs lesson 01's claim on why float atomics to one address are so much slower than int ones.
# Needs cuobjdump (the CUDA toolkit's binary tools); no GPU.
set -eu
arch=${GPU_ARCH:-sm_90}
[ "$arch" = native ] && arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -n 1 | tr -d . | sed 's/^/sm_/')
work=${BUILD:-build}/atomics-sass
mkdir -p "$work"
sed -E -f checker/bench/as_float.sed solutions/ex01_atomic.cu >"$work/ex01_float.cu"
for kind in int float; do
    # The contract declares the int signatures, so only the int file can include it.
    if [ $kind = int ]; then src=(-include checker/contracts/ex01.h solutions/ex01_atomic.cu)
    else src=("$work/ex01_float.cu"); fi
    nvcc -arch="$arch" -O3 -cubin -o "$work/$kind.cubin" "${src[@]}"
    echo "=== reduce_atomic_kernel on ${kind}s ($arch): the instructions of its atomic add"
    cuobjdump -sass "$work/$kind.cubin" |   # the file's one kernel
        grep -E 'RED|ATOM|VOTE|POPC|FLO|MATCH|SHFL|UFLO' | sed 's/^ *//; s/ *;.*/;/'
done
