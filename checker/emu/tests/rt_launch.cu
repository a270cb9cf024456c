// rt_launch.cu - the runtime's launch path, against the fake engine: registration, <<<>>>, symbols,
// configuration limits, sticky and non-sticky errors, reset, occupancy and metrics.
#include <cstdio>
#include <cstring>
extern "C" {
#include "../emu.h"  // a C header without extern "C" of its own
}
#include "emu_check.h"

extern "C" int fake_modules_loaded;
extern "C" emu_launch_config fake_last_config;

__device__ int counter;
__constant__ float coef[4];
__managed__ int mx;

__global__ void twice(const int *in, int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i] * 2;
}
__global__ void count(int *c) { atomicAdd(c, 1); atomicAdd(&counter, 1); }
__global__ void crash(int *p) { p[threadIdx.x] = coef[0]; }
__global__ void bump(int *p) { *p += 1; mx += 1; }
__global__ void unsupported(int *p) { *p = 0; }
__global__ void bigshared(int *p)
{
    __shared__ int s[10000];
    s[threadIdx.x] = *p;
    __syncthreads();
    *p = s[(threadIdx.x + 1) % blockDim.x];
}

static void test_launch_runs_a_kernel_on_copied_data(void)
{
    const int n = 100;
    int h_in[n], h_out[n];
    for (int i = 0; i < n; i++) h_in[i] = i - 7;
    int *d_in, *d_out;
    CHECK(cudaMalloc(&d_in, n * sizeof(int)) == cudaSuccess, "cudaMalloc");
    CHECK(cudaMalloc(&d_out, n * sizeof(int)) == cudaSuccess, "cudaMalloc");
    CHECK(cudaMemcpy(d_in, h_in, sizeof h_in, cudaMemcpyHostToDevice) == cudaSuccess, "H2D");
    twice<<<(n + 31) / 32, 32>>>(d_in, d_out, n);
    CHECK(cudaGetLastError() == cudaSuccess, "launch");
    CHECK(cudaDeviceSynchronize() == cudaSuccess, "sync");
    CHECK(cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost) == cudaSuccess, "D2H");
    for (int i = 0; i < n; i++) CHECK(h_out[i] == 2 * h_in[i], "out[%d] = %d, expected %d", i, h_out[i], 2 * h_in[i]);

    // The same through the C API, with an explicit argument array.
    void *args[] = {&d_out, &d_in, (void *)&n};
    CHECK(cudaLaunchKernel((const void *)twice, dim3(4), dim3(32), args, 0, 0) == cudaSuccess, "cudaLaunchKernel");
    CHECK(cudaMemcpy(h_out, d_in, sizeof h_out, cudaMemcpyDeviceToHost) == cudaSuccess, "D2H");
    CHECK(h_out[5] == 4 * h_in[5], "twice twice: %d", h_out[5]);
    cudaFree(d_in);
    cudaFree(d_out);
}

static void test_symbols_are_copied_to_and_from(void)
{
    int zero = 0, got = -1;
    CHECK(cudaMemcpyToSymbol(counter, &zero, sizeof zero) == cudaSuccess, "to counter");
    int *d_c;
    cudaMalloc(&d_c, sizeof(int));
    cudaMemset(d_c, 0, sizeof(int));
    count<<<2, 3>>>(d_c);
    CHECK(cudaMemcpy(&got, d_c, sizeof got, cudaMemcpyDeviceToHost) == cudaSuccess, "D2H");
    CHECK(got == 6, "count<<<2,3>>> gave %d", got);
    cudaFree(d_c);

    float h[4] = {1, 2, 3, 4}, back[4] = {0};
    CHECK(cudaMemcpyToSymbol(coef, h, sizeof h) == cudaSuccess, "to coef");
    CHECK(cudaMemcpyFromSymbol(back, coef, sizeof back) == cudaSuccess, "from coef");
    CHECK(memcmp(h, back, sizeof h) == 0, "coef round trip");
    CHECK(cudaMemcpyFromSymbol(back, coef, 2 * sizeof(float), 2 * sizeof(float)) == cudaSuccess, "offset");
    CHECK(back[0] == 3 && back[1] == 4, "coef at offset 8: %g %g", back[0], back[1]);
    CHECK(cudaMemcpyToSymbol(coef, h, sizeof h, 4) == cudaErrorInvalidValue, "16 bytes at offset 4 do not fit");
    CHECK(cudaGetLastError() == cudaErrorInvalidValue, "the failure is the last error");
    CHECK(cudaMemcpyToSymbol(h, h, 4) == cudaErrorInvalidSymbol, "a host array is not a symbol");
    cudaGetLastError();
    void *addr = nullptr;
    size_t size = 0;
    CHECK(cudaGetSymbolAddress(&addr, coef) == cudaSuccess && addr, "address of coef");
    CHECK(cudaGetSymbolSize(&size, coef) == cudaSuccess && size == 16, "size of coef: %zu", size);
    CHECK(emu_mem_lookup((uintptr_t)addr, 16) != nullptr, "coef's storage is registered device memory");
}

