// ex18_nccl.cu - exercise 18: NCCL. Read lesson.md first.
//
// The contract is checker/contracts/ex18.h. Four functions, in the lesson's order:
//   comms_create        one communicator per device (ncclCommInitAll);
//   allreduce_in_place  ncclAllReduce in place on each rank's stream, the ranks' calls inside one group;
//   ddp_step            gradients computed bucket by bucket on the compute stream, each bucket averaged over
//                       the ranks on the communication stream while the next is computed, then the update;
//   shard_gradients     a reduce-scatter: each rank receives the average of its shard alone.
// Only comms_create waits for anything; the others enqueue work on the caller's streams and return. Fill in the
// numbered TODOs; `make ex18` grades it.

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
    // TODO 1: make comms[r], rank r on devices[r], for every r (ncclCommInitAll), and return its result.
    (void)comms;
    (void)devices;
    (void)ranks;
    return ncclSuccess;
}

extern "C" ncclResult_t allreduce_in_place(void *const *d_bufs, size_t count, ncclDataType_t type,
                                           ncclComm_t const *comms, cudaStream_t const *streams, int ranks)
{
    // TODO 2: one ncclAllReduce per rank, in place (sendbuff == recvbuff == d_bufs[r]), count elements of type,
    //         ncclSum, comms[r], streams[r]; all of them after ncclGroupStart(), stopping at the first result that
    //         is not ncclSuccess; then return close_group(that result), which ends the group.
    (void)d_bufs;
    (void)count;
    (void)type;
    (void)comms;
    (void)streams;
    (void)ranks;
    return ncclSuccess;
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
            // TODO 3: publish bucket b: record ready[d] on compute[r], and make comm[r] wait for it
            //         (cudaStreamWaitEvent), so that the all-reduce reads the bucket only once it is computed.
        }
        // TODO 4: all-reduce bucket b (count floats from d_grads[r] + begin, in place, ncclSum) on comm[r], every
        //         rank's call inside one group.
        // TODO 5: make the sum an average: the kernel scale on comm[r], by 1 / ranks, for every rank.
        (void)comms;
    }
    // The update reads every bucket's average: the compute stream waits for the communication stream's last
    // work, and with it nothing of this step is left running on comm[r].
    for (int r = 0; r < ranks; r++) {
        const int d = devices[r];
        CUDA_CHECK(cudaSetDevice(d));
        // TODO 6: the update must wait for every bucket's average: record reduced[d] on comm[r], and make
        //         compute[r] wait for it.
        (void)comm;
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
    // TODO 7: one ncclReduceScatter per rank inside a group, from d_grads[r] into d_shards[r], on streams[r]:
    //         its count is what each rank receives (one shard), not the whole gradient. Then scale each rank's
    //         shard by 1 / ranks on streams[r].
    (void)d_shards;
    return ncclSuccess;
}
