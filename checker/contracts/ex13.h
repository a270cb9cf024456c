/* ex13.h - the functions the checker calls in exercise 13's file (force-included when it is compiled, so
 * a changed signature is a compile error that names the line). None writes outside its outputs; the
 * inputs are unchanged. Matrices are row-major; d_in is 2-byte aligned, not necessarily 16-byte aligned. */
#include "half_types.h"
#ifdef __cplusplus
extern "C" {
#endif
/* Blocks of `block` threads (a multiple of 32, from 32 to 1024) each add their own values, and every
 * thread writes its block's sum: d_out[b * block + t] = d_in[b * block] + ... + d_in[b * block + block - 1]
 * for every thread t of every block b < blocks. The values are small integers: every order gives one sum. */
void allreduce_probe(const float *d_in, float *d_out, int blocks, int block);
/* For each row r of a rows x cols matrix (rows, cols >= 1), accumulated in float: d_out[2r] = the row's
 * mean, d_out[2r + 1] = its L2 norm, the square root of the sum of its squares. */
void row_stats_f16(const HALF_T *d_in, float *d_out, int rows, int cols);
void row_stats_bf16(const BF16_T *d_in, float *d_out, int rows, int cols);
/* For each row r of a rows x cols fp16 matrix (rows, cols >= 1): d_out[2r] = 1 when every |x| of the row
 * is at most limit (a NaN is not), else 0; d_out[2r + 1] = 1 when some x of the row is infinite or NaN,
 * else 0. */
void row_checks_f16(const HALF_T *d_in, int *d_out, int rows, int cols, float limit);
/* The same two verdicts over a whole tensor d_in[0..n), n from 0 to 2^31 - 1, into d_out[0] and d_out[1]:
 * n = 0 gives 1 and 0. */
void tensor_checks_f16(const HALF_T *d_in, int *d_out, int n, float limit);
#ifdef __cplusplus
}
#endif
