// Bug: the tree step's __syncthreads() sits inside `if (tid < s)`: a barrier in a divergent branch, which the other threads never reach.
// expect: it sits in divergent code

__global__ void reduce_v2_kernel(const int *d_in, int *d_out, unsigned int n)
{
    extern __shared__ int sdata[];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;

    // Load into shared memory: one element per thread, 0 past the end of the input.
    sdata[tid] = (i < n) ? d_in[i] : 0;
    __syncthreads();

    // Reduce in shared memory: sequential addressing.
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            sdata[tid] += sdata[tid + s];
            __syncthreads();
        }
    }

    // Write the block's result.
    if (tid == 0)
        d_out[blockIdx.x] = sdata[0];
}

extern "C" int reduce_v2(const int *d_in, int *d_out, int n, int block)
{
    int grid = (n + block - 1) / block;
    reduce_v2_kernel<<<grid, block, block * sizeof(int)>>>(d_in, d_out, n);
    return grid;
}
