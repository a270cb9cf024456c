// Bug: thread 0 writes the block's sum to d_out[i], its element's index, instead of d_out[blockIdx.x].
// expect: ✗ core: 64 blocks each write the sum of their 512 elements

__global__ void reduce_v3_kernel(const int *d_in, int *d_out, unsigned int n)
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

    // Reduce in shared memory: sequential addressing.
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }

    // Write the block's result.
    if (tid == 0)
        d_out[i] = sdata[0];
}

extern "C" int reduce_v3(const int *d_in, int *d_out, int n, int block)
{
    int grid = (n + 2 * block - 1) / (2 * block);
    reduce_v3_kernel<<<grid, block, block * sizeof(int)>>>(d_in, d_out, n);
    return grid;
}
