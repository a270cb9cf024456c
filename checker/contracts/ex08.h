/* ex08.h - the function the checker calls in exercise 08's file (force-included when it is compiled, so
 * a changed signature is a compile error that names the line). */
#ifdef __cplusplus
extern "C" {
#endif
/* Leaves the sum of d_in[0..n) in d_out[0], for any n from 0 to 2^31 - 1 (n = 0 leaves 0). May allocate
 * scratch device memory, and frees it before returning. Writes nothing else of d_out; d_in is unchanged. */
void reduce_multi_level(const int *d_in, int *d_out, int n);
#ifdef __cplusplus
}
#endif
