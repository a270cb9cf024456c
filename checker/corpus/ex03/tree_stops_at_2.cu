// Bug: off by one in the tree: the loop runs while s > 1, so the last step (stride 1) never adds sdata[1] to sdata[0].
// expect: ✗ core: one block of 256 writes its sum

__global__ void reduce_v2_kernel(const int *d_in, int *d_out, unsigned int n)
{
    extern __shared__ int sdata[];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;

    // Load into shared memory: one element per thread, 0 past the end of the input.
    sdata[tid] = (i < n) ? d_in[i] : 0;
    __syncthreads();

    // Reduce in shared memory: sequential addressing.
    for (unsigned int s = blockDim.x / 2; s > 1; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
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
