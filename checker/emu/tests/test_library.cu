// test_library.cu - the emulator runs the library code of exercise 12 and gives the answers a GPU gives:
// CUB's block, warp and device reductions, CUB's select (a kernel parameter's address taken into a
// register), Thrust's reduce, transform_reduce, max_element (a struct's padding copied along) and sort
// (radix sort: bmsk, one tile and many). Every answer is checked against the host; sums are of ints or of
// integer-valued floats, so exact in any order.
// Also: what the runtime counts of the host's calls (emu_activity) around CUB's two-call protocol.
// Thrust with 32-bit offsets only and CUB without its NVTX ranges, as exercise 12's contract
// (checker/contracts/ex12.h) builds them.
#define THRUST_FORCE_32_BIT_OFFSET_TYPE
#define CCCL_DISABLE_NVTX
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <algorithm>
#include <numeric>
#include <cub/block/block_reduce.cuh>
#include <cub/warp/warp_reduce.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_select.cuh>
#include <thrust/reduce.h>
#include <thrust/transform_reduce.h>
#include <thrust/sort.h>
#include <thrust/extrema.h>
#include <thrust/execution_policy.h>
#include <thrust/functional.h>
extern "C" {
#include "../emu.h"
}

static int failures;

static void expect(const char *what, long long got, long long want)
{
    if (got == want) printf("%s: ok\n", what);
    else { printf("%s: got %lld, expected %lld\n", what, got, want); failures++; }
}

// Blocks of 96 threads (three warps, not a power of two), the last block a partial tile.
template <cub::BlockReduceAlgorithm ALGORITHM>
__global__ void block_sum(const int *in, int *out, int n)
{
    typedef cub::BlockReduce<int, 96, ALGORITHM> BlockReduce;
    __shared__ typename BlockReduce::TempStorage temp;
    int i = blockIdx.x * 96 + threadIdx.x, valid = min(96, n - (int)blockIdx.x * 96);
    int v = i < n ? in[i] : 0;
    int sum = BlockReduce(temp).Sum(v, valid);
    if (threadIdx.x == 0) out[blockIdx.x] = sum;
}

// Logical warps of 16 lanes: each half-warp's max.
__global__ void warp_max16(const int *in, int *out)
{
    typedef cub::WarpReduce<int, 16> WarpReduce;
    __shared__ typename WarpReduce::TempStorage temp[4];
    int segment = threadIdx.x / 16;
    int m = WarpReduce(temp[segment]).Reduce(in[threadIdx.x], cuda::maximum<int>{});
    if (threadIdx.x % 16 == 0) out[segment] = m;
}

__global__ void add_one(int *p, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] += 1;
}

struct square { __host__ __device__ float operator()(float x) const { return x * x; } };
struct negative { __host__ __device__ bool operator()(int x) const { return x < 0; } };

