// v1_interleaved.cu - reference kernel v1 (exercise 02): a shared-memory tree, interleaved addressing.
//
// What it does: each block copies blockDim.x elements into shared memory, then adds them in a tree of
//   log2(blockDim.x) steps; in the step of stride s, each thread whose index is a multiple of 2*s adds
//   the element s places to its right. A barrier ends every step.
// Why it beats ex01: a block does its additions in fast on-chip memory and sends one value out, not one
//   atomic per element.
// The flaw that remains: `tid % (2 * s) == 0` picks threads scattered over every warp, so in each step
//   most lanes of each warp sit idle (warp divergence), and % is a slow instruction.
// Preconditions: blockDim.x is a power of two; blockDim.x * sizeof(int) bytes of dynamic shared memory.
// Result: thread 0 writes the block's sum to d_out[blockIdx.x].

__global__ void reduce_v1_kernel(const int *d_in, int *d_out, unsigned int n)
{
    extern __shared__ int sdata[];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;

    // Load into shared memory: one element per thread, 0 past the end of the input.
    sdata[tid] = (i < n) ? d_in[i] : 0;
    __syncthreads();

    // Reduce in shared memory: interleaved addressing.
    for (unsigned int s = 1; s < blockDim.x; s *= 2) {
        if (tid % (2 * s) == 0)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }

    // Write the block's result.
    if (tid == 0)
        d_out[blockIdx.x] = sdata[0];
}

extern "C" int reduce_v1(const int *d_in, int *d_out, int n, int block)
{
    int grid = (n + block - 1) / block;
    reduce_v1_kernel<<<grid, block, block * sizeof(int)>>>(d_in, d_out, n);
    return grid;
}
