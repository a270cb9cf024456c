// Bug: a home-made grid barrier: each block counts itself in and spins until all blocks have arrived; blocks that are not running yet never arrive, so the kernel never returns.
// expect: cudaErrorLaunchTimeout

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

__device__ unsigned int arrived;   // blocks that have finished level 1

__global__ void reduce_pass_kernel(const int *d_in, int *d_out, unsigned int n)
{
    __shared__ int warp_sums[32];
    unsigned int tid = threadIdx.x, lane = tid % 32, warp_id = tid / 32;

    // Load: a grid-stride loop. n < 2^31 and the stride < 2^31, so i + stride < 2^32 never wraps around
    // in unsigned int; in an int it could pass INT_MAX, which is undefined behaviour.
    int sum = 0;
    for (unsigned int i = blockIdx.x * blockDim.x + tid; i < n; i += blockDim.x * gridDim.x)
        sum += d_in[i];

    // Reduce: each warp with shuffles, then warp 0 over the warps' sums.
    sum = warp_reduce_sum(sum);
    if (lane == 0)
        warp_sums[warp_id] = sum;
    __syncthreads();
    if (warp_id == 0) {
        sum = (lane < blockDim.x / 32) ? warp_sums[lane] : 0;
        sum = warp_reduce_sum(sum);
        // Write the block's result.
        if (lane == 0)
            d_out[blockIdx.x] = sum;
    }
    // Wait for every block, so that the partials are complete (volatile: read it again every time).
    if (tid == 0 && gridDim.x > 1) {
        atomicAdd(&arrived, 1);
        while (*(volatile unsigned int *)&arrived < gridDim.x) { }
    }
    __syncthreads();
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
    reduce_pass_kernel<<<1, MAX_BLOCKS>>>(d_partials, d_out, grid);

    cudaFree(d_partials);
}
