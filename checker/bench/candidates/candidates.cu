// candidates.cu - the numbers the lessons quote beyond `make bench`'s table: each candidate kernel of
// checker/bench/candidates/ timed beside the reference it changes, in the same run, at a small and a large
// n. checker/scripts/device-lessons.sh builds it (each candidate is a patch applied to a reference
// solution, its functions renamed <candidate>_<function>) and runs it.
//
//   candidates SMALL_LOG2 LARGE_LOG2 [CSV] [--check]   time every row at 2^SMALL and 2^LARGE elements
//                                                      (--check: run each row once and check it, no timing)
//   candidates --profile LOG2                          run the kernels that the lessons profile once each,
//                                                      for ncu; prints "profile: LABEL" in launch order
//   candidates --smem                                  the device's limits per SM, and what the runtime
//                                                      answers to launches with too much dynamic shared memory
//
// The method and its code are `make bench`'s (checker/bench/bench.cu, included whole): events, warm-up,
// medians of repeats queued behind a busy GPU, the L2 flushed before every repeat, every result checked.
#define main bench_main
#include "../bench.cu"
#undef main

#include <functional>

// The candidates, as device-lessons.sh names them (a row whose function is not linked in is left out),
// and the references of exercise 09, which bench.cu does not time.
extern "C" int ex07_tree_one_load_reduce_v5(const int *, int *, int, int) __attribute__((weak));
extern "C" int ex07_tree_four_loads_reduce_v5(const int *, int *, int, int) __attribute__((weak));
extern "C" int ex07_shuffles_one_load_reduce_v6(const int *, int *, int, int) __attribute__((weak));
extern "C" void ex08_four_loads_reduce_multi_level(const int *, int *, int) __attribute__((weak));
extern "C" void ex08_scratch_kept_reduce_multi_level(const int *, int *, int) __attribute__((weak));
extern "C" void ex08_atomic_total_reduce_multi_level(const int *, int *, int) __attribute__((weak));
extern "C" void ex08_host_final_reduce_multi_level(const int *, int *, int) __attribute__((weak));
extern "C" void ex08_last_block_done_reduce_multi_level(const int *, int *, int) __attribute__((weak));
#define DECLARE_EX09(prefix)                                                                            \
    extern "C" void prefix##reduce_max(const float *, float *, int) __attribute__((weak));             \
    extern "C" void prefix##reduce_min(const float *, float *, int) __attribute__((weak));             \
    extern "C" void prefix##dot_product(const float *, const float *, float *, int) __attribute__((weak));
DECLARE_EX09(ref_)
DECLARE_EX09(ex09_four_loads_)

// One row: a label and how to run it once, leaving its result in the group's d_result.
struct row {
    const char *label;
    bool linked;
    std::function<void(int n)> run;
};
template <typename T> static row sum_row(const char *label, int (*partials)(const T *, T *, int, int), const T *d_in,
                                         T *d_result)
{
    version<T> v = {label, NULL, partials};
    return {label, partials != NULL, [=](int n) { run_version(v, d_in, d_result, n); }};
}
template <typename T> static row sum_row(const char *label, void (*total)(const T *, T *, int), const T *d_in,
                                         T *d_result)
{
    version<T> v = {label, total, NULL};
    return {label, total != NULL, [=](int n) { run_version(v, d_in, d_result, n); }};
}

// A group: rows timed at both sizes against one exact result per size, printed as one table whose last
// column compares each row with the group's first at the large size.
template <typename T>
static int time_group(const char *title, const std::vector<row> &rows, T *d_result, std::function<double(int)> exact,
                      int small_log2, int large_log2, flusher flush, FILE *csv)
{
    int wrong = 0;
    std::vector<timing> times[2];
    int sizes[2] = {1 << small_log2, 1 << large_log2};
    for (int s = 0; s < 2; s++) {
        double want = exact(sizes[s]);
        for (const row &r : rows)
            times[s].push_back(r.linked ? time_it([&] { r.run(sizes[s]); }, d_result, want, flush) : timing{0, 0, false, "not linked"});
    }
    if (!check_only)
        printf("\n== %s\n  %-44s %8s%-2d %8s%-2d %11s\n", title, "version (us, L2 flushed)", "2^", small_log2, "2^",
               large_log2, "x first row");
    for (size_t k = 0; k < rows.size(); k++) {
        if (!rows[k].linked) {
            printf("  %-44s (not built)\n", rows[k].label);
            continue;
        }
        for (int s = 0; s < 2; s++) {
            if (!times[s][k].ok) {
                printf("  %-44s n = 2^%d: %s\n", rows[k].label, s ? large_log2 : small_log2, times[s][k].wrong);
                wrong++;
            }
            // Titles and labels hold commas: quoted, as CSV readers expect (none holds a double quote).
            if (csv) fprintf(csv, "\"%s\",\"%s\",%d,%.2f,%.2f,%d\n", title, rows[k].label, sizes[s],
                             times[s][k].cold_us, times[s][k].warm_us, times[s][k].ok);
        }
        if (!check_only && times[0][k].ok && times[1][k].ok)
            printf("  %-44s %10.1f %10.1f %12.2f\n", rows[k].label, times[0][k].cold_us, times[1][k].cold_us,
                   times[1][0].ok ? times[1][0].cold_us / times[1][k].cold_us : 0);
    }
    if (check_only) printf("%s: %d rows checked at 2^%d and 2^%d, %d wrong\n", title, (int)rows.size(), small_log2,
                           large_log2, wrong);
    return wrong;
}

