/* ex15.h - the functions the checker calls in exercise 15's file (force-included when it is compiled, so
 * a changed signature is a compile error that names the line). Each normalises every row r of a rows x
 * cols row-major matrix (rows, cols >= 1) by statistics of that row computed in float, and rounds each
 * output once to the input's format, within the bound of the lesson. d_gamma and d_beta hold cols floats,
 * one per column, of any sign; eps > 0 is the argument's, added before the square root. d_in and d_out start
 * at any multiple of 2 bytes, not necessarily on a 16-byte boundary (a slice of a larger tensor). Nothing
 * outside d_out is written; the inputs are unchanged. */
#include "half_types.h"
#ifdef __cplusplus
extern "C" {
#endif
/* LayerNorm of fp16 rows: d_out[r][c] = (x[r][c] - mean) / sqrt(var + eps) * d_gamma[c] + d_beta[c], with
 * the row's mean and variance (the mean of (x - mean)^2). Two passes over the row for the statistics. */
void layernorm_two_pass(const HALF_T *d_in, const float *d_gamma, const float *d_beta, HALF_T *d_out, int rows, int cols, float eps);
/* The same LayerNorm, with the mean and variance from one pass: Welford's update and its parallel combine. */
void layernorm_welford(const HALF_T *d_in, const float *d_gamma, const float *d_beta, HALF_T *d_out, int rows, int cols, float eps);
/* RMSNorm of bf16 rows: d_out[r][c] = x[r][c] / sqrt(mean of x^2 over the row + eps) * d_gamma[c]. */
void rmsnorm_bf16(const BF16_T *d_in, const float *d_gamma, BF16_T *d_out, int rows, int cols, float eps);
#ifdef __cplusplus
}
#endif
