/* ex03.h - what the checker calls in exercise 03's file (v2). */
#ifdef __cplusplus
extern "C" {
#endif
/* Writes the sum of each block's blockDim.x elements to d_out[blockIdx.x]; returns the number of blocks.
 * n >= 1: n = 0 would launch no block. */
int reduce_v2(const int *d_in, int *d_out, int n, int block);
/* The same with Harris's strided index (solutions/v2_strided_index.cu): for the benchmark, not graded. */
int reduce_v2_strided(const int *d_in, int *d_out, int n, int block);
#ifdef __cplusplus
}
#endif
