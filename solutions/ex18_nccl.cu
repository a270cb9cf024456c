// ex18_nccl.cu - exercise 18's reference solution: NCCL's communicators and all-reduce, gradients averaged in
// buckets while the next bucket is computed (PyTorch's DistributedDataParallel), and a reduce-scatter that
// leaves each rank only its shard (ZeRO, FSDP).
//
// What it does: comms_create makes one communicator per device (ncclCommInitAll). allreduce_in_place calls
//   ncclAllReduce once per rank, in place, on that rank's stream, between ncclGroupStart and ncclGroupEnd: one
//   thread drives every device, and alone each call would wait for the other ranks' calls. ddp_step computes
//   the gradient bucket by bucket on the compute stream; after each bucket an event tells the communication
//   stream that the bucket is ready, which all-reduces it (ncclSum) and scales it by 1 / ranks while the
//   compute stream goes on to the next bucket; the update waits for the communication stream's last event.
//   shard_gradients zeroes the padding past n, reduce-scatters ranks x shard floats so that rank r receives
//   the sum of shard r alone, and scales it.
// Why: an all-reduce moves 2 (ranks - 1) / ranks of the buffer per rank; a reduce-scatter half of that, and
//   leaves each rank 1 / ranks of the result: the right call when each rank updates only its shard of the
//   parameters (an all-gather of the updated shards then gives everyone the weights). Buckets let the links
//   work while the device computes: the step takes max(compute, communication) plus one bucket, not the sum.
// The flaw that remains: each bucket pays NCCL's launch and latency (a few microseconds): buckets too small
//   waste it, too large leave the last bucket's communication exposed (PyTorch's default is 25 MB).
// Preconditions: distinct devices; the caller's streams, made on each rank's device.
// Result: comms_create's when it returns; the others' once the named streams have finished.

#include <nccl.h>

#define BLOCK 256
#define MAX_BLOCKS 1024
#define MAX_DEVICES 16

// Returns the first failed NCCL call's result; a failed CUDA call becomes ncclUnhandledCudaError.
#define NCCL_CHECK(call)                            \
    do {                                            \
        ncclResult_t res_ = (call);                 \
        if (res_ != ncclSuccess) return res_;       \
    } while (0)
#define CUDA_CHECK(call)                                            \
    do {                                                            \
        if ((call) != cudaSuccess) return ncclUnhandledCudaError;   \
    } while (0)

// Closes the group that the calls since ncclGroupStart made, and returns the first failure: first (a call's
// result inside the group), else ncclGroupEnd's. A group left open would swallow the caller's next calls.
ncclResult_t close_group(ncclResult_t first)
{
    ncclResult_t end = ncclGroupEnd();
    return first != ncclSuccess ? first : end;
}

// grads[i] = acts[i] x weights[i] for i in [begin, begin + count): the backward pass of one bucket (the
// gradient of sum(acts x weights) with respect to the weights), a grid-stride loop.
__global__ void backward_bucket(float *grads, const float *acts, const float *weights, size_t begin, size_t count)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count; i += (size_t)gridDim.x * blockDim.x)
        grads[begin + i] = acts[begin + i] * weights[begin + i];
}

// x[i] *= factor for i < count.
__global__ void scale(float *x, size_t count, float factor)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count; i += (size_t)gridDim.x * blockDim.x)
        x[i] *= factor;
}

// weights[i] -= lr x grads[i] for i < n: the optimizer's step (plain SGD).
__global__ void sgd_update(float *weights, const float *grads, size_t n, float lr)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        weights[i] -= lr * grads[i];
}

// A grid for count elements: enough blocks of BLOCK, at most MAX_BLOCKS (the loops stride over the rest).
static unsigned grid_for(size_t count)
{
    size_t blocks = (count + BLOCK - 1) / BLOCK;
    return (unsigned)(blocks == 0 ? 1 : blocks < MAX_BLOCKS ? blocks : MAX_BLOCKS);
}

extern "C" ncclResult_t comms_create(ncclComm_t *comms, const int *devices, int ranks)
{
    return ncclCommInitAll(comms, ranks, devices);
}

extern "C" ncclResult_t allreduce_in_place(void *const *d_bufs, size_t count, ncclDataType_t type,
                                           ncclComm_t const *comms, cudaStream_t const *streams, int ranks)
{
    // One thread, several devices: the ranks' calls go together at ncclGroupEnd.
    NCCL_CHECK(ncclGroupStart());
    ncclResult_t res = ncclSuccess;
    for (int r = 0; r < ranks && res == ncclSuccess; r++)
        res = ncclAllReduce(d_bufs[r], d_bufs[r], count, type, ncclSum, comms[r], streams[r]);
    return close_group(res);
}

// Events made once per device: ready says "this bucket's gradient is computed" (compute -> comm), reduced says
// "every bucket is averaged" (comm -> compute). One of each is enough: cudaStreamWaitEvent waits for the record
// made before it, and a later record does not change that wait.
static cudaEvent_t ready[MAX_DEVICES], reduced[MAX_DEVICES];

