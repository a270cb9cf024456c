/* ex09.h - the functions the checker calls in exercise 09's file (force-included when it is compiled, so
 * a changed signature is a compile error that names the line). Each leaves one value in d_out[0], writes
 * nothing else of d_out, and leaves its inputs unchanged; n is 0 to 2^31 - 1. The inputs are 4-byte
 * aligned, not necessarily 16-byte aligned (a caller may pass d_in + 1), and d_a and d_b need not be
 * aligned alike.
 *
 * NaN and inf follow fmaxf and fminf: they return the other operand when one is NaN, so max and min ignore
 * NaNs, and an input of NaNs only gives the identity; +inf wins a max and -inf a min. A dot product with
 * a NaN (or with 0 * inf) is NaN. */
#ifdef __cplusplus
extern "C" {
#endif
/* The largest of d_in[0..n); -INFINITY when n is 0. */
void reduce_max(const float *d_in, float *d_out, int n);
/* The smallest of d_in[0..n); +INFINITY when n is 0. */
void reduce_min(const float *d_in, float *d_out, int n);
/* The sum of d_a[i] * d_b[i] over [0, n), within float's rounding error of a tree of additions; 0 when n
 * is 0. */
void dot_product(const float *d_a, const float *d_b, float *d_out, int n);
#ifdef __cplusplus
}
#endif
