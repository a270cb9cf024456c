// half_ops.cu - the 16-bit floats and the approximate instructions that Part III's kernels (exercises 13
// to 15) compile to, one operation per kernel.
//
// Exact (tolerance 0): __half and __nv_bfloat16 arithmetic, one value and packed pairs (add sub mul fma
// min max neg abs, compares), conversions from float, double and int in each rounding mode, and back.
// Inputs are random 32-bit words whose halves are 16-bit floats of every kind (zeros, subnormals, NaN,
// infinities, the largest finite), plus the special floats of cases.h.
//
// Approximate: PTX bounds the error of ex2.approx, rsqrt.approx, lg2.approx and div.approx and the CUDA
// Programming Guide states the bound of the intrinsics that are each one of them (exp2f, rsqrtf, __log2f,
// __fdividef): 2 ulps from the correctly rounded result, or an absolute 2^-22 for __log2f on [0.5, 2].
// The emulator computes them in double and rounds once (checker/emu/emu_ptx.h), so each case allows the
// GPU that bound; expf is a sequence around one ex2.approx.ftz and may differ by one more ulp. The special
// values (0, infinities, NaN, div.approx by 2^126 < |b| < 2^128) are defined by PTX: tolerance 0.

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include "elementwise.h"

static __device__ __nv_bfloat16 bf(unsigned u) { return __ushort_as_bfloat16((unsigned short)u); }
static __device__ __nv_bfloat162 bf2(unsigned u) { return *reinterpret_cast<__nv_bfloat162 *>(&u); }
static __device__ __half hf(unsigned u) { return __ushort_as_half((unsigned short)u); }
static __device__ __half2 hf2(unsigned u) { return *reinterpret_cast<__half2 *>(&u); }
static __device__ unsigned w(__nv_bfloat16 v) { return __bfloat16_as_ushort(v); }
static __device__ unsigned w(__half v) { return __half_as_ushort(v); }
static __device__ unsigned w(__nv_bfloat162 v) { return *reinterpret_cast<unsigned *>(&v); }
static __device__ unsigned w(__half2 v) { return *reinterpret_cast<unsigned *>(&v); }
static __device__ float f(unsigned u) { return __uint_as_float(u); }
// y as a double, or 1 where x is a NaN too: which of two NaN operands a DMUL returns depends on the operand
// order ptxas picks (float_ops.cu's double_nans cases), so a product here has one NaN operand at most.
static __device__ double one_nan_at_most(float x, float y) { return isnan(x) && isnan(y) ? 1.0 : (double)y; }

// ---- 16-bit floats: words in, words out, tolerance 0 ----------------------------------------------------
#define HALF_OPS(X)                                                                                 \
    X(bf16_add, w(__hadd(bf(a), bf(b))))            X(bf16_sub, w(__hsub(bf(a), bf(b))))           \
    X(bf16_mul, w(__hmul(bf(a), bf(b))))            X(bf16_fma, w(__hfma(bf(a), bf(b), bf(c))))    \
    X(bf16_min, w(__hmin(bf(a), bf(b))))            X(bf16_max, w(__hmax(bf(a), bf(b))))           \
    X(bf16_max_nan, w(__hmax_nan(bf(a), bf(b))))    X(bf16_neg_abs, w(__hneg(bf(a))) | w(__habs(bf(b))) << 16) \
    X(bf16x2_add, w(__hadd2(bf2(a), bf2(b))))       X(bf16x2_mul, w(__hmul2(bf2(a), bf2(b))))      \
    X(bf16x2_fma, w(__hfma2(bf2(a), bf2(b), bf2(c)))) X(bf16x2_max, w(__hmax2(bf2(a), bf2(b))))    \
    X(bf16_compare, (__hgt(bf(a), bf(b)) ? 1u : 0u) | (__hle(bf(a), bf(b)) ? 2u : 0u) |            \
                    (__heq(bf(a), bf(b)) ? 4u : 0u) | (__hisnan(bf(a)) ? 8u : 0u))                 \
    X(f16_add, w(__hadd(hf(a), hf(b))))             X(f16_mul, w(__hmul(hf(a), hf(b))))            \
    X(f16_fma, w(__hfma(hf(a), hf(b), hf(c))))      X(f16_max, w(__hmax(hf(a), hf(b))))            \
    X(f16x2_add, w(__hadd2(hf2(a), hf2(b))))        X(f16x2_fma, w(__hfma2(hf2(a), hf2(b), hf2(c)))) \
    X(f16_compare, (__hgt(hf(a), hf(b)) ? 1u : 0u) | (__hle(hf(a), hf(b)) ? 2u : 0u))              \
    X(float_to_bf16_rn, w(__float2bfloat16_rn(f(a))))  X(float_to_bf16_rz, w(__float2bfloat16_rz(f(a)))) \
    X(floats_to_bf16x2, w(__floats2bfloat162_rn(f(a), f(b))))                                      \
    X(floats_to_f16x2, w(__floats2half2_rn(f(a), f(b))))                                           \
    X(bf16_to_float, __float_as_uint(__bfloat162float(bf(a))))                                     \
    X(bf16x2_to_float2, __float_as_uint(__bfloat1622float2(bf2(a)).y))                             \
    X(f16x2_to_float2, __float_as_uint(__half22float2(hf2(a)).x))                                  \
    X(bf16_to_int_rn, (unsigned)__bfloat162int_rn(bf(a)))                                           \
    X(bf16_to_int_rz, (unsigned)__bfloat162int_rz(bf(a)))                                           \
    X(int_to_bf16, w(__int2bfloat16_rn((int)a)))                                                    \
    X(double_to_bf16, w(__double2bfloat16((double)f(a) * one_nan_at_most(f(a), f(b)))))             \
    X(bf16_to_half, w(__float2half_rn(__bfloat162float(bf(a)))))

