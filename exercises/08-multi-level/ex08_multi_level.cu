// ex08_multi_level.cu - exercise 08: one total for any n, in two levels.
//
// Read lesson.md in this folder first. Fill in the TODOs in order and run `make ex08`.
// The kernel is v6's, finished: each block writes one partial sum. Your part is the host code that turns
// those partials into one total in d_out[0], for every n from 0 to 2^31 - 1.

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

// Sums d_in[0..n) into one partial per block: d_out[blockIdx.x]. Any grid size works.
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
}

// Leaves the sum of d_in[0..n) in d_out[0].
extern "C" void reduce_multi_level(const int *d_in, int *d_out, int n)
{
    // TODO 1: when n is 0 there is nothing to launch: set d_out[0] to 0 and return.

    int grid = 1;
    // TODO 2: set grid to the number of BLOCK-thread blocks that cover n elements, but at most MAX_BLOCKS.
    //         Compute it so that nothing overflows when n is 2^31 - 1.

    int *d_partials = nullptr;
    // TODO 3: allocate room for grid partial sums on the device and point d_partials at it.

    // Level 1: one partial per block.
    reduce_pass_kernel<<<grid, BLOCK>>>(d_in, d_partials, n);
    // TODO 4: level 2: launch the same kernel as one block of MAX_BLOCKS threads that reduces the grid
    //         partials into d_out[0].

    // TODO 5: give the partials' memory back.
}
