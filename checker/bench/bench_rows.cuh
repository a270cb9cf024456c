// bench_rows.cuh - `make bench`'s table for Part III (exercises 13 to 15): the row-wise kernels, their
// reference and yours, at a few shapes of matrix, against the bandwidth of a copy of the same bytes.
// Included by bench.cu, whose time_it, flusher and CHECK it uses (a NaN "exact" checks nothing there: each
// kernel's outputs are checked here, after the timed repeats, against the same computation in double).
//
// The bytes a row-wise kernel must move are its input read once and its output written once (row_stats
// writes 8 bytes a row, nearly nothing); GB/s is those bytes over the cold time, and "% copy" compares it
// with a device-to-device copy of the input's bytes (which reads and writes them). The two-pass forms read
// their input three times, the online and Welford forms twice: where the input fits in the L2 cache, the
// second and third reads come from it.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

// Every row-wise function of Part III under one prefix (ref_: the references; my_: yours, once done).
#define DECLARE_ROWS(prefix)                                                                             \
    extern "C" void prefix##row_stats_f16(const __half *, float *, int, int) __attribute__((weak));     \
    extern "C" void prefix##row_stats_bf16(const __nv_bfloat16 *, float *, int, int) __attribute__((weak)); \
    extern "C" void prefix##softmax_two_pass(const float *, float *, int, int) __attribute__((weak));   \
    extern "C" void prefix##softmax_online(const float *, float *, int, int) __attribute__((weak));     \
    extern "C" void prefix##softmax_online_f16(const __half *, __half *, int, int) __attribute__((weak)); \
    extern "C" void prefix##layernorm_two_pass(const __half *, const float *, const float *, __half *, int, int, \
                                               float) __attribute__((weak));                            \
    extern "C" void prefix##layernorm_welford(const __half *, const float *, const float *, __half *, int, int, \
                                              float) __attribute__((weak));                             \
    extern "C" void prefix##rmsnorm_bf16(const __nv_bfloat16 *, const float *, __nv_bfloat16 *, int, int, \
                                         float) __attribute__((weak));                                   \
    extern "C" int prefix##softmax_rows(const float *, float *, int, int, int) __attribute__((weak));  \
    extern "C" int prefix##softmax_rows_f16(const __half *, __half *, int, int, int) __attribute__((weak)); \
    extern "C" int prefix##layernorm_rows_f16(const __half *, const __half *, const __half *, __half *, int, int, \
                                              float, int) __attribute__((weak));                        \
    extern "C" int prefix##rmsnorm_rows_bf16(const __nv_bfloat16 *, const __nv_bfloat16 *, __nv_bfloat16 *, int, \
                                             int, float, int) __attribute__((weak));                    \
    extern "C" int prefix##row_stats_rows_f16(const __half *, float *, int, int, int) __attribute__((weak)); \
    extern "C" int prefix##row_stats_rows_bf16(const __nv_bfloat16 *, float *, int, int, int) __attribute__((weak));
DECLARE_ROWS(ref_)
DECLARE_ROWS(my_)

// One kernel of the table: what it computes, its element size in and out, and how to run it on the shared
// buffers. run is NULL when the function is not linked in.
struct row_kernel {
    const char *name;
    const char *type;     // "fp16", "bf16", "float"
    size_t in_size, out_size;   // bytes per element read and written (0: one value per row)
    void (*run)(const void *in, void *out, int rows, int cols);
};

// The buffers every kernel shares: the input, the output, gamma, beta.
struct row_buffers {
    void *d_in, *d_out;
    float *d_gamma, *d_beta;
    void *d_w16, *d_b16, *d_wb16;   // exercise 16's weights, in the input's type: fp16 ones and zeros, bf16 ones
};
static row_buffers rb;

