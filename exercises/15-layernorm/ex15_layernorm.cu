// ex15_layernorm.cu - exercise 15: LayerNorm of fp16 rows, with the mean and variance in two passes and in
// one (Welford's update and its parallel combine), and RMSNorm of bf16 rows.
//
// Read lesson.md in this folder first. Fill in the TODOs in order and run `make ex15`.
// The all-reduce of exercises 13 and 14 is here for any type and operator, and the loops that write the
// normalised values are done. Your part: the second pass of the two-pass variance, Welford's update of one
// value, the combine of two parts, and RMSNorm's statistic.

#define BLOCK 256
#define FULL_MASK 0xffffffffu

// ---- The all-reduce of exercise 13, for any type with a combining operator -------------------------------

// A part of a row: n values, their mean, and m2, the sum of (x - mean)^2 over them.
struct Welford {
    float n, mean, m2;
};

__device__ float shfl_xor(float v, int offset) { return __shfl_xor_sync(FULL_MASK, v, offset); }
__device__ Welford shfl_xor(Welford v, int offset)
{
    return {shfl_xor(v.n, offset), shfl_xor(v.mean, offset), shfl_xor(v.m2, offset)};
}

struct Sum {
    __device__ float operator()(float a, float b) const { return a + b; }
};

// Two parts as one (Chan, Golub, LeVeque): the mean moves toward b's by its share of the values, and m2
// gains, besides both parts' own, what the distance between the two means adds. An empty part (n = 0) is
// the identity; checking for it keeps 0 / 0 out.
struct Combine {
    __device__ Welford operator()(Welford a, Welford b) const
    {
        // TODO 3: return the statistics of both parts together: n, the mean of all their values, and m2,
        //         both parts' own plus what the distance between their means adds. An empty part (n = 0)
        //         changes nothing, and must not be divided by.
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

__device__ float to_float(__half x) { return __half2float(x); }
__device__ float to_float(__nv_bfloat16 x) { return __bfloat162float(x); }
__device__ void store(__half *p, float v) { *p = __float2half_rn(v); }
__device__ void store(__nv_bfloat16 *p, float v) { *p = __float2bfloat16_rn(v); }

// Each thread writes the entries it read: (x - mean) * rstd * gamma + beta.
__device__ void write_normalised(const __half *x, const float *gamma, const float *beta, __half *y,
                                 unsigned int cols, float mean, float rstd)
{
    for (unsigned int c = threadIdx.x; c < cols; c += blockDim.x)
        store(&y[c], (to_float(x[c]) - mean) * rstd * gamma[c] + beta[c]);
}

// ---- LayerNorm: the mean, then the variance --------------------------------------------------------------

__global__ void layernorm_two_pass_kernel(const __half *d_in, const float *gamma, const float *beta,
                                          __half *d_out, unsigned int cols, float eps)
{
    const __half *x = d_in + (size_t)blockIdx.x * cols;
    float s = 0.0f;
    for (unsigned int c = threadIdx.x; c < cols; c += blockDim.x)
        s += to_float(x[c]);
    float mean = block_allreduce(s, Sum(), 0.0f) / cols;
    float q = 0.0f;
    // TODO 1: q = this thread's sum of (x - mean)^2 over its entries (centred first: no cancellation).
    float var = block_allreduce(q, Sum(), 0.0f) / cols;
    write_normalised(x, gamma, beta, d_out + (size_t)blockIdx.x * cols, cols, mean, rsqrtf(var + eps));
}

extern "C" void layernorm_two_pass(const __half *d_in, const float *d_gamma, const float *d_beta, __half *d_out,
                                   int rows, int cols, float eps)
{
    layernorm_two_pass_kernel<<<rows, BLOCK>>>(d_in, d_gamma, d_beta, d_out, cols, eps);
}

// ---- LayerNorm: Welford, one pass --------------------------------------------------------------------------

__global__ void layernorm_welford_kernel(const __half *d_in, const float *gamma, const float *beta,
                                         __half *d_out, unsigned int cols, float eps)
{
    const __half *x = d_in + (size_t)blockIdx.x * cols;
    Welford w = {0.0f, 0.0f, 0.0f};
    for (unsigned int c = threadIdx.x; c < cols; c += blockDim.x) {
        float v = to_float(x[c]);
        // TODO 2: take v into w: one more value, the mean moved toward v by its share, and m2 grown by
        //         v's distance to the old mean times its distance to the new one.
        (void)v;
    }
    w = block_allreduce(w, Combine(), Welford{0.0f, 0.0f, 0.0f});
    write_normalised(x, gamma, beta, d_out + (size_t)blockIdx.x * cols, cols, w.mean, rsqrtf(w.m2 / w.n + eps));
}

extern "C" void layernorm_welford(const __half *d_in, const float *d_gamma, const float *d_beta, __half *d_out,
                                  int rows, int cols, float eps)
{
    layernorm_welford_kernel<<<rows, BLOCK>>>(d_in, d_gamma, d_beta, d_out, cols, eps);
}

// ---- RMSNorm: no mean, one reduction ---------------------------------------------------------------------

__global__ void rmsnorm_kernel(const __nv_bfloat16 *d_in, const float *gamma, __nv_bfloat16 *d_out,
                               unsigned int cols, float eps)
{
    const __nv_bfloat16 *x = d_in + (size_t)blockIdx.x * cols;
    __nv_bfloat16 *y = d_out + (size_t)blockIdx.x * cols;
    // TODO 4: rms = 1 / sqrt(mean of x^2 over the row + eps), in every thread, the squares added in float.
    float rms = 1.0f;
    for (unsigned int c = threadIdx.x; c < cols; c += blockDim.x)
        store(&y[c], to_float(x[c]) * rms * gamma[c]);
}

extern "C" void rmsnorm_bf16(const __nv_bfloat16 *d_in, const float *d_gamma, __nv_bfloat16 *d_out, int rows,
                             int cols, float eps)
{
    rmsnorm_kernel<<<rows, BLOCK>>>(d_in, d_gamma, d_out, cols, eps);
}