static ncclResult_t make_events(const ncclComm_t *comms, int ranks)
{
    for (int r = 0; r < ranks; r++) {
        int device;
        NCCL_CHECK(ncclCommCuDevice(comms[r], &device));
        if (reduced[device]) continue;
        CUDA_CHECK(cudaSetDevice(device));
        CUDA_CHECK(cudaEventCreateWithFlags(&ready[device], cudaEventDisableTiming));
        CUDA_CHECK(cudaEventCreateWithFlags(&reduced[device], cudaEventDisableTiming));
    }
    return ncclSuccess;
}

extern "C" ncclResult_t ddp_step(float *const *d_weights, float *const *d_grads, const float *const *d_acts,
                                 size_t n, size_t bucket, float lr, ncclComm_t const *comms,
                                 cudaStream_t const *compute, cudaStream_t const *comm, int ranks)
{
    if (n == 0) return ncclSuccess;
    if (bucket == 0 || bucket > n) bucket = n;
    NCCL_CHECK(make_events(comms, ranks));
    int devices[MAX_DEVICES];
    for (int r = 0; r < ranks; r++) NCCL_CHECK(ncclCommCuDevice(comms[r], &devices[r]));
    const size_t buckets = (n + bucket - 1) / bucket;
    for (size_t b = 0; b < buckets; b++) {
        const size_t begin = b * bucket, count = n - begin < bucket ? n - begin : bucket;
        // The backward pass of bucket b on each rank's compute stream, then the event that publishes it.
        for (int r = 0; r < ranks; r++) {
            const int d = devices[r];
            CUDA_CHECK(cudaSetDevice(d));
            backward_bucket<<<grid_for(count), BLOCK, 0, compute[r]>>>(d_grads[r], d_acts[r], d_weights[r], begin,
                                                                    count);
            CUDA_CHECK(cudaGetLastError());
            CUDA_CHECK(cudaEventRecord(ready[d], compute[r]));
            // The communication stream starts on bucket b only once it is computed, not when the host gets here.
            CUDA_CHECK(cudaStreamWaitEvent(comm[r], ready[d], 0));
        }
        // All ranks' all-reduces of bucket b together, on the communication streams.
        NCCL_CHECK(ncclGroupStart());
    ncclResult_t res = ncclSuccess;
        for (int r = 0; r < ranks && res == ncclSuccess; r++)
            res = ncclAllReduce(d_grads[r] + begin, d_grads[r] + begin, count, ncclFloat, ncclSum, comms[r], comm[r]);
        NCCL_CHECK(close_group(res));
        // The sum becomes the average, still on the communication stream (every rank scales the same bits).
        for (int r = 0; r < ranks; r++) {
            CUDA_CHECK(cudaSetDevice(devices[r]));
            scale<<<grid_for(count), BLOCK, 0, comm[r]>>>(d_grads[r] + begin, count, 1.0f / (float)ranks);
            CUDA_CHECK(cudaGetLastError());
        }
    }
    // The update reads every bucket's average: the compute stream waits for the communication stream's last
    // work, and with it nothing of this step is left running on comm[r].
    for (int r = 0; r < ranks; r++) {
        const int d = devices[r];
        CUDA_CHECK(cudaSetDevice(d));
        CUDA_CHECK(cudaEventRecord(reduced[d], comm[r]));
        CUDA_CHECK(cudaStreamWaitEvent(compute[r], reduced[d], 0));
        sgd_update<<<grid_for(n), BLOCK, 0, compute[r]>>>(d_weights[r], d_grads[r], n, lr);
        CUDA_CHECK(cudaGetLastError());
    }
    return ncclSuccess;
}

extern "C" ncclResult_t shard_gradients(float *const *d_grads, float *const *d_shards, size_t n,
                                        ncclComm_t const *comms, cudaStream_t const *streams, int ranks)
{
    if (n == 0) return ncclSuccess;
    const size_t shard = (n + ranks - 1) / ranks, padded = shard * (size_t)ranks;
    int devices[MAX_DEVICES];
    for (int r = 0; r < ranks; r++) {
        NCCL_CHECK(ncclCommCuDevice(comms[r], &devices[r]));
        // The padding past n is summed into the last shard's tail: zeros, so that it adds nothing.
        CUDA_CHECK(cudaSetDevice(devices[r]));
        CUDA_CHECK(cudaMemsetAsync(d_grads[r] + n, 0, (padded - n) * sizeof(float), streams[r]));
    }
    // recvcount is one shard: NCCL reads ranks x shard floats from each rank and gives rank r the sum of shard r.
    NCCL_CHECK(ncclGroupStart());
    ncclResult_t res = ncclSuccess;
    for (int r = 0; r < ranks && res == ncclSuccess; r++)
        res = ncclReduceScatter(d_grads[r], d_shards[r], shard, ncclFloat, ncclSum, comms[r], streams[r]);
    NCCL_CHECK(close_group(res));
    for (int r = 0; r < ranks; r++) {
        CUDA_CHECK(cudaSetDevice(devices[r]));
        scale<<<grid_for(shard), BLOCK, 0, streams[r]>>>(d_shards[r], shard, 1.0f / (float)ranks);
        CUDA_CHECK(cudaGetLastError());
    }
    return ncclSuccess;
}
