// Warp-wide instructions whose lanes name different member masks in one converged instruction (two
// half-warps with a mask each), and shuffles that read a lane that does not take part.
#include <cub/warp/warp_reduce.cuh>

__global__ void half_redux(const unsigned *in, unsigned *out)
{
    unsigned lane = threadIdx.x % 32, mask = lane < 16 ? 0x0000ffffu : 0xffff0000u;
    out[threadIdx.x] = __reduce_add_sync(mask, in[threadIdx.x]);
}

__global__ void half_ballot(const int *in, unsigned *out)
{
    unsigned lane = threadIdx.x % 32, mask = lane < 16 ? 0x0000ffffu : 0xffff0000u;
    out[threadIdx.x] = __ballot_sync(mask, in[threadIdx.x] & 1) | (__any_sync(mask, in[threadIdx.x] == 5) << 31);
}

// CUB's reduction over logical warps of 16 lanes: each half-warp gets its own sum in its lane 0.
__global__ void cub_warp16(const int *in, int *out)
{
    typedef cub::WarpReduce<int, 16> WarpReduce;
    __shared__ typename WarpReduce::TempStorage temp[2];
    int sum = WarpReduce(temp[threadIdx.x / 16]).Sum(in[threadIdx.x]);
    if (threadIdx.x % 16 == 0) out[threadIdx.x / 16] = sum;
}

// A warp sum with a full mask in a block of fewer than 32 threads: lane 0 reads lanes that do not exist.
__global__ void tiny_block_shuffle(const int *in, int *out)
{
    int v = in[threadIdx.x];
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
    if (threadIdx.x == 0) *out = v;
}
