// test_half_nans.cu - NaN bit patterns through 16-bit float instructions: the expected output is what an
// NVIDIA H100 (sm_90, nvcc 13.0) printed for this program on 2026-11-23 (PTX leaves most of these open).
#include <cstdio>
#include <cstdint>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
__global__ void probe(const uint32_t *in, uint32_t *out, int n)
{
    int i = threadIdx.x;
    if (i >= n) return;
    uint32_t f = in[i];                       // a float's bits
    uint16_t h = (uint16_t)(f >> 16);         // its top half as a bf16 (and as an f16)
    float x = __uint_as_float(f);
    __nv_bfloat16 b; memcpy(&b, &h, 2);
    __half hf; memcpy(&hf, &h, 2);
    uint16_t r;
    uint32_t *o = out + i * 10;
    r = __bfloat16_as_ushort(__hneg(b)); o[0] = r;
    r = __bfloat16_as_ushort(__habs(b)); o[1] = r;
    r = __half_as_ushort(__hneg(hf)); o[2] = r;
    r = __half_as_ushort(__habs(hf)); o[3] = r;
    o[4] = __float_as_uint(__bfloat162float(b));
    o[5] = __float_as_uint(__half2float(hf));
    double d = (double)x; o[6] = (uint32_t)(__double_as_longlong(d) >> 32);
    double p = d * 3.0; o[7] = (uint32_t)(__double_as_longlong(p) >> 32);
    r = __bfloat16_as_ushort(__double2bfloat16(d)); o[8] = r;
    r = __bfloat16_as_ushort(__float2bfloat16_rn(x)); o[9] = r;
}
int main()
{
    uint32_t h_in[8] = {0x7fc4abcdu, 0xffc4abcdu, 0x7f812345u, 0x7fffffffu, 0xff800001u, 0x3f800000u, 0x7fff0000u, 0xfffc1234u};
    uint32_t *d_in, *d_out, h_out[80];
    cudaMalloc(&d_in, sizeof h_in); cudaMalloc(&d_out, sizeof h_out);
    cudaMemcpy(d_in, h_in, sizeof h_in, cudaMemcpyHostToDevice);
    probe<<<1, 8>>>(d_in, d_out, 8);
    cudaError_t e = cudaDeviceSynchronize();
    cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost);
    printf("%s\n  input     bf-neg bf-abs f16neg f16abs bf->f32   f16->f32  f32->f64hi dmul*3hi f64->bf f32->bf\n", cudaGetErrorString(e));
    for (int i = 0; i < 8; i++) {
        uint32_t *o = h_out + i * 10;
        printf("  %08x  %04x   %04x   %04x   %04x   %08x  %08x  %08x  %08x %04x    %04x\n", h_in[i], o[0], o[1], o[2], o[3], o[4], o[5], o[6], o[7], o[8], o[9]);
    }
}
