// Bad input: a wrong kernel (every block writes d_out[0]) in which every thread printf()s at every step of the tree: millions of lines.
// exercise: 02
// expect: only the first

#include <cstdio>

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
        printf("block %d thread %d step %u: %d\n", blockIdx.x, tid, s, sdata[tid]);
        __syncthreads();
    }

    // Write the block's result.
    if (tid == 0)
        d_out[0] = sdata[0];
}

extern "C" int reduce_v1(const int *d_in, int *d_out, int n, int block)
{
    int grid = (n + block - 1) / block;
    reduce_v1_kernel<<<grid, block, block * sizeof(int)>>>(d_in, d_out, n);
    return grid;
}
