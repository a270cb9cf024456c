// printf in kernels.
#include <cstdio>
__global__ void hello(int n, float f, const char *dummy) {
    if (threadIdx.x < 2 && blockIdx.x == 0)
        printf("block %d thread %u n=%5d x=%x f=%f e=%e g=%g c=%c s=%s ld=%ld llu=%llu\n", blockIdx.x, threadIdx.x, n, n,
               f, (double)f, f * 2.0, 'A' + threadIdx.x, "str", (long)-5, 123456789012ULL);
}
