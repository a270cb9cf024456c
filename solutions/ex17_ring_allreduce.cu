// ex17_ring_allreduce.cu - exercise 17's reference solution: an all-reduce over a ring of devices, by hand:
// a reduce-scatter, then an all-gather, each step one chunk copied from a rank to the next and added there.
//
// What it does: the n floats are cut into `ranks` chunks of ceil(n / ranks) (the last ones shorter, or empty
//   when n < ranks). In step s of the reduce-scatter (s = 0 .. ranks-2) rank r copies chunk (r - 1 - s) of its
//   left neighbour into its scratch buffer (cudaMemcpyPeerAsync) and adds it into its own chunk; after ranks-1
//   steps rank r holds the full sum of chunk r + 1. In step t of the all-gather rank r copies chunk (r - t),
//   which its left neighbour now holds complete, over its own. Each step is ordered after the left
//   neighbour's previous one by an event: rank r's stream waits for it, the host never does.
// Why: every rank sends and receives one chunk per step, at the same time, so every link of the ring is busy
//   and each rank moves 2 (ranks - 1) / ranks of the buffer whatever the ring's size. Each chunk's sum is
//   made once, by one rank, in one order, and then copied: every rank ends with the same bits.
// Speed: bounded by the links: 2 (ranks - 1) / ranks x n x 4 bytes per rank; the adds read and write the
//   chunk once more in device memory, which is ten times faster than a link.
// The flaw that remains: 2 (ranks - 1) steps, each a copy and a kernel with their launch costs, in order: a
//   small message pays ~2 (ranks - 1) latencies of a few microseconds (a one-shot kernel, every GPU
//   reading every other's buffer at once, pays one); and the copy and the add of a step do not overlap (NCCL pipelines slices of each chunk).
// Preconditions: distinct devices; d_scratch[r] holds ceil(n / ranks) floats; no peer access needed.
// Result: every d_bufs[r] holds the sum once every streams[r] has finished.

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
    const size_t chunk = (n + ranks - 1) / ranks;
    const int t = step < ranks - 1 ? step + 1 : step - (ranks - 1);   // how far round the ring it has come
    const int c = ((r - t) % ranks + ranks) % ranks;
    *begin = (size_t)c * chunk;
    *count = *begin < n ? (n - *begin < chunk ? n - *begin : chunk) : 0;
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
            // The left neighbour's previous step wrote this chunk: wait for it on the device, not the host.
            const int left = (r + ranks - 1) % ranks;
            CHECK(cudaStreamWaitEvent(streams[r], done[(step + 1) % 2][devices[left]], 0));
            if (count > 0 && step < ranks - 1) {
                // Reduce-scatter: the left neighbour's partial sum of this chunk, added into rank r's own.
                CHECK(cudaMemcpyPeerAsync(d_scratch[r], devices[r], d_bufs[left] + begin, devices[left],
                                          count * sizeof(float), streams[r]));
                CHECK(add_chunk_async(d_bufs[r] + begin, d_scratch[r], count, streams[r]));
            } else if (count > 0) {
                // All-gather: the chunk is complete on the left neighbour; copied, never added again.
                CHECK(cudaMemcpyPeerAsync(d_bufs[r] + begin, devices[r], d_bufs[left] + begin, devices[left],
                                          count * sizeof(float), streams[r]));
            }
            // Published: the right neighbour's next step waits for this event.
            CHECK(cudaEventRecord(done[step % 2][devices[r]], streams[r]));
        }
    // Exit: the right neighbour's last step read this rank's buffer; the stream waits for it, so that the work
    // that touches rank r's buffer ends with streams[r] (and a next call may write it at once).
    for (int r = 0; r < ranks; r++) {
        CHECK(cudaSetDevice(devices[r]));
        CHECK(cudaStreamWaitEvent(streams[r], done[(steps - 1) % 2][devices[(r + 1) % ranks]], 0));
    }
    return cudaSuccess;
}
