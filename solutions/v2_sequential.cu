// v2_sequential.cu - reference kernel v2 (exercise 03): a shared-memory tree, sequential addressing.
//
// What changed since v1: the tree runs the other way round. The stride s starts at blockDim.x / 2 and
//   halves; in the step of stride s, threads 0 to s-1 each add the element s places to their right
//   (sdata[tid] += sdata[tid + s]). The working half of the array is always its contiguous front.
// Why it is faster: the busy threads are a contiguous range of tids, so while s >= 32 every warp is
//   either wholly busy or wholly idle and skips the step: no divergence, and the number of warps that
//   execute the step halves with s. The 32 lanes of a warp read and write 32 consecutive ints, which
//   sit in the 32 different banks of shared memory: no bank conflicts. And no % any more.
// The flaw that remains: in the very first step half of the threads only loaded an element and then
//   sit idle; a block of 256 threads does the work that 128 could do (exercise 04 fixes it).
// Preconditions: blockDim.x is a power of two; blockDim.x * sizeof(int) bytes of dynamic shared memory.
// Result: thread 0 writes the block's sum to d_out[blockIdx.x].

__global__ void reduce_v2_kernel(const int *d_in, int *d_out, unsigned int n)
{
    extern __shared__ int sdata[];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;

    // Load into shared memory: one element per thread, 0 past the end of the input.
    sdata[tid] = (i < n) ? d_in[i] : 0;
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

extern "C" int reduce_v2(const int *d_in, int *d_out, int n, int block)
{
    int grid = (n + block - 1) / block;
    reduce_v2_kernel<<<grid, block, block * sizeof(int)>>>(d_in, d_out, n);
    return grid;
}
