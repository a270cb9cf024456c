// ex19_oneshot_allreduce.cu - exercise 19's reference solution: all-reduces of small messages, each in one
// kernel per device that reads the other devices' memory through peer pointers, with flags in that memory.
//
// What it does: block b of every rank's kernel meets block b of every other rank's at each phase (meet): it
//   writes "this call, this phase" (the call's epoch) into a flag in each peer's memory with a release at
//   system scope, then waits until each peer has written the same into a flag in its own memory, read with an
//   acquire. One-shot: meet (every input is in place), every rank sums every rank's element i itself, in the
//   order of the ranks, meet again (nobody reads this rank's input any more). Two-shot: meet, rank r sums
//   only its chunk of every input into its own output (reduce-scatter), meet (every chunk's sum is in its
//   owner's output), copies the other chunks from their owners' outputs (all-gather), meet (nobody reads this
//   rank's output any more).
// Why: one kernel launch and two or three meets per call, where the ring of exercise 17 takes 2 (ranks - 1)
//   steps, each a copy and a kernel. A small message costs latency, not bandwidth: on 2 H200s NCCL took 21 us
//   at 1 MB and 32 us at 4 MB, this one-shot 11 and 22 (checker/bench/results/, make bench).
// Speed: one-shot reads (ranks - 1) x n x 4 bytes over the links per rank: every rank reads every input,
//   which stops paying as n grows (the ring moves 2 (ranks - 1) / ranks x n x 4). Two-shot reads and writes
//   2 (ranks - 1) / ranks x n x 4, as the ring, in one kernel: the middle ground.
//   A small message is latency-bound: a peer's load takes microseconds over NVLink, so the speed is the bytes
//   in flight at once. Grids of up to MAX_BLOCKS blocks of 1024 threads, and the one-shot loads 16 bytes (4
//   floats) per rank and thread where every pointer is 16-byte aligned: with 256 threads, 16 blocks and one
//   float each, it took 77.5 us at 1 MB on 2 H200s, four times NCCL's time (make bench, 2026-11-28).
// The flaw that remains: the blocks spin while they wait; a rank that starts late holds every other one.
//   Grids are capped at MAX_BLOCKS (small messages); the flags cost 3 x MAX_BLOCKS x MAX_RANKS words.
// Preconditions: peer access between every pair; every rank the same n and the same grid (the meets pair
//   block b with block b); all blocks of a grid resident at once (MAX_BLOCKS is far below any GPU's).
// Result: every d_out[r] holds the sum once every streams[r] has finished; every rank the same bits.
#include <cuda/atomic>

#define THREADS 1024
#define MAX_BLOCKS 40   // 3 phases x 40 blocks x 8 ranks = 960 flags, of ALLREDUCE_FLAG_WORDS
#define MAX_RANKS 8

#define CHECK(call)                                 \
    do {                                            \
        cudaError_t err_ = (call);                  \
        if (err_ != cudaSuccess) return err_;       \
    } while (0)

// What every rank's kernel reaches: every rank's input, output and flags, as pointers of their own devices.
struct Ranks {
    const float *in[MAX_RANKS];
    float *out[MAX_RANKS];
    unsigned *flags[MAX_RANKS];
};

// The flag in rank `owner`'s memory that rank `from` writes when its block `block` reaches `phase`.
__device__ unsigned *flag_of(const Ranks &k, int owner, int phase, int block, int from)
{
    return k.flags[owner] + (phase * MAX_BLOCKS + block) * MAX_RANKS + from;
}

// Block blockIdx.x of this rank meets the same block of every other rank at this phase of call `epoch`:
// thread p tells rank p (with a release at system scope: what the block did before is visible to rank p
// before the flag is), then waits for rank p's flag (an acquire: what rank p did before is visible here after).
__device__ void meet(const Ranks &k, int rank, int ranks, int phase, unsigned epoch)
{
    __syncthreads();   // the whole block has finished the phase before anyone is told
    int p = threadIdx.x;
    if (p < ranks && p != rank) {
        cuda::atomic_ref<unsigned, cuda::thread_scope_system> to_peer(*flag_of(k, p, phase, blockIdx.x, rank));
        to_peer.store(epoch, cuda::memory_order_release);
        cuda::atomic_ref<unsigned, cuda::thread_scope_system> from_peer(*flag_of(k, rank, phase, blockIdx.x, p));
        while (from_peer.load(cuda::memory_order_acquire) != epoch) {}
    }
    __syncthreads();   // and the whole block goes on once every peer has arrived
}

// Whether every rank's input and this rank's output start on a 16-byte boundary (cudaMalloc's do; a pointer
// into the middle of a buffer may not), so that 4 floats move in one load or store.
__device__ bool packs_fit(const Ranks &k, int rank, int ranks)
{
    bool fit = ((size_t)k.out[rank] & 15) == 0;
    for (int r = 0; r < ranks; r++) fit = fit && ((size_t)k.in[r] & 15) == 0;
    return fit;
}

