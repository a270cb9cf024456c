#!/bin/sh
# rt_noptx.sh - programs built without usable PTX (SASS only; compressed PTX): a launch fails with
# cudaErrorNoKernelImageForDevice and a finding that says how to rebuild.
set -e
out=$BUILD/emu/tests
cat > "$out/noptx.cu" <<'CU'
#include <cstdio>
__global__ void k(int *p) { *p = 1; }
int main() {
    int *d; cudaMalloc(&d, 4);
    k<<<1, 1>>>(d);
    cudaError_t e = cudaGetLastError();
    printf("%s\n", cudaGetErrorName(e));
    return e == cudaErrorNoKernelImageForDevice ? 0 : 1;
}
CU
# try NAME NVCC-FLAGS EXPECTED-FINDING
try() {
    $NVCC -cudart none $2 -c "$out/noptx.cu" -o "$out/$1.o"
    $CC "$out/$1.o" $EMU_RT_OBJS "$out/fake_engine.o" -lstdc++ -lm -o "$out/$1"
    "$out/$1" 2>"$out/$1.err"
    cat "$out/$1.err"
    grep -qF -- "$3" "$out/$1.err"
}
try noptx_sass "-gencode arch=compute_90,code=sm_90" \
    "this program was built without PTX; build with -gencode arch=compute_90,code=compute_90"
try noptx_compressed "-gencode arch=compute_90,code=compute_90" \
    "this program's PTX is compressed; build with -Xfatbin -compress=false"
