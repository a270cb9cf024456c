// warp_partial.cu - shuffles with partial masks in divergent code: only the lanes named in the mask take
// part, all of them inside the branch. Its own file (its own PTX module), so that a construct the emulator
// cannot load here does not take the other warp cases with it.

#include "warp_common.h"

#define PARTIAL_K 5
__global__ void k_shfl_partial(const int *in, const int *in2, int *out)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x, lane = threadIdx.x % 32;
    int v = in[t], w = in2[t];
    int r0 = -1, r1 = -1, r2 = -1, r3 = -1, r4 = -1;
    if (lane % 2 == 0) {            // even lanes
        r0 = __shfl_xor_sync(0x55555555u, v, 2);
        r1 = __shfl_down_sync(0x55555555u, v, 4);
        r2 = __shfl_sync(0x55555555u, v, (w & 15) * 2);
    } else if (lane < 16) {         // odd lanes below 16
        r3 = __shfl_up_sync(0x0000aaaau, v, 2);
    }
    if (lane >= 8)                  // the top 24 lanes, a contiguous range that does not start at 0
        r4 = __shfl_sync(0xffffff00u, v, 8 + (w & 7));
    out[0 * N + t] = r0;
    out[1 * N + t] = r1;
    out[2 * N + t] = r2;
    out[3 * N + t] = r3;
    out[4 * N + t] = r4;
}

void run_warp_partial_cases(void)
{
    std::vector<int> a, b;
    warp_inputs(a, b);
    static const char *const partial_names[] = {"even_xor_2", "even_down_4", "even_idx", "odd_low_up_2",
                                                "top24_idx"};
    run_warp_kernel("shfl_partial", k_shfl_partial, PARTIAL_K, partial_names, a, b);
}
