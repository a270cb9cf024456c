// ex14_softmax.cu - exercise 14's reference solution: softmax over rows, first with two reductions (the max,
// then the sum of exp(x - max)), then online, with one reduction of (max, sum) pairs.
//
// What it does: one block per row. softmax_two_pass all-reduces the row's max m, then the sum s of
//   exp(x - m), then writes exp(x - m) / s: three reads of the row. softmax_online keeps, per thread, the
//   pair (m, d): the largest x seen so far and the sum of exp(x - m) over the x seen so far. A new x
//   larger than m rescales d by exp(m - x) before it adds its own 1; the block then all-reduces the pairs
//   with combine(), which rescales both sums to the larger max. Two reads of the row.
// Why: exp(x) overflows float for x > 88.7 and underflows for x < -103; exp(x - m) is at most 1, and the
//   row's largest term is exactly 1, so the sum is between 1 and cols: no overflow, no 0 / 0. combine()
//   is associative and commutative (a pair (m, d) stands for the number d * e^m, and combine adds two of
//   them), so the pairs can be reduced in any order, by a grid-stride loop and a butterfly alike.
// Speed: a row-wise kernel moves its bytes and does little arithmetic: the online form reads the row
//   twice instead of three times, a third fewer bytes. One exp per element per read with the branch
//   below (the two-pass form: two exps per element).
// The flaw that remains: one block per row idles most of its threads on rows shorter than a few thousand
//   elements; a warp per row (the same butterfly, no shared memory) suits those better. Rows are read
//   twice: a row that fits in registers or shared memory could be read once.
// Preconditions: blocks of a multiple of 32 threads, at most 1024; entries finite or -inf, at least one
//   finite value per row (a row of -inf only has no softmax: 0 / 0).
// Result: d_out, one value per entry, written by the thread that read it.

#define BLOCK 256
#define FULL_MASK 0xffffffffu

// ---- The all-reduce of exercise 13, for any type with a combining operator -------------------------------

// A softmax's partial result: m, the largest x seen; d, the sum of exp(x - m) over the x seen.
struct MaxSum {
    float m, d;
};

__device__ float shfl_xor(float v, int offset) { return __shfl_xor_sync(FULL_MASK, v, offset); }
__device__ MaxSum shfl_xor(MaxSum v, int offset) { return {shfl_xor(v.m, offset), shfl_xor(v.d, offset)}; }

struct Max {
    __device__ float operator()(float a, float b) const { return fmaxf(a, b); }
};
struct Sum {
    __device__ float operator()(float a, float b) const { return a + b; }
};

// Two partial softmaxes as one: both sums rescaled to the larger max. (-inf, 0) is the identity: a part
// with no finite x; checking for it also keeps -inf - (-inf), a NaN, out of exp.
struct Combine {
    __device__ MaxSum operator()(MaxSum a, MaxSum b) const
    {
        if (a.m == -INFINITY)
            return b;
        if (b.m == -INFINITY)
            return a;
        float m = fmaxf(a.m, b.m);
        return {m, a.d * __expf(a.m - m) + b.d * __expf(b.m - m)};
    }
};

// op over the 32 lanes of a warp, in every lane (a butterfly).
template <typename T, typename Op>
__device__ T warp_allreduce(T v, Op op)
{
    for (int offset = 16; offset > 0; offset /= 2)
        v = op(v, shfl_xor(v, offset));
    return v;
}

// op over the block, in every thread; identity fills the lanes past the last warp. Every thread must call
// it; the last barrier lets a kernel call it again at once.
template <typename T, typename Op>
__device__ T block_allreduce(T v, Op op, T identity)
{
    __shared__ T warp_vals[32];
    unsigned int lane = threadIdx.x % 32, warp_id = threadIdx.x / 32, warps = blockDim.x / 32;
    v = warp_allreduce(v, op);
    if (lane == 0)
        warp_vals[warp_id] = v;
    __syncthreads();
    v = warp_allreduce(lane < warps ? warp_vals[lane] : identity, op);
    __syncthreads();
    return v;
}

// ---- Loads and stores of float or fp16 -------------------------------------------------------------------

__device__ float to_float(float x) { return x; }
__device__ float to_float(__half x) { return __half2float(x); }
__device__ void store(float *p, float v) { *p = v; }
__device__ void store(__half *p, float v) { *p = __float2half_rn(v); }

// ---- Two reductions ----------------------------------------------------------------------------------------

template <typename T>
__global__ void softmax_two_pass_kernel(const T *d_in, T *d_out, unsigned int cols)
{
    const T *x = d_in + (size_t)blockIdx.x * cols;
    T *y = d_out + (size_t)blockIdx.x * cols;
    // The row's largest value: the shift that keeps every exp at most 1.
    float m = -INFINITY;
    for (unsigned int c = threadIdx.x; c < cols; c += blockDim.x)
        m = fmaxf(m, to_float(x[c]));
    m = block_allreduce(m, Max(), -INFINITY);
    // The sum of exp(x - m): its largest term is exactly 1.
    float s = 0.0f;
    for (unsigned int c = threadIdx.x; c < cols; c += blockDim.x)
        s += __expf(to_float(x[c]) - m);
    s = block_allreduce(s, Sum(), 0.0f);
    // Write: each thread the entries it read.
    float inv = 1.0f / s;
    for (unsigned int c = threadIdx.x; c < cols; c += blockDim.x)
        store(&y[c], __expf(to_float(x[c]) - m) * inv);
}

extern "C" void softmax_two_pass(const float *d_in, float *d_out, int rows, int cols)
{
    softmax_two_pass_kernel<<<rows, BLOCK>>>(d_in, d_out, cols);
}

// ---- One reduction of (max, sum) pairs ---------------------------------------------------------------------

template <typename T>
__global__ void softmax_online_kernel(const T *d_in, T *d_out, unsigned int cols)
{
    const T *x = d_in + (size_t)blockIdx.x * cols;
    T *y = d_out + (size_t)blockIdx.x * cols;
    // Each thread's running pair over its entries: one exp per entry.
    MaxSum p = {-INFINITY, 0.0f};
    for (unsigned int c = threadIdx.x; c < cols; c += blockDim.x) {
        float v = to_float(x[c]);
        if (v > p.m) {                                  // a new max: rescale what was summed so far
            p.d = p.d * __expf(p.m - v) + 1.0f;         // exp(-inf) is 0 for the first one
            p.m = v;
        } else if (v != -INFINITY) {
            p.d += __expf(v - p.m);
        }
    }
    p = block_allreduce(p, Combine(), MaxSum{-INFINITY, 0.0f});
    // Write: each thread the entries it read.
    float inv = 1.0f / p.d;
    for (unsigned int c = threadIdx.x; c < cols; c += blockDim.x)
        store(&y[c], __expf(to_float(x[c]) - p.m) * inv);
}

extern "C" void softmax_online(const float *d_in, float *d_out, int rows, int cols)
{
    softmax_online_kernel<<<rows, BLOCK>>>(d_in, d_out, cols);
}

extern "C" void softmax_online_f16(const __half *d_in, __half *d_out, int rows, int cols)
{
    softmax_online_kernel<<<rows, BLOCK>>>(d_in, d_out, cols);
}
