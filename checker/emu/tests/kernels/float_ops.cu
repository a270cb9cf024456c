// max/min/dot with NaN and inf, and a Kahan sum that must not be contracted.
__global__ void fmax_reduce(const float *in, float *out, unsigned n) {
    float m = -__int_as_float(0x7f800000), lo = __int_as_float(0x7f800000);
    for (unsigned i = threadIdx.x; i < n; i += blockDim.x) { m = fmaxf(m, in[i]); lo = fminf(lo, in[i]); }
    for (int off = 16; off > 0; off >>= 1) {
        m = fmaxf(m, __shfl_down_sync(0xffffffff, m, off));
        lo = fminf(lo, __shfl_down_sync(0xffffffff, lo, off));
    }
    if (threadIdx.x == 0) { out[0] = m; out[1] = lo; }
}
__global__ void dot(const float *a, const float *b, float *out, unsigned n) {
    float s = 0.f;
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) s = fmaf(a[i], b[i], s);
    for (int off = 16; off > 0; off >>= 1) s += __shfl_down_sync(0xffffffff, s, off);
    if ((threadIdx.x & 31) == 0) atomicAdd(out, s);
}
__global__ void kahan(const float *in, float *out, unsigned n) {
    if (threadIdx.x != 0 || blockIdx.x != 0) return;
    float sum = 0.f, c = 0.f;
    for (unsigned i = 0; i < n; i++) {
        float y = __fsub_rn(in[i], c);
        float t = __fadd_rn(sum, y);
        c = __fsub_rn(__fsub_rn(t, sum), y);
        sum = t;
    }
    out[0] = sum;
    out[1] = sqrtf(fabsf(sum)) + rsqrtf(2.f) + __expf(1.f) + logf(2.f) + (float)(double)sum;
}
