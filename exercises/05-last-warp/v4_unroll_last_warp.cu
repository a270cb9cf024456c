// v4_unroll_last_warp.cu - exercise 05: reduction v4, v3 with the last warp's steps unrolled.
//
// Read lesson.md in this folder first. Fill in the TODOs in order and run `make ex05`.
// The load phase is v3's: each block sums 2 * blockDim.x elements into shared memory, and thread 0
// writes the block's sum to d_out[blockIdx.x]. blockDim.x is a power of two (64 to 1024).

__global__ void reduce_v4_kernel(const int *d_in, int *d_out, unsigned int n)
{
    extern __shared__ int sdata[];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * (blockDim.x * 2) + threadIdx.x;

    // Load into shared memory: two elements per thread, added on the way; 0 for each past the end.
    int sum = (i < n) ? d_in[i] : 0;
    if (i + blockDim.x < n)
        sum += d_in[i + blockDim.x];
    sdata[tid] = sum;
    __syncthreads();

    // Reduce in shared memory: sequential addressing while more than one warp has work...
    // TODO 1: run v3's tree step (threads below s add sdata[tid + s] into sdata[tid], then the whole
    //         block waits) for the strides s = blockDim.x / 2 down to 64 only.

    // ...then the last warp alone: warp-wide barriers only.
    // TODO 2: let the 32 threads of warp 0 finish the tree with the strides 32, 16, 8, 4, 2 and 1, written
    //         out one by one, each step only for the threads below its stride; separate the steps with
    //         __syncwarp(), and use no __syncthreads() here.

    // Write the block's result.
    if (tid == 0)
        d_out[blockIdx.x] = sdata[0];
}

// One block per 2 * blockDim.x elements, as in v3; returns the number of blocks launched.
extern "C" int reduce_v4(const int *d_in, int *d_out, int n, int block)
{
    int grid = (n + 2 * block - 1) / (2 * block);
    reduce_v4_kernel<<<grid, block, block * sizeof(int)>>>(d_in, d_out, n);
    return grid;
}