#define HALF_KERNEL(ID, EXPR) ELEMENTWISE_KERNEL(half_##ID, unsigned, unsigned, EXPR)
HALF_OPS(HALF_KERNEL)

// ---- Approximate instructions: floats in, floats out, tolerance in ulps (negative: absolute 2^tol) ------
static __device__ float ex2_approx(float x) { float r; asm("ex2.approx.f32 %0, %1;" : "=f"(r) : "f"(x)); return r; }
static __device__ float ex2_approx_ftz(float x) { float r; asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x)); return r; }
static __device__ float rsqrt_approx(float x) { float r; asm("rsqrt.approx.f32 %0, %1;" : "=f"(r) : "f"(x)); return r; }
static __device__ float lg2_approx(float x) { float r; asm("lg2.approx.f32 %0, %1;" : "=f"(r) : "f"(x)); return r; }
// Magnitudes kept inside [2^-60, 2^60] (sign and fraction kept), where div.approx's bound applies and the
// quotient is a normal float; and a divisor moved into (2^126, 2^128), where PTX defines the result.
static __device__ float moderate(float x)
{
    unsigned u = __float_as_uint(x), e = (u >> 23) & 255;
    return __uint_as_float((u & 0x807fffffu) | (67 + e % 121) << 23);
}
static __device__ float huge(float x) { return __uint_as_float((__float_as_uint(x) & 0x807fffffu) | 253u << 23); }
// Inputs whose results PTX defines: for ex2, zeros (1), infinities (inf, 0), NaN, and magnitudes of 256 and
// more (overflow to inf, underflow to 0); for rsqrt, zeros (+-inf), +inf (0), negatives and NaN (NaN).
static __device__ float ex2_special(float x)
{
    return (isnan(x) || fabsf(x) >= 256.0f) ? x : copysignf(0.0f, x);
}
static __device__ float rsqrt_special(float x) { return (isnan(x) || isinf(x) || x < 0.0f) ? x : copysignf(0.0f, x); }
// Values in [0.5, 2), where lg2.approx's bound is absolute, and outside it (magnitudes 2^2 and up or below
// 2^-2).
static __device__ float near_one(float x) { return __uint_as_float(0x3f000000u | (__float_as_uint(x) & 0x00ffffffu)); }
static __device__ float far_from_one(float x) { float a = fabsf(x); return (a >= 0.25f && a < 4.0f) ? a * 64.0f : a; }

#define APPROX_OPS(X)                                                                               \
    X(ex2_approx, ex2_approx(a), 2)                X(ex2_approx_ftz, ex2_approx_ftz(a), 2)        \
    X(rsqrt_approx, rsqrt_approx(a), 2)            X(rsqrtf, rsqrtf(a), 2)                        \
    X(lg2_approx_far_from_1, lg2_approx(far_from_one(a)), 2)                                        \
    X(lg2_approx_near_1, lg2_approx(near_one(a)), -22)                                              \
    X(fdividef, __fdividef(moderate(a), moderate(b)), 2)                                            \
    X(expf_softmax_range, expf(-fabsf(moderate(a)) * 1e-17f), 3)                                    \
    X(expf, expf(a), 3)                            X(__expf_small, __expf(moderate(a) * 1e-18f), 2)
