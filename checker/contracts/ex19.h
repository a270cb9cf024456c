/* ex19.h - the functions the checker calls in exercise 19's file (force-included when it is compiled, so a
 * changed signature is a compile error that names the line): all-reduces of small float buffers over several
 * devices, each in one kernel per device that reads the peers' memory through peer pointers. */
#include <cuda_runtime_api.h>

#define ALLREDUCE_FLAG_WORDS 1024   /* unsigned ints in each rank's d_flags */

#ifdef __cplusplus
extern "C" {
#endif
/* Sums the ranks' inputs element by element into every rank's output: afterwards, for every i < n,
 * d_out[r][i] holds the same float on every rank r (the same bits), the sum over the ranks of d_in[.][i]
 * within the rounding of ranks - 1 additions.
 *
 * Rank r (0 <= r < ranks, 1 <= ranks <= 8) is device devices[r] (distinct devices, in any order, every pair
 * with peer access enabled by the caller): d_in[r] holds its n floats (n may be 0, or smaller than ranks),
 * d_out[r] room for n floats, d_flags[r] ALLREDUCE_FLAG_WORDS unsigned ints, zero before the first call and
 * left to the function between calls. All three are memory of that device, which kernels on the other devices
 * may load and store; streams[r] is a stream of that device, made by the caller.
 *
 * The function launches one kernel per rank, on those streams, and returns without waiting. The kernels run
 * at the same time and wait for each other through the flags: no rank reads a peer's d_in before that peer's
 * kernel has begun (what the caller enqueued before the call is done then), and no rank's kernel ends while
 * a peer may still read its d_in or d_out, so that the caller may overwrite them as soon as streams[r] has
 * finished, and call again at once. Returns cudaSuccess, or the first error a CUDA call returned. The current
 * device may change. */
cudaError_t oneshot_allreduce(const float *const *d_in, float *const *d_out, unsigned *const *d_flags,
                              const int *devices, int ranks, size_t n, cudaStream_t const *streams);
/* The same in two shots, in one kernel per rank: rank r sums its chunk (the r-th of ceil(n / ranks) floats)
 * of every rank's input into its own d_out (a reduce-scatter), then copies the other chunks from their
 * owners' d_out (an all-gather). */
cudaError_t twoshot_allreduce(const float *const *d_in, float *const *d_out, unsigned *const *d_flags,
                              const int *devices, int ranks, size_t n, cudaStream_t const *streams);
#ifdef __cplusplus
}
#endif
