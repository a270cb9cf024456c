// Bug: plain Kahan compensation, (sum - t) + x whatever the magnitudes: when x is larger than the running sum, the error term itself is rounded away.
// expect: concept: huge values that cancel do not swallow the small ones

#define BLOCK 256
#define MAX_BLOCKS 1024
#define FULL_MASK 0xffffffffu

// Neumaier's compensated addition: sum + x, with the rounding error of that addition added to c.
// t = sum + x rounds; when |sum| >= |x|, (sum - t) + x is exactly what was rounded away, and the other
// way round otherwise. c gathers those errors; sum + c is the running total to about twice float's precision.
__device__ void add_compensated(float &sum, float &c, float x)
{
    float t = sum + x;
    c += (sum - t) + x;          // the low bits of x that did not fit into t
    sum = t;
}

// The sum of v over the 32 lanes of a warp, in double; lane 0 holds it.
__device__ double warp_reduce_sum(double v)
{
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_down_sync(FULL_MASK, v, offset);
    return v;
}

// The sum over a block of the values v of its threads, in double; thread 0 holds it.
__device__ double block_reduce_sum(double v)
{
    __shared__ double warp_sums[32];
    unsigned int tid = threadIdx.x, lane = tid % 32, warp_id = tid / 32;
    v = warp_reduce_sum(v);
    if (lane == 0)
        warp_sums[warp_id] = v;
    __syncthreads();
    v = 0.0;
    if (warp_id == 0) {
        v = (lane < blockDim.x / 32) ? warp_sums[lane] : 0.0;
        v = warp_reduce_sum(v);
    }
    return v;
}

// Level 1: one double partial per block.
__global__ void sum_compensated_kernel(const float *d_in, double *d_partials, unsigned int n)
{
    // Load: each thread's compensated sum over a grid-stride loop.
    float sum = 0.0f, c = 0.0f;
    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        add_compensated(sum, c, d_in[i]);

    // Reduce: (sum, c) becomes one double, and the block adds those doubles. c is about 2^-24 of sum and a
    // double keeps 53 bits, so sum + c in double loses nothing worth counting.
    double total = block_reduce_sum((double)sum + (double)c);

    // Write the block's result.
    if (threadIdx.x == 0)
        d_partials[blockIdx.x] = total;
}

// Level 2: one block adds the partials and rounds the total to float, once.
__global__ void sum_partials_kernel(const double *d_partials, float *d_out, unsigned int count)
{
    double v = 0.0;
    for (unsigned int i = threadIdx.x; i < count; i += blockDim.x)
        v += d_partials[i];
    v = block_reduce_sum(v);
    if (threadIdx.x == 0)
        d_out[0] = (float)v;
}

extern "C" void sum_compensated(const float *d_in, float *d_out, int n)
{
    int grid = (n == 0) ? 1 : (n - 1) / BLOCK + 1;   // n = 0 still launches one block, which writes 0
    if (grid > MAX_BLOCKS)
        grid = MAX_BLOCKS;
    double *d_partials;
    cudaMalloc(&d_partials, grid * sizeof(double));
    sum_compensated_kernel<<<grid, BLOCK>>>(d_in, d_partials, n);
    sum_partials_kernel<<<1, MAX_BLOCKS>>>(d_partials, d_out, grid);
    cudaFree(d_partials);
}
