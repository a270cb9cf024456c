/* ex14.h - the functions the checker calls in exercise 14's file (force-included when it is compiled, so
 * a changed signature is a compile error that names the line). Each computes, for every row r of a
 * rows x cols row-major matrix (rows, cols >= 1), its softmax:
 *     d_out[r][c] = exp(x[r][c] - m) / sum over j of exp(x[r][j] - m),   m the row's largest x,
 * in float, within the bound of the lesson. Entries are finite or -inf (a masked position, whose output is
 * 0), anywhere in a row; each row holds at least one finite value. d_in and d_out start at any multiple of
 * their element's size, not necessarily on a 16-byte boundary (a slice of a larger tensor). Nothing outside
 * d_out is written; d_in is unchanged. */
#include "half_types.h"
#ifdef __cplusplus
extern "C" {
#endif
/* Two reductions per row, the max and then the sum of exp(x - max), then the outputs: three reads. */
void softmax_two_pass(const float *d_in, float *d_out, int rows, int cols);
/* One reduction per row of (max, sum) pairs, combined as the running max changes: two reads. */
void softmax_online(const float *d_in, float *d_out, int rows, int cols);
/* softmax_online with fp16 in and out, computed in float. */
void softmax_online_f16(const HALF_T *d_in, HALF_T *d_out, int rows, int cols);
#ifdef __cplusplus
}
#endif
