// ex11_fastest.cu - exercise 11: the fastest reduction here, in a single pass.
//
// Read lesson.md in this folder first. Fill in the TODOs in order and run `make ex11`; on a GPU, then run
// `make bench` to race CUB. One launch (plus a cudaMemsetAsync), int4 loads in a grid-stride loop, a grid
// the size of the machine, and a scalar head and tail so that every n and every 4-byte-aligned d_in works.

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
__global__ void reduce_fastest_kernel(const int *d_in, int *d_out, unsigned int n, unsigned int head,
                                      unsigned int n4)
{
    __shared__ int warp_sums[32];
    unsigned int tid = threadIdx.x, lane = tid % 32, warp_id = tid / 32;

    // Load: the scalar head, the 16-byte body in a grid-stride loop, the scalar tail.
    int sum = 0;
    // TODO 1: the head: the first head threads of the whole grid (not of each block) each add one of
    //         d_in[0..head).

    // TODO 2: the body: a grid-stride loop over the n4 int4s that start at d_in + head, adding all four
    //         ints of each into sum. For speed, load four int4s per step (i, i + stride, i + 2 * stride,
    //         i + 3 * stride) while all four are below n4, then the rest one by one.

    // TODO 3: the tail: the ints after the last whole int4, up to n, each added by one thread.

    // Reduce: each warp with shuffles, then warp 0 over the warps' sums.
    sum = warp_reduce_sum(sum);
    if (lane == 0)
        warp_sums[warp_id] = sum;
    __syncthreads();
    if (warp_id == 0) {
        sum = (lane < blockDim.x / 32) ? warp_sums[lane] : 0;
        sum = warp_reduce_sum(sum);
        // Write the block's result: added to the total, which the memset set to 0.
        if (lane == 0)
            atomicAdd(d_out, sum);
    }
}

// Blocks of BLOCK threads that the device runs at once: asked once, then remembered.
static int resident_blocks(void)
{
    static int blocks = 0;
    if (blocks == 0) {
        int sms = 0, per_sm = 0;
        // TODO 4: ask the runtime for the current device's number of multiprocessors (sms), and for how
        //         many blocks of BLOCK threads of reduce_fastest_kernel fit on one multiprocessor (per_sm).
        blocks = (sms > 0 && per_sm > 0) ? sms * per_sm : 1;
    }
    return blocks;
}

extern "C" void reduce_fastest(const int *d_in, int *d_out, int n)
{
    // The head: ints before the first 16-byte boundary (0 to 3), no more than n.
    unsigned int head = 0;
    // TODO 5: set head to the number of ints from d_in up to the first address that is a multiple of 16.
    if (head > (unsigned int)n)
        head = n;
    unsigned int n4 = (n - head) / 4;

    // Enough blocks to give every thread an int4, but no more than the device runs at once; at least one.
    int grid = (int)(n4 / BLOCK) + 1;
    if (grid > resident_blocks())
        grid = resident_blocks();

    // TODO 6: set d_out[0] to 0 on the device, without waiting for it, before the kernel adds to it.
    reduce_fastest_kernel<<<grid, BLOCK>>>(d_in, d_out, n, head, n4);
}