static int run_timings(int small_log2, int large_log2, FILE *csv)
{
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    size_t max_n = (size_t)1 << large_log2;
    flusher flush = {NULL, check_only ? 0 : (size_t)prop.l2CacheSize * 2};
    if (flush.bytes) CHECK(cudaMalloc(&flush.d_buf, flush.bytes));
    for (void *&p : d_scratch) CHECK(cudaMalloc(&p, (max_n / 32 + 1024) * 4));
    if (!check_only)
        printf("GPU: %s, %d SMs, %d MB of L2. Medians of repeated runs, each queued behind a busy GPU, the L2\n"
               "flushed before each; every result checked. The last column is the first row's time at the\n"
               "larger size over this row's: above 1 is faster.\n",
               prop.name, prop.multiProcessorCount, prop.l2CacheSize >> 20);

    std::vector<int> h_ints(max_n);
    std::vector<float> h_a(max_n), h_b(max_n);
    fill(h_ints, 12345);
    fill(h_a, 2345);
    fill(h_b, 3456);
    int *d_ints, *d_isum;
    float *d_a, *d_b, *d_fres;
    CHECK(cudaMalloc(&d_ints, max_n * sizeof(int)));
    CHECK(cudaMalloc(&d_a, max_n * sizeof(float)));
    CHECK(cudaMalloc(&d_b, max_n * sizeof(float)));
    CHECK(cudaMalloc(&d_isum, sizeof(int)));
    CHECK(cudaMalloc(&d_fres, sizeof(float)));
    CHECK(cudaMemcpy(d_ints, h_ints.data(), max_n * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_a, h_a.data(), max_n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_b, h_b.data(), max_n * sizeof(float), cudaMemcpyHostToDevice));
    auto int_sum = [&](int n) { double s = 0; for (int i = 0; i < n; i++) s += h_ints[i]; return s; };
    int wrong = 0;

    std::vector<row> ladder = {
        sum_row("ex01 atomic", ref_reduce_atomic, (const int *)d_ints, d_isum),
        sum_row("v1 interleaved", ref_reduce_v1, (const int *)d_ints, d_isum),
        sum_row("v2' strided index", ref_reduce_v2_strided, (const int *)d_ints, d_isum),
        sum_row("v2 sequential", ref_reduce_v2, (const int *)d_ints, d_isum),
        sum_row("v3 first add", ref_reduce_v3, (const int *)d_ints, d_isum),
        sum_row("v4 last warp", ref_reduce_v4, (const int *)d_ints, d_isum),
        sum_row("v5 unrolled", ref_reduce_v5, (const int *)d_ints, d_isum),
        sum_row("v6 shuffle", ref_reduce_v6, (const int *)d_ints, d_isum),
        sum_row("ex11 fastest", ref_reduce_fastest, (const int *)d_ints, d_isum),
    };
#ifndef BENCH_NO_CUB
    ladder.push_back({"CUB DeviceReduce", true, [&](int n) {
                          CHECK(cub::DeviceReduce::Sum(d_cub_temp, cub_temp_bytes, d_ints, d_isum, n));
                      }});
    CHECK(cub::DeviceReduce::Sum(NULL, cub_temp_bytes, d_ints, d_isum, (int)max_n));
    CHECK(cudaMalloc(&d_cub_temp, cub_temp_bytes));
#endif
    wrong += time_group<int>("the ladder: sums of ints, each version to one value", ladder, d_isum, int_sum,
                             small_log2, large_log2, flush, csv);

    std::vector<row> ex07 = {
        sum_row("v5 (reference)", ref_reduce_v5, (const int *)d_ints, d_isum),
        sum_row("+ grid-stride loop, 1 load per step", ex07_tree_one_load_reduce_v5, (const int *)d_ints, d_isum),
        sum_row("+ 4 loads per step (v5's tree)", ex07_tree_four_loads_reduce_v5, (const int *)d_ints, d_isum),
        sum_row("+ shuffles: v6 (reference)", ref_reduce_v6, (const int *)d_ints, d_isum),
        sum_row("v6 with 1 load per step (shuffles, no 4)", ex07_shuffles_one_load_reduce_v6, (const int *)d_ints,
                d_isum),
    };
    wrong += time_group<int>("exercise 07: v5 to v6 one change at a time (ints)", ex07, d_isum, int_sum, small_log2,
                             large_log2, flush, csv);

    std::vector<row> ex08 = {
        sum_row("ex08 (reference: second pass, 1 load/step)", ref_reduce_multi_level, (const int *)d_ints, d_isum),
        sum_row("ex08 with 4 loads per step", ex08_four_loads_reduce_multi_level, (const int *)d_ints, d_isum),
        sum_row("ex08, scratch kept between calls", ex08_scratch_kept_reduce_multi_level, (const int *)d_ints,
                d_isum),
        sum_row("ex08, level 2 by atomics (memset + 1 launch)", ex08_atomic_total_reduce_multi_level,
                (const int *)d_ints, d_isum),
        sum_row("ex08, last block done (fence + ticket)", ex08_last_block_done_reduce_multi_level,
                (const int *)d_ints, d_isum),
        sum_row("ex08, level 2 on the host (copy, add, copy)", ex08_host_final_reduce_multi_level,
                (const int *)d_ints, d_isum),
        sum_row("v6 (reference, to one value)", ref_reduce_v6, (const int *)d_ints, d_isum),
    };
    wrong += time_group<int>("exercise 08: one total, several ways (ints)", ex08, d_isum, int_sum, small_log2,
                             large_log2, flush, csv);

    auto max_of = [&](int n) { double m = -INFINITY; for (int i = 0; i < n; i++) m = std::max(m, (double)h_a[i]); return m; };
    auto dot_of = [&](int n) { double s = 0; for (int i = 0; i < n; i++) s += (double)(h_a[i] * h_b[i]); return s; };
    auto float_sum = [&](int n) { double s = 0; for (int i = 0; i < n; i++) s += h_a[i]; return s; };
    auto dot_row = [&](const char *label, void (*dot)(const float *, const float *, float *, int)) {
        return row{label, dot != NULL, [=](int n) { dot(d_a, d_b, d_fres, n); }};
    };
    std::vector<row> ex09_max = {
        sum_row("max (reference, 1 load/step)", ref_reduce_max, (const float *)d_a, d_fres),
        sum_row("max with 4 loads per step", ex09_four_loads_reduce_max, (const float *)d_a, d_fres),
    };
    std::vector<row> ex09_dot = {
        dot_row("dot product (reference, 1 step = 2 loads)", ref_dot_product),
        dot_row("dot product with 4 steps in flight", ex09_four_loads_dot_product),
    };
    std::vector<row> ex09_sum = {
        sum_row("float sum: ex08's kernel on floats", flt_reduce_multi_level, (const float *)d_a, d_fres),
    };
    wrong += time_group<float>("exercise 09: max of floats", ex09_max, d_fres, max_of, small_log2, large_log2, flush,
                               csv);
    wrong += time_group<float>("exercise 09: dot product of floats", ex09_dot, d_fres, dot_of, small_log2, large_log2,
                               flush, csv);
    wrong += time_group<float>("exercise 09: the same kernel summing floats", ex09_sum, d_fres, float_sum,
                               small_log2, large_log2, flush, csv);
    return wrong;
}

