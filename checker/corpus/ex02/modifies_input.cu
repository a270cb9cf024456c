// Bug: the tree runs in place in global memory, in d_in itself (a const_cast away): right sums, but the input is destroyed.
// expect: changed the input

__global__ void reduce_v1_kernel(const int *d_in, int *d_out, unsigned int n)
{
    extern __shared__ int sdata[];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;

    int *data = const_cast<int *>(d_in) + blockIdx.x * blockDim.x;   // this block's elements, in place
    (void)sdata;

    // Reduce in global memory: interleaved addressing, partners past n skipped.
    for (unsigned int s = 1; s < blockDim.x; s *= 2) {
        if (tid % (2 * s) == 0 && i + s < n)
            data[tid] += data[tid + s];
        __syncthreads();
    }

    // Write the block's result.
    if (tid == 0)
        d_out[blockIdx.x] = data[0];
}

extern "C" int reduce_v1(const int *d_in, int *d_out, int n, int block)
{
    int grid = (n + block - 1) / block;
    reduce_v1_kernel<<<grid, block, block * sizeof(int)>>>(d_in, d_out, n);
    return grid;
}
