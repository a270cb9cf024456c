// bench.cu - `make bench`: times every reduction of the course beside CUB and a device-to-device copy.
//
// Method (the device tool's METHOD.md): CUDA events around each run, warm-up first, the median of repeats,
// the L2 cache flushed before every cold repeat (a warm figure beside it), results checked against a
// 64-bit host sum, and n * sizeof(int) counted as the bytes a reduction must move.
// The reference solutions are linked as ref_<name>, the learner's as my_<name> (symbols renamed by
// objcopy in checker/scripts/bench.sh); a learner function that is missing is a null weak symbol.

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <cub/device/device_reduce.cuh>
#include <cuda_runtime.h>

#define CHECK(expr)                                                                                     \
    do {                                                                                                \
        cudaError_t err_ = (expr);                                                                      \
        if (err_ != cudaSuccess) {                                                                      \
            fprintf(stderr, "bench: %s failed at %s:%d: %s\n", #expr, __FILE__, __LINE__,               \
                    cudaGetErrorString(err_));                                                          \
            exit(1);                                                                                    \
        }                                                                                               \
    } while (0)

typedef void (*total_fn)(const int *, int *, int);             // leaves the sum in d_out[0]
typedef int (*partials_fn)(const int *, int *, int, int);      // one sum per block, returns the grid

#define DECLARE(prefix)                                                                                 \
    extern "C" void prefix##reduce_atomic(const int *, int *, int) __attribute__((weak));              \
    extern "C" int prefix##reduce_v1(const int *, int *, int, int) __attribute__((weak));              \
    extern "C" int prefix##reduce_v2(const int *, int *, int, int) __attribute__((weak));              \
    extern "C" int prefix##reduce_v2_strided(const int *, int *, int, int) __attribute__((weak));      \
    extern "C" int prefix##reduce_v3(const int *, int *, int, int) __attribute__((weak));              \
    extern "C" int prefix##reduce_v4(const int *, int *, int, int) __attribute__((weak));              \
    extern "C" int prefix##reduce_v5(const int *, int *, int, int) __attribute__((weak));              \
    extern "C" int prefix##reduce_v6(const int *, int *, int, int) __attribute__((weak));              \
    extern "C" void prefix##reduce_multi_level(const int *, int *, int) __attribute__((weak));         \
    extern "C" void prefix##reduce_fastest(const int *, int *, int) __attribute__((weak));
DECLARE(ref_)
DECLARE(my_)

struct version {
    const char *name;
    total_fn total;       // one of total / partials is set
    partials_fn partials;
};

static int *d_scratch[2];  // partial sums between passes
static void *d_cub_temp;
static size_t cub_temp_bytes;

// Runs one version to a single value in d_result: partials versions run again on their own partials
// until one value is left, as the seed notes' multi-pass reductions do.
static void run_version(const version &v, const int *d_in, int *d_result, int n)
{
    if (v.total) {
        v.total(d_in, d_result, n);
        return;
    }
    const int block = 256;
    const int *src = d_in;
    int which = 0;
    do {
        int *dst = d_scratch[which];
        n = v.partials(src, dst, n, block);
        src = dst;
        which ^= 1;
    } while (n > 1);
    CHECK(cudaMemcpyAsync(d_result, src, sizeof(int), cudaMemcpyDeviceToDevice));
}

static void run_cub(const int *d_in, int *d_result, int n)
{
    CHECK(cub::DeviceReduce::Sum(d_cub_temp, cub_temp_bytes, d_in, d_result, n));
}

struct timing {
    double cold_us, warm_us;
    bool ok;
};

