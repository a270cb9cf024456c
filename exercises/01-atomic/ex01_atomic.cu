// ex01_atomic.cu - exercise 01: a CPU reference, then your first kernel, one atomicAdd per element.
//
// Read lesson.md in this folder first. Then fill in the TODOs in order and run `make ex01`.
// The checker calls reduce_cpu and reduce_atomic with inputs of many sizes (1, 31, 257, primes,
// millions) and compares what they return with the true sum.

// The CPU reference: returns the sum of h_in[0..n) as a 64-bit integer.
extern "C" long long reduce_cpu(const int *h_in, int n)
{
    long long sum = 0;
    // TODO 1: add every element of h_in to sum.
    return sum;
}

// One thread per element: each thread adds its element to the single total in d_out[0].
__global__ void reduce_atomic_kernel(const int *d_in, int *d_out, unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    // TODO 2: if element i exists, add d_in[i] to d_out[0] with atomicAdd.
}

// Launches the kernel so that every element of d_in is added to d_out[0] exactly once.
extern "C" void reduce_atomic(const int *d_in, int *d_out, int n)
{
    const int block = 256;
    // TODO 3: set d_out[0] to 0 on the device before any thread adds to it (cudaMemset).
    int grid = 1;
    // TODO 4: compute grid, the number of blocks of `block` threads needed to cover all n elements.
    reduce_atomic_kernel<<<grid, block>>>(d_in, d_out, n);
}
