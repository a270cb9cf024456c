// Half-precision arithmetic (__half, __half2: add sub mul fma neg abs min max, each rounded once to half)
// and mul24/mad24. Results as raw bits, so that a rounding error shows.
#include <cuda_fp16.h>

__global__ void half_ops(const float *in, unsigned *out, int n)
{
    int i = threadIdx.x;
    if (i >= n) return;
    __half a = __float2half(in[i] * 1.37f + 0.1f), b = __float2half(in[(i + 1) % n] * -0.73f + 3.0f);
    __half s = a + b, d = a - b, p = a * b, f = __hfma(a, b, s);
    __half2 v = __halves2half2(a, b), w = __halves2half2(b, d);
    __half2 q = __hfma2(v, w, v * w + v);
    unsigned *o = out + 8 * i;
    o[0] = __half_as_ushort(s);
    o[1] = __half_as_ushort(d);
    o[2] = __half_as_ushort(p);
    o[3] = __half_as_ushort(f);
    o[4] = __half_as_ushort(__hneg(__hmin(a, b)));
    o[5] = __half_as_ushort(__habs(__hmax(d, p)));
    o[6] = __half_as_ushort(__low2half(q));
    o[7] = __half_as_ushort(__high2half(q));
}

// nvcc lowers __mul24 to shifts and mul.lo; the PTX instructions come from inline assembly.
__global__ void mul24_ops(const int *in, int *out, int n)
{
    int i = threadIdx.x;
    if (i >= n) return;
    int a = in[i] * 40503 - 7000000, b = in[(i + 3) % n] * -977 + 12345, r[5];
    asm("mul24.lo.s32 %0, %1, %2;" : "=r"(r[0]) : "r"(a), "r"(b));
    asm("mul24.hi.s32 %0, %1, %2;" : "=r"(r[1]) : "r"(a), "r"(b));
    asm("mul24.hi.u32 %0, %1, %2;" : "=r"(r[2]) : "r"(a), "r"(b));
    asm("mad24.lo.u32 %0, %1, %2, %3;" : "=r"(r[3]) : "r"(a), "r"(b), "r"(i * 1000003));
    asm("mad24.hi.sat.s32 %0, %1, %2, %3;" : "=r"(r[4]) : "r"(a), "r"(b), "r"(0x7fff0000 - i * 0x01000000));
    for (int k = 0; k < 5; k++) out[5 * i + k] = r[k];
}
