// warp_ops.cu - warp-level operations: shuffles in every mode (idx, up, down, xor) with widths, lane-varying
// offsets, out-of-range sources and 64-bit values (partial masks: warp_partial.cu); votes and ballots;
// match; redux (sm_80+); and the block-wide barrier reductions (__syncthreads_count/and/or).
//
// Each kernel runs 2 blocks of 128 threads and writes K outputs per thread (warp_common.h).

#include "warp_common.h"

#define SHFL_OUTS(X)                                                                                \
    X(idx_random_src, __shfl_sync(FULL, v, w & 63))                                                \
    X(idx_width8, __shfl_sync(FULL, v, w & 15, 8))                                                 \
    X(idx_width16_lane0, __shfl_sync(FULL, v, 0, 16))                                              \
    X(up_1, __shfl_up_sync(FULL, v, 1))                                                            \
    X(up_5_width8, __shfl_up_sync(FULL, v, 5, 8))                                                  \
    X(up_16, __shfl_up_sync(FULL, v, 16))                                                          \
    X(down_3_width16, __shfl_down_sync(FULL, v, 3, 16))                                            \
    X(down_16, __shfl_down_sync(FULL, v, 16))                                                      \
    X(down_lane_varying, __shfl_down_sync(FULL, v, w & 31))                                        \
    X(xor_1, __shfl_xor_sync(FULL, v, 1))                                                          \
    X(xor_lane_varying_width4, __shfl_xor_sync(FULL, v, w & 31, 4))                               \
    X(xor_31, __shfl_xor_sync(FULL, v, 31))                                                        \
    X(float_down_8, __float_as_int(__shfl_down_sync(FULL, __int_as_float(v), 8)))                 \
    X(i64_xor_2_lo, (int)__shfl_xor_sync(FULL, ((long long)v << 32) | (unsigned)w, 2))             \
    X(i64_xor_2_hi, (int)(__shfl_xor_sync(FULL, ((long long)v << 32) | (unsigned)w, 2) >> 32))     \
    X(double_up_2, (int)(__double_as_longlong(__shfl_up_sync(FULL, (double)v * 0.5, 2)) >> 20))   \
    X(tree_sum, tree_sum(v))

__device__ int tree_sum(int v)
{
    for (int offset = 16; offset > 0; offset >>= 1)
        v += __shfl_down_sync(FULL, v, offset);
    return v;
}

#define COUNT_OUTS(ID, EXPR) +1
#define SHFL_K (0 SHFL_OUTS(COUNT_OUTS))

__global__ void k_shfl(const int *in, const int *in2, int *out)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[t], w = in2[t];
    int k = 0;
#define SHFL_STORE(ID, EXPR) out[(k++) * N + t] = (EXPR);
    SHFL_OUTS(SHFL_STORE)
}

#define VOTE_K 9
__global__ void k_vote(const int *in, const int *in2, int *out)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x, lane = threadIdx.x % 32, warp = t / 32;
    int v = in[t], w = in2[t];
    bool p = (v % 3) == 0;
    bool q = warp == 1 ? true : (w & 1);           // uniform in warp 1
    out[0 * N + t] = (int)__ballot_sync(FULL, p);
    out[1 * N + t] = __all_sync(FULL, p);
    out[2 * N + t] = __any_sync(FULL, p);
    out[3 * N + t] = __all_sync(FULL, q);
    out[4 * N + t] = __any_sync(FULL, warp == 2 ? false : q);
    int r = -1;
    if (lane < 20)
        r = (int)__ballot_sync(0x000fffffu, p);
    out[5 * N + t] = r;
    out[6 * N + t] = __popc(__ballot_sync(FULL, v > w));
    out[7 * N + t] = (int)__match_any_sync(FULL, v & 3);
    int pred = 0;
    unsigned m = __match_all_sync(FULL, warp == 3 ? 42 : (w & 1), &pred);
    out[8 * N + t] = (int)m ^ (pred << 1);
}

#define REDUX_K 8
__global__ void k_redux(const int *in, const int *in2, int *out)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x, lane = threadIdx.x % 32;
    int v = in[t], w = in2[t];
    out[0 * N + t] = (int)__reduce_add_sync(FULL, (unsigned)v);
    out[1 * N + t] = __reduce_min_sync(FULL, v);
    out[2 * N + t] = __reduce_max_sync(FULL, v);
    out[3 * N + t] = (int)__reduce_min_sync(FULL, (unsigned)v);
    out[4 * N + t] = (int)__reduce_and_sync(FULL, (unsigned)w | 0x10101010u);
    out[5 * N + t] = (int)__reduce_or_sync(FULL, (unsigned)w & 0x01010101u);
    out[6 * N + t] = (int)__reduce_xor_sync(FULL, (unsigned)w);
    int r = -1;
    if (lane >= 4 && lane < 28)
        r = (int)__reduce_add_sync(0x0ffffff0u, (unsigned)w);
    out[7 * N + t] = r;
}

#define BAR_K 3
__global__ void k_bar_red(const int *in, const int *in2, int *out)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[t], w = in2[t];
    out[0 * N + t] = __syncthreads_count(v > 0);
    out[1 * N + t] = __syncthreads_and(blockIdx.x == 0 ? (v != 12345) : (w & 1));
    out[2 * N + t] = __syncthreads_or(threadIdx.x == 77 ? true : (v == 12345));
}

void run_warp_cases(void)
{
    std::vector<int> a, b;
    warp_inputs(a, b);
#define SHFL_NAME(ID, EXPR) #ID,
    static const char *const shfl_names[] = {SHFL_OUTS(SHFL_NAME)};
    static const char *const vote_names[] = {"ballot", "all", "any", "all_uniform_warp", "any_false_warp",
                                             "ballot_partial", "popc_ballot", "match_any", "match_all"};
    static const char *const redux_names[] = {"add_u32", "min_s32", "max_s32", "min_u32", "and", "or",
                                              "xor", "add_partial"};
    static const char *const bar_names[] = {"syncthreads_count", "syncthreads_and", "syncthreads_or"};
    run_warp_kernel("shfl", k_shfl, SHFL_K, shfl_names, a, b);
    run_warp_kernel("vote", k_vote, VOTE_K, vote_names, a, b);
    run_warp_kernel("redux", k_redux, REDUX_K, redux_names, a, b);
    run_warp_kernel("bar_red", k_bar_red, BAR_K, bar_names, a, b);
}
