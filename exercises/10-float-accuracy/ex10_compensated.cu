// ex10_compensated.cu - exercise 10: a float sum as accurate as the float result allows.
//
// Read lesson.md in this folder first. Fill in the TODOs in order and run `make ex10`.
// The two levels and the double-precision block reduction are done. Your part is what each thread does
// with its elements: a compensated sum (Neumaier's), so that the rounding error of every addition is kept.
// The checker compares the result with an exact sum, on inputs where a plain float sum is far off.

#define BLOCK 256
#define MAX_BLOCKS 1024
#define FULL_MASK 0xffffffffu

// Neumaier's compensated addition: sum + x, with the rounding error of that addition added to c.
// t = sum + x rounds; when |sum| >= |x|, (sum - t) + x is exactly what was rounded away, and the other
// way round otherwise. c gathers those errors; sum + c is the running total to about twice float's precision.
__device__ void add_compensated(float &sum, float &c, float x)
{
    // TODO 1: add x to sum with Neumaier's compensated addition: sum becomes the rounded sum, and c gains
    //         exactly what that rounding dropped, whichever of sum and x is the larger.
    sum += x;
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
    // Load: each thread's compensated sum over a grid-stride loop. Each step loads four elements before it
    // adds any: the loads do not depend on each other, so all four are in flight at once (as in v6), and
    // the additions, which do depend on each other, take them in the same order as a loop of one would.
    float sum = 0.0f, c = 0.0f;
    unsigned int stride = blockDim.x * gridDim.x, i = blockIdx.x * blockDim.x + threadIdx.x;
    for (; i + 3 * stride < n; i += 4 * stride) {
        float x0 = d_in[i], x1 = d_in[i + stride], x2 = d_in[i + 2 * stride], x3 = d_in[i + 3 * stride];
        add_compensated(sum, c, x0);
        add_compensated(sum, c, x1);
        add_compensated(sum, c, x2);
        add_compensated(sum, c, x3);
    }
    for (; i < n; i += stride)
        add_compensated(sum, c, d_in[i]);

    // Reduce: (sum, c) becomes one double, and the block adds those doubles. c is about 2^-24 of sum and a
    // double keeps 53 bits, so sum + c in double loses nothing worth counting.
    // TODO 2: give the block reduction the thread's whole total, sum and c, as one double.
    double total = block_reduce_sum((double)sum);

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

// Room for the blocks' partials: allocated on the first call and kept, because cudaMalloc takes
// microseconds and cudaFree waits until the GPU has finished all its work.
static double *partials_buffer(void)
{
    static double *d_partials = NULL;
    if (d_partials == NULL)
        cudaMalloc(&d_partials, MAX_BLOCKS * sizeof(double));
    return d_partials;
}

extern "C" void sum_compensated(const float *d_in, float *d_out, int n)
{
    int grid = (n == 0) ? 1 : (n - 1) / BLOCK + 1;   // n = 0 still launches one block, which writes 0
    if (grid > MAX_BLOCKS)
        grid = MAX_BLOCKS;
    double *d_partials = partials_buffer();
    sum_compensated_kernel<<<grid, BLOCK>>>(d_in, d_partials, n);
    sum_partials_kernel<<<1, MAX_BLOCKS>>>(d_partials, d_out, grid);
}
