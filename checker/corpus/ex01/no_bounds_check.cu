// Bug: no `i < n` check, so the threads of the last block past n add the values that lie after the input.
// expect: outside [0, n)

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
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    atomicAdd(d_out, d_in[i]);
}

extern "C" void reduce_atomic(const int *d_in, int *d_out, int n)
{
    const int block = 256;
    cudaMemset(d_out, 0, sizeof(int));          // the total starts at zero
    int grid = (n + block - 1) / block;         // enough blocks to cover every element
    reduce_atomic_kernel<<<grid, block>>>(d_in, d_out, n);
}
