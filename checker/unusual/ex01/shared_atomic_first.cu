// Unusual: atomics on shared memory first (one per element, into the block's own total), then one global atomicAdd per block.

// The CPU reference: a plain loop, in 64 bits so that the reference itself cannot overflow.
extern "C" long long reduce_cpu(const int *h_in, int n)
{
    long long sum = 0;
    for (int i = 0; i < n; i++)
        sum += h_in[i];
    return sum;
}

__global__ void reduce_atomic_kernel(const int *d_in, int *d_out, unsigned int n)
{
    __shared__ int block_sum;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (threadIdx.x == 0)
        block_sum = 0;
    __syncthreads();
    if (i < n)
        atomicAdd(&block_sum, d_in[i]);   // contention within the block only
    __syncthreads();
    if (threadIdx.x == 0)
        atomicAdd(d_out, block_sum);      // one global atomic per block
}

extern "C" void reduce_atomic(const int *d_in, int *d_out, int n)
{
    const int block = 256;
    cudaMemset(d_out, 0, sizeof(int));          // the total starts at zero
    int grid = (n + block - 1) / block;         // enough blocks to cover every element
    reduce_atomic_kernel<<<grid, block>>>(d_in, d_out, n);
}