#define ROW_RUNNER(prefix, fn, call)                                                                     \
    +[](const void *in, void *out, int rows, int cols) { prefix##fn call; }
// Wrappers with one signature, for each prefix.
#define ROW_KERNELS(prefix, suffix)                                                                      \
    {"ex13 row_stats" suffix, "fp16", 2, 0, !prefix##row_stats_f16 ? nullptr : ROW_RUNNER(prefix, row_stats_f16, \
        ((const __half *)in, (float *)out, rows, cols))},                                               \
    {"ex13 row_stats" suffix, "bf16", 2, 0, !prefix##row_stats_bf16 ? nullptr : ROW_RUNNER(prefix, row_stats_bf16, \
        ((const __nv_bfloat16 *)in, (float *)out, rows, cols))},                                        \
    {"ex14 softmax two-pass" suffix, "float", 4, 4, !prefix##softmax_two_pass ? nullptr : ROW_RUNNER(prefix, \
        softmax_two_pass, ((const float *)in, (float *)out, rows, cols))},                              \
    {"ex14 softmax online" suffix, "float", 4, 4, !prefix##softmax_online ? nullptr : ROW_RUNNER(prefix,    \
        softmax_online, ((const float *)in, (float *)out, rows, cols))},                                \
    {"ex14 softmax online" suffix, "fp16", 2, 2, !prefix##softmax_online_f16 ? nullptr : ROW_RUNNER(prefix, \
        softmax_online_f16, ((const __half *)in, (__half *)out, rows, cols))},                          \
    {"ex15 layernorm two-pass" suffix, "fp16", 2, 2, !prefix##layernorm_two_pass ? nullptr : ROW_RUNNER(prefix, \
        layernorm_two_pass, ((const __half *)in, rb.d_gamma, rb.d_beta, (__half *)out, rows, cols, 1e-5f))}, \
    {"ex15 layernorm welford" suffix, "fp16", 2, 2, !prefix##layernorm_welford ? nullptr : ROW_RUNNER(prefix, \
        layernorm_welford, ((const __half *)in, rb.d_gamma, rb.d_beta, (__half *)out, rows, cols, 1e-5f))}, \
    {"ex15 rmsnorm" suffix, "bf16", 2, 2, !prefix##rmsnorm_bf16 ? nullptr : ROW_RUNNER(prefix, rmsnorm_bf16, \
        ((const __nv_bfloat16 *)in, rb.d_gamma, (__nv_bfloat16 *)out, rows, cols, 1e-5f))},                  \
    {"ex16 softmax" suffix, "float", 4, 4, !prefix##softmax_rows ? nullptr : ROW_RUNNER(prefix, softmax_rows, \
        ((const float *)in, (float *)out, rows, cols, 0))},                                              \
    {"ex16 softmax" suffix, "fp16", 2, 2, !prefix##softmax_rows_f16 ? nullptr : ROW_RUNNER(prefix, softmax_rows_f16, \
        ((const __half *)in, (__half *)out, rows, cols, 0))},                                            \
    {"ex16 layernorm" suffix, "fp16", 2, 2, !prefix##layernorm_rows_f16 ? nullptr : ROW_RUNNER(prefix,    \
        layernorm_rows_f16, ((const __half *)in, (const __half *)rb.d_w16, (const __half *)rb.d_b16, (__half *)out, \
        rows, cols, 1e-5f, 0))},                                                                         \
    {"ex16 rmsnorm" suffix, "bf16", 2, 2, !prefix##rmsnorm_rows_bf16 ? nullptr : ROW_RUNNER(prefix,       \
        rmsnorm_rows_bf16, ((const __nv_bfloat16 *)in, (const __nv_bfloat16 *)rb.d_wb16, (__nv_bfloat16 *)out, rows, \
        cols, 1e-5f, 0))},                                                                               \
    {"ex16 row_stats" suffix, "fp16", 2, 0, !prefix##row_stats_rows_f16 ? nullptr : ROW_RUNNER(prefix,    \
        row_stats_rows_f16, ((const __half *)in, (float *)out, rows, cols, 0))},                         \
    {"ex16 row_stats" suffix, "bf16", 2, 0, !prefix##row_stats_rows_bf16 ? nullptr : ROW_RUNNER(prefix,   \
        row_stats_rows_bf16, ((const __nv_bfloat16 *)in, (float *)out, rows, cols, 0))},

static float half_bits_to_float(uint16_t h, bool bf16)
{
    if (bf16) {
        uint32_t u = (uint32_t)h << 16;
        float f;
        memcpy(&f, &u, 4);
        return f;
    }
    return __half2float(__ushort_as_half(h));
}