static void expect_config_error(cudaError_t want, const char *finding, const char *what)
{
    cudaError_t got = cudaGetLastError();
    CHECK(got == want, "%s: cudaGetLastError gave %s, expected %s", what, cudaGetErrorName(got), cudaGetErrorName(want));
    CHECK(cudaGetLastError() == cudaSuccess, "%s: a configuration error is not sticky", what);
    char buf[4096];
    int n = emu_findings_take(buf, sizeof buf);
    CHECK(n >= 1 && strstr(buf, finding), "%s: the finding should mention \"%s\", got: %s", what, finding, buf);
}

static void test_bad_configurations_are_refused_with_the_limit_named(void)
{
    int *d;
    cudaMalloc(&d, 4096);
    emu_findings_take(nullptr, 0);
    twice<<<1, 1025>>>(d, d, 1);
    expect_config_error(cudaErrorInvalidConfiguration, "blockDim.x = 1025; the limit is 1024", "1025 threads");
    twice<<<1, dim3(32, 32, 2)>>>(d, d, 1);
    expect_config_error(cudaErrorInvalidConfiguration, "2048 threads per block", "32x32x2");
    twice<<<1, dim3(1, 1, 65)>>>(d, d, 1);
    expect_config_error(cudaErrorInvalidConfiguration, "blockDim.z = 65; the limit is 64", "block z 65");
    twice<<<0, 32>>>(d, d, 1);
    expect_config_error(cudaErrorInvalidConfiguration, "gridDim = (0, 1, 1)", "0 blocks");
    twice<<<dim3(1, 70000), 32>>>(d, d, 1);
    expect_config_error(cudaErrorInvalidConfiguration, "gridDim.y = 70000; the limit is 65535", "grid y");
    count<<<1, 32, 60000>>>(d);
    expect_config_error(cudaErrorInvalidValue, "60000 bytes of shared memory", "60000 B dynamic shared");
    bigshared<<<1, 32, 10000>>>(d);
    expect_config_error(cudaErrorInvalidValue, "(40000 static + 10000 dynamic)", "static + dynamic");

    CHECK(cudaFuncSetAttribute((const void *)count, cudaFuncAttributeMaxDynamicSharedMemorySize, 60000) == cudaSuccess,
          "opt in to 60000 bytes");
    count<<<1, 32, 60000>>>(d);
    CHECK(cudaGetLastError() == cudaSuccess, "after opting in, 60000 bytes launch");
    CHECK(cudaFuncSetAttribute((const void *)count, cudaFuncAttributeMaxDynamicSharedMemorySize, 232452) ==
          cudaErrorInvalidValue, "opt in beyond the device's 232448 bytes");
    cudaGetLastError();
    CHECK(cudaLaunchKernel((const void *)&test_launch_runs_a_kernel_on_copied_data, dim3(1), dim3(1), nullptr, 0, 0) ==
          cudaErrorInvalidDeviceFunction, "a host function is not a kernel");
    CHECK(cudaGetLastError() == cudaErrorInvalidDeviceFunction, "the last error");
    cudaStream_t s;
    cudaStreamCreate(&s);
    cudaStreamDestroy(s);
    count<<<1, 1, 0, s>>>(d);
    CHECK(cudaGetLastError() == cudaErrorInvalidResourceHandle, "a destroyed stream");
    emu_findings_take(nullptr, 0);
    cudaFree(d);
}

