// bench.cu - `make bench`: times every reduction of the course beside CUB and a device-to-device copy,
// on ints and on floats.
//
// Method (the device tool's METHOD.md): CUDA events around each run, warm-up first, the median of repeats,
// the L2 cache flushed before every cold repeat (a warm figure beside it), results checked against a
// host sum, and n * sizeof(element) counted as the bytes a reduction must move. Beside that, thrust::reduce,
// CUB and exercise 11 on the host's clock, the sum brought to the host included: what a caller waits.
// The reference solutions are linked as ref_<name>, the learner's as my_<name>, and the references
// rewritten to sum floats (checker/bench/as_float.sed) as flt_<name>; symbols are renamed by objcopy in
// checker/scripts/bench.sh. A function that is not linked in is a null weak symbol, and its row is left out.
// `bench MAX_LOG2 CSV --check` runs every version once per size and checks it, with no timing: that is
// how `make test` runs this program on the emulator. `bench LOG2 CSV --speed` times what is linked at one
// size alone (2^LOG2 elements; Part III at one shape) beside a copy, and writes only the CSV: the speed line
// of a passing grade (checker/scripts/speed.sh), with the learner's kernel linked alone, or with the
// reference beside it the first time on a GPU (`--speed --library` adds CUB's row).

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>
#ifndef BENCH_NO_CUB
#include <cub/device/device_reduce.cuh>
#include <thrust/execution_policy.h>
#include <thrust/reduce.h>
#endif
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

// Every summing function of the course, for element type T, under one prefix.
#define DECLARE(prefix, T)                                                                              \
    extern "C" void prefix##reduce_atomic(const T *, T *, int) __attribute__((weak));                  \
    extern "C" int prefix##reduce_v1(const T *, T *, int, int) __attribute__((weak));                  \
    extern "C" int prefix##reduce_v2(const T *, T *, int, int) __attribute__((weak));                  \
    extern "C" int prefix##reduce_v2_strided(const T *, T *, int, int) __attribute__((weak));          \
    extern "C" int prefix##reduce_v3(const T *, T *, int, int) __attribute__((weak));                  \
    extern "C" int prefix##reduce_v4(const T *, T *, int, int) __attribute__((weak));                  \
    extern "C" int prefix##reduce_v5(const T *, T *, int, int) __attribute__((weak));                  \
    extern "C" int prefix##reduce_v6(const T *, T *, int, int) __attribute__((weak));                  \
    extern "C" void prefix##reduce_multi_level(const T *, T *, int) __attribute__((weak));             \
    extern "C" void prefix##reduce_fastest(const T *, T *, int) __attribute__((weak));
DECLARE(ref_, int)
DECLARE(my_, int)
DECLARE(flt_, float)
// Exercise 10's compensated float sum: its reference and the learner's.
extern "C" void ref_sum_compensated(const float *, float *, int) __attribute__((weak));
extern "C" void my_sum_compensated(const float *, float *, int) __attribute__((weak));

template <typename T> struct version {
    const char *name;
    void (*total)(const T *, T *, int);       // leaves the sum in d_out[0]; or else
    int (*partials)(const T *, T *, int, int); // one sum per block, returns the grid
};

// A row of a table, unless its function is not linked in; the function's type says which kind it is.
template <typename T>
static void add(std::vector<version<T>> &list, const char *label, void (*total)(const T *, T *, int))
{
    if (total) list.push_back({label, total, NULL});
}
template <typename T>
static void add(std::vector<version<T>> &list, const char *label, int (*partials)(const T *, T *, int, int))
{
    if (partials) list.push_back({label, NULL, partials});
}

