// ex10_compensated.cu - exercise 10's reference solution: a float sum as accurate as the float result allows.
//
// What it does: each thread adds its elements of a grid-stride loop with Neumaier's compensated addition:
//   beside the running sum it keeps c, the rounding errors of its additions, recovered exactly. The block
//   then turns each thread's (sum, c) into one double and adds those in double with warp shuffles; a second
//   launch adds the blocks' doubles and rounds the total to float once.
// Why: a float sum rounds at every addition, and the errors grow with the size of the running sum: a
//   plain loop over n elements can be off by about n * 2^-24 times the sum of the magnitudes. A small
//   element added to a huge running sum is lost entirely. The compensation keeps what each addition
//   drops, so each thread's s + c is as good as a sum in twice the precision. Neumaier's variant, unlike
//   Kahan's original, stays exact when an element is larger than the running sum. The few additions
//   between threads are done in double: they cost nothing, and 53 bits leave no error worth counting.
// Speed: four float additions and a branch per element instead of one, which a GPU has time for while
//   it waits for memory, as long as enough loads are in flight: hence four per step of the loop.
// The flaw that remains: two launches, and doubles, which run 2 to 64 times slower than floats
//   depending on the GPU; only the per-block combination uses them.
// Preconditions: 0 <= n <= 2^31 - 1; BLOCK and MAX_BLOCKS are multiples of 32, at most 1024. Compiled
//   as is: the compensation has no multiplication, so nvcc's contraction of a * b + c into an fma (on by
//   default, -fmad=true) cannot change it; fast-math flags are not needed and not wanted.
// Result: d_out[0] holds the total, rounded once to float, after the second launch; n = 0 gives 0.

#define BLOCK 256
#define MAX_BLOCKS 1024
#define FULL_MASK 0xffffffffu

// Neumaier's compensated addition: sum + x, with the rounding error of that addition added to c.
// t = sum + x rounds; when |sum| >= |x|, (sum - t) + x is exactly what was rounded away, and the other
// way round otherwise. c gathers those errors; sum + c is the running total to about twice float's precision.
__device__ void add_compensated(float &sum, float &c, float x)
{
    float t = sum + x;
    if (fabsf(sum) >= fabsf(x))
        c += (sum - t) + x;      // the low bits of x that did not fit into t
    else
        c += (x - t) + sum;      // the low bits of sum that did not fit into t
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
