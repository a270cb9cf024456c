// ex17_ring_allreduce.cu - exercise 17: an all-reduce over a ring of devices, by hand. Read lesson.md first.
//
// ring_allreduce sums the ranks' buffers element by element and leaves the sum in every one of them, in place
// (the contract is checker/contracts/ex17.h). Cut the n floats into `ranks` chunks of ceil(n / ranks), then:
//   reduce-scatter: ranks - 1 steps; in step s rank r receives chunk (r - 1 - s) of its left neighbour and adds
//                   it into its own; afterwards rank r holds the complete sum of chunk r + 1;
//   all-gather:     ranks - 1 steps; in step t rank r receives chunk (r - t), complete, and copies it over its own.
// Every step of rank r runs on streams[r] and waits for its left neighbour's previous step with an event; the
// host never waits. Fill in the numbered TODOs; `make ex17` grades it.

#define BLOCK 256
#define MAX_BLOCKS 1024
#define MAX_DEVICES 16

#define CHECK(call)                                 \
    do {                                            \
        cudaError_t err_ = (call);                  \
        if (err_ != cudaSuccess) return err_;       \
    } while (0)

// dst[i] += src[i] for i < count, a grid-stride loop.
__global__ void add_chunk(float *dst, const float *src, size_t count)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count; i += (size_t)gridDim.x * blockDim.x)
        dst[i] += src[i];
}

// Two events per device, made once: step s records done[s % 2], and the next rank's step s + 1 waits for it
// (the record of step s + 2 comes after that wait in the host's order, so one pair is enough).
static cudaEvent_t done[2][MAX_DEVICES];

static cudaError_t make_events(const int *devices, int ranks)
{
    for (int r = 0; r < ranks; r++)
        for (int k = 0; k < 2; k++)
            if (!done[k][devices[r]]) {
                CHECK(cudaSetDevice(devices[r]));
                CHECK(cudaEventCreateWithFlags(&done[k][devices[r]], cudaEventDisableTiming));
            }
    return cudaSuccess;
}

// The chunk that rank r receives at this step: [*begin, *begin + *count) of the n floats. Chunks hold
// ceil(n / ranks) floats; the last ones fewer, or none when n < ranks.
static void chunk_of(int r, int step, int ranks, size_t n, size_t *begin, size_t *count)
{
    // TODO 1: which chunk c rank r receives at this step (the top of the file says; an index below 0 wraps
    //         round the ring), where it begins, and how many floats it has: a chunk, fewer for the last ones,
    //         or 0 when it begins at or past n.
    *begin = 0;
    *count = 0;
}

// Launches add_chunk(dst, src, count) on stream, with a grid of at most MAX_BLOCKS blocks; returns the launch's
// error.
cudaError_t add_chunk_async(float *dst, const float *src, size_t count, cudaStream_t stream)
{
    size_t blocks = (count + BLOCK - 1) / BLOCK;
    add_chunk<<<(unsigned)(blocks < MAX_BLOCKS ? blocks : MAX_BLOCKS), BLOCK, 0, stream>>>(dst, src, count);
    return cudaGetLastError();
}

extern "C" cudaError_t ring_allreduce(float *const *d_bufs, float *const *d_scratch, const int *devices, int ranks,
                                      size_t n, cudaStream_t const *streams)
{
    if (ranks <= 1 || n == 0) return cudaSuccess;   // one rank's buffer is already the sum
    CHECK(make_events(devices, ranks));
    const int steps = 2 * (ranks - 1);   // ranks - 1 of the reduce-scatter, then ranks - 1 of the all-gather

    // Entry: what the caller enqueued on each rank's stream (the previous call's last writes, too) is published
    // as that rank's "step -1", which its right neighbour's first step waits for.
    for (int r = 0; r < ranks; r++) {
        CHECK(cudaSetDevice(devices[r]));
        CHECK(cudaEventRecord(done[1][devices[r]], streams[r]));
    }
    for (int step = 0; step < steps; step++)
        for (int r = 0; r < ranks; r++) {
            size_t begin, count;
            chunk_of(r, step, ranks, n, &begin, &count);
            CHECK(cudaSetDevice(devices[r]));
            // TODO 2: the left neighbour, rank (r + ranks - 1) % ranks, wrote this chunk in its previous step and
            //         recorded done[(step + 1) % 2] of its device: make streams[r] wait for that, on the device.
            if (count > 0 && step < ranks - 1) {
                // TODO 3: reduce-scatter: copy the left neighbour's chunk into d_scratch[r] (cudaMemcpyPeerAsync
                //         on streams[r]), then add it into rank r's chunk with add_chunk_async, on streams[r] too.
            } else if (count > 0) {
                // TODO 4: all-gather: the chunk is complete on the left neighbour: copy it over rank r's own.
            }
            // TODO 5: publish this step for the right neighbour: record done[step % 2] of rank r's device on
            //         streams[r].
        }
    // Exit: the right neighbour's last step read this rank's buffer; the stream waits for it, so that the work
    // that touches rank r's buffer ends with streams[r] (and a next call may write it at once).
    for (int r = 0; r < ranks; r++) {
        // TODO 6: make streams[r] wait for the last step of the right neighbour, rank (r + 1) % ranks
        //         (done[(steps - 1) % 2] of its device).
    }
    return cudaSuccess;
}
