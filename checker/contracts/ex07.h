/* ex07.h - what the checker calls in exercise 07's file (v6). */
#ifdef __cplusplus
extern "C" {
#endif
/* Launches blocks of `block` threads (a power of two, 32 to 1024) on a grid the launcher chooses from
 * the device, not from n (at most ceil(n / block) blocks, at least 1); each thread sums its elements of
 * d_in[0..n) in a grid-stride loop, and each block writes its partial sum to d_out[blockIdx.x]. The
 * partials d_out[0..grid) add up to the sum of d_in; nothing else is written. Returns grid. n >= 1 (the
 * lesson never launches for nothing; exercise 08 handles n = 0). */
int reduce_v6(const int *d_in, int *d_out, int n, int block);
#ifdef __cplusplus
}
#endif
