// Bug: the grid-stride loop is right, but the block still sums its threads with a shared-memory tree.
// expect: shared-memory stores

__global__ void reduce_v6_kernel(const int *d_in, int *d_out, unsigned int n)
{
    __shared__ int sdata[1024];
    unsigned int tid = threadIdx.x;

    // Load into registers: a grid-stride loop, each thread adding every (gridDim.x * blockDim.x)-th element.
    int sum = 0;
    for (unsigned int i = blockIdx.x * blockDim.x + tid; i < n; i += gridDim.x * blockDim.x)
        sum += d_in[i];

    // Reduce in shared memory: v2's tree over the block, no shuffles.
    sdata[tid] = sum;
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }

    // Write the block's result.
    if (tid == 0)
        d_out[blockIdx.x] = sdata[0];
}

// Enough blocks to fill the GPU with threads once (its multiprocessors times the blocks of this size whose
// threads one multiprocessor can hold), but never more blocks than there are blocks of elements.
extern "C" int reduce_v6(const int *d_in, int *d_out, int n, int block)
{
    int device = 0, sms = 1, threads_per_sm = 2048;
    cudaGetDevice(&device);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    cudaDeviceGetAttribute(&threads_per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, device);
    int grid = sms * (threads_per_sm / block);
    int blocks_of_elements = (int)(((long long)n + block - 1) / block);
    if (grid > blocks_of_elements) grid = blocks_of_elements;
    if (grid < 1) grid = 1;
    reduce_v6_kernel<<<grid, block>>>(d_in, d_out, n);
    return grid;
}
