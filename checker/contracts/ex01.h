/* ex01.h - the functions the checker calls in exercise 01's file (force-included when it is compiled, so
 * a changed signature is a compile error that names the line). */
#ifdef __cplusplus
extern "C" {
#endif
/* Sums h_in[0..n) on the CPU in 64 bits: the reference every GPU result is compared with. */
long long reduce_cpu(const int *h_in, int n);
/* Sums d_in[0..n) into d_out[0] with one atomicAdd per element; n >= 1 (n = 0 would launch no block). */
void reduce_atomic(const int *d_in, int *d_out, int n);
#ifdef __cplusplus
}
#endif