static void test_a_fatal_kernel_error_is_sticky_until_reset(void)
{
    int *d;
    cudaMalloc(&d, 64);
    crash<<<1, 1>>>(d);
    CHECK(cudaGetLastError() == cudaSuccess, "as on a GPU, the launch itself succeeds");
    CHECK(cudaDeviceSynchronize() == cudaErrorIllegalAddress, "the synchronisation reports the fault");
    CHECK(cudaGetLastError() == cudaErrorIllegalAddress, "cudaGetLastError reports it");
    CHECK(cudaGetLastError() == cudaErrorIllegalAddress, "and keeps reporting it: it is sticky");
    int *e;
    CHECK(cudaMalloc(&e, 4) == cudaErrorIllegalAddress, "every call fails after it");
    count<<<1, 1>>>(d);
    CHECK(cudaPeekAtLastError() == cudaErrorIllegalAddress, "a later launch too");
    int loads = fake_modules_loaded;
    CHECK(cudaDeviceReset() == cudaSuccess, "reset");
    CHECK(cudaGetLastError() == cudaSuccess, "reset clears it");
    CHECK(emu_mem_lookup((uintptr_t)d, 4) == nullptr, "reset frees device memory");
    CHECK(cudaMalloc(&d, 64) == cudaSuccess, "memory can be allocated again");
    count<<<1, 1>>>(d);
    CHECK(cudaDeviceSynchronize() == cudaSuccess, "kernels run again");
    CHECK(fake_modules_loaded == loads + 1, "the module was reloaded once after the reset (%d -> %d)", loads,
          fake_modules_loaded);

    unsupported<<<1, 1>>>(d);
    CHECK(cudaGetLastError() == cudaErrorNotSupported, "a non-fatal kernel error is reported at once");
    CHECK(cudaGetLastError() == cudaSuccess, "and cleared by reading it");
    CHECK(cudaDeviceSynchronize() == cudaSuccess, "the context is still usable");
    cudaFree(d);
    emu_findings_take(nullptr, 0);
}

static void test_attributes_and_occupancy(void)
{
    int blocks = -1;
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, twice, 256, 0) == cudaSuccess, "occupancy");
    CHECK(blocks == 8, "256 threads: 8 blocks per SM, got %d", blocks);
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, twice, 1024, 0);
    CHECK(blocks == 2, "1024 threads: 2 blocks per SM, got %d", blocks);
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, twice, 32, 0);
    CHECK(blocks == 32, "32 threads: the 32-block limit, got %d", blocks);
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, twice, 64, 48 * 1024);
    CHECK(blocks == 4, "48 KiB shared: 4 blocks per SM (228 KiB, 1 KiB reserved per block), got %d", blocks);
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, bigshared, 64, 0);
    CHECK(blocks == 5, "40000 B static shared: 5 blocks per SM, got %d", blocks);
    /* more than 48 KiB of dynamic shared memory only after the opt-in, as an H100 answers */
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, twice, 128, 64 * 1024);
    CHECK(blocks == 0, "64 KiB without the opt-in: 0 blocks, got %d", blocks);
    CHECK(cudaFuncSetAttribute((const void *)twice, cudaFuncAttributeMaxDynamicSharedMemorySize, 100 * 1024) ==
          cudaSuccess, "opt in to 100 KiB");
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, twice, 128, 64 * 1024);
    CHECK(blocks == 3, "64 KiB after the opt-in: 3 blocks, got %d", blocks);
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, twice, 128, 101 * 1024);
    CHECK(blocks == 0, "above the opt-in: 0 blocks, got %d", blocks);
    int min_grid = 0, best = 0;
    CHECK(cudaOccupancyMaxPotentialBlockSize(&min_grid, &best, twice) == cudaSuccess, "max potential block size");
    CHECK(best > 0 && best <= 1024 && min_grid > 0, "block %d, grid %d", best, min_grid);
    cudaFuncAttributes a;
    CHECK(cudaFuncGetAttributes(&a, bigshared) == cudaSuccess, "attributes");
    CHECK(a.sharedSizeBytes == 40000 && a.maxThreadsPerBlock == 1024, "static shared %zu", a.sharedSizeBytes);
}

__global__ void clustered(int *p) { *p = 0; }

