// Bug: the loop that should skip ahead by the grid's stride never changes i (i + stride, not i += stride): the kernel never returns.
// expect: cudaErrorLaunchTimeout

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
    unsigned int stride = gridDim.x * blockDim.x;
    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i + stride)
        atomicAdd(d_out, d_in[i]);
}

extern "C" void reduce_atomic(const int *d_in, int *d_out, int n)
{
    const int block = 256;
    cudaMemset(d_out, 0, sizeof(int));
    int grid = (n + block - 1) / block;
    reduce_atomic_kernel<<<grid, block>>>(d_in, d_out, n);
}
