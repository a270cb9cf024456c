// v1_interleaved.cu - exercise 02: reduction v1, a shared-memory tree with interleaved addressing.
//
// Read lesson.md in this folder first. Fill in the TODOs in order and run `make ex02`.
// Each block sums its own blockDim.x elements; thread 0 writes that sum to d_out[blockIdx.x].
// blockDim.x is a power of two (32 to 1024); n can be any size from 1 up.

__global__ void reduce_v1_kernel(const int *d_in, int *d_out, unsigned int n)
{
    extern __shared__ int sdata[];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;

    // Load into shared memory: one element per thread, 0 past the end of the input.
    // TODO 1: store d_in[i] in sdata[tid], or 0 when i is not below n; then wait for the whole block.

    // Reduce in shared memory: interleaved addressing.
    // TODO 2: for s = 1, 2, 4, ... below blockDim.x, let each thread whose tid is a multiple of 2*s
    //         add sdata[tid + s] into sdata[tid]; end every step with __syncthreads().

    // Write the block's result.
    // TODO 3: thread 0 writes sdata[0] to d_out[blockIdx.x].
}

// One block per blockDim.x elements; returns the number of blocks launched.
extern "C" int reduce_v1(const int *d_in, int *d_out, int n, int block)
{
    int grid = (n + block - 1) / block;
    reduce_v1_kernel<<<grid, block, block * sizeof(int)>>>(d_in, d_out, n);
    return grid;
}
