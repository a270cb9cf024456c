/* warp_common.h - what the warp-level kernels share: 2 blocks of 128 threads, each writing K outputs per
 * thread, out[k * N + t]; each k is recorded as its own case. Every lane a shuffle reads is active and named
 * in the mask, so no result is undefined. */
#ifndef WARP_COMMON_H
#define WARP_COMMON_H

#include <vector>
#include "../cases.h"

#define BLOCKS 2
#define THREADS 128
#define N (BLOCKS * THREADS)
#define FULL 0xffffffffu

static inline void warp_inputs(std::vector<int> &a, std::vector<int> &b)
{
    a.resize(N);
    b.resize(N);
    uint64_t s = 31;
    for (int i = 0; i < N; i++) {
        uint32_t r = rng_u32(&s);
        a[i] = (i % 5 == 0) ? (int)r : (int)(r % 2001) - 1000;
        b[i] = (int)rng_u32(&s);
    }
}

static inline void run_warp_kernel(const char *group, void (*kernel)(const int *, const int *, int *), int k,
                            const char *const *names, const std::vector<int> &a, const std::vector<int> &b)
{
    int *d_a = (int *)dev_copy(a.data(), N * sizeof(int));
    int *d_b = (int *)dev_copy(b.data(), N * sizeof(int));
    int *d_o = (int *)dev_poisoned(k * N * sizeof(int));
    char name[128];
    snprintf(name, sizeof name, "warp:%s", group);
    if (!d_a || !d_b || !d_o) {
        record_error(name, "cudaMalloc failed");
        return;
    }
    kernel<<<BLOCKS, THREADS>>>(d_a, d_b, d_o);
    CK_LAUNCH(name);
    std::vector<int> h(k * N);
    CK(name, cudaMemcpy(h.data(), d_o, k * N * sizeof(int), cudaMemcpyDeviceToHost));
    cudaFree(d_a);
    cudaFree(d_b);
    cudaFree(d_o);
    for (int i = 0; i < k; i++) {
        snprintf(name, sizeof name, "warp:%s.%s", group, names[i]);
        record(name, "u32", 0, h.data() + i * N, N);
    }
}

#endif
