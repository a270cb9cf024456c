// allreduce_contenders.cuh - what bench_allreduce.cu times: the ring of exercise 17, the one-shot and two-shot
// kernels of exercise 19 (the references as ref_<name>, yours as my_<name>, renamed by objcopy in
// checker/scripts/bench.sh; a function that is not linked in is a null weak symbol, and is left out), and
// NCCL's ncclAllReduce, in place, one call per rank inside a group. Each is one call on a set of ranks.
#include "../contracts/ex19.h"   // ALLREDUCE_FLAG_WORDS

typedef cudaError_t ring_fn(float *const *, float *const *, const int *, int, size_t, cudaStream_t const *);
typedef cudaError_t shot_fn(const float *const *, float *const *, unsigned *const *, const int *, int, size_t,
                            cudaStream_t const *);
extern "C" ring_fn ref_ring_allreduce __attribute__((weak));
extern "C" ring_fn my_ring_allreduce __attribute__((weak));
extern "C" shot_fn ref_oneshot_allreduce __attribute__((weak));
extern "C" shot_fn ref_twoshot_allreduce __attribute__((weak));
extern "C" shot_fn my_oneshot_allreduce __attribute__((weak));
extern "C" shot_fn my_twoshot_allreduce __attribute__((weak));

// The one-shot and two-shot kernels are made for small messages (exercise 19's reference grids are at most 40 blocks,
// and a one-shot reads every peer's whole buffer): past 64 MB a call takes milliseconds and the curve has
// long stopped paying, so they are timed up to there. Exercise 19's contract takes 1 to 8 ranks.
#define SHOT_MAX_BYTES ((size_t)64 << 20)
#define SHOT_MAX_RANKS 8

struct contender {
    const char *name;   // as the table, the CSV and checker/scripts/speed.sh name it
    ring_fn *ring;      // one of ring, shot, or neither (NCCL)
    shot_fn *shot;
    unsigned *d_flags[MAX_RANKS];   // the one-shot's flags, its own on each set of ranks (zero before its first call)
};

static std::vector<contender> contenders(bool with_nccl)
{
    std::vector<contender> list;
    if (with_nccl) list.push_back({"NCCL ncclAllReduce", NULL, NULL, {}});
    if (ref_ring_allreduce) list.push_back({"ring (reference)", ref_ring_allreduce, NULL, {}});
    if (my_ring_allreduce) list.push_back({"ring (yours)", my_ring_allreduce, NULL, {}});
    if (ref_oneshot_allreduce) list.push_back({"one-shot (reference)", NULL, ref_oneshot_allreduce, {}});
    if (ref_twoshot_allreduce) list.push_back({"two-shot (reference)", NULL, ref_twoshot_allreduce, {}});
    if (my_oneshot_allreduce) list.push_back({"one-shot (yours)", NULL, my_oneshot_allreduce, {}});
    if (my_twoshot_allreduce) list.push_back({"two-shot (yours)", NULL, my_twoshot_allreduce, {}});
    return list;
}

// NULL when contender c is timed at this size on this set; else why not, for the table ("" where it is left
// out of the table: the one-shot past SHOT_MAX_BYTES).
static const char *contender_skip(const contender &c, const ranks_set &s, size_t bytes)
{
    if (!c.shot) return NULL;
    if (s.ranks > SHOT_MAX_RANKS) return "not timed: exercise 19 takes 8 ranks at most";
    if (!s.peers) return "not timed: it needs peer access between every pair of GPUs";
    return bytes > SHOT_MAX_BYTES ? "" : NULL;
}

// Where the contender leaves rank r's result: in place, or the one-shot's output.
static float *contender_result(const contender &c, const ranks_set &s, int r) { return c.shot ? s.d_b[r] : s.d_a[r]; }

// The one-shot's flags on this set, zeroed, before its first call there.
static void contender_begin(contender &c, const ranks_set &s)
{
    if (!c.shot) return;
    for (int r = 0; r < s.ranks; r++) {
        CHECK(cudaSetDevice(s.devices[r]));
        CHECK(cudaMalloc(&c.d_flags[r], ALLREDUCE_FLAG_WORDS * sizeof(unsigned)));
        CHECK(cudaMemset(c.d_flags[r], 0, ALLREDUCE_FLAG_WORDS * sizeof(unsigned)));
    }
}
static void contender_end(contender &c, const ranks_set &s)
{
    if (!c.shot) return;
    for (int r = 0; r < s.ranks; r++) {
        CHECK(cudaSetDevice(s.devices[r]));
        CHECK(cudaFree(c.d_flags[r]));
        c.d_flags[r] = NULL;
    }
}

// One all-reduce of n floats on every rank of s; into why (when not NULL) what went wrong, and false.
static bool contender_call(const contender &c, const ranks_set &s, size_t n, char *why, size_t why_size)
{
    cudaError_t err = cudaSuccess;
    if (c.ring) {
        err = c.ring(s.d_a, s.d_b, s.devices, s.ranks, n, s.streams);
    } else if (c.shot) {
        err = c.shot(s.d_a, s.d_b, c.d_flags, s.devices, s.ranks, n, s.streams);
    } else {
        ncclResult_t res = ncclGroupStart();
        for (int r = 0; r < s.ranks && res == ncclSuccess; r++)
            res = ncclAllReduce(s.d_a[r], s.d_a[r], n, ncclFloat, ncclSum, s.comms[r], s.streams[r]);
        ncclResult_t end = ncclGroupEnd();
        if (res == ncclSuccess) res = end;
        if (res != ncclSuccess) {
            if (why) snprintf(why, why_size, "NCCL returned %s", ncclGetErrorString(res));
            return false;
        }
    }
    if (err != cudaSuccess) {
        if (why) snprintf(why, why_size, "it returned %s", cudaGetErrorName(err));
        cudaGetLastError();
        return false;
    }
    return true;
}
