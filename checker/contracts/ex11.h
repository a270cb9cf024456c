/* ex11.h - the function the checker calls in exercise 11's file (force-included when it is compiled, so
 * a changed signature is a compile error that names the line). */
#ifdef __cplusplus
extern "C" {
#endif
/* Leaves the sum of d_in[0..n) in d_out[0] (0 when n is 0) for n from 0 to 2^31 - 1, in a single pass:
 * one kernel launch, plus at most a cudaMemsetAsync. d_in is 4-byte aligned, not necessarily 16-byte
 * aligned. Writes nothing else of d_out; d_in is unchanged. */
void reduce_fastest(const int *d_in, int *d_out, int n);
#ifdef __cplusplus
}
#endif
