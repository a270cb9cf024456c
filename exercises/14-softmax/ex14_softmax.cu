// ex14_softmax.cu - exercise 14: softmax over rows, first with two reductions (the max, then the sum of
// exp(x - max)), then online, with one reduction of (max, sum) pairs.
//
// Read lesson.md in this folder first. Fill in the TODOs in order and run `make ex14`.
// The all-reduce of exercise 13 is here for any type and operator (block_allreduce), and the loops that
// write the outputs are done. Your part: the two reductions of the two-pass form, the online update of a
// thread's (max, sum) pair, and the operator that combines two pairs.

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
        // TODO 4: return the pair of both parts: the larger max, and both sums rescaled to it. A part with
        //         no finite x (m = -inf) changes nothing, and must not reach exp as -inf - (-inf).
        return a;
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
    // TODO 1: m = the row's largest value, in every thread: each thread's own entries, then the block's
    //         (block_allreduce with Max() and the identity of a max).
    float m = 0.0f;
    // TODO 2: s = the sum of exp(x - m) over the row, in every thread.
    float s = 1.0f;
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
        // TODO 3: take v into p: a v larger than p.m becomes the new max, and the sum so far, a sum of
        //         exp(x - old max), is rescaled to it; any other v adds exp(v - p.m). -inf adds nothing.
        (void)v;
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