int main()
{
    const int n = 100003;
    std::vector<int> h(n);
    for (int i = 0; i < n; i++) h[i] = (int)((i * 7919u) % 201) - 100;
    int *d_in, *d_out, *d_count;
    cudaMalloc(&d_in, n * sizeof(int));
    cudaMalloc(&d_out, n * sizeof(int));
    cudaMalloc(&d_count, sizeof(int));
    cudaMemcpy(d_in, h.data(), n * sizeof(int), cudaMemcpyHostToDevice);

    // CUB's block reductions: 300 elements in blocks of 96 (the last one holds 12).
    int parts[4];
    long long want_parts[4] = {0, 0, 0, 0};
    for (int i = 0; i < 300; i++) want_parts[i / 96] += h[i];
    block_sum<cub::BLOCK_REDUCE_WARP_REDUCTIONS><<<4, 96>>>(d_in, d_out, 300);
    cudaMemcpy(parts, d_out, sizeof parts, cudaMemcpyDeviceToHost);
    for (int b = 0; b < 4; b++) expect("cub::BlockReduce warp reductions, partial tile", parts[b], want_parts[b]);
    block_sum<cub::BLOCK_REDUCE_RAKING><<<4, 96>>>(d_in, d_out, 300);
    cudaMemcpy(parts, d_out, sizeof parts, cudaMemcpyDeviceToHost);
    for (int b = 0; b < 4; b++) expect("cub::BlockReduce raking, partial tile", parts[b], want_parts[b]);

    // CUB's warp reduction over logical warps of 16 lanes.
    warp_max16<<<1, 64>>>(d_in, d_out);
    cudaMemcpy(parts, d_out, sizeof parts, cudaMemcpyDeviceToHost);
    for (int s = 0; s < 4; s++)
        expect("cub::WarpReduce max, 16 lanes", parts[s], *std::max_element(&h[16 * s], &h[16 * s + 16]));

    // CUB's device reduction: the two-call protocol, storage allocated once and used for every size.
    emu_activity act;
    emu_activity_take(NULL);
    size_t bytes = 0;
    void *d_temp = NULL;
    cub::DeviceReduce::Sum(d_temp, bytes, d_in, d_out, n);
    cudaMalloc(&d_temp, bytes);
    const int sizes[] = {0, 1, 1000, n};
    for (int k : sizes) {
        cub::DeviceReduce::Sum(d_temp, bytes, d_in, d_out, k);
        int got;
        cudaMemcpy(&got, d_out, sizeof got, cudaMemcpyDeviceToHost);
        long long want = 0;
        for (int i = 0; i < k; i++) want += h[i];
        expect("cub::DeviceReduce::Sum", got, want);
    }
    emu_activity_take(&act);
    expect("cub::DeviceReduce::Sum: one allocation (the caller's)", (long long)act.allocations, 1);
    expect("cub::DeviceReduce::Sum: the host waited only for the caller's copies", (long long)act.host_waits, 4);

    // CUB's select: its kernel takes a parameter's address.
    cub::DeviceSelect::If(NULL, bytes, d_in, d_out, d_count, n, negative());
    void *d_temp2;
    cudaMalloc(&d_temp2, bytes);
    cub::DeviceSelect::If(d_temp2, bytes, d_in, d_out, d_count, n, negative());
    int count;
    cudaMemcpy(&count, d_count, sizeof count, cudaMemcpyDeviceToHost);
    expect("cub::DeviceSelect::If count", count, std::count_if(h.begin(), h.end(), negative()));

    // Thrust: reduce (a value back on the host), transform_reduce of integer-valued floats.
    expect("thrust::reduce", thrust::reduce(thrust::device, d_in, d_in + n, 0), std::accumulate(h.begin(), h.end(), 0LL));
    std::vector<float> hf(n);
    for (int i = 0; i < n; i++) hf[i] = (float)(h[i] % 13);
    float *d_f;
    cudaMalloc(&d_f, n * sizeof(float));
    cudaMemcpy(d_f, hf.data(), n * sizeof(float), cudaMemcpyHostToDevice);
    long long squares = 0;
    for (float x : hf) squares += (long long)(x * x);
    emu_activity_take(NULL);
    float sq = thrust::transform_reduce(thrust::device, d_f, d_f + n, square(), 0.0f, thrust::plus<float>());
    emu_activity_take(&act);
    expect("thrust::transform_reduce sum of squares", (long long)sq, squares);
    expect("thrust::transform_reduce waits for its value", act.host_waits > 0, 1);
    // max_element reduces (value, index) tuples whose padding nothing writes: not a never-written read.
    float *where = thrust::max_element(thrust::device, d_f, d_f + n);
    expect("thrust::max_element", where - d_f, std::max_element(hf.begin(), hf.end()) - hf.begin());

    // Thrust's sort: one tile (100 keys) and many, ints ascending and floats descending.
    const int sort_sizes[] = {100, n};
    for (int k : sort_sizes) {
        cudaMemcpy(d_out, d_in, k * sizeof(int), cudaMemcpyDeviceToDevice);
        thrust::sort(thrust::device, d_out, d_out + k);
        std::vector<int> got(k), want(h.begin(), h.begin() + k);
        cudaMemcpy(got.data(), d_out, k * sizeof(int), cudaMemcpyDeviceToHost);
        std::sort(want.begin(), want.end());
        expect("thrust::sort ints", got == want, 1);
        cudaMemcpy(d_out, d_f, k * sizeof(float), cudaMemcpyDeviceToDevice);
        thrust::sort(thrust::device, (float *)d_out, (float *)d_out + k, thrust::greater<float>());
        std::vector<float> gotf(k), wantf(hf.begin(), hf.begin() + k);
        cudaMemcpy(gotf.data(), d_out, k * sizeof(float), cudaMemcpyDeviceToHost);
        std::sort(wantf.begin(), wantf.end(), std::greater<float>());
        expect("thrust::sort floats, descending", gotf == wantf, 1);
    }
    // The library's kernels are correct: any finding so far is the emulator's mistake.
    char findings[2048];
    expect("no emulator finding in the library's kernels", emu_findings_take(findings, sizeof findings), 0);

    // cudaLaunchKernelEx, which CUB uses for programmatic dependent launch: attributes that only change
    // scheduling change nothing here; clusters of two blocks run (test_clusters.cu runs cluster kernels).
    cudaMemset(d_out, 0, 100 * sizeof(int));
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr[0].val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t config = {dim3(2), dim3(64), 0, 0, attr, 1};
    cudaError_t err = cudaLaunchKernelEx(&config, add_one, d_out, 100);
    std::vector<int> ones(100);
    cudaMemcpy(ones.data(), d_out, 100 * sizeof(int), cudaMemcpyDeviceToHost);
    expect("cudaLaunchKernelEx with programmatic stream serialization", err == cudaSuccess &&
           std::count(ones.begin(), ones.end(), 1) == 100, 1);
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = 2;
    attr[0].val.clusterDim.y = attr[0].val.clusterDim.z = 1;
    err = cudaLaunchKernelEx(&config, add_one, d_out, 100);
    cudaMemcpy(ones.data(), d_out, 100 * sizeof(int), cudaMemcpyDeviceToHost);
    expect("cudaLaunchKernelEx with clusters of 2 runs", err == cudaSuccess &&
           std::count(ones.begin(), ones.end(), 2) == 100, 1);

    err = cudaDeviceSynchronize();
    expect("no CUDA error", err, cudaSuccess);
    expect("no emulator finding after that", emu_findings_take(findings, sizeof findings), 0);
    return failures ? 1 : 0;
}
