// ex19_oneshot_allreduce.cu - exercise 19: all-reduces of small messages, each in one kernel per device that
// reads the other devices' memory through peer pointers. Read lesson.md first.
//
// oneshot_allreduce and twoshot_allreduce sum the ranks' inputs element by element into every rank's output
// (the contract is checker/contracts/ex19.h). Every rank's kernel runs at the same time as the others'; block
// b of each meets block b of every other rank at each phase, through flags in each other's memory (meet):
//   one-shot: meet (every input is in place), sum every rank's element i in the order of the ranks, meet (no
//             peer reads this rank's input any more);
//   two-shot: meet, sum this rank's chunk of every input into its own output, meet (every chunk's sum is in
//             its owner's output), copy the other chunks from their owners' outputs, meet.
// Fill in the numbered TODOs; `make ex19` grades it.
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
        // TODO 1: tell rank p: store epoch into its flag flag_of(k, p, phase, blockIdx.x, rank), with a release
        //         at system scope (cuda::atomic_ref<unsigned, cuda::thread_scope_system>, memory_order_release).
        // TODO 2: wait for rank p: loop until this rank's flag flag_of(k, rank, phase, blockIdx.x, p) holds epoch,
        //         read with an acquire at system scope.
    }
    __syncthreads();   // and the whole block goes on once every peer has arrived
}

// out[rank][i] = the sum of every rank's in[.][i], in the order of the ranks: the same bits on every rank.
__global__ void oneshot_kernel(Ranks k, int rank, int ranks, size_t n, unsigned epoch)
{
    meet(k, rank, ranks, 0, epoch);   // every rank's kernel has begun: its input is in place
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        // TODO 3: out[rank][i] = the sum of every rank's in[r][i], added in the order r = 0, 1, 2, ... (the
        //         same order on every rank gives the same bits).
    }
    // TODO 4: meet the peers again (phase 1) before returning: until they all arrive, one may still read this
    //         rank's input, which the caller may overwrite as soon as this kernel ends.
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
        // TODO 5: out[rank][mine + j] = the sum of every rank's in[r][mine + j], in the order of the ranks.
    }
    meet(k, rank, ranks, 1, epoch);   // every chunk's sum is in its owner's output; the inputs are free
    // All-gather: the other chunks, copied from their owners' outputs (never added again).
    for (int c = 0; c < ranks; c++) {
        if (c == rank) continue;
        const size_t begin = c * chunk;
        for (size_t j = first; begin + j < n && j < chunk; j += stride) {
            // TODO 6: copy element begin + j of chunk c from the output of its owner, rank c.
        }
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
    // TODO 7: this is a new call: give it its own epoch (the flags still hold the last call's).
    const size_t per_rank = two_shot ? (n + ranks - 1) / ranks : n;
    const size_t want = (per_rank + THREADS - 1) / THREADS;
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
