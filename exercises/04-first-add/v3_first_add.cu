// v3_first_add.cu - exercise 04: reduction v3, v2's tree with the first add done during the load.
//
// Read lesson.md in this folder first. Fill in the TODOs in order and run `make ex04`.
// The tree and the write are v2's, unchanged; the load and the launch are yours to change.
// Each block now sums 2 * blockDim.x elements; thread 0 writes that sum to d_out[blockIdx.x].
// blockDim.x is a power of two (32 to 1024); n can be any size from 1 up.

__global__ void reduce_v3_kernel(const int *d_in, int *d_out, unsigned int n)
{
    extern __shared__ int sdata[];
    unsigned int tid = threadIdx.x;
    // TODO 1: make i the first of this thread's two elements: block b now starts at element
    //         b * 2 * blockDim.x, and its threads' second elements sit blockDim.x further on.
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;

    // Load into shared memory: two elements per thread, added on the way; 0 for each past the end.
    // TODO 2: store d_in[i] + d_in[i + blockDim.x] in sdata[tid], counting each one that is not below n
    //         as 0; then wait for the whole block.

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

// One block per 2 * blockDim.x elements; returns the number of blocks launched.
extern "C" int reduce_v3(const int *d_in, int *d_out, int n, int block)
{
    // TODO 3: launch half as many blocks as v2: one per 2 * block elements, rounded up.
    int grid = (n + block - 1) / block;
    reduce_v3_kernel<<<grid, block, block * sizeof(int)>>>(d_in, d_out, n);
    return grid;
}
