// v3_first_add.cu - reference kernel v3 (exercise 04): v2's tree, with the first add done during the load.
//
// What changed since v2: a block now covers 2 * blockDim.x elements, and the launcher starts half as
//   many blocks. Each thread loads two elements, d_in[i] and d_in[i + blockDim.x], adds them, and stores
//   the one sum in sdata[tid]; the tree in shared memory is v2's, unchanged.
// Why it is faster: in v2 half of the threads did nothing after their load; here every thread does one
//   addition before the tree starts, and the whole tree, barriers and all, runs once for twice the
//   elements: half the blocks, half the tree work per element. Both loads stay coalesced: for each of
//   them the 32 lanes of a warp read 32 consecutive ints, 128 bytes, four 32-byte sectors.
// The flaw that remains: the tree's last steps. Once s < 32 only warp 0 has work, yet each step still
//   costs a __syncthreads() of the whole block plus the loop's compare and branch: instruction overhead,
//   not memory, now limits the block (exercise 05 unrolls the last warp).
// Preconditions: blockDim.x is a power of two; blockDim.x * sizeof(int) bytes of dynamic shared memory;
//   the launch has ceil(n / (2 * blockDim.x)) blocks.
// Result: thread 0 writes the sum of the block's 2 * blockDim.x elements to d_out[blockIdx.x].

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
        d_out[blockIdx.x] = sdata[0];
}

extern "C" int reduce_v3(const int *d_in, int *d_out, int n, int block)
{
    int grid = (n + 2 * block - 1) / (2 * block);
    reduce_v3_kernel<<<grid, block, block * sizeof(int)>>>(d_in, d_out, n);
    return grid;
}
