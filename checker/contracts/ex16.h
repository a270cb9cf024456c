/* ex16.h - the functions the checker calls in exercise 16's file (force-included when it is compiled, so
 * a changed signature is a compile error that names the line). Each works on the rows of a rows x cols
 * row-major matrix (rows, cols >= 1) and computes what exercises 13 to 15 computed, on the path `path`
 * names:
 *     0  the dispatch's own choice            1  a warp per row (several rows per warp), cols <= 1024
 *     2  a block per row, the row in registers or in shared memory
 *     3  a cluster of blocks per row (compute capability 9.0)
 *     4  a block per row that reads the row again for each pass
 * and returns the path that ran (1 to 4), or 0 when that path cannot take this shape on this GPU (then it
 * launches nothing). Any alignment of the inputs and outputs; nothing outside d_out is written; the inputs
 * are unchanged. Weights (gamma, beta) have cols values, in the input's type. */
#include "half_types.h"
#ifdef __cplusplus
extern "C" {
#endif
/* Softmax of each row (exercise 14), entries finite or -inf, at least one finite value per row. */
int softmax_rows(const float *d_in, float *d_out, int rows, int cols, int path);
int softmax_rows_f16(const HALF_T *d_in, HALF_T *d_out, int rows, int cols, int path);
/* LayerNorm of each row (exercise 15): (x - mean) / sqrt(var + eps) * gamma + beta, eps > 0. */
int layernorm_rows_f16(const HALF_T *d_in, const HALF_T *d_gamma, const HALF_T *d_beta, HALF_T *d_out, int rows,
                       int cols, float eps, int path);
/* RMSNorm of each row (exercise 15): x / sqrt(mean of x^2 + eps) * gamma, eps > 0. */
int rmsnorm_rows_bf16(const BF16_T *d_in, const BF16_T *d_gamma, BF16_T *d_out, int rows, int cols, float eps,
                      int path);
/* Row statistics (exercise 13): d_out[2r] = the row's mean, d_out[2r + 1] = its L2 norm. */
int row_stats_rows_f16(const HALF_T *d_in, float *d_out, int rows, int cols, int path);
int row_stats_rows_bf16(const BF16_T *d_in, float *d_out, int rows, int cols, int path);
#ifdef __cplusplus
}
#endif