// ---- --profile: the kernels the lessons profile, one launch each -----------------------------------------

static void run_profile(int log2n)
{
    size_t n = (size_t)1 << log2n;
    std::vector<int> h(n);
    fill(h, 777);
    std::vector<float> hf(n);
    fill(hf, 778);
    int *d_in, *d_out;
    float *d_fin, *d_fout;
    CHECK(cudaMalloc(&d_in, n * sizeof(int)));
    CHECK(cudaMalloc(&d_out, (n / 32 + 1024) * sizeof(int)));
    CHECK(cudaMalloc(&d_fin, n * sizeof(float)));
    CHECK(cudaMalloc(&d_fout, sizeof(float)));
    CHECK(cudaMemcpy(d_in, h.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_fin, hf.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    struct { const char *label; int (*partials)(const int *, int *, int, int); } first_pass[] = {
        {"v1", ref_reduce_v1}, {"v2'", ref_reduce_v2_strided}, {"v2", ref_reduce_v2}, {"v3", ref_reduce_v3},
        {"v4", ref_reduce_v4}, {"v5", ref_reduce_v5}, {"v5 tree, grid-stride, 1 load", ex07_tree_one_load_reduce_v5},
        {"v5 tree, 4 loads", ex07_tree_four_loads_reduce_v5}, {"v6, 1 load", ex07_shuffles_one_load_reduce_v6},
        {"v6", ref_reduce_v6},
    };
    for (auto &v : first_pass) {
        if (!v.partials) continue;
        printf("profile: %s\n", v.label);
        v.partials(d_in, d_out, (int)n, 256);
        CHECK(cudaGetLastError());
    }
    // Exercise 01's atomics at 2^20 only: the float version takes milliseconds per 2^20.
    int small = (int)std::min(n, (size_t)1 << 20);
    if (ref_reduce_atomic) { printf("profile: ex01 ints (2^20)\n"); ref_reduce_atomic(d_in, d_out, small); }
    if (flt_reduce_atomic) { printf("profile: ex01 floats (2^20)\n"); flt_reduce_atomic(d_fin, d_fout, small); }
    CHECK(cudaDeviceSynchronize());
}

// ---- --smem: launches that ask for too much dynamic shared memory --------------------------------------

__global__ void uses_shared(int *d_out)
{
    extern __shared__ int dyn[];
    dyn[threadIdx.x] = threadIdx.x;
    __syncthreads();
    if (threadIdx.x == 0) d_out[0] = dyn[blockDim.x - 1];
}

static void try_launch(const char *what, size_t bytes, int *d_out)
{
    uses_shared<<<1, 32, bytes>>>(d_out);
    cudaError_t launch = cudaGetLastError();
    cudaError_t run = cudaDeviceSynchronize();
    printf("smem: %-58s %7zu bytes: launch %s, run %s\n", what, bytes, cudaGetErrorName(launch), cudaGetErrorName(run));
}

static void run_smem()
{
    int device = 0, per_block = 0, optin = 0;
    CHECK(cudaGetDevice(&device));
    CHECK(cudaDeviceGetAttribute(&per_block, cudaDevAttrMaxSharedMemoryPerBlock, device));
    CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    int sms = 0, threads = 0, blocks = 0, per_sm = 0;
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    CHECK(cudaDeviceGetAttribute(&threads, cudaDevAttrMaxThreadsPerMultiProcessor, device));
    CHECK(cudaDeviceGetAttribute(&blocks, cudaDevAttrMaxBlocksPerMultiprocessor, device));
    CHECK(cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device));
    printf("device: %d SMs; per SM at most %d threads, %d blocks, %d bytes of shared memory\n", sms, threads, blocks,
           per_sm);
    printf("smem: cudaDevAttrMaxSharedMemoryPerBlock %d, cudaDevAttrMaxSharedMemoryPerBlockOptin %d\n", per_block,
           optin);
    int *d_out;
    CHECK(cudaMalloc(&d_out, sizeof(int)));
    try_launch("the default limit, exactly", per_block, d_out);
    try_launch("4 bytes over the default limit, no opt-in", per_block + 4, d_out);
    try_launch("1 MiB, no opt-in", 1 << 20, d_out);
    cudaError_t set = cudaFuncSetAttribute(uses_shared, cudaFuncAttributeMaxDynamicSharedMemorySize, optin);
    printf("smem: cudaFuncSetAttribute(MaxDynamicSharedMemorySize, %d): %s\n", optin, cudaGetErrorName(set));
    try_launch("4 bytes over the default limit, after the opt-in", per_block + 4, d_out);
    try_launch("the opt-in limit, exactly", optin, d_out);
    try_launch("4 bytes over the opt-in limit", optin + 4, d_out);
    set = cudaFuncSetAttribute(uses_shared, cudaFuncAttributeMaxDynamicSharedMemorySize, optin + 4);
    printf("smem: cudaFuncSetAttribute(MaxDynamicSharedMemorySize, %d): %s\n", optin + 4, cudaGetErrorName(set));
    cudaGetLastError();
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "--smem")) {
        run_smem();
        return 0;
    }
    if (argc > 2 && !strcmp(argv[1], "--profile")) {
        run_profile(atoi(argv[2]));
        return 0;
    }
    if (argc < 3) {
        fprintf(stderr, "usage: candidates SMALL_LOG2 LARGE_LOG2 [CSV] [--check] | --profile LOG2 | --smem\n");
        return 2;
    }
    check_only = !strcmp(argv[argc - 1], "--check");
    FILE *csv = argc > 3 && strcmp(argv[3], "--check") ? fopen(argv[3], "w") : NULL;
    if (csv) fprintf(csv, "group,version,n,cold_us,warm_us,ok\n");
    int wrong = run_timings(atoi(argv[1]), atoi(argv[2]), csv);
    if (csv) fclose(csv);
    return wrong ? 1 : 0;
}
