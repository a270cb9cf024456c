// v4_unroll_last_warp.cu - reference kernel v4 (exercise 05): v3 with the last warp's steps unrolled.
//
// What changed since v3: the tree's loop stops at s = 64. The last six steps (s = 32, 16, 8, 4, 2, 1),
//   where only threads 0 to 31 have work, are written out one by one inside `if (tid < 32)`, and each
//   ends with __syncwarp() instead of __syncthreads().
// Why it is faster: in v3, for each of those six steps every warp of the block still ran the loop's
//   compare and branch and then waited at a block-wide barrier, although only warp 0 added anything.
//   Now the other warps are done after the s = 64 step, and warp 0 runs the last six steps with no
//   loop and no block barrier: a warp v3 made wait 1 + log2(blockDim.x) times waits 1 + log2(blockDim.x
//   / 64) times. __syncwarp() only orders the 32 lanes of one warp.
// Why __syncwarp() and not nothing: since Volta, the lanes of a warp are not guaranteed to run in
//   lockstep (independent thread scheduling). A lane that reads sdata[tid + s] must see what another
//   lane wrote there in the step before, and only a barrier guarantees that. The classic version
//   (Harris 2007) has no barrier there and marks sdata `volatile`: a data race since Volta.
// The flaw that remains: blockDim.x is known only at run time, so the loop over s keeps its counter,
//   compare and branch, and the code must work for any block size (exercise 06 makes it a constant).
// Preconditions: blockDim.x is a power of two, at least 64 (warp 0 reads sdata[tid + 32]);
//   blockDim.x * sizeof(int) bytes of dynamic shared memory; grid of ceil(n / (2 * blockDim.x)).
// Result: thread 0 writes the block's sum to d_out[blockIdx.x].

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
        sdata[tid] += sdata[tid + 32];
        __syncwarp();
        if (tid < 16) sdata[tid] += sdata[tid + 16];
        __syncwarp();
        if (tid < 8) sdata[tid] += sdata[tid + 8];
        __syncwarp();
        if (tid < 4) sdata[tid] += sdata[tid + 4];
        __syncwarp();
        if (tid < 2) sdata[tid] += sdata[tid + 2];
        __syncwarp();
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
