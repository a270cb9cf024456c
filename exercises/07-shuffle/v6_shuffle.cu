// v6_shuffle.cu - exercise 07: reduction v6, warp shuffles and a grid-stride loop.
//
// Read lesson.md in this folder first. Fill in the TODOs in order and run `make ex07`.
// The launcher picks a grid that fills the GPU, whatever n is; each thread sums many elements; each
// block writes one partial sum to d_out[blockIdx.x] and the launcher returns the number of blocks.
// blockDim.x is a power of two (32 to 1024); n can be any size from 1 up.

// The sum of v over the 32 lanes of a warp, in lane 0. All 32 lanes must call it.
__device__ int warp_reduce(int v)
{
    // TODO 1: add to v the value of the lane 16, then 8, 4, 2 and 1 lanes above it, with __shfl_down_sync
    //         over the whole warp.
    return v;
}

__global__ void reduce_v6_kernel(const int *d_in, int *d_out, unsigned int n)
{
    __shared__ int warp_sums[32];      // one per warp: at most 1024 / 32 warps
    unsigned int tid = threadIdx.x;
    unsigned int lane = tid % 32, warp_id = tid / 32;

    // Load into registers: a grid-stride loop, each thread adding every (gridDim.x * blockDim.x)-th element.
    int sum = 0;
    // TODO 2: starting at this thread's index in the whole grid, add d_in[i] to sum for every i below n,
    //         stepping by the number of threads in the grid (stride). For speed, take four elements per
    //         step (i, i + stride, i + 2 * stride, i + 3 * stride) while all four are below n, then the
    //         rest one by one.

    // Reduce in registers: each warp with shuffles; lane 0 of each warp hands its sum to the first warp
    // through shared memory; the first warp sums those with shuffles too.
    sum = warp_reduce(sum);
    // TODO 3: lane 0 of each warp stores its warp's sum in warp_sums[warp_id]; after the whole block has
    //         stored, the first warp reduces the blockDim.x / 32 values of warp_sums (0 for its other
    //         lanes) with warp_reduce.

    // Write the block's result.
    if (tid == 0)
        d_out[blockIdx.x] = sum;
}

// Enough blocks to fill the GPU with threads once, but never more blocks than there are blocks of elements.
extern "C" int reduce_v6(const int *d_in, int *d_out, int n, int block)
{
    int grid = 1;
    // TODO 4: set grid to the device's multiprocessor count (cudaDeviceGetAttribute) times the number of
    //         blocks of `block` threads whose threads one multiprocessor can hold, capped at the number of
    //         blocks needed to give every thread at least one element.
    reduce_v6_kernel<<<grid, block>>>(d_in, d_out, n);
    return grid;
}