// The input: values in [-4, 4), a whole number of 1/64ths, so that fp16 and bf16 hold them exactly (bf16 keeps 8
// bits: 4 - 1/64 needs 8). Value i is (k - 256) / 64 for k the top 9 bits of a linear congruential generator's
// state after i + 1 steps from kRowsSeed. The GPU writes the input itself, a stretch of values a thread, each
// thread's first state reached by jumping ahead; the check computes only the rows it checks, the same way. (The
// host wrote all 2^26 values of a speed line's shape and copied them over: about a second of each regrade.)
static constexpr unsigned kRowsSeed = 2024u;
__host__ __device__ static float input_value(unsigned state) { return (float)((int)(state >> 23) - 256) / 64.0f; }
// The input in the kernel's type: 4 (float), 2 (fp16) or 3 (bf16, a float's top 16 bits: exact here).
__global__ void fill_input(void *d, size_t n, int type)
{
    size_t i = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) * kFillStretch;
    if (i >= n) return;
    unsigned state = lcg_state(kRowsSeed, i);
    for (size_t end = i + kFillStretch < n ? i + kFillStretch : n; i < end; i++, state = lcg_next(state)) {
        float x = input_value(state);
        if (type == 4) ((float *)d)[i] = x;
        else if (type == 2) ((__half *)d)[i] = __float2half_rn(x);
        else ((uint16_t *)d)[i] = (uint16_t)(__float_as_uint(x) >> 16);
    }
}
static void fill_input_on_gpu(void *d, size_t n, const char *type)
{
    size_t threads = (n + kFillStretch - 1) / kFillStretch;
    fill_input<<<(unsigned)((threads + 255) / 256), 256>>>(d, n, !strcmp(type, "float") ? 4 : !strcmp(type, "fp16") ? 2 : 3);
    CHECK(cudaGetLastError());
}
// Values first .. first + count - 1 of the input, on the host.
static void input_values(size_t first, int count, float *x)
{
    unsigned state = lcg_state(kRowsSeed, first);
    for (int c = 0; c < count; c++, state = lcg_next(state)) x[c] = input_value(state);
}

