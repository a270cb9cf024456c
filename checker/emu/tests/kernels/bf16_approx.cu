// bfloat16 (scalar and packed pairs: conversions in each rounding mode, add sub mul fma min max neg abs,
// compares into a predicate and into a 16-bit float), and the .approx instructions on the values where PTX
// defines their result. Results as raw bits, so that a rounding error shows. The expected bits come from
// bf16_oracle.py in this folder, which computes each result exactly with Python's fractions.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

static __device__ unsigned bits(__nv_bfloat16 h) { return __bfloat16_as_ushort(h); }
static __device__ unsigned bits(__nv_bfloat162 h) { return *reinterpret_cast<unsigned *>(&h); }

__global__ void bf16_ops(const float *in, unsigned *out, int n)
{
    int i = threadIdx.x;
    if (i >= n) return;
    float x = __fmaf_rn(in[i], 1.37f, 0.1f), y = __fmaf_rn(in[(i + 1) % n], -0.73f, 3.0f);
    __nv_bfloat16 a = __float2bfloat16_rn(x), b = __float2bfloat16_rn(y);
    __nv_bfloat16 s = __hadd(a, b), d = __hsub(a, b), p = __hmul(a, b), f = __hfma(a, b, s);
    __nv_bfloat162 v = __halves2bfloat162(a, b), w = __halves2bfloat162(b, d);
    __nv_bfloat162 q = __hfma2(v, w, __hadd2(__hmul2(v, w), v));
    unsigned *o = out + 14 * i;
    o[0] = bits(s);
    o[1] = bits(d);
    o[2] = bits(p);
    o[3] = bits(f);
    o[4] = bits(q);
    o[5] = bits(__hmax(__hneg(a), __habs(d))) | bits(__hmin(a, d)) << 16;
    o[6] = bits(__float2bfloat16_rz(__fmul_rn(x, 1000.0f)));
    o[7] = bits(__floats2bfloat162_rn(x, y));
    o[8] = (unsigned)__bfloat162int_rn(__hmul(p, __float2bfloat16_rn(10.5f)));
    o[9] = bits(__int2bfloat16_rn(i * 1000003 + 7));
    o[10] = bits(__double2bfloat16((double)x * 1e-40));                     // subnormal bf16 for small x
    o[11] = bits(__float2bfloat16_rn(__fmul_rn(x, 2.735e37f))) | bits(__float2bfloat16_rz(__fmul_rn(x, 2.735e37f))) << 16;
    o[12] = (__hgt(a, b) ? 1u : 0u) | (__hle(d, p) ? 2u : 0u) | (__hisnan(__hsub(__hdiv(s, s), __float2bfloat16_rn(1.0f))) ? 4u : 0u);
    o[13] = __half_as_ushort(__float2half_rn(__bfloat162float(p)));
}

// The special values of the .approx instructions, one input per thread (17 threads).
static __device__ float special(int i)
{
    const unsigned table[17] = {
        0xff800000u, 0xbf800000u, 0x80000001u, 0x80000000u, 0x00000000u, 0x00400000u, 0x3f800000u, 0x40400000u,
        0x7149f2cau /* 1e30 */, 0x7f800000u, 0x7fc00000u, 0x43020000u /* 130 */, 0xc3020000u /* -130 */,
        0x7f61b1e6u /* 3e38 */, 0xfe967699u /* -1e38 */, 0x3f000000u, 0x40000000u,
    };
    return __uint_as_float(table[i]);
}

__global__ void approx_specials(unsigned *out)
{
    int i = threadIdx.x;
    if (i >= 17) return;
    float x = special(i), r[8];
    asm("ex2.approx.f32 %0, %1;" : "=f"(r[0]) : "f"(x));
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r[1]) : "f"(x));
    asm("rsqrt.approx.f32 %0, %1;" : "=f"(r[2]) : "f"(x));
    asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(r[3]) : "f"(x));
    asm("lg2.approx.f32 %0, %1;" : "=f"(r[4]) : "f"(x));
    asm("lg2.approx.ftz.f32 %0, %1;" : "=f"(r[5]) : "f"(x));
    asm("div.approx.f32 %0, %1, %2;" : "=f"(r[6]) : "f"(1.5f), "f"(x));
    asm("div.approx.f32 %0, %1, %2;" : "=f"(r[7]) : "f"(__uint_as_float(0x7f800000u)), "f"(x));
    for (int k = 0; k < 8; k++) out[8 * i + k] = __float_as_uint(r[k]);
}

// Pairs of halves from two floats (cvt.rn.f16x2.f32, cvt.rn.relu.bf16x2.f32: a into the upper half), and
// set.cmp with a 16-bit float destination (1.0 of that format when true).
__global__ void half_pairs(const float *in, unsigned *out, int n)
{
    int i = threadIdx.x;
    if (i >= n) return;
    float x = __fmaf_rn(in[i], 1.37f, 0.1f), y = __fmaf_rn(in[(i + 1) % n], -0.73f, 3.0f);
    unsigned short ha = __half_as_ushort(__float2half_rn(x)), hb = __half_as_ushort(__float2half_rn(y));
    unsigned short ba = __bfloat16_as_ushort(__float2bfloat16_rn(x)), bb = __bfloat16_as_ushort(__float2bfloat16_rn(y));
    unsigned short e, l, g;
    unsigned relu, relu1;
    asm("set.eq.f16.f16 %0, %1, %2;" : "=h"(e) : "h"(ha), "h"(ha));
    asm("set.lt.f16.f16 %0, %1, %2;" : "=h"(l) : "h"(ha), "h"(hb));
    asm("set.gt.bf16.bf16 %0, %1, %2;" : "=h"(g) : "h"(ba), "h"(bb));
    asm("cvt.rn.relu.bf16x2.f32 %0, %1, %2;" : "=r"(relu) : "f"(__fsub_rn(x, 5.0f)), "f"(y));
    asm("{ .reg .b16 r; cvt.rn.relu.f16.f32 r, %1; cvt.u32.u16 %0, r; }" : "=r"(relu1) : "f"(y));
    __half2 p = __floats2half2_rn(x, y);
    unsigned *o = out + 5 * i;
    o[0] = *reinterpret_cast<unsigned *>(&p);
    o[1] = e | (unsigned)l << 16;
    o[2] = g;
    o[3] = relu;
    o[4] = relu1;
}