static double median(std::vector<float> v)
{
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

template <typename F>
static timing time_it(F run, int *d_result, int expected, void *d_flush, size_t flush_bytes)
{
    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    timing t = {0, 0, true};
    run();  // warm-up: module load, first-touch
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    int got = 0;
    CHECK(cudaMemcpy(&got, d_result, sizeof got, cudaMemcpyDeviceToHost));
    t.ok = got == expected;
    for (int cold = 1; cold >= 0; cold--) {
        std::vector<float> ms;
        float spent = 0;
        for (int rep = 0; rep < 30 && (rep < 5 || spent < 1000.f); rep++) {
            if (cold) CHECK(cudaMemsetAsync(d_flush, rep & 0xff, flush_bytes));
            CHECK(cudaEventRecord(start));
            run();
            CHECK(cudaEventRecord(stop));
            CHECK(cudaEventSynchronize(stop));
            float one;
            CHECK(cudaEventElapsedTime(&one, start, stop));
            ms.push_back(one);
            spent += one;
        }
        (cold ? t.cold_us : t.warm_us) = median(ms) * 1000.0;
    }
    CHECK(cudaMemcpy(&got, d_result, sizeof got, cudaMemcpyDeviceToHost));
    t.ok = t.ok && got == expected;
    CHECK(cudaEventDestroy(start));
    CHECK(cudaEventDestroy(stop));
    return t;
}

__global__ void empty_kernel() {}

int main(int argc, char **argv)
{
    int max_log2 = argc > 1 ? atoi(argv[1]) : 28;
    const char *csv_path = argc > 2 ? argv[2] : NULL;
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    size_t free_bytes, total_bytes;
    CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    while (max_log2 > 20 && ((size_t)4 << max_log2) * 2 > free_bytes) max_log2--;

    std::vector<version> versions;
#define ADD(label, prefix, fn, kind)                                                                    \
    if (prefix##fn) versions.push_back(version{label, kind == 0 ? (total_fn)prefix##fn : NULL,         \
                                               kind == 1 ? (partials_fn)prefix##fn : NULL});
#define ADD_BOTH(label, fn, kind) ADD(label, ref_, fn, kind) ADD(label " (yours)", my_, fn, kind)
    ADD_BOTH("ex01 atomic", reduce_atomic, 0)
    ADD_BOTH("v1 interleaved", reduce_v1, 1)
    ADD("v2' strided index", ref_, reduce_v2_strided, 1)
    ADD_BOTH("v2 sequential", reduce_v2, 1)
    ADD_BOTH("v3 first add", reduce_v3, 1)
    ADD_BOTH("v4 last warp", reduce_v4, 1)
    ADD_BOTH("v5 unrolled", reduce_v5, 1)
    ADD_BOTH("v6 shuffle", reduce_v6, 1)
    ADD_BOTH("ex08 multi-level", reduce_multi_level, 0)
    ADD_BOTH("ex11 fastest", reduce_fastest, 0)

    size_t max_n = (size_t)1 << max_log2;
    std::vector<int> h_in(max_n);
    unsigned state = 12345;
    for (size_t i = 0; i < max_n; i++) {
        state = state * 1664525u + 1013904223u;
        h_in[i] = (int)(state >> 29) - 4;  // values in [-4, 3]: no sum of 2^28 of them can overflow
    }
    int *d_in, *d_result, *d_copy;
    void *d_flush;
    size_t flush_bytes = (size_t)prop.l2CacheSize * 2;
    CHECK(cudaMalloc(&d_in, max_n * sizeof(int)));
    CHECK(cudaMalloc(&d_copy, max_n * sizeof(int)));
    CHECK(cudaMalloc(&d_result, sizeof(int)));
    CHECK(cudaMalloc(&d_flush, flush_bytes));
    CHECK(cudaMalloc(&d_scratch[0], (max_n / 32 + 1024) * sizeof(int)));
    CHECK(cudaMalloc(&d_scratch[1], (max_n / 32 + 1024) * sizeof(int)));
    CHECK(cudaMemcpy(d_in, h_in.data(), max_n * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cub::DeviceReduce::Sum(NULL, cub_temp_bytes, d_in, d_result, (int)max_n));
    CHECK(cudaMalloc(&d_cub_temp, cub_temp_bytes));

    // Launch overhead: an empty kernel, from launch to finish.
    timing empty = time_it([] { empty_kernel<<<1, 32>>>(); }, d_result, 0, d_flush, 0);
    printf("GPU: %s, %d SMs, %d MB of L2. Times are medians of repeated runs; 'cold' flushes the L2 first.\n",
           prop.name, prop.multiProcessorCount, prop.l2CacheSize >> 20);
    printf("An empty kernel takes %.1f us from launch to finish here: at small n that overhead is a large\n"
           "part of every time below, and versions that launch twice pay it twice.\n",
           empty.warm_us);
    FILE *csv = csv_path ? fopen(csv_path, "w") : NULL;
    if (csv) fprintf(csv, "n,version,cold_us,warm_us,gbps,ok\n");

    for (int lg = 20; lg <= max_log2; lg += 2) {
        int n = 1 << lg;
        long long sum = 0;
        for (int i = 0; i < n; i++) sum += h_in[i];
        int expected = (int)sum;
        double bytes = (double)n * sizeof(int);

        timing copy = time_it([&] { CHECK(cudaMemcpyAsync(d_copy, d_in, bytes, cudaMemcpyDeviceToDevice)); },
                              d_result, 0, d_flush, flush_bytes);
        copy.ok = true;                                     // a copy has no sum to check
        double peak_gbps = 2 * bytes / copy.cold_us / 1e3;  // a copy reads and writes every byte
        timing cub = time_it([&] { run_cub(d_in, d_result, n); }, d_result, expected, d_flush, flush_bytes);

        printf("\nn = 2^%d (%d ints, %.0f MB). Copy bandwidth (read + write): %.0f GB/s.\n", lg, n, bytes / 1e6,
               peak_gbps);
        printf("  %-20s %11s %9s %7s %9s %8s %11s\n", "version", "cold (us)", "GB/s", "% copy", "x v1",
               "x CUB", "warm (us)");
        double v1_us = 0;
        std::vector<std::pair<const version *, timing>> rows;
        for (const version &v : versions) {
            timing t = time_it([&] { run_version(v, d_in, d_result, n); }, d_result, expected, d_flush,
                               flush_bytes);
            rows.push_back({&v, t});
            if (!v1_us && strstr(v.name, "v1")) v1_us = t.cold_us;
        }
        auto print_row = [&](const char *name, const timing &t) {
            double gbps = bytes / t.cold_us / 1e3;
            if (!t.ok) {
                printf("  %-20s %11s\n", name, "wrong result: not timed");
            } else {
                printf("  %-20s %11.1f %9.0f %6.0f%% %9.2f %8.2f %11.1f\n", name, t.cold_us, gbps,
                       100 * gbps / peak_gbps, v1_us ? v1_us / t.cold_us : 0, cub.cold_us / t.cold_us,
                       t.warm_us);
            }
            if (csv) fprintf(csv, "%d,%s,%.2f,%.2f,%.1f,%d\n", n, name, t.cold_us, t.warm_us, gbps, t.ok);
        };
        for (auto &row : rows) print_row(row.first->name, row.second);
        print_row("CUB DeviceReduce", cub);
        print_row("copy (reference)", copy);
    }
    if (csv) fclose(csv);
    return 0;
}
