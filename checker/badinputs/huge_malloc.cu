// Bad input: the launcher asks cudaMalloc for a terabyte of scratch memory, does not check the error, and launches with it.
// exercise: 02
// expect: cudaMalloc

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
    int *d_scratch = 0;
    cudaMalloc(&d_scratch, (size_t)1 << 40);   // a terabyte
    d_out = d_scratch;
    reduce_v1_kernel<<<grid, block, block * sizeof(int)>>>(d_in, d_out, n);
    return grid;
}
