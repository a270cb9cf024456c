// Unusual: the last warp adds with __shfl_down_sync in registers instead of through shared memory with __syncwarp().

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
    for (unsigned int s = blockDim.x / 2; s > 32; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    // ...then the last warp alone: warp-wide barriers only. In each step the lanes below s write
    // sdata[0..s) and read sdata[s..2s), so no lane writes what another reads in the same step; the
    // __syncwarp() after it makes the writes visible to the lanes that read them in the next step.
    if (tid < 32) {
        int v = sdata[tid] + sdata[tid + 32];
        for (int offset = 16; offset > 0; offset >>= 1)
            v += __shfl_down_sync(0xffffffffu, v, offset);
        // Write the block's result.
        if (tid == 0)
            d_out[blockIdx.x] = v;
    }
}

extern "C" int reduce_v4(const int *d_in, int *d_out, int n, int block)
{
    int grid = (n + 2 * block - 1) / (2 * block);
    reduce_v4_kernel<<<grid, block, block * sizeof(int)>>>(d_in, d_out, n);
    return grid;
}