// The outputs of one kernel on rows x cols of the input, checked against the same computation in double,
// with the bounds of the exercises' tests (L = cols / 32 + 12 roundings per value, u = 2^-24): the mean
// within L u mean|x|, the norm within (L / 2 + 2) u of it, softmax within (3.5 (8 + 8) + 6 L + 16) u of
// each output (values span 8) plus its own rounding, and each normalised value of LayerNorm and RMSNorm
// within 2^-7 (fp16 and bf16 outputs round by 2^-11 and 2^-8 of it). Returns "" when right, else what is
// wrong. A speed line's run (--speed) checks 256 rows spread over the shape and the last one: the kernel has
// just passed its tests, and the whole check of 65536 rows of 1024 in double (two exp a value for softmax)
// takes seconds of the host's time per kernel, which the learner waits for at every regrade.
static std::string check_rows(const row_kernel &k, int rows, int cols)
{
    // The rows checked: every one, or (--speed) every step-th and then the last.
    const int step = speed_only && rows > 256 ? rows / 256 : 1;
    auto next_row = [&](int r) { return r + step < rows || r == rows - 1 ? r + step : rows - 1; };
    // The outputs: all of them when every row is checked, else each checked row's as it comes (cols values,
    // or two floats for row statistics).
    size_t row_out = k.out_size ? (size_t)cols * k.out_size : 8;
    bool all = step == 1;
    std::vector<unsigned char> out(all ? rows * row_out : row_out);
    if (all) CHECK(cudaMemcpy(out.data(), rb.d_out, out.size(), cudaMemcpyDeviceToHost));
    const unsigned char *row_bytes = out.data();
    std::vector<float> xs(cols);
    bool half_out = k.out_size == 2, bf16 = !strcmp(k.type, "bf16");
    auto value = [&](size_t i) -> double {   // output i of the row being checked
        if (!half_out) return ((const float *)row_bytes)[i];
        return half_bits_to_float(((const uint16_t *)row_bytes)[i], bf16);
    };
    char why[160];
    for (int r = 0; r < rows; r = next_row(r)) {
        if (all)
            row_bytes = out.data() + (size_t)r * row_out;
        else
            CHECK(cudaMemcpy(out.data(), (const unsigned char *)rb.d_out + (size_t)r * row_out, row_out,
                             cudaMemcpyDeviceToHost));
        input_values((size_t)r * cols, cols, xs.data());
        const float *x = xs.data();
        double sum = 0, sq = 0, mx = -INFINITY;
        for (int c = 0; c < cols; c++) sum += x[c], sq += (double)x[c] * x[c], mx = std::max(mx, (double)x[c]);
        double mean = sum / cols, var = sq / cols - mean * mean;   // exact enough: values in [-4, 4)
        double u = 0x1p-24, adds = std::ceil(cols / 32.0) + 12, abs_mean = 0;
        for (int c = 0; c < cols; c++) abs_mean += std::fabs(x[c]) / cols;
        if (!k.out_size) {
            double got_mean = value(0), got_norm = value(1);
            if (!(std::fabs(got_mean - mean) <= adds * u * abs_mean + u * std::fabs(mean)) ||
                !(std::fabs(got_norm - std::sqrt(sq)) <= (adds / 2 + 2) * u * std::sqrt(sq))) {
                snprintf(why, sizeof why, "row %d: mean %.6g and norm %.6g, not %.6g and %.6g", r, got_mean,
                         got_norm, mean, std::sqrt(sq));
                return why;
            }
            continue;
        }
        double s = 0;
        for (int c = 0; c < cols; c++) s += std::exp(x[c] - mx);
        for (int c = 0; c < cols; c++) {
            double want, tol;
            if (strstr(k.name, "softmax")) {
                want = std::exp(x[c] - mx) / s;
                double computed = (3.5 * 16 + 6 * adds + 16) * u;
                tol = computed * want + (half_out ? 0x1p-11 * want * (1 + computed) + 0x1p-25 : u * want);
            } else {
                double z = strstr(k.name, "rmsnorm") ? x[c] / std::sqrt(sq / cols + 1e-5)
                                                     : (x[c] - mean) / std::sqrt(var + 1e-5);
                want = z;   // gamma 1, beta 0
                tol = 0x1p-7 * (1 + std::fabs(z));
            }
            double got = value(c);
            if (!(std::fabs(got - want) <= tol)) {
                snprintf(why, sizeof why, "row %d, column %d: %.6g, not %.6g", r, c, got, want);
                return why;
            }
        }
    }
    return "";
}

