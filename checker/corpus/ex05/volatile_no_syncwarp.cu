// Bug: the classic last warp (Harris 2007): `volatile` and no __syncwarp(), a data race since Volta.
// expect: emulator found
// The lanes of a warp need not run in lockstep; volatile only keeps every access in memory.

__device__ void warp_reduce(volatile int *vs, unsigned int tid)
{
    vs[tid] += vs[tid + 32];
    vs[tid] += vs[tid + 16];
    vs[tid] += vs[tid + 8];
    vs[tid] += vs[tid + 4];
    vs[tid] += vs[tid + 2];
    vs[tid] += vs[tid + 1];
}

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
    if (tid < 32)
        warp_reduce(sdata, tid);

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
