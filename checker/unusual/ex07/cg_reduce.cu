// Unusual: cooperative groups: cg::tiled_partition<32> and cg::reduce with cg::plus instead of hand-written shuffles.

// The sum of v over the 32 lanes of a warp, in lane 0. All 32 lanes must call it (mask 0xffffffff).
// In the step of offset k, lane t adds the value of lane t + k; lanes t + k >= 32 get their own value
// back, which only the lanes whose result nobody uses add.
__device__ int warp_reduce(int v)
{
    for (int offset = 16; offset > 0; offset >>= 1)
        v += __shfl_down_sync(0xffffffff, v, offset);
    return v;
}

#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

__global__ void reduce_v6_kernel(const int *d_in, int *d_out, unsigned int n)
{
    __shared__ int warp_sums[32];      // one per warp: at most 1024 / 32 warps
    unsigned int tid = threadIdx.x;
    unsigned int lane = tid % 32, warp_id = tid / 32;

    // Load into registers: a grid-stride loop, each thread adding every (gridDim.x * blockDim.x)-th element.
    int sum = 0;
    for (unsigned int i = blockIdx.x * blockDim.x + tid; i < n; i += gridDim.x * blockDim.x)
        sum += d_in[i];

    // Reduce in registers: each warp with shuffles; lane 0 of each warp hands its sum to the first warp
    // through shared memory; the first warp sums those with shuffles too.
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    sum = cg::reduce(warp, sum, cg::plus<int>());
    if (warp.thread_rank() == 0)
        warp_sums[warp.meta_group_rank()] = sum;
    block.sync();
    if (warp.meta_group_rank() == 0) {
        sum = (lane < warp.meta_group_size()) ? warp_sums[lane] : 0;
        sum = cg::reduce(warp, sum, cg::plus<int>());
    }

    // Write the block's result.
    if (tid == 0)
        d_out[blockIdx.x] = sum;
}

// Enough blocks to fill the GPU with threads once (its multiprocessors times the blocks of this size whose
// threads one multiprocessor can hold), but never more blocks than there are blocks of elements.
extern "C" int reduce_v6(const int *d_in, int *d_out, int n, int block)
{
    int device = 0, sms = 1, threads_per_sm = 2048;
    cudaGetDevice(&device);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    cudaDeviceGetAttribute(&threads_per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, device);
    int grid = sms * (threads_per_sm / block);
    int blocks_of_elements = (int)(((long long)n + block - 1) / block);
    if (grid > blocks_of_elements) grid = blocks_of_elements;
    if (grid < 1) grid = 1;
    reduce_v6_kernel<<<grid, block>>>(d_in, d_out, n);
    return grid;
}
