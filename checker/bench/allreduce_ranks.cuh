// allreduce_ranks.cuh - the set of ranks that bench_allreduce.cu times the all-reduces on: one rank per device,
// each with its own stream (made with cudaStreamNonBlocking, as the exercises' callers make theirs), its two
// buffers, its events and its rank of an NCCL communicator; peer access enabled between every pair.
//
// d_a[r] holds the data (the ring's and NCCL's buffer, in place; the one-shot's input), d_b[r] is the ring's
// scratch or the one-shot's output: 2 x the largest size on every device.
#include <nccl.h>

#define MAX_RANKS 16   // exercise 17's contract: rings of 1 to 16

#define CHECK_NCCL(expr)                                                                                \
    do {                                                                                                \
        ncclResult_t res_ = (expr);                                                                     \
        if (res_ != ncclSuccess) {                                                                      \
            fprintf(stderr, "bench_allreduce: %s failed at %s:%d: %s\n", #expr, __FILE__, __LINE__,     \
                    ncclGetErrorString(res_));                                                          \
            exit(1);                                                                                    \
        }                                                                                               \
    } while (0)

struct ranks_set {
    int ranks;
    int devices[MAX_RANKS];
    cudaStream_t streams[MAX_RANKS];
    float *d_a[MAX_RANKS], *d_b[MAX_RANKS];
    cudaEvent_t start[MAX_RANKS], stop[MAX_RANKS];
    ncclComm_t comms[MAX_RANKS];   // NULL when NCCL is not timed (--speed)
    bool peers;                    // every pair has peer access (the one-shot needs it)
};

// Devices 0 .. ranks-1, with buffers of max_bytes each, and NCCL's communicator when with_nccl.
static void ranks_open(ranks_set &s, int ranks, size_t max_bytes, bool with_nccl)
{
    memset(&s, 0, sizeof s);
    s.ranks = ranks;
    s.peers = true;
    for (int r = 0; r < ranks; r++) s.devices[r] = r;
    for (int r = 0; r < ranks; r++) {
        CHECK(cudaSetDevice(s.devices[r]));
        for (int q = 0; q < ranks; q++) {
            if (q == r) continue;
            int can = 0;
            CHECK(cudaDeviceCanAccessPeer(&can, s.devices[r], s.devices[q]));
            cudaError_t err = can ? cudaDeviceEnablePeerAccess(s.devices[q], 0) : cudaErrorPeerAccessUnsupported;
            if (err == cudaErrorPeerAccessAlreadyEnabled) err = cudaSuccess;
            if (err != cudaSuccess) s.peers = false;
            cudaGetLastError();   // an unsupported pair is a fact of the machine, not an error of the program
        }
        CHECK(cudaStreamCreateWithFlags(&s.streams[r], cudaStreamNonBlocking));
        CHECK(cudaMalloc(&s.d_a[r], max_bytes));
        CHECK(cudaMalloc(&s.d_b[r], max_bytes));
        CHECK(cudaEventCreate(&s.start[r]));
        CHECK(cudaEventCreate(&s.stop[r]));
    }
    if (with_nccl) {
        // Never NVLink multicast (NVLS), whatever the environment this program was started with: the GPU
        // machines' rule. NCCL reads it when the communicator is made.
        setenv("NCCL_NVLS_ENABLE", "0", 1);
        CHECK_NCCL(ncclCommInitAll(s.comms, ranks, s.devices));
    }
}

// Waits for every rank's stream.
static void ranks_sync(const ranks_set &s)
{
    for (int r = 0; r < s.ranks; r++) {
        CHECK(cudaSetDevice(s.devices[r]));
        CHECK(cudaStreamSynchronize(s.streams[r]));
    }
}

// Everything released once the streams are done; the communicators as NCCL's own example ends them: finalized
// together in a group (one thread holds every rank), then destroyed.
static void ranks_close(ranks_set &s)
{
    ranks_sync(s);
    if (s.comms[0]) {
        CHECK_NCCL(ncclGroupStart());
        for (int r = 0; r < s.ranks; r++) CHECK_NCCL(ncclCommFinalize(s.comms[r]));
        CHECK_NCCL(ncclGroupEnd());
        for (int r = 0; r < s.ranks; r++) CHECK_NCCL(ncclCommDestroy(s.comms[r]));
    }
    for (int r = 0; r < s.ranks; r++) {
        CHECK(cudaSetDevice(s.devices[r]));
        CHECK(cudaFree(s.d_a[r]));
        CHECK(cudaFree(s.d_b[r]));
        CHECK(cudaEventDestroy(s.start[r]));
        CHECK(cudaEventDestroy(s.stop[r]));
        CHECK(cudaStreamDestroy(s.streams[r]));
    }
}

// The largest size of buffer (a power of 4 times 1 MB, at most max_bytes) of which every device has room for
// two, with 1 GB to spare for NCCL's own buffers and the runtime.
static size_t ranks_room(int ranks, size_t max_bytes, size_t min_bytes)
{
    for (int r = 0; r < ranks; r++) {
        size_t free_bytes, total_bytes;
        CHECK(cudaSetDevice(r));
        CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
        while (max_bytes > min_bytes && 2 * max_bytes + ((size_t)1 << 30) > free_bytes) max_bytes /= 4;
    }
    return max_bytes;
}
