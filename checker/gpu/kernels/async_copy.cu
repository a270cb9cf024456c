// async_copy.cu - what exercise 16's block path moves its rows with: cp.async (__pipeline_memcpy_async) of 4, 8
// and 16 bytes into shared memory, with a zero fill past a source size, committed and waited for in groups, two
// stages filled while the other is read; and the 16-byte global accesses written in PTX (ld.global.nc.v4,
// st.global.v4.b32).
//
//   cp_async_sizes   one thread copies 4, 8 and 16 bytes, and 16 of which 4, 8 or 12 come from memory
//   cp_async_stages  rows of 256 x 4 ints, two stages: row r + 1 copied while row r is summed, per thread
//   v4_accesses      16-byte loads through the non-coherent path and 16-byte stores, from PTX
#include <cuda_pipeline_primitives.h>
#include <vector>
#include "../cases.h"

__global__ void k_cp_async_sizes(const int *in, int *out)
{
    __shared__ __align__(16) int s[32];
    if (threadIdx.x != 0)
        return;
    for (int i = 0; i < 32; i++)
        s[i] = -1;
    __pipeline_memcpy_async(&s[0], &in[0], 4);
    __pipeline_memcpy_async(&s[2], &in[2], 8);
    __pipeline_memcpy_async(&s[4], &in[4], 16);
    __pipeline_memcpy_async(&s[8], &in[8], 16, 4);
    __pipeline_memcpy_async(&s[12], &in[12], 16, 8);
    __pipeline_memcpy_async(&s[16], &in[16], 16, 12);
    __pipeline_commit();
    __pipeline_wait_prior(0);
    for (int i = 0; i < 32; i++)
        out[i] = s[i];
}

__global__ void k_cp_async_stages(const int *in, int *out, int rows)
{
    __shared__ __align__(16) int s[2][4 * 256];
    int t = threadIdx.x;
    __pipeline_memcpy_async(&s[0][4 * t], &in[4 * t], 16);
    __pipeline_commit();
    for (int r = 0; r < rows; r++) {
        if (r + 1 < rows)
            __pipeline_memcpy_async(&s[(r + 1) & 1][4 * t], &in[(size_t)(r + 1) * 1024 + 4 * t], 16);
        __pipeline_commit();
        __pipeline_wait_prior(1);
        const int *mine = &s[r & 1][4 * t];
        out[r * 256 + t] = mine[0] * 3 + mine[1] - mine[2] * mine[3];
    }
}

__global__ void k_v4_accesses(const unsigned *in, unsigned *out, int n4)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n4)
        return;
    unsigned a, b, c, d;
    asm volatile("ld.global.nc.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(a), "=r"(b), "=r"(c), "=r"(d) : "l"(in + 4 * i));
    asm volatile("st.global.v4.b32 [%0], {%1, %2, %3, %4};" ::"l"(out + 4 * i), "r"(d ^ c), "r"(c + b), "r"(b * a),
                 "r"(a - d)
                 : "memory");
}

void run_async_cases(void)
{
    std::vector<int> in(5 * 1024);
    uint64_t s = 16;
    for (int &v : in) v = rng_int(&s, -1000, 1000);
    int *d_in = (int *)dev_copy(in.data(), in.size() * sizeof(int));

    {
        const char *name = "cp_async_sizes";
        int *d_out = (int *)dev_poisoned(32 * sizeof(int));
        k_cp_async_sizes<<<1, 32>>>(d_in, d_out);
        CK_LAUNCH(name);
        std::vector<int> h(32);
        if (dev_take(h.data(), d_out, h.size() * sizeof(int))) record(name, "u32", 0, h.data(), h.size());
    }
    {
        const char *name = "cp_async_stages(rows=5)";
        int *d_out = (int *)dev_poisoned(5 * 256 * sizeof(int));
        k_cp_async_stages<<<1, 256>>>(d_in, d_out, 5);
        CK_LAUNCH(name);
        std::vector<int> h(5 * 256);
        if (dev_take(h.data(), d_out, h.size() * sizeof(int))) record(name, "u32", 0, h.data(), h.size());
    }
    {
        const char *name = "v4_accesses(n4=1000)";
        unsigned *d_out = (unsigned *)dev_poisoned(4000 * sizeof(unsigned));
        k_v4_accesses<<<8, 128>>>((const unsigned *)d_in, d_out, 1000);
        CK_LAUNCH(name);
        std::vector<unsigned> h(4000);
        if (dev_take(h.data(), d_out, h.size() * sizeof(unsigned))) record(name, "u32", 0, h.data(), h.size());
    }
    cudaFree(d_in);
}
