// metrics_runner.cu - runs the reference kernels v1, v2 (strided index), v2, v3, v4, v5 and v6 once each, on
// the same input: n = 2^22 ints, blocks of 256, the first pass only (one launch per version).
//
// Built for the GPU, it is what ncu_compare.sh profiles with Nsight Compute. Built for the emulator
// (-DEMU_METRICS, linked against libcudaemu.a), it also prints each launch's emu_metrics, one line per
// version:  EMU_METRICS version=v1 grid=16384 warp_instructions=... (the fields of struct emu_metrics).
// Both builds check each version's partial sums against the host's sum and print one line per version.
// `metrics_runner --device` prints "sms=N threads_per_sm=N name=..." (so that the emulator can be told the
// GPU's multiprocessor count: v6 sizes its grid from it; see pin_device.h).

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vector>
#include <cuda_runtime.h>

#ifdef EMU_METRICS
extern "C" {
#include "../emu/emu.h"
}
#endif

extern "C" {
int reduce_v1(const int *, int *, int, int) __attribute__((weak));
int reduce_v2_strided(const int *, int *, int, int) __attribute__((weak));
int reduce_v2(const int *, int *, int, int) __attribute__((weak));
int reduce_v3(const int *, int *, int, int) __attribute__((weak));
int reduce_v4(const int *, int *, int, int) __attribute__((weak));
int reduce_v5(const int *, int *, int, int) __attribute__((weak));
int reduce_v6(const int *, int *, int, int) __attribute__((weak));
}

#define CHECK(expr)                                                                                     \
    do {                                                                                                \
        cudaError_t err_ = (expr);                                                                      \
        if (err_ != cudaSuccess) {                                                                      \
            fprintf(stderr, "metrics_runner: %s failed at %s:%d: %s\n", #expr, __FILE__, __LINE__,      \
                    cudaGetErrorString(err_));                                                          \
            exit(1);                                                                                    \
        }                                                                                               \
    } while (0)

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--device") == 0) {
        int sms = 0, threads = 0;
        cudaDeviceProp prop;
        CHECK(cudaGetDeviceProperties(&prop, 0));
        CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
        CHECK(cudaDeviceGetAttribute(&threads, cudaDevAttrMaxThreadsPerMultiProcessor, 0));
        printf("sms=%d threads_per_sm=%d name=%s\n", sms, threads, prop.name);
        return 0;
    }
    const int n = 1 << 22, block = 256;
    const char *only = getenv("ONLY");   // ONLY=v1,v6 runs only those versions
    struct { const char *name; int (*f)(const int *, int *, int, int); } versions[] = {
        {"v1", reduce_v1}, {"v2_strided", reduce_v2_strided}, {"v2", reduce_v2}, {"v3", reduce_v3},
        {"v4", reduce_v4}, {"v5", reduce_v5}, {"v6", reduce_v6},
    };

    std::vector<int> h_in(n);
    unsigned s = 12345;
    long long expected = 0;
    for (int i = 0; i < n; i++) {
        s = s * 1103515245u + 12345u;
        h_in[i] = (int)((s >> 16) % 201) - 100;
        expected += h_in[i];
    }
    int *d_in, *d_out;
    CHECK(cudaMalloc(&d_in, n * sizeof(int)));
    CHECK(cudaMalloc(&d_out, (n / block + 1) * sizeof(int)));
    CHECK(cudaMemcpy(d_in, h_in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    std::vector<int> h_out(n / block + 1);
    int failures = 0;

    for (auto &v : versions) {
        if (only && *only && !strstr(only, v.name))
            continue;
        if (!v.f) {
            printf("MISSING version=%s (its solution is not linked in)\n", v.name);
            continue;
        }
        CHECK(cudaMemset(d_out, 0, (n / block + 1) * sizeof(int)));
        CHECK(cudaDeviceSynchronize());
#ifdef EMU_METRICS
        emu_metrics m;
        emu_metrics_take(&m);   // forget whatever came before this launch
#endif
        int grid = v.f(d_in, d_out, n, block);
        CHECK(cudaGetLastError());
        CHECK(cudaDeviceSynchronize());
#ifdef EMU_METRICS
        emu_metrics_take(&m);
        printf("EMU_METRICS version=%s grid=%d warp_instructions=%llu thread_instructions=%llu "
               "divergent_branches=%llu shared_load_instructions=%llu shared_store_instructions=%llu "
               "shared_load_bank_conflicts=%llu shared_store_bank_conflicts=%llu global_load_requests=%llu "
               "global_load_sectors=%llu global_store_requests=%llu global_store_sectors=%llu "
               "global_atomics=%llu shared_atomics=%llu barriers=%llu blocks=%llu threads_per_block=%llu\n",
               v.name, grid, (unsigned long long)m.warp_instructions,
               (unsigned long long)m.thread_instructions, (unsigned long long)m.divergent_branches,
               (unsigned long long)m.shared_load_instructions, (unsigned long long)m.shared_store_instructions,
               (unsigned long long)m.shared_load_bank_conflicts,
               (unsigned long long)m.shared_store_bank_conflicts, (unsigned long long)m.global_load_requests,
               (unsigned long long)m.global_load_sectors, (unsigned long long)m.global_store_requests,
               (unsigned long long)m.global_store_sectors, (unsigned long long)m.global_atomics,
               (unsigned long long)m.shared_atomics, (unsigned long long)m.barriers,
               (unsigned long long)m.blocks, (unsigned long long)m.threads_per_block);
#endif
        CHECK(cudaMemcpy(h_out.data(), d_out, grid * sizeof(int), cudaMemcpyDeviceToHost));
        long long sum = 0;
        for (int g = 0; g < grid; g++)
            sum += h_out[g];
        printf("RESULT version=%s grid=%d sum=%lld %s\n", v.name, grid, sum, sum == expected ? "ok" : "WRONG");
        failures += sum != expected;
    }
    fflush(stdout);
    cudaFree(d_in);
    cudaFree(d_out);
    return failures ? 1 : 0;
}
