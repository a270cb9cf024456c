// Bug: the grid-stride loop runs while i <= n: the thread that reaches i = n reads one element past the input.
// expect: out-of-bounds global memory read

#include <math.h>   // INFINITY

#define BLOCK 256
#define MAX_BLOCKS 1024
#define FULL_MASK 0xffffffffu

// ---- Operators: how two values combine, and the value that changes nothing --------------------------

struct MaxOp {
    __device__ float identity() const { return -INFINITY; }          // no value is below it
    __device__ float operator()(float a, float b) const { return fmaxf(a, b); }
};

struct MinOp {
    __device__ float identity() const { return INFINITY; }           // no value is above it
    __device__ float operator()(float a, float b) const { return fminf(a, b); }
};

struct SumOp {
    __device__ float identity() const { return 0.0f; }
    __device__ float operator()(float a, float b) const { return a + b; }
};

// ---- Readers: what element i of the reduction is ------------------------------------------------------

struct Element {
    const float *d_x;
    __device__ float operator()(unsigned int i) const { return d_x[i]; }
};

struct Product {
    const float *d_a, *d_b;
    __device__ float operator()(unsigned int i) const { return d_a[i] * d_b[i]; }
};

// ---- One kernel for every operator ------------------------------------------------------------------------

// op over the 32 lanes of a warp; lane 0 holds the result.
template <class Op>
__device__ float warp_reduce(float v, Op op)
{
    for (int offset = 16; offset > 0; offset /= 2)
        v = op(v, __shfl_down_sync(FULL_MASK, v, offset));
    return v;
}

template <class Op, class Read>
__global__ void reduce_kernel(Read read, float *d_out, unsigned int n, Op op)
{
    __shared__ float warp_results[32];
    unsigned int tid = threadIdx.x, lane = tid % 32, warp_id = tid / 32;

    // Load: a grid-stride loop; a thread with no element keeps the identity.
    float acc = op.identity();
    for (unsigned int i = blockIdx.x * blockDim.x + tid; i <= n; i += blockDim.x * gridDim.x)
        acc = op(acc, read(i));

    // Reduce: each warp with shuffles, then warp 0 over the warps' results.
    acc = warp_reduce(acc, op);
    if (lane == 0)
        warp_results[warp_id] = acc;
    __syncthreads();
    if (warp_id == 0) {
        acc = (lane < blockDim.x / 32) ? warp_results[lane] : op.identity();
        acc = warp_reduce(acc, op);
        // Write the block's result.
        if (lane == 0)
            d_out[blockIdx.x] = acc;
    }
}

// Two levels, as in ex08. n = 0 still launches one block, which writes the identity: a cudaMemset could
// only write a repeated byte, and -inf is not one.
template <class Op, class Read>
static void reduce(Read read, float *d_out, int n, Op op)
{
    int grid = (n == 0) ? 1 : (n - 1) / BLOCK + 1;
    if (grid > MAX_BLOCKS)
        grid = MAX_BLOCKS;
    float *d_partials;
    cudaMalloc(&d_partials, grid * sizeof(float));
    reduce_kernel<<<grid, BLOCK>>>(read, d_partials, n, op);
    reduce_kernel<<<1, MAX_BLOCKS>>>(Element{d_partials}, d_out, grid, op);
    cudaFree(d_partials);
}

extern "C" void reduce_max(const float *d_in, float *d_out, int n) { reduce(Element{d_in}, d_out, n, MaxOp{}); }
extern "C" void reduce_min(const float *d_in, float *d_out, int n) { reduce(Element{d_in}, d_out, n, MinOp{}); }
extern "C" void dot_product(const float *d_a, const float *d_b, float *d_out, int n)
{
    reduce(Product{d_a, d_b}, d_out, n, SumOp{});
}
