// softmax_shift.cu - what the exponent's form costs in accuracy (lesson 16, "x - m first, or one FFMA"):
// softmax of rows of 1024 floats in [-4, 4) shifted by 0 to 10^4, computed on the device two ways,
//     FFMA form:      exp(x - m) = 2^(fma(x, log2 e, -(m log2 e)))     FlashAttention's, one FFMA
//     x - m first:    exp(x - m) = 2^((x - m) log2 e)                   exercise 16's reference
// each with ex2.approx (MUFU.EX2), by one warp as exercise 16's warp path does, and compared with softmax in double. It prints the largest error of a
// row's outputs relative to each output, in u = 2^-24 (the unit of the checker's bound,
// harness_softmax_tolerance), beside the bound's terms: 3.5 (|x - m| + R) + 6 L + 16 for any form, and the
// 3.5 |max| the bound adds (its `scale`) for the FFMA form. `make softmax-shift` builds and runs it (on the
// emulator where there is no GPU).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define COLS 1024
#define ROWS 64   // rows per shift: the largest error over them
#define LOG2E 1.4426950408889634f

__device__ __forceinline__ float exp2_ftz(float x)
{
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}

// One row, one warp, as exercise 16's warp path takes it: lane l holds values l, l + 32, ..., finds their max
// m' and the sum of exp(x - m') in the form `ffma` asks for, the lanes combine their pairs (m', d') by the
// butterfly, and each output is exp(x - m') rescaled by exp(m' - m) / d, again in that form. In the FFMA
// form m' log2 e and m log2 e are rounded apart, by up to |m| u each: the rescale's error, which no longer
// cancels in the normalisation, grows with the row's distance from 0.
__global__ void softmax_row(const float *x, float *y, int ffma)
{
    const int per = COLS / 32, l = threadIdx.x;
    float v[per], m = -INFINITY, d = 0;
    for (int j = 0; j < per; j++)
        v[j] = x[l + 32 * j], m = fmaxf(m, v[j]);
    for (int j = 0; j < per; j++) {
        v[j] = ffma ? exp2_ftz(fmaf(v[j], LOG2E, -(m * LOG2E))) : exp2_ftz((v[j] - m) * LOG2E);
        d += v[j];
    }
    float mine = m, all_m = m, all_d = d;
    for (int o = 16; o > 0; o /= 2) {
        float om = __shfl_xor_sync(0xffffffffu, all_m, o), od = __shfl_xor_sync(0xffffffffu, all_d, o);
        float mm = fmaxf(all_m, om);
        all_d = all_d * exp2_ftz((all_m - mm) * LOG2E) + od * exp2_ftz((om - mm) * LOG2E);
        all_m = mm;
    }
    float scale = (ffma ? exp2_ftz(mine * LOG2E - all_m * LOG2E) : exp2_ftz((mine - all_m) * LOG2E)) / all_d;
    for (int j = 0; j < per; j++)
        y[l + 32 * j] = v[j] * scale;
}

#define CHECK(call)                                                                                            \
    do {                                                                                                       \
        cudaError_t err_ = (call);                                                                             \
        if (err_ != cudaSuccess) {                                                                             \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(err_));           \
            exit(1);                                                                                           \
        }                                                                                                      \
    } while (0)

// The largest |y - exact| / exact over the row, in u = 2^-24.
static double worst_error(const float *x, const float *y)
{
    double m = -INFINITY, sum = 0, worst = 0;
    for (int c = 0; c < COLS; c++) m = fmax(m, (double)x[c]);
    for (int c = 0; c < COLS; c++) sum += exp((double)x[c] - m);
    for (int c = 0; c < COLS; c++) {
        double exact = exp((double)x[c] - m) / sum;
        worst = fmax(worst, fabs((double)y[c] - exact) / exact);
    }
    return worst / ldexp(1.0, -24);
}

int main()
{
    static const double shifts[] = {0, 10, 100, 1000, 10000, -10000};
    float *d_x, *d_y, x[COLS], y[COLS];
    CHECK(cudaMalloc(&d_x, sizeof x));
    CHECK(cudaMalloc(&d_y, sizeof y));
    srand(16);
    printf("softmax of %d rows of %d floats in [-4, 4) + shift:\n"
           "the largest error relative to an output, in u = 2^-24\n",
           ROWS, COLS);
    printf("%8s %8s | %10s %12s | %14s %10s\n", "shift", "|max|", "FFMA form", "x - m first", "bound, any form",
           "+ 3.5|max|");
    for (double shift : shifts) {
        double err[2] = {0, 0}, bound = 0, top = 0;
        for (int row = 0; row < ROWS; row++) {
            float lo = INFINITY, hi = -INFINITY;
            for (int c = 0; c < COLS; c++) {
                x[c] = (float)(shift + 8.0 * rand() / ((double)RAND_MAX + 1) - 4.0);
                lo = fminf(lo, x[c]), hi = fmaxf(hi, x[c]);
            }
            CHECK(cudaMemcpy(d_x, x, sizeof x, cudaMemcpyHostToDevice));
            for (int ffma = 0; ffma < 2; ffma++) {
                softmax_row<<<1, 32>>>(d_x, d_y, ffma);
                CHECK(cudaGetLastError());
                CHECK(cudaMemcpy(y, d_y, sizeof y, cudaMemcpyDeviceToHost));
                err[ffma] = fmax(err[ffma], worst_error(x, y));
            }
            // the checker's bound at the row's smallest output (|x - m| = R), L = ceil(cols / 32) + 12
            double range = (double)hi - lo;
            bound = fmax(bound, 3.5 * (2 * range) + 6 * (ceil(COLS / 32.0) + 12) + 16);
            top = fmax(top, fabs((double)hi));
        }
        printf("%8g %8.0f | %10.0f %12.0f | %14.0f %10.0f\n", shift, top, err[1], err[0], bound, 3.5 * top);
    }
    CHECK(cudaFree(d_x));
    CHECK(cudaFree(d_y));
    return 0;
}
