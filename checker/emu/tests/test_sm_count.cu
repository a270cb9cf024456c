// test_sm_count.cu - emu_set_sm_count: the SMs the device reports (its properties and its attribute), and what
// follows from them: the blocks a cooperative launch may have, and the clusters resident at once (one GPC of 16
// SMs, or all of them on a device of fewer).
#include <cstdio>

extern "C" {
#include "../emu.h"
}

__global__ void nothing(int *x)
{
    if (x) x[blockIdx.x] = 0;
}

__global__ void __cluster_dims__(2, 1, 1) in_pairs(int *x)
{
    if (x) x[blockIdx.x] = 0;
}

static void report(const char *when)
{
    int sms = 0, per_sm = 0, clusters = 0;
    cudaDeviceProp p;
    cudaGetDeviceProperties(&p, 0);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, nothing, 1024, 0);
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(2);
    cfg.blockDim = dim3(1024);
    cudaOccupancyMaxActiveClusters(&clusters, in_pairs, &cfg);
    // A cooperative launch of one block more than fit at once is refused.
    void *args[] = {nullptr};
    int *none = nullptr;
    args[0] = &none;
    cudaError_t more = cudaLaunchCooperativeKernel((void *)nothing, dim3(per_sm * sms + 1), dim3(1024), args, 0, 0);
    cudaGetLastError();
    cudaError_t all = cudaLaunchCooperativeKernel((void *)nothing, dim3(per_sm * sms), dim3(1024), args, 0, 0);
    cudaDeviceSynchronize();
    printf("%s: %d SMs (properties %d), %d blocks of 1024 an SM, %d clusters of 2 at once; cooperative %d: %s, %d: %s\n",
           when, sms, p.multiProcessorCount, per_sm, clusters, per_sm * sms + 1, cudaGetErrorName(more),
           per_sm * sms, cudaGetErrorName(all));
}

int main()
{
    report("default");
    emu_set_sm_count(3);
    report("3 SMs");
    emu_set_sm_count(132);
    report("132 SMs");
    emu_set_sm_count(0);
    report("asked for 0");
    return 0;
}
