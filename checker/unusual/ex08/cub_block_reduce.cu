// Unusual: CUB's cub::BlockReduce inside the learner's own kernel, for both levels (blocks of 256 threads).

#include <cub/block/block_reduce.cuh>

#define BLOCK 256         // threads per block of level 1
#define MAX_BLOCKS 1024   // level 1 launches at most this many blocks: level 2 is one block of this many threads
#define FULL_MASK 0xffffffffu

// The sum of v over the 32 lanes of a warp; lane 0 holds it.
__device__ int warp_reduce_sum(int v)
{
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_down_sync(FULL_MASK, v, offset);
    return v;
}

__global__ void reduce_pass_kernel(const int *d_in, int *d_out, unsigned int n)
{
    typedef cub::BlockReduce<int, BLOCK> BlockReduce;
    __shared__ typename BlockReduce::TempStorage temp;
    unsigned int tid = threadIdx.x;

    // Load: a grid-stride loop. n < 2^31 and the stride < 2^31, so i + stride < 2^32 never wraps around
    // in unsigned int; in an int it could pass INT_MAX, which is undefined behaviour.
    int sum = 0;
    for (unsigned int i = blockIdx.x * blockDim.x + tid; i < n; i += blockDim.x * gridDim.x)
        sum += d_in[i];

    // Reduce: CUB's block reduction; thread 0 receives the block's sum.
    sum = BlockReduce(temp).Sum(sum);
    if (tid == 0)
        d_out[blockIdx.x] = sum;
}

extern "C" void reduce_multi_level(const int *d_in, int *d_out, int n)
{
    if (n == 0) {                                // no element, no launch: the total of nothing is 0
        cudaMemset(d_out, 0, sizeof(int));
        return;
    }
    int grid = (n - 1) / BLOCK + 1;              // rounds up without computing n + BLOCK - 1, which overflows
    if (grid > MAX_BLOCKS)
        grid = MAX_BLOCKS;                       // more elements than threads: the grid-stride loop covers them

    int *d_partials;
    cudaMalloc(&d_partials, grid * sizeof(int));

    // Level 1: one partial per block.
    reduce_pass_kernel<<<grid, BLOCK>>>(d_in, d_partials, n);
    // Level 2: one block reduces the partials to the total. Same stream: it starts after level 1 ends.
    reduce_pass_kernel<<<1, BLOCK>>>(d_partials, d_out, grid);

    cudaFree(d_partials);
}