// out[rank][i] = the sum of every rank's in[.][i], in the order of the ranks: the same bits on every rank, by
// 4-float packs where they fit, each element alone after them.
__global__ void oneshot_kernel(Ranks k, int rank, int ranks, size_t n, unsigned epoch)
{
    const size_t first = blockIdx.x * (size_t)blockDim.x + threadIdx.x, stride = (size_t)gridDim.x * blockDim.x;
    meet(k, rank, ranks, 0, epoch);   // every rank's kernel has begun: its input is in place
    const size_t packs = packs_fit(k, rank, ranks) ? n / 4 : 0;
    for (size_t p = first; p < packs; p += stride) {
        float4 s = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        for (int r = 0; r < ranks; r++) {
            const float4 v = reinterpret_cast<const float4 *>(k.in[r])[p];
            s.x += v.x, s.y += v.y, s.z += v.z, s.w += v.w;
        }
        reinterpret_cast<float4 *>(k.out[rank])[p] = s;
    }
    for (size_t i = 4 * packs + first; i < n; i += stride) {
        float s = 0.0f;
        for (int r = 0; r < ranks; r++) s += k.in[r][i];
        k.out[rank][i] = s;
    }
    meet(k, rank, ranks, 1, epoch);   // every rank has read this block's part of this rank's input
}

// Two shots: a reduce-scatter of the chunks into their owners' outputs, then an all-gather from them. Block b
// of every rank takes the same elements of each chunk, so block b of the owner wrote what block b copies.
__global__ void twoshot_kernel(Ranks k, int rank, int ranks, size_t n, unsigned epoch)
{
    const size_t chunk = (n + ranks - 1) / ranks;
    const size_t first = blockIdx.x * (size_t)blockDim.x + threadIdx.x, stride = (size_t)gridDim.x * blockDim.x;
    meet(k, rank, ranks, 0, epoch);
    // Reduce-scatter: this rank's chunk of every input, summed in the order of the ranks.
    const size_t mine = rank * chunk;
    for (size_t j = first; mine + j < n && j < chunk; j += stride) {
        float s = 0.0f;
        for (int r = 0; r < ranks; r++) s += k.in[r][mine + j];
        k.out[rank][mine + j] = s;
    }
    meet(k, rank, ranks, 1, epoch);   // every chunk's sum is in its owner's output; the inputs are free
    // All-gather: the other chunks, copied from their owners' outputs (never added again).
    for (int c = 0; c < ranks; c++) {
        if (c == rank) continue;
        const size_t begin = c * chunk;
        for (size_t j = first; begin + j < n && j < chunk; j += stride) k.out[rank][begin + j] = k.out[c][begin + j];
    }
    meet(k, rank, ranks, 2, epoch);   // every rank has copied this block's part of this rank's chunk
}

// The calls so far: each call's flags carry its own number, so that the flags of the last call never pass
// for this one's (the flags are never reset).
static unsigned epoch;

// Launches kernel on every rank's stream, with the same grid everywhere.
static cudaError_t launch_all(bool two_shot, const float *const *d_in, float *const *d_out, unsigned *const *d_flags,
                              const int *devices, int ranks, size_t n, cudaStream_t const *streams)
{
    if (n == 0) return cudaSuccess;
    Ranks k = {};
    for (int r = 0; r < ranks; r++) {
        k.in[r] = d_in[r];
        k.out[r] = d_out[r];
        k.flags[r] = d_flags[r];
    }
    epoch++;
    const size_t per_thread = two_shot ? 1 : 4;   // floats per thread and step: the one-shot's packs
    const size_t per_rank = two_shot ? (n + ranks - 1) / ranks : n;
    const size_t want = (per_rank + per_thread * THREADS - 1) / (per_thread * THREADS);
    const unsigned blocks = (unsigned)(want < MAX_BLOCKS ? want : MAX_BLOCKS);
    for (int r = 0; r < ranks; r++) {
        CHECK(cudaSetDevice(devices[r]));
        if (two_shot) twoshot_kernel<<<blocks, THREADS, 0, streams[r]>>>(k, r, ranks, n, epoch);
        else oneshot_kernel<<<blocks, THREADS, 0, streams[r]>>>(k, r, ranks, n, epoch);
        CHECK(cudaGetLastError());
    }
    return cudaSuccess;
}

extern "C" cudaError_t oneshot_allreduce(const float *const *d_in, float *const *d_out, unsigned *const *d_flags,
                                         const int *devices, int ranks, size_t n, cudaStream_t const *streams)
{
    return launch_all(false, d_in, d_out, d_flags, devices, ranks, n, streams);
}

extern "C" cudaError_t twoshot_allreduce(const float *const *d_in, float *const *d_out, unsigned *const *d_flags,
                                         const int *devices, int ranks, size_t n, cudaStream_t const *streams)
{
    return launch_all(true, d_in, d_out, d_flags, devices, ranks, n, streams);
}