// The rows of each table, in the order of the course.
#define ADD_ALL(list, prefix, suffix)                                                                   \
    add(list, "ex01 atomic" suffix, prefix##reduce_atomic);                                              \
    add(list, "v1 interleaved" suffix, prefix##reduce_v1);                                               \
    add(list, "v2' strided index" suffix, prefix##reduce_v2_strided);                                    \
    add(list, "v2 sequential" suffix, prefix##reduce_v2);                                                \
    add(list, "v3 first add" suffix, prefix##reduce_v3);                                                 \
    add(list, "v4 last warp" suffix, prefix##reduce_v4);                                                 \
    add(list, "v5 unrolled" suffix, prefix##reduce_v5);                                                  \
    add(list, "v6 shuffle" suffix, prefix##reduce_v6);                                                   \
    add(list, "ex08 multi-level" suffix, prefix##reduce_multi_level);                                    \
    add(list, "ex11 fastest" suffix, prefix##reduce_fastest);

static std::vector<version<int>> int_versions()
{
    std::vector<version<int>> v;
    ADD_ALL(v, ref_, "")
    ADD_ALL(v, my_, " (yours)")
    return v;
}

static std::vector<version<float>> float_versions()
{
    std::vector<version<float>> v;
    ADD_ALL(v, flt_, "")
    add(v, "ex10 compensated", ref_sum_compensated);
    add(v, "ex10 compensated (yours)", my_sum_compensated);
    return v;
}

// The inputs' generator, one linear congruential step (mod 2^32), and the state after i + 1 steps from a seed,
// reached by jumping ahead (the step composed with itself): the GPU writes an input a stretch of values a thread,
// each thread starting from its stretch's first state (here and in bench_rows.cuh).
static constexpr unsigned kLcgA = 1664525u, kLcgC = 1013904223u;
__host__ __device__ static inline unsigned lcg_next(unsigned state) { return state * kLcgA + kLcgC; }
struct lcg_step { unsigned a, c; };   // state -> a * state + c (mod 2^32)
__host__ __device__ static unsigned lcg_state(unsigned seed, size_t i)
{
    lcg_step all = {1u, 0u}, pow = {kLcgA, kLcgC};
    for (size_t k = i + 1; k; k >>= 1, pow = {pow.a * pow.a, pow.a * pow.c + pow.c})
        if (k & 1) all = {pow.a * all.a, pow.a * all.c + pow.c};
    return all.a * seed + all.c;
}
static const int kFillStretch = 256;   // values a thread writes

// The sums' inputs, value i from the state after i + 1 steps from 12345: ints in [-4, 3], whose sums of up to
// 2^28 cannot overflow and are checked exactly; floats in (0, 1), each a multiple of 2^-25, whose sums stay below
// 2^28: every partial sum is a whole number of 2^-25 below 2^53, which a double holds exactly in any order.
__device__ static int sum_input(unsigned state, int) { return (int)(state >> 29) - 4; }
__device__ static float sum_input(unsigned state, float) { return ((float)(state >> 8) + 0.5f) * 0x1p-24f; }
__device__ static void add_exactly(long long *to, long long x) { atomicAdd((unsigned long long *)to, (unsigned long long)x); }
__device__ static void add_exactly(double *to, double x) { atomicAdd(to, x); }
// The GPU writes the input and sums it in the same pass (the host wrote 2^24 values and summed them at each speed
// line: about 0.12 s of a regrade on an H200). A value below 2^B and at least 2^(B-1) counts towards the sums of
// 2^B values and more: each stretch adds its sum to bucket B (values below 2^10 to bucket 10; a stretch never
// straddles two, as 256 divides every 2^B from 2^10), and the host adds the buckets up to each size.
template <typename T, typename Acc> __global__ void fill_sums(T *d, size_t n, Acc *buckets)
{
    size_t i = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) * kFillStretch;
    if (i >= n) return;
    int bucket = 10;
    while (((size_t)1 << bucket) <= i) bucket++;
    unsigned state = lcg_state(12345u, i);
    Acc sum = 0;
    for (size_t end = i + kFillStretch < n ? i + kFillStretch : n; i < end; i++, state = lcg_next(state)) {
        T x = sum_input(state, T());
        d[i] = x;
        sum += x;
    }
    add_exactly(&buckets[bucket], sum);
}
// d_in's 2^max_log2 values, written on the GPU; returns the exact sum of the first 2^lg of them at index lg (lg from
// 10 up: the sizes bench times and checks).
template <typename T> static std::vector<double> fill_on_gpu(T *d_in, int max_log2)
{
    typedef typename std::conditional<std::is_same<T, int>::value, long long, double>::type Acc;
    Acc *d_buckets, buckets[64];
    CHECK(cudaMalloc(&d_buckets, sizeof buckets));
    CHECK(cudaMemset(d_buckets, 0, sizeof buckets));
    size_t n = (size_t)1 << max_log2, threads = (n + kFillStretch - 1) / kFillStretch;
    fill_sums<<<(unsigned)((threads + 255) / 256), 256>>>(d_in, n, d_buckets);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(buckets, d_buckets, sizeof buckets, cudaMemcpyDeviceToHost));
    CHECK(cudaFree(d_buckets));
    std::vector<double> exact(max_log2 + 1);
    Acc so_far = 0;
    for (int lg = 0; lg <= max_log2; lg++) exact[lg] = (double)(so_far += buckets[lg]);
    return exact;
}
static const char *type_name(int) { return "int"; }
static const char *type_name(float) { return "float"; }

// Whether a result is right: ints exactly. Floats added in any order differ from the exact sum by rounding
// only; with positive inputs each addition's error is at most 2^-24 of the sum so far, so a version that
// chains at most 2^13 additions into one result (each tree here, each thread's share of a grid-stride
// loop) is within 2^-11 of the exact sum. The check allows 2^-10. The int table is the one that catches a
// lost element; this one catches garbage, and a sum that one float accumulates alone: ex01's single total
// stops growing near 2^24, where an addend below 1 is less than half the float's spacing (exercise 10).
static bool right(int got, double exact) { return (double)got == exact; }
static bool right(float got, double exact) { return std::fabs((double)got - exact) <= std::fabs(exact) * 0x1p-10; }

// What a wrong result looks like in the table.
static void describe_wrong(char *text, size_t size, int got, double exact)
{
    snprintf(text, size, "wrong result %d, not %.0f: not timed", got, exact);
}
static void describe_wrong(char *text, size_t size, float got, double exact)
{
    snprintf(text, size, "%.3g, off by %.2g%% of the exact sum: not timed", got,
             100 * std::fabs(got - exact) / std::fabs(exact));
}

static void *d_scratch[2];  // partial sums between passes
#ifndef BENCH_NO_CUB
static void *d_cub_temp;
static size_t cub_temp_bytes;
#endif

// Runs one version to a single value in d_result: partials versions run again on their own partials
// until one value is left, as the seed notes' multi-pass reductions do.
template <typename T> static void run_version(const version<T> &v, const T *d_in, T *d_result, int n)
{
    if (v.total) {
        v.total(d_in, d_result, n);
        return;
    }
    const int block = 256;
    const T *src = d_in;
    int which = 0;
    do {
        T *dst = (T *)d_scratch[which];
        n = v.partials(src, dst, n, block);
        src = dst;
        which ^= 1;
    } while (n > 1);
    CHECK(cudaMemcpyAsync(d_result, src, sizeof(T), cudaMemcpyDeviceToDevice));
}

struct timing {
    double cold_us, warm_us;
    bool ok;
    char wrong[96];  // when not ok: what came back
};

static double median(std::vector<float> v)
{
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

static bool check_only;  // --check: run once and check, no timing
static bool speed_only;  // --speed: one size, no library rows, nothing printed but the CSV
#ifndef BENCH_NO_CUB
static bool speed_library;  // --speed --library: CUB's row too (a speed line's first timing on a GPU)
#endif

// One row of the CSV: what make bench's tables and the speed line read (gbps: bytes over the cold time).
static void csv_row(FILE *csv, int n, const char *type, const char *name, const timing &t, double bytes)
{
    if (csv) fprintf(csv, "%d,%s,%s,%.2f,%.2f,%.1f,%d\n", n, type, name, t.cold_us, t.warm_us, bytes / t.cold_us / 1e3, t.ok);
}

struct flusher {
    void *d_buf;
    size_t bytes;  // 0: nothing to flush
};

// Reads the result back and sets t.ok, and t.wrong when it is not right; an exact of NaN checks nothing.
template <typename T> static void check_result(timing &t, const T *d_result, double exact)
{
    T got;
    CHECK(cudaMemcpy(&got, d_result, sizeof got, cudaMemcpyDeviceToHost));
    t.ok = std::isnan(exact) || right(got, exact);
    if (!t.ok) describe_wrong(t.wrong, sizeof t.wrong, got, exact);
}

// Keeps the GPU busy for `ns` nanoseconds, so that what is launched after it queues up behind it.
__global__ void keep_busy(unsigned long long ns)
{
    unsigned long long start, now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    do {
        __nanosleep(1000);
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    } while (now - start < ns);
}

// Runs `run` once to warm up and check its result, then times it cold (L2 flushed first) and warm.
// Before each repeat, keep_busy holds the GPU for 100 us while the host queues the start event, the
// version's launches and the stop event behind it: the events then time the GPU's work alone, cold and
// warm alike, and not how long the host takes to launch (the empty kernel's line shows that).
template <typename T, typename F>
static timing time_it(F run, const T *d_result, double exact, flusher flush, bool queue_behind = true)
{
    timing t = {0, 0, true, ""};
    run();  // warm-up: module load, first-touch
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    check_result(t, d_result, exact);
    if (check_only || !t.ok) return t;
    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    for (int cold = 1; cold >= 0; cold--) {
        std::vector<float> ms;
        float spent = 0;
        for (int rep = 0; rep < 30 && (rep < 5 || spent < 1000.f); rep++) {
            if (cold && flush.bytes) CHECK(cudaMemsetAsync(flush.d_buf, rep & 0xff, flush.bytes));
            if (queue_behind) keep_busy<<<1, 1>>>(100000);
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
    check_result(t, d_result, exact);  // the last repeat's result too
    CHECK(cudaEventDestroy(start));
    CHECK(cudaEventDestroy(stop));
    return t;
}

#ifndef BENCH_NO_CUB
// Times `sum`, which returns the sum on the host, with the host's clock: from the call until the value is
// back, as a caller waits for it (launches, the library's allocations, the wait and the copy included).
// Cold repeats flush the L2 first and wait for the flush before the clock starts.
template <typename T, typename F> static timing time_on_host(F sum, double exact, flusher flush)
{
    timing t = {0, 0, true, ""};
    T got = sum();  // warm-up: module load, first-touch
    t.ok = right(got, exact);
    if (!t.ok) {
        describe_wrong(t.wrong, sizeof t.wrong, got, exact);
        return t;
    }
    for (int cold = 1; cold >= 0; cold--) {
        std::vector<float> us;
        double spent = 0;
        for (int rep = 0; rep < 30 && (rep < 5 || spent < 1e6); rep++) {
            if (cold && flush.bytes) CHECK(cudaMemset(flush.d_buf, rep & 0xff, flush.bytes));
            CHECK(cudaDeviceSynchronize());
            auto start = std::chrono::steady_clock::now();
            got = sum();
            std::chrono::duration<double, std::micro> one = std::chrono::steady_clock::now() - start;
            us.push_back((float)one.count());
            spent += one.count();
            if (!right(got, exact)) {
                t.ok = false;
                describe_wrong(t.wrong, sizeof t.wrong, got, exact);
                return t;
            }
        }
        (cold ? t.cold_us : t.warm_us) = median(us);
    }
    return t;
}

// The library as a caller uses it, on the host's clock: thrust::reduce returns the sum; CUB and exercise 11
// leave it on the device, so their rows add the cudaMemcpy that brings it to the host.
template <typename T>
static void print_host_timed(const T *d_in, T *d_result, int n, double exact, flusher flush,
                             void (*fastest)(const T *, T *, int), FILE *csv, int &wrong)
{
    auto copy_back = [&] { T v; CHECK(cudaMemcpy(&v, d_result, sizeof v, cudaMemcpyDeviceToHost)); return v; };
    struct row { const char *name; timing t; };
    std::vector<row> rows;
    rows.push_back({"thrust::reduce", time_on_host<T>([&] { return thrust::reduce(thrust::device, d_in, d_in + n, T(0)); },
                                                      exact, flush)});
    rows.push_back({"CUB DeviceReduce + copy", time_on_host<T>([&] {
                        CHECK(cub::DeviceReduce::Sum(d_cub_temp, cub_temp_bytes, d_in, d_result, n));
                        return copy_back();
                    }, exact, flush)});
    if (fastest)
        rows.push_back({"ex11 fastest + copy", time_on_host<T>([&] { fastest(d_in, d_result, n); return copy_back(); },
                                                               exact, flush)});
    printf("\n  As a caller sees it, on the host's clock: from the call until the sum is on the host.\n");
    printf("  %-26s %11s %9s %8s %11s\n", "version", "cold (us)", "GB/s", "x CUB", "warm (us)");
    double cub_us = rows[1].t.ok ? rows[1].t.cold_us : 0, bytes = (double)n * sizeof(T);
    for (const row &r : rows) {
        if (!r.t.ok) {
            printf("  %-26s %s\n", r.name, r.t.wrong);
            wrong++;
        } else {
            printf("  %-26s %11.1f %9.0f %8.2f %11.1f\n", r.name, r.t.cold_us, bytes / r.t.cold_us / 1e3,
                   cub_us ? cub_us / r.t.cold_us : 0, r.t.warm_us);
        }
        csv_row(csv, n, type_name(T()), (std::string(r.name) + " (host clock)").c_str(), r.t, bytes);
    }
}
#endif

// One table per size for element type T: every version, CUB and a copy of the same bytes.
template <typename T>
static int bench_type(const std::vector<version<T>> &versions, int max_log2, flusher flush, FILE *csv,
                      void (*fastest)(const T *, T *, int))
{
    const char *type = type_name(T());
    size_t max_n = (size_t)1 << max_log2;
    T *d_in, *d_result, *d_copy;
    CHECK(cudaMalloc(&d_in, max_n * sizeof(T)));
    CHECK(cudaMalloc(&d_copy, check_only ? sizeof(T) : max_n * sizeof(T)));
    CHECK(cudaMalloc(&d_result, sizeof(T)));
    const std::vector<double> exact_of = fill_on_gpu(d_in, max_log2);
#ifndef BENCH_NO_CUB
    CHECK(cub::DeviceReduce::Sum(NULL, cub_temp_bytes, d_in, d_result, (int)max_n));
    CHECK(cudaMalloc(&d_cub_temp, cub_temp_bytes));
#endif
    int wrong = 0;

    for (int lg = check_only ? 10 : speed_only ? max_log2 : 20; lg <= max_log2; lg += 2) {
        int n = 1 << lg;
        double exact = exact_of[lg], bytes = (double)n * sizeof(T);

        std::vector<timing> times;
        for (const version<T> &v : versions)
            times.push_back(time_it([&] { run_version(v, d_in, d_result, n); }, d_result, exact, flush));
        if (check_only) {
            for (size_t k = 0; k < versions.size(); k++) {
                if (!times[k].ok) printf("%s, %ss, n = 2^%d: %s\n", versions[k].name, type, lg, times[k].wrong);
                wrong += !times[k].ok;
            }
            continue;
        }
        timing copy = time_it([&] { CHECK(cudaMemcpyAsync(d_copy, d_in, bytes, cudaMemcpyDeviceToDevice)); },
                       d_result, NAN, flush);  // a copy has no sum to check
        if (speed_only) {
            for (size_t k = 0; k < versions.size(); k++) csv_row(csv, n, type, versions[k].name, times[k], bytes);
            csv_row(csv, n, type, "copy (reference)", copy, bytes);
#ifndef BENCH_NO_CUB
            if (speed_library)
                csv_row(csv, n, type, "CUB DeviceReduce",
                        time_it([&] { CHECK(cub::DeviceReduce::Sum(d_cub_temp, cub_temp_bytes, d_in, d_result, n)); },
                                d_result, exact, flush), bytes);
#endif
            continue;
        }
#ifndef BENCH_NO_CUB
        timing cub = time_it([&] { CHECK(cub::DeviceReduce::Sum(d_cub_temp, cub_temp_bytes, d_in, d_result, n)); },
                             d_result, exact, flush);
#else
        timing cub = {0, 0, false};
#endif
        double peak_gbps = 2 * bytes / copy.cold_us / 1e3;  // a copy reads and writes every byte

        printf("\nn = 2^%d (%d %ss, %.0f MB). Copy bandwidth (read + write): %.0f GB/s.\n", lg, n, type,
               bytes / 1e6, peak_gbps);
        printf("  %-26s %11s %9s %7s %9s %8s %11s\n", "version", "cold (us)", "GB/s", "% copy", "x v1",
               "x CUB", "warm (us)");
        double v1_us = 0;
        for (size_t k = 0; k < versions.size(); k++)
            if (!v1_us && strstr(versions[k].name, "v1") && times[k].ok) v1_us = times[k].cold_us;
        auto print_row = [&](const char *name, const timing &t) {
            double gbps = bytes / t.cold_us / 1e3;
            if (!t.ok) {
                printf("  %-26s %s\n", name, t.wrong);
                wrong++;
            } else {
                printf("  %-26s %11.1f %9.0f %6.0f%% %9.2f %8.2f %11.1f\n", name, t.cold_us, gbps,
                       100 * gbps / peak_gbps, v1_us ? v1_us / t.cold_us : 0, cub.cold_us / t.cold_us,
                       t.warm_us);
            }
            csv_row(csv, n, type, name, t, bytes);
        };
        for (size_t k = 0; k < versions.size(); k++) print_row(versions[k].name, times[k]);
        print_row("CUB DeviceReduce", cub);
        print_row("copy (reference)", copy);
#ifndef BENCH_NO_CUB
        print_host_timed(d_in, d_result, n, exact, flush, fastest, csv, wrong);
#else
        (void)fastest;
#endif
    }
    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_copy));
    CHECK(cudaFree(d_result));
#ifndef BENCH_NO_CUB
    CHECK(cudaFree(d_cub_temp));
#endif
    return wrong;
}

#include "bench_rows.cuh"   // Part III's row-wise kernels (exercises 13 to 15)

__global__ void empty_kernel() {}

int main(int argc, char **argv)
{
    int max_log2 = argc > 1 ? atoi(argv[1]) : 28;
    const char *csv_path = argc > 2 && strcmp(argv[2], "-") ? argv[2] : NULL;
    check_only = argc > 3 && !strcmp(argv[3], "--check");
    speed_only = argc > 3 && !strcmp(argv[3], "--speed");
#ifndef BENCH_NO_CUB
    speed_library = speed_only && argc > 4 && !strcmp(argv[4], "--library");
#endif
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    size_t free_bytes, total_bytes;
    CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    // The input and its copy, with room to spare for the flush buffer and the partial sums.
    while (max_log2 > 20 && ((size_t)4 << max_log2) * 3 > free_bytes) max_log2--;

    size_t max_n = (size_t)1 << max_log2;
    flusher flush = {NULL, check_only ? 0 : (size_t)prop.l2CacheSize * 2};
    if (flush.bytes) CHECK(cudaMalloc(&flush.d_buf, flush.bytes));
    for (void *&p : d_scratch) CHECK(cudaMalloc(&p, (max_n / 32 + 1024) * 4));

    if (!check_only && !speed_only) {
        // Launch overhead: an empty kernel, from launch to finish.
        timing empty = time_it([] { empty_kernel<<<1, 32>>>(); }, (int *)d_scratch[0], NAN, flusher{NULL, 0}, false);
        printf("GPU: %s, %d SMs, %d MB of L2. Times are medians of repeated runs; 'cold' flushes the L2 first.\n",
               prop.name, prop.multiProcessorCount, prop.l2CacheSize >> 20);
        printf("An empty kernel takes %.1f us from launch to finish here, on an idle GPU: a program pays that\n"
               "once per launch it waits for. The times below leave it out (each run is queued behind a busy\n"
               "GPU), so they compare the kernels' own work; at small n, add it to see what a program waits.\n"
               "The second table of each size is on the host's clock: what a caller of thrust::reduce waits,\n"
               "launches, the library's allocations and the copy of the sum to the host included.\n",
               empty.warm_us);
    }
    FILE *csv = csv_path ? fopen(csv_path, "w") : NULL;
    if (csv) fprintf(csv, "n,type,version,cold_us,warm_us,gbps,ok\n");

    bool quiet = check_only || speed_only;
    if (!quiet) printf("\n=== Sums of ints (values in [-4, 3], checked exactly)\n");
    int wrong = 0;
    if (!speed_only || !int_versions().empty())
        wrong += bench_type(int_versions(), max_log2, flush, csv, ref_reduce_fastest);
    if (!quiet)
        printf("\n=== Sums of floats (values in (0, 1), checked to within 2^-10 of the exact sum)\n"
               "The references here are the int ones with float data (checker/bench/as_float.sed); your kernels\n"
               "take ints, so only your exercise 10, which sums floats, appears in this half.\n");
    if (!speed_only || !float_versions().empty())
        wrong += bench_type(float_versions(), max_log2, flush, csv, flt_reduce_fastest);
    if (csv) fclose(csv);
    if (!quiet)
        printf("\n=== Part III: row-wise kernels (exercises 13 to 15), one block per row\n"
               "Bytes: the input read once and the output written once; %% copy compares them with a copy of the\n"
               "input's bytes. Checked against the same computation in double.\n");
    FILE *rows_csv = NULL;
    if (csv_path) {
        std::string rows_path = std::string(csv_path).substr(0, std::string(csv_path).find_last_of('/') + 1) + "rows.csv";
        rows_csv = fopen(rows_path.c_str(), "w");
        if (rows_csv) fprintf(rows_csv, "shape,type,kernel,cold_us,warm_us,gbps,ok\n");
    }
    wrong += bench_rows(flush, rows_csv);
    if (rows_csv) fclose(rows_csv);
    if (check_only) printf("bench --check: %d wrong results\n", wrong);
    return wrong ? 1 : 0;
}
