/* ex18.h - the functions the checker calls in exercise 18's file (force-included when it is compiled, so a
 * changed signature is a compile error that names the line): NCCL's communicators and all-reduce, gradients
 * all-reduced in buckets while the next bucket is computed (as PyTorch's DistributedDataParallel does), and
 * a reduce-scatter that leaves each rank only its shard (as ZeRO and FSDP do).
 *
 * Rank r (0 <= r < ranks, 1 <= ranks <= 16) is device devices[r] of distinct devices. Every function but
 * comms_create only enqueues work on the streams it is given, which the caller made (never the default
 * stream): it returns without waiting for a device, and its result is complete once the streams it names
 * as such have finished. Each returns ncclSuccess, or the first error of a call it made: an NCCL call's
 * ncclResult_t, or ncclUnhandledCudaError where a CUDA call failed. The current device may change. */
#include <cuda_runtime_api.h>
#include <nccl.h>

#ifdef __cplusplus
extern "C" {
#endif
/* Makes comms[r], rank r of one communicator of `ranks`, on devices[r]. */
ncclResult_t comms_create(ncclComm_t *comms, const int *devices, int ranks);

/* The sum over the ranks of each of the count elements of type (ncclFloat, ncclHalf, ncclBfloat16 or
 * ncclInt32) at d_bufs[r], left in place in every d_bufs[r] (the same bits on every rank), on streams[r]. */
ncclResult_t allreduce_in_place(void *const *d_bufs, size_t count, ncclDataType_t type, ncclComm_t const *comms,
                                cudaStream_t const *streams, int ranks);

/* One step of data-parallel training on n parameters. On rank r, bucket by bucket (elements [b x bucket,
 * (b + 1) x bucket) of the n, the last one shorter), the gradient d_grads[r][i] = d_acts[r][i] x d_weights[r][i]
 * is computed on compute[r] (the kernel backward_bucket); each bucket is averaged over the ranks on comm[r]
 * while the next is computed, and once every bucket is averaged d_weights[r][i] -= lr x d_grads[r][i] on
 * compute[r] (sgd_update). Afterwards every rank holds the same average gradient and the same weights, bit for
 * bit; the result is complete once every compute[r] has finished, and nothing of the step is still running on
 * comm[r] then. */
ncclResult_t ddp_step(float *const *d_weights, float *const *d_grads, const float *const *d_acts, size_t n,
                      size_t bucket, float lr, ncclComm_t const *comms, cudaStream_t const *compute,
                      cudaStream_t const *comm, int ranks);

/* The average over the ranks of the n gradients at d_grads[r], of which rank r keeps only its shard: with
 * shard = ceil(n / ranks), d_shards[r][j] = the average of element r x shard + j, for every j < shard with
 * r x shard + j < n. d_grads[r] has room for ranks x shard floats: the n of the gradient, then room that the
 * function may write (the gradient's own n floats must come back unchanged). On streams[r]. */
ncclResult_t shard_gradients(float *const *d_grads, float *const *d_shards, size_t n, ncclComm_t const *comms,
                             cudaStream_t const *streams, int ranks);
#ifdef __cplusplus
}
#endif
