// Bug: a plain float atomicAdd per element: every addition rounds, and small values vanish into a huge running sum.
// expect: concept: huge values that cancel do not swallow the small ones

// One float atomicAdd per element, straight into d_out[0]: no compensation, and an order that changes
// from run to run.
__global__ void sum_atomic_kernel(const float *d_in, float *d_out, unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        atomicAdd(d_out, d_in[i]);
}

extern "C" void sum_compensated(const float *d_in, float *d_out, int n)
{
    cudaMemset(d_out, 0, sizeof(float));
    if (n == 0)
        return;
    int grid = (n - 1) / 256 + 1;
    sum_atomic_kernel<<<grid, 256>>>(d_in, d_out, n);
}
