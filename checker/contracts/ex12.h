/* ex12.h - the functions the checker calls in exercise 12's file (force-included when it is compiled, so
 * a changed signature is a compile error that names the line). The library does the reducing: Thrust for
 * the first four, CUB for the last. d_in points to n device values (n from 0 to 2^31 - 1) and is left
 * unchanged. */
#include <cuda_runtime_api.h>

/* n is an int, so Thrust's 64-bit offsets are never used: without this, Thrust compiles every algorithm
 * for both (the reference has 28 kernels instead of 14, and takes about a seventh longer to compile).
 * For n below 2^31 Thrust runs the same kernels either way. */
#if defined(__cplusplus) && !defined(THRUST_FORCE_64_BIT_OFFSET_TYPE) && !defined(THRUST_FORCE_32_BIT_OFFSET_TYPE)
#define THRUST_FORCE_32_BIT_OFFSET_TYPE
#endif
/* CUB's NVTX ranges (names on a profiler's timeline) are left out: the headers they bring are parsed twice,
 * for the host and for the device, in every compile of this file. (CCCL_DISABLE_FP16_SUPPORT would leave out
 * more, but with it CCCL 3.0's ThreadReduce takes its "never reached" SIMD path for a max of floats and
 * asserts: enable_sm80_simd_reduction then holds for every type.) */
#if defined(__cplusplus) && !defined(CCCL_DISABLE_NVTX)
#define CCCL_DISABLE_NVTX
#endif

#ifdef __cplusplus
extern "C" {
#endif
/* The smallest and the largest of some floats. */
typedef struct float_range {
    float min, max;
} float_range;

/* Returns the sum of d_in[0..n), 0 when n is 0, computed on the device with thrust::reduce. */
int sum_thrust(const int *d_in, int n);

/* Returns the largest of d_in[0..n), -INFINITY when n is 0, with thrust::reduce. d_in holds no NaN. */
float max_thrust(const float *d_in, int n);

/* Returns the Euclidean norm sqrt(d_in[0]^2 + ... + d_in[n-1]^2), 0 when n is 0, within float's rounding
 * error of a tree of additions, in one pass over d_in with thrust::transform_reduce. */
float norm_thrust(const float *d_in, int n);

/* Returns the smallest and the largest of d_in[0..n) in one pass, {+INFINITY, -INFINITY} when n is 0.
 * NaNs are ignored, as fminf and fmaxf ignore them. */
float_range minmax_thrust(const float *d_in, int n);

/* Leaves the sum of d_in[0..n) in d_out[0] (0 when n is 0) with cub::DeviceReduce::Sum, queued on stream:
 * it returns without waiting for the device, and allocates its temporary storage once, not per call.
 * Writes nothing else of d_out. Returns what CUB returned: cudaSuccess when the sum was queued. */
cudaError_t sum_cub(const int *d_in, int *d_out, int n, cudaStream_t stream);
#ifdef __cplusplus
}
#endif
