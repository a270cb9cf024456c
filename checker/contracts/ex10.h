/* ex10.h - the function the checker calls in exercise 10's file (force-included when it is compiled, so
 * a changed signature is a compile error that names the line). */
#ifdef __cplusplus
extern "C" {
#endif
/* Leaves the sum of d_in[0..n) in d_out[0] (0 when n is 0), for n from 0 to 2^31 - 1, within
 * 2u|S| + 64u^2 sum|x_i| of the exact sum S, with u = 2^-24: about as accurate as adding in double and
 * rounding once to float. Writes nothing else of d_out; d_in is unchanged. d_in is 4-byte aligned, not
 * necessarily 16-byte aligned (a caller may pass d_in + 1). */
void sum_compensated(const float *d_in, float *d_out, int n);
#ifdef __cplusplus
}
#endif
