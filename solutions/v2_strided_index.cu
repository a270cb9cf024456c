// v2_strided_index.cu - reference kernel between v1 and v2 (Harris's middle step): interleaved
// addressing with a strided index. A cautionary example for exercise 03, not an exercise of its own.
//
// What changed since v1: the busy threads of the step of stride s are no longer the tids that are
//   multiples of 2*s but the first blockDim.x / (2*s) tids; each one computes the slot it works on,
//   index = 2 * s * tid, and adds sdata[index + s] into sdata[index]. The tree is the same tree.
// Why it is faster than v1: the busy threads are contiguous, so whole warps go idle together (no
//   divergence while at least 32 threads are busy), and the % is gone.
// The flaw that remains: shared-memory bank conflicts. Lane k of a warp touches word 2*s*k, so the lanes
//   of one warp land on every (2*s)-th word, and word w sits in bank w % 32: at s = 1 pairs of lanes
//   share a bank (2-way conflict), at s = 2 it is 4-way, ... at s = 16 every busy lane of the warp hits
//   bank 0. Each conflict replays the access, one bank at a time. v2 (sequential addressing) keeps the
//   contiguous threads and gives them contiguous words too.
// Preconditions: blockDim.x is a power of two; blockDim.x * sizeof(int) bytes of dynamic shared memory.
// Result: thread 0 writes the block's sum to d_out[blockIdx.x].

__global__ void reduce_v2_strided_kernel(const int *d_in, int *d_out, unsigned int n)
{
    extern __shared__ int sdata[];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;

    // Load into shared memory: one element per thread, 0 past the end of the input.
    sdata[tid] = (i < n) ? d_in[i] : 0;
    __syncthreads();

    // Reduce in shared memory: interleaved addressing with a strided index.
    for (unsigned int s = 1; s < blockDim.x; s *= 2) {
        unsigned int index = 2 * s * tid;
        if (index < blockDim.x)
            sdata[index] += sdata[index + s];
        __syncthreads();
    }

    // Write the block's result.
    if (tid == 0)
        d_out[blockIdx.x] = sdata[0];
}

extern "C" int reduce_v2_strided(const int *d_in, int *d_out, int n, int block)
{
    int grid = (n + block - 1) / block;
    reduce_v2_strided_kernel<<<grid, block, block * sizeof(int)>>>(d_in, d_out, n);
    return grid;
}
