// Bug: each thread sets its element to 0 once it has added it (to "mark it done"): the kernel modifies its input.
// expect: changed the input

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
    if (i < n)                       // the last block may be only partly inside the input
    {
        atomicAdd(d_out, d_in[i]);
        const_cast<int *>(d_in)[i] = 0;   // counted: mark it
    }
}

extern "C" void reduce_atomic(const int *d_in, int *d_out, int n)
{
    const int block = 256;
    cudaMemset(d_out, 0, sizeof(int));          // the total starts at zero
    int grid = (n + block - 1) / block;         // enough blocks to cover every element
    reduce_atomic_kernel<<<grid, block>>>(d_in, d_out, n);
}
