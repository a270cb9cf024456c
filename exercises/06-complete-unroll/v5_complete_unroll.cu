// v5_complete_unroll.cu - exercise 06: reduction v5, v4 with the block size as a template parameter.
//
// Read lesson.md in this folder first. Fill in the TODOs in order and run `make ex06`.
// The load phase and the last warp are v4's. The checker launches blocks of every power of two from 32
// to 1024 threads, so the code must be right for each of them, the one-warp block of 32 included.

template <unsigned int blockSize>
__global__ void reduce_v5_kernel(const int *d_in, int *d_out, unsigned int n)
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

    // Reduce in shared memory: sequential addressing while more than one warp has work, one line per
    // stride, each kept only if the block is large enough for it...
    // TODO 1: replace v4's loop with one step per stride, 512, 256, 128 and 64 (the same tree step and
    //         __syncthreads() as before), each done only when blockSize is at least twice the stride.

    // ...then the last warp alone, as in v4: warp-wide barriers only.
    if (tid < 32) {
        // TODO 2: do the stride-32 step only when the block has values at sdata[32..64).
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

// One instance per block size; returns the number of blocks launched (0 for an unsupported block).
extern "C" int reduce_v5(const int *d_in, int *d_out, int n, int block)
{
    int grid = (n + 2 * block - 1) / (2 * block);
    size_t shared = block * sizeof(int);
    switch (block) {
    case 256: reduce_v5_kernel<256><<<grid, block, shared>>>(d_in, d_out, n); break;
    // TODO 3: launch the matching instance for the blocks of 32, 64, 128, 512 and 1024 threads too.
    default: return 0;
    }
    return grid;
}