// Times every linked kernel at each shape (in --check mode: runs each once at small shapes and checks it).
static int bench_rows(flusher flush, FILE *csv)   // csv: rows.csv, for rows_torch.py
{
    std::vector<row_kernel> kernels = {ROW_KERNELS(ref_, "") ROW_KERNELS(my_, " (yours)")};
    if (std::none_of(kernels.begin(), kernels.end(), [](const row_kernel &k) { return k.run != nullptr; }))
        return 0;   // a speed run of a file with no row-wise kernel
    struct shape { int rows, cols; const char *what; };
    std::vector<shape> shapes;
    if (check_only)
        shapes = {{64, 1024, "rows of 1024"}, {5, 4099, "rows of 4099"}, {1000, 3, "rows of 3"}};
    else if (speed_only)
        shapes = {{65536, 1024, "a layer's activations: rows of 1024"}};
    else
        shapes = {{65536, 1024, "a layer's activations: rows of 1024"},
                  {8192, 8192, "rows of 8192"},
                  {256, 262144, "long rows of 2^18"},
                  {1 << 20, 64, "short rows of 64: one block per row idles most of its threads"},
                  {8192, 50257, "a vocabulary: rows of 50257, each starting off a 16-byte boundary"},
                  {16384, 4096, "rows of 4096"},
                  {32768, 128, "rows of 128"}};
    size_t max_n = 0;
    for (const shape &s : shapes) max_n = std::max(max_n, (size_t)s.rows * s.cols);
    CHECK(cudaMalloc(&rb.d_in, max_n * 4));
    CHECK(cudaMalloc(&rb.d_out, max_n * 4));
    int max_cols = 0;
    for (const shape &s : shapes) max_cols = std::max(max_cols, s.cols);
    std::vector<float> ones(max_cols, 1.0f), zeros(max_cols, 0.0f);
    CHECK(cudaMalloc(&rb.d_gamma, max_cols * 4));
    CHECK(cudaMalloc(&rb.d_beta, max_cols * 4));
    CHECK(cudaMemcpy(rb.d_gamma, ones.data(), max_cols * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(rb.d_beta, zeros.data(), max_cols * 4, cudaMemcpyHostToDevice));
    std::vector<uint16_t> f16_ones(max_cols, 0x3C00), bf16_ones(max_cols, 0x3F80), zeros16(max_cols, 0);
    for (void **w : {&rb.d_w16, &rb.d_b16, &rb.d_wb16}) CHECK(cudaMalloc(w, max_cols * 2));
    CHECK(cudaMemcpy(rb.d_w16, f16_ones.data(), max_cols * 2, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(rb.d_b16, zeros16.data(), max_cols * 2, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(rb.d_wb16, bf16_ones.data(), max_cols * 2, cudaMemcpyHostToDevice));
    void *d_copy = NULL;
    if (!check_only) CHECK(cudaMalloc(&d_copy, max_n * 4));

    int wrong = 0;
    for (const shape &s : shapes) {
        size_t n = (size_t)s.rows * s.cols;
        if (!check_only && !speed_only) {
            printf("\n%d rows x %d (%s).\n", s.rows, s.cols, s.what);
            printf("  %-34s %6s %11s %9s %7s %11s\n", "kernel", "type", "cold (us)", "GB/s", "% copy", "warm (us)");
        }
        const char *loaded = "";
        double copy_gbps[5] = {0, 0, 0, 0, 0};   // by element size
        for (const row_kernel &k : kernels) {
            if (!k.run) continue;
            // The input in the kernel's type; the copy of the same bytes, once per element size.
            if (strcmp(loaded, k.type)) {
                fill_input_on_gpu(rb.d_in, n, k.type);
                loaded = k.type;
            }
            if (!check_only && !copy_gbps[k.in_size]) {
                timing copy = time_it([&] { CHECK(cudaMemcpyAsync(d_copy, rb.d_in, n * k.in_size, cudaMemcpyDeviceToDevice)); },
                                      (float *)rb.d_out, NAN, flush);
                copy_gbps[k.in_size] = 2.0 * n * k.in_size / copy.cold_us / 1e3;
            }
            timing t = time_it([&] { k.run(rb.d_in, rb.d_out, s.rows, s.cols); }, (float *)rb.d_out, NAN, flush);
            std::string bad = check_rows(k, s.rows, s.cols);
            if (!bad.empty()) {
                wrong++;
                printf("  %-34s %6s wrong, %s\n", k.name, k.type, bad.c_str());
                continue;
            }
            if (check_only) continue;
            double bytes = (double)n * (k.in_size + k.out_size) + (k.out_size ? 0 : 8.0 * s.rows);
            double gbps = bytes / t.cold_us / 1e3;
            if (!speed_only)
                printf("  %-34s %6s %11.1f %9.0f %6.0f%% %11.1f\n", k.name, k.type, t.cold_us, gbps,
                       100 * gbps / copy_gbps[k.in_size], t.warm_us);
            if (csv) fprintf(csv, "%dx%d,%s,%s,%.2f,%.2f,%.1f,1\n", s.rows, s.cols, k.type, k.name, t.cold_us,
                             t.warm_us, gbps);
        }
        if (!check_only)
            for (int size : {2, 4})
                if (copy_gbps[size]) {
                    if (!speed_only)
                        printf("  %-34s %6s %11s %9.0f %6s\n", "copy (reference)", size == 2 ? "16-bit" : "float", "",
                               copy_gbps[size], "100%");
                    if (csv) fprintf(csv, "%dx%d,%s,copy (reference),%.2f,%.2f,%.1f,1\n", s.rows, s.cols,
                                     size == 2 ? "16-bit" : "float", 2.0 * n * size / copy_gbps[size] / 1e3, 0.0,
                                     copy_gbps[size]);
                }
    }
    CHECK(cudaFree(rb.d_in));
    CHECK(cudaFree(rb.d_out));
    CHECK(cudaFree(rb.d_gamma));
    CHECK(cudaFree(rb.d_beta));
    for (void *w : {rb.d_w16, rb.d_b16, rb.d_wb16}) CHECK(cudaFree(w));
    if (d_copy) CHECK(cudaFree(d_copy));
    return wrong;
}
