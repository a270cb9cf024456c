// Bug: last-block-done with atomicInc(&blocks_done, gridDim.x): the counter wraps only past gridDim.x, so it is left at gridDim.x and the next call finds no last block.
// expect: nothing was written to it

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

__device__ unsigned int blocks_done;   // 0 between launches: the last block sets it back

__global__ void reduce_pass_kernel(const int *d_in, int *d_partials, int *d_out, unsigned int n)
{
    __shared__ int warp_sums[32];
    __shared__ bool is_last;
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
        if (lane == 0) {
            d_partials[blockIdx.x] = sum;
            __threadfence();                                   // the partial is visible before the count
            is_last = atomicInc(&blocks_done, gridDim.x) == gridDim.x - 1;
        }
    }
    __syncthreads();
    if (!is_last)
        return;
    // The last block: every other partial is written. Volatile reads see them, not a stale cache.
    int total = 0;
    for (unsigned int b = tid; b < gridDim.x; b += blockDim.x)
        total += ((volatile int *)d_partials)[b];
    total = warp_reduce_sum(total);
    if (lane == 0)
        warp_sums[warp_id] = total;
    __syncthreads();
    if (warp_id == 0) {
        total = (lane < blockDim.x / 32) ? warp_sums[lane] : 0;
        total = warp_reduce_sum(total);
        if (lane == 0)
            d_out[0] = total;                                  // (the counter is not back at 0)
    }
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

    reduce_pass_kernel<<<grid, BLOCK>>>(d_in, d_partials, d_out, n);

    cudaFree(d_partials);
}