#define APPROX_EXACT_OPS(X)                                                                         \
    X(fdividef_huge_divisor, __fdividef(a, huge(b)))                                                \
    X(ex2_approx_specials, ex2_approx(ex2_special(a)))                                              \
    X(rsqrt_approx_specials, rsqrt_approx(rsqrt_special(a)))

#define APPROX_KERNEL(ID, EXPR, TOL) ELEMENTWISE_KERNEL(approx_##ID, float, float, EXPR)
#define APPROX_EXACT_KERNEL(ID, EXPR) ELEMENTWISE_KERNEL(approx_##ID, float, float, EXPR)
APPROX_OPS(APPROX_KERNEL)
APPROX_EXACT_OPS(APPROX_EXACT_KERNEL)

// Words whose two halves are 16-bit floats of every kind: each half is a special value (zeros,
// subnormals, 1, the largest finite, infinities, NaN of either format) or random bits.
static void fill_half_words(std::vector<unsigned> &v, uint64_t seed)
{
    static const unsigned short specials[] = {
        0x0000, 0x8000, 0x0001, 0x8001, 0x007f, 0x0080, 0x3f80, 0xbf80, 0x7f7f, 0xff7f, 0x7f80, 0xff80, 0x7fff,
        0x03ff, 0x0400, 0x3c00, 0xbc00, 0x7bff, 0x7c00, 0xfc00, 0x3555, 0x4000,
    };
    const int ns = (int)(sizeof specials / sizeof specials[0]);
    uint64_t s = seed;
    for (size_t i = 0; i < v.size(); i++) {
        uint32_t r = rng_u32(&s);
        unsigned lo = (i % 3 == 0) ? specials[(r >> 8) % ns] : (r & 0xffff);
        unsigned hi = (i % 5 == 0) ? specials[(r >> 16) % ns] : (r >> 16);
        // Every other word: exponents near 1 in both formats' sense, where most arithmetic happens.
        if (i % 2 == 1) lo = (lo & 0x80ff) | 0x3f00, hi = (hi & 0x83ff) | 0x3800;
        v[i] = lo | hi << 16;
    }
}

void run_half_cases(void)
{
    const int n = 4096;
    std::vector<unsigned> ha(n), hb(n), hc(n);
    fill_half_words(ha, 51);
    fill_half_words(hb, 52);
    fill_half_words(hc, 53);
#define RUN_HALF(ID, EXPR) run_elementwise("half:" #ID, "u32", 0, k_half_##ID, ha, hb, hc);
    HALF_OPS(RUN_HALF)

    std::vector<float> fa(n), fb(n), fc(n);
    fill_special_floats(fa.data(), n, 54);
    fill_special_floats(fb.data(), n, 55);
    fill_special_floats(fc.data(), n, 56);
    // The conversions from float and int read the float inputs' bits.
    std::vector<unsigned> ua(n), ub(n);
    memcpy(ua.data(), fa.data(), n * sizeof(float));
    memcpy(ub.data(), fb.data(), n * sizeof(float));
    run_elementwise("half:float_to_bf16_rn(floats)", "u32", 0, k_half_float_to_bf16_rn, ua, ub, ub);
    run_elementwise("half:float_to_bf16_rz(floats)", "u32", 0, k_half_float_to_bf16_rz, ua, ub, ub);
    run_elementwise("half:floats_to_bf16x2(floats)", "u32", 0, k_half_floats_to_bf16x2, ua, ub, ub);
    run_elementwise("half:floats_to_f16x2(floats)", "u32", 0, k_half_floats_to_f16x2, ua, ub, ub);
    run_elementwise("half:double_to_bf16(floats)", "u32", 0, k_half_double_to_bf16, ua, ub, ub);

#define RUN_APPROX(ID, EXPR, TOL) run_elementwise("approx:" #ID, "f32", TOL, k_approx_##ID, fa, fb, fc);
#define RUN_APPROX_EXACT(ID, EXPR) run_elementwise("approx:" #ID, "f32", 0, k_approx_##ID, fa, fb, fc);
    APPROX_OPS(RUN_APPROX)
    APPROX_EXACT_OPS(RUN_APPROX_EXACT)
}
