/* ex17.h - the function the checker calls in exercise 17's file (force-included when it is compiled, so a
 * changed signature is a compile error that names the line): an all-reduce of float buffers over a ring of
 * devices, by hand. */
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif
/* Sums the ranks' buffers element by element and leaves the sum in every one of them, in place: afterwards,
 * for every i < n, d_bufs[r][i] holds the same float on every rank r (the same bits), the sum over the ranks
 * of what the d_bufs[.][i] held before, within the rounding of the ring's order of additions.
 *
 * Rank r (0 <= r < ranks, 1 <= ranks <= 16) is device devices[r] (distinct devices, in any order): d_bufs[r]
 * holds its n floats (n may be 0, or smaller than ranks), d_scratch[r] room for ceil(n / ranks) floats that
 * the function may use as it likes, and streams[r] is a stream of that device, made by the caller.
 *
 * The function only enqueues work, on those streams: it returns without waiting for a device, and the result
 * is complete once every streams[r] has finished. Its work on a rank begins after what the caller had enqueued
 * on that rank's stream before the call, and none of it is left outside the streams, so the caller may call
 * it again at once. Returns cudaSuccess, or the first error a CUDA call returned. The current device may
 * change. */
cudaError_t ring_allreduce(float *const *d_bufs, float *const *d_scratch, const int *devices, int ranks, size_t n,
                           cudaStream_t const *streams);
#ifdef __cplusplus
}
#endif