// Clusters and cooperative launches are checked as a GPU's runtime checks them, then passed to the engine.
static void test_clusters_and_cooperative_launches_are_checked(void)
{
    int *d;
    cudaMalloc(&d, 4);
    emu_findings_take(nullptr, 0);
    clustered<<<3, 32>>>(d);
    expect_config_error(cudaErrorInvalidClusterSize, "clusters of (2, 1, 1) blocks do not tile", "3 blocks");
    clustered<<<4, 32>>>(d);
    CHECK(cudaGetLastError() == cudaSuccess && fake_last_config.cluster.x == 2, "__cluster_dims__(2, 1, 1) runs");

    cudaLaunchAttribute attr[2];
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = 16; attr[0].val.clusterDim.y = 1; attr[0].val.clusterDim.z = 1;
    cudaLaunchConfig_t c = {};
    c.gridDim = dim3(32); c.blockDim = dim3(128); c.attrs = attr; c.numAttrs = 1;
    CHECK(cudaLaunchKernelEx(&c, count, d) == cudaErrorInvalidClusterSize, "16 blocks need the opt-in");
    expect_config_error(cudaErrorInvalidClusterSize, "a cluster holds at most 8 (16 after", "cluster of 16");
    int clusters = -1;
    CHECK(cudaFuncSetAttribute((const void *)count, cudaFuncAttributeNonPortableClusterSizeAllowed, 1) == cudaSuccess,
          "non-portable sizes");
    CHECK(cudaOccupancyMaxActiveClusters(&clusters, count, &c) == cudaSuccess && clusters == 16,
          "16 clusters of 16 blocks of 128 threads on the emulator's 16 SMs (16 blocks each), got %d", clusters);
    c.blockDim = dim3(1024);
    CHECK(cudaOccupancyMaxActiveClusters(&clusters, count, &c) == cudaSuccess && clusters == 2,
          "2 clusters of 16 blocks of 1024 threads (2 per SM), got %d", clusters);
    c.blockDim = dim3(128);
    CHECK(cudaLaunchKernelEx(&c, count, d) == cudaSuccess && fake_last_config.cluster.x == 16, "cluster of 16");
    c.gridDim = dim3(24);
    CHECK(cudaLaunchKernelEx(&c, count, d) == cudaErrorInvalidClusterSize, "24 blocks in clusters of 16");
    emu_findings_take(nullptr, 0);

    attr[0].id = cudaLaunchAttributeCooperative;
    attr[0].val.cooperative = 1;
    c.gridDim = dim3(16 * 16); c.blockDim = dim3(128);
    CHECK(cudaLaunchKernelEx(&c, count, d) == cudaSuccess && fake_last_config.cooperative, "16 blocks per SM fit");
    c.gridDim = dim3(16 * 16 + 1);
    CHECK(cudaLaunchKernelEx(&c, count, d) == cudaErrorCooperativeLaunchTooLarge, "one more does not");
    CHECK(cudaLaunchCooperativeKernel((const void *)count, dim3(16 * 16 + 1), dim3(128), nullptr, 0, 0) ==
          cudaErrorCooperativeLaunchTooLarge, "the same through cudaLaunchCooperativeKernel");
    emu_findings_take(nullptr, 0);
    cudaGetLastError();
    cudaFree(d);
}

static void test_managed_variables_are_shared_with_host_code(void)
{
    mx = 41;  // host code writes the variable's storage directly
    bump<<<1, 1>>>(&mx);
    CHECK(cudaDeviceSynchronize() == cudaSuccess, "sync");
    CHECK(mx == 42, "the kernel saw and changed the host's value: %d", mx);
    CHECK(emu_mem_lookup((uintptr_t)&mx, sizeof mx) != nullptr, "its storage is device memory");
}

static void test_metrics_are_summed_over_launches(void)
{
    emu_metrics m;
    emu_metrics_take(&m);
    int *d;
    cudaMalloc(&d, 4);
    count<<<3, 64>>>(d);
    count<<<dim3(2, 2), 32>>>(d);
    emu_metrics_take(&m);
    CHECK(m.blocks == 7, "blocks: %llu", (unsigned long long)m.blocks);
    CHECK(m.global_atomics == 6 + 4, "atomics: %llu", (unsigned long long)m.global_atomics);
    CHECK(m.threads_per_block == 32, "the latest block size: %llu", (unsigned long long)m.threads_per_block);
    emu_metrics_take(&m);
    CHECK(m.blocks == 0, "taking resets");
    cudaFree(d);
}

int main()
{
    test_launch_runs_a_kernel_on_copied_data();
    test_symbols_are_copied_to_and_from();
    test_bad_configurations_are_refused_with_the_limit_named();
    test_a_fatal_kernel_error_is_sticky_until_reset();
    test_attributes_and_occupancy();
    test_clusters_and_cooperative_launches_are_checked();
    test_metrics_are_summed_over_launches();
    test_managed_variables_are_shared_with_host_code();
    return CHECK_DONE();
}
