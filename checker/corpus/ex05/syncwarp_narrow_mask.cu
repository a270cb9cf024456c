// Bug: each __syncwarp() of the last warp names only the lanes that add next (0xffff, 0xff, ...), not the lanes that wrote what they read: a race.
// expect: emulator found

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
        __syncwarp();
        sdata[tid] += sdata[tid + 32];
        if (tid < 16) { __syncwarp(0xffff); sdata[tid] += sdata[tid + 16]; }
        if (tid < 8) { __syncwarp(0xff); sdata[tid] += sdata[tid + 8]; }
        if (tid < 4) { __syncwarp(0xf); sdata[tid] += sdata[tid + 4]; }
        if (tid < 2) { __syncwarp(0x3); sdata[tid] += sdata[tid + 2]; }
        if (tid < 1) sdata[tid] += sdata[tid + 1];
    }

    // Write the block's result.
    if (tid == 0)
        d_out[blockIdx.x] = sdata[0];
}

extern "C" int reduce_v4(const int *d_in, int *d_out, int n, int block)
{
    int grid = (n + 2 * block - 1) / (2 * block);
    reduce_v4_kernel<<<grid, block, block * sizeof(int)>>>(d_in, d_out, n);
    return grid;
}
