// ex15_layernorm.cu - exercise 15's reference solution: LayerNorm of fp16 rows with the mean and variance
// in two passes and in one (Welford's update and its parallel combine), and RMSNorm of bf16 rows.
//
// What it does: one block per row. layernorm_two_pass all-reduces the row's sum (the mean), then the sum of
//   (x - mean)^2 (the variance), then writes (x - mean) * rsqrt(var + eps) * gamma + beta: three reads.
//   layernorm_welford keeps, per thread, the triple (n, mean, m2): how many values, their mean, and the
//   sum of their squared distances to it, updated one value at a time (Welford, 1962); the block
//   all-reduces the triples with combine() (Chan, Golub and LeVeque, 1979), and writes: two reads.
//   rmsnorm_bf16 all-reduces the sum of squares and writes x * rsqrt(mean of squares + eps) * gamma.
// Why: the variance as E[x^2] - E[x]^2 subtracts two numbers of size mean^2 to get one of size var: for
//   values 1000 +- 1 in float, each is about 10^6 with rounding errors of about 0.06 per addition, and the
//   difference (about 0.33) drowns, or comes out negative. Both forms here subtract the mean from each
//   value first: their errors are relative to the variance, not to mean^2.
// Speed: a row-wise kernel moves its bytes: Welford reads the row twice instead of three times, at the
//   cost of a division per value; RMSNorm needs no mean and reads twice.
// The flaw that remains: 2-byte loads (exercise 13's 16-byte vectors would cut the load requests by 8),
//   and one block per row, which idles threads on short rows.
// Preconditions: blocks of a multiple of 32 threads, at most 1024; eps > 0.
// Result: d_out, one value per entry, written by the thread that read it.

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
        if (b.n == 0.0f)
            return a;
        if (a.n == 0.0f)
            return b;
        float n = a.n + b.n, delta = b.mean - a.mean;
        return {n, a.mean + delta * (b.n / n), a.m2 + b.m2 + delta * delta * (a.n * b.n / n)};
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
    for (unsigned int c = threadIdx.x; c < cols; c += blockDim.x) {
        float d = to_float(x[c]) - mean;                // centred first: no cancellation
        q += d * d;
    }
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
        w.n += 1.0f;
        float delta = v - w.mean;                       // distance to the old mean
        w.mean += delta / w.n;
        w.m2 += delta * (v - w.mean);                   // times the distance to the new one
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
    float q = 0.0f;
    for (unsigned int c = threadIdx.x; c < cols; c += blockDim.x) {
        float v = to_float(x[c]);
        q += v * v;
    }
    float rms = rsqrtf(block_allreduce(q, Sum(), 0.0f) / cols + eps);
    for (unsigned int c = threadIdx.x; c < cols; c += blockDim.x)
        store(&y[c], to_float(x[c]) * rms * gamma[c]);
}

extern "C" void rmsnorm_bf16(const __nv_bfloat16 *d_in, const float *d_gamma, __nv_bfloat16 *d_out, int rows,
                             int cols, float eps)
{
    rmsnorm_kernel<<<rows, BLOCK>>>(d_in, d_gamma, d_out, cols, eps);
}
