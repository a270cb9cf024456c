// v2_sequential.cu - exercise 03: reduction v2, a shared-memory tree with sequential addressing.
//
// Read lesson.md in this folder first. Fill in the TODO and run `make ex03`.
// The load and the write are v1's, unchanged; only the tree in shared memory is yours to rewrite.
// Each block sums its own blockDim.x elements; thread 0 writes that sum to d_out[blockIdx.x].
// blockDim.x is a power of two (32 to 1024); n can be any size from 1 up.

__global__ void reduce_v2_kernel(const int *d_in, int *d_out, unsigned int n)
{
    extern __shared__ int sdata[];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;

    // Load into shared memory: one element per thread, 0 past the end of the input.
    sdata[tid] = (i < n) ? d_in[i] : 0;
    __syncthreads();

    // Reduce in shared memory: sequential addressing.
    // TODO 1: for s = blockDim.x / 2, then half of that, down to 1: let each thread whose tid is below
    //         s add sdata[tid + s] into sdata[tid]; end every step with __syncthreads().

    // Write the block's result.
    if (tid == 0)
        d_out[blockIdx.x] = sdata[0];
}

// One block per blockDim.x elements; returns the number of blocks launched.
extern "C" int reduce_v2(const int *d_in, int *d_out, int n, int block)
{
    int grid = (n + block - 1) / block;
    reduce_v2_kernel<<<grid, block, block * sizeof(int)>>>(d_in, d_out, n);
    return grid;
}
