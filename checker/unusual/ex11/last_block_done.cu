// Unusual: no memset and no atomicAdd into d_out: the last block to finish (atomicInc after __threadfence) adds the blocks' partials and writes d_out[0].

#include <stdint.h>

#define BLOCK 256
#define FULL_MASK 0xffffffffu

// The sum of v over the 32 lanes of a warp; lane 0 holds it.
__device__ int warp_reduce_sum(int v)
{
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_down_sync(FULL_MASK, v, offset);
    return v;
}

// d_in[0..head) are read as ints, then d_in[head..head + 4 * n4) as n4 int4s, then the rest as ints.
__device__ unsigned int blocks_done;   // 0 between launches: the last block's atomicInc wraps it to 0
__device__ int partials[4096];         // one per block: the grid never exceeds the resident blocks

__global__ void reduce_fastest_kernel(const int *d_in, int *d_out, unsigned int n, unsigned int head,
                                      unsigned int n4)
{
    __shared__ int warp_sums[32];
    __shared__ bool is_last;
    unsigned int tid = threadIdx.x, lane = tid % 32, warp_id = tid / 32;
    unsigned int g = blockIdx.x * blockDim.x + tid, stride = blockDim.x * gridDim.x;

    // Load: the scalar head, the 16-byte body in a grid-stride loop, the scalar tail.
    int sum = 0;
    if (g < head)
        sum += d_in[g];
    const int4 *d_in4 = reinterpret_cast<const int4 *>(d_in + head);   // 16-byte aligned
    for (unsigned int i = g; i < n4; i += stride) {
        int4 v = d_in4[i];
        sum += (v.x + v.y) + (v.z + v.w);
    }
    unsigned int tail_start = head + 4 * n4;
    if (g < n - tail_start)
        sum += d_in[tail_start + g];

    // Reduce: each warp with shuffles, then warp 0 over the warps' sums.
    sum = warp_reduce_sum(sum);
    if (lane == 0)
        warp_sums[warp_id] = sum;
    __syncthreads();
    if (warp_id == 0) {
        sum = (lane < blockDim.x / 32) ? warp_sums[lane] : 0;
        sum = warp_reduce_sum(sum);
        if (lane == 0) {
            partials[blockIdx.x] = sum;
            __threadfence();
            is_last = atomicInc(&blocks_done, gridDim.x - 1) == gridDim.x - 1;
        }
    }
    __syncthreads();
    if (!is_last)
        return;
    int total = 0;
    for (unsigned int b = tid; b < gridDim.x; b += blockDim.x)
        total += ((volatile int *)partials)[b];
    total = warp_reduce_sum(total);
    if (lane == 0)
        warp_sums[warp_id] = total;
    __syncthreads();
    if (warp_id == 0) {
        total = (lane < blockDim.x / 32) ? warp_sums[lane] : 0;
        total = warp_reduce_sum(total);
        if (lane == 0)
            d_out[0] = total;
    }
}

// Blocks of BLOCK threads that the device runs at once: asked once, then remembered.
static int resident_blocks(void)
{
    static int blocks = 0;
    if (blocks == 0) {
        int device = 0, sms = 0, per_sm = 0;
        cudaGetDevice(&device);
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, reduce_fastest_kernel, BLOCK, 0);
        blocks = (sms > 0 && per_sm > 0) ? sms * per_sm : 1;
        if (blocks > 4096)
            blocks = 4096;
    }
    return blocks;
}

extern "C" void reduce_fastest(const int *d_in, int *d_out, int n)
{
    // The head: ints before the first 16-byte boundary (0 to 3), no more than n.
    unsigned int misaligned = (unsigned int)((uintptr_t)d_in % 16) / sizeof(int);
    unsigned int head = misaligned ? 4 - misaligned : 0;
    if (head > (unsigned int)n)
        head = n;
    unsigned int n4 = (n - head) / 4;

    // Enough blocks to give every thread an int4, but no more than the device runs at once; at least one.
    int grid = (int)(n4 / BLOCK) + 1;
    if (grid > resident_blocks())
        grid = resident_blocks();

    reduce_fastest_kernel<<<grid, BLOCK>>>(d_in, d_out, n, head, n4);
}
