// same_answers.cu - runs the reference solutions and the extra kernels of kernels/*.cu on fixed inputs and
// writes every output buffer as hex, one line per case (see cases.h), so that compare.sh can check that
// the emulator answers exactly what the GPU answers.
//
// Built twice from the same objects' sources: for the GPU (CUDA runtime) and for the emulator (-cudart
// none, linked against libcudaemu.a). Usage:
//   same_answers ANSWERS_FILE      run every case, write the answers
//   same_answers --device          print "sms=N threads_per_sm=N name=..." and exit
// The solutions are linked in by compare.sh; one that is missing (not written yet, or not compiling) is a
// null weak symbol here and its cases are recorded as MISSING.

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <vector>
#include "cases.h"

// ---- The solutions' contracts (checker/contracts/exNN.h), declared weak --------------------------------

extern "C" {
void reduce_atomic(const int *d_in, int *d_out, int n) __attribute__((weak));
int reduce_v1(const int *d_in, int *d_out, int n, int block) __attribute__((weak));
int reduce_v2(const int *d_in, int *d_out, int n, int block) __attribute__((weak));
int reduce_v2_strided(const int *d_in, int *d_out, int n, int block) __attribute__((weak));
int reduce_v3(const int *d_in, int *d_out, int n, int block) __attribute__((weak));
int reduce_v4(const int *d_in, int *d_out, int n, int block) __attribute__((weak));
int reduce_v5(const int *d_in, int *d_out, int n, int block) __attribute__((weak));
int reduce_v6(const int *d_in, int *d_out, int n, int block) __attribute__((weak));
void reduce_multi_level(const int *d_in, int *d_out, int n) __attribute__((weak));
void reduce_max(const float *d_in, float *d_out, int n) __attribute__((weak));
void reduce_min(const float *d_in, float *d_out, int n) __attribute__((weak));
void dot_product(const float *d_a, const float *d_b, float *d_out, int n) __attribute__((weak));
void sum_compensated(const float *d_in, float *d_out, int n) __attribute__((weak));
void reduce_fastest(const int *d_in, int *d_out, int n) __attribute__((weak));
}

// ---- The recorder --------------------------------------------------------------------------------------

static FILE *answers;

void record(const char *name, const char *kind, int tol, const void *data, size_t count)
{
    fprintf(answers, "%s %s %d %zu", name, kind, tol, count);
    int wide = kind[1] == '6';  // u64, f64
    for (size_t i = 0; i < count; i++) {
        if (wide) {
            uint64_t v;
            memcpy(&v, (const char *)data + 8 * i, 8);
            fprintf(answers, " %016llx", (unsigned long long)v);
        } else {
            uint32_t v;
            memcpy(&v, (const char *)data + 4 * i, 4);
            fprintf(answers, " %08x", v);
        }
    }
    fputc('\n', answers);
    fflush(answers);
}

void record_error(const char *name, const char *what)
{
    fprintf(answers, "%s ERROR 0 0 ", name);
    for (const char *c = what; *c; c++)
        fputc(*c == '\n' ? ' ' : *c, answers);
    fputc('\n', answers);
    fflush(answers);
    // Start the next case clean: a sticky error (an illegal instruction...) needs a new context, on a
    // GPU as on the emulator; a plain one is cleared by reading it.
    if (cudaDeviceSynchronize() != cudaSuccess)
        cudaDeviceReset();
    cudaGetLastError();
}

void record_missing(const char *name, const char *function)
{
    fprintf(answers, "%s MISSING 0 0 %s\n", name, function);
}

// ---- Inputs and buffers --------------------------------------------------------------------------------

void fill_special_floats(float *h, int n, uint64_t seed)
{
    static const uint32_t specials[] = {
        0x00000000u, 0x80000000u, 0x00000001u, 0x80000001u, 0x007fffffu, 0x00800000u, 0x3f800000u,
        0xbf800000u, 0x7f7fffffu, 0xff7fffffu, 0x7f800000u, 0xff800000u, 0x7fffffffu, 0x3effffffu,
        0x3f000000u, 0x4b000000u, 0x4b000001u, 0xcb7fffffu, 0x3fc00000u, 0x40200000u, 0xbfc00000u,
        0x4f000000u, 0xcf000000u, 0x5f000000u, 0x33800000u, 0x34000000u,
    };
    const int ns = (int)(sizeof specials / sizeof specials[0]);
    uint64_t s = seed;
    for (int i = 0; i < n; i++) {
        if (i < ns) {
            h[i] = f32_from_bits(specials[i]);
            continue;
        }
        uint32_t r = rng_u32(&s);
        // Every fourth value: an exponent near 0 (values about 2^-8 to 2^8), where most arithmetic lives.
        if (i % 4 == 0)
            r = (r & 0x807fffffu) | ((uint32_t)(119 + (r >> 23) % 17) << 23);
        if ((r & 0x7f800000u) == 0x7f800000u)  // random NaNs and infs only through the specials
            r &= 0xbfffffffu;
        h[i] = f32_from_bits(r);
    }
}

void fill_special_doubles(double *h, int n, uint64_t seed)
{
    static const uint64_t specials[] = {
        0x0000000000000000ull, 0x8000000000000000ull, 0x0000000000000001ull, 0x000fffffffffffffull,
        0x0010000000000000ull, 0x3ff0000000000000ull, 0xbff0000000000000ull, 0x7fefffffffffffffull,
        0x7ff0000000000000ull, 0xfff0000000000000ull, 0x7fffffffffffffffull, 0x3fe0000000000000ull,
        0x4330000000000000ull, 0x4330000000000001ull, 0x41e0000000000000ull, 0xc1e0000000000000ull,
        0x36a0000000000000ull, 0x47efffffe0000000ull, 0x47efffff00000000ull, 0x3810000000000000ull,
    };
    const int ns = (int)(sizeof specials / sizeof specials[0]);
    uint64_t s = seed;
    for (int i = 0; i < n; i++) {
        if (i < ns) {
            h[i] = f64_from_bits(specials[i]);
            continue;
        }
        uint64_t r = rng_next(&s);
        if (i % 4 == 0)
            r = (r & 0x800fffffffffffffull) | ((uint64_t)(1015 + (r >> 52) % 17) << 52);
        if ((r & 0x7ff0000000000000ull) == 0x7ff0000000000000ull)
            r &= 0xbfffffffffffffffull;
        h[i] = f64_from_bits(r);
    }
}

void *dev_copy(const void *h, size_t bytes)
{
    void *d = NULL;
    if (cudaMalloc(&d, bytes ? bytes : 4) != cudaSuccess)
        return NULL;
    if (bytes)
        cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice);
    return d;
}

void *dev_poisoned(size_t bytes)
{
    void *d = NULL;
    if (cudaMalloc(&d, bytes ? bytes : 4) != cudaSuccess)
        return NULL;
    cudaMemset(d, 0xAB, bytes ? bytes : 4);
    return d;
}

int dev_take(void *h, void *d, size_t bytes)
{
    cudaError_t err = cudaMemcpy(h, d, bytes, cudaMemcpyDeviceToHost);
    cudaFree(d);
    return err == cudaSuccess;
}

// ---- The solutions -------------------------------------------------------------------------------------

typedef int (*partials_fn)(const int *, int *, int, int);
typedef void (*total_fn)(const int *, int *, int);

static std::vector<int> random_ints(int n, uint64_t seed, int lo, int hi)
{
    std::vector<int> h(n > 0 ? n : 1);
    uint64_t s = seed;
    for (int i = 0; i < n; i++)
        h[i] = rng_int(&s, lo, hi);
    return h;
}

// A solution that writes one partial sum per block: every partial, the grid, and 4 guard words after.
static void case_partials(const char *version, partials_fn f, int n, int block)
{
    char name[128];
    snprintf(name, sizeof name, "solution:%s(n=%d,block=%d)", version, n, block);
    if (!f) {
        record_missing(name, version);
        return;
    }
    std::vector<int> h_in = random_ints(n, 1000 + n + block, -1000, 1000);
    int max_grid = (n + block - 1) / block + 1;
    int *d_in = (int *)dev_copy(h_in.data(), n * sizeof(int));
    int *d_out = (int *)dev_poisoned((max_grid + 4) * sizeof(int));
    if (!d_in || !d_out) {
        record_error(name, "cudaMalloc failed");
        return;
    }
    int grid = f(d_in, d_out, n, block);
    CK_LAUNCH(name);
    if (grid < 0 || grid > max_grid) {
        record_error(name, "the launcher returned a grid out of range");
        return;
    }
    std::vector<int> h_out(grid + 4);
    cudaMemcpy(h_out.data(), d_out, (grid + 4) * sizeof(int), cudaMemcpyDeviceToHost);
    std::vector<int> h_back(n > 0 ? n : 1);
    cudaMemcpy(h_back.data(), d_in, n * sizeof(int), cudaMemcpyDeviceToHost);
    cudaFree(d_in);
    cudaFree(d_out);
    record(name, "u32", 0, h_out.data(), h_out.size());
    long long sum = 0;
    for (int g = 0; g < grid; g++)
        sum += h_out[g];
    char total_name[160];
    snprintf(total_name, sizeof total_name, "%s.total", name);
    record(total_name, "u64", 0, &sum, 1);
}

// A solution that leaves one int in d_out[0]: that int and 4 guard words after it.
static void case_total(const char *version, total_fn f, int n, int offset)
{
    char name[128];
    snprintf(name, sizeof name, "solution:%s(n=%d%s)", version, n, offset ? ",misaligned" : "");
    if (!f) {
        record_missing(name, version);
        return;
    }
    std::vector<int> h_in = random_ints(n + offset, 2000 + n, -1000, 1000);
    int *d_in = (int *)dev_copy(h_in.data(), (n + offset) * sizeof(int));
    int *d_out = (int *)dev_poisoned(5 * sizeof(int));
    if (!d_in || !d_out) {
        record_error(name, "cudaMalloc failed");
        return;
    }
    f(d_in + offset, d_out, n);
    CK_LAUNCH(name);
    int h_out[5];
    cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost);
    cudaFree(d_in);
    cudaFree(d_out);
    record(name, "u32", 0, h_out, 5);
}

typedef void (*float_fn)(const float *, float *, int);

// Max, min or a compensated sum over floats: the one result and 2 guard words.
static void case_float_total(const char *version, float_fn f, int n, int specials, int tol)
{
    char name[128];
    snprintf(name, sizeof name, "solution:%s(n=%d%s)", version, n, specials ? ",specials" : "");
    if (!f) {
        record_missing(name, version);
        return;
    }
    std::vector<float> h_in(n > 0 ? n : 1);
    if (specials) {
        fill_special_floats(h_in.data(), n, 3000 + n);
    } else {
        uint64_t s = 3100 + n;  // values of mixed sign and magnitude: the order of additions shows
        for (int i = 0; i < n; i++)
            h_in[i] = ldexpf((float)rng_int(&s, -(1 << 23), 1 << 23), rng_int(&s, -30, 0));
    }
    float *d_in = (float *)dev_copy(h_in.data(), n * sizeof(float));
    float *d_out = (float *)dev_poisoned(3 * sizeof(float));
    if (!d_in || !d_out) {
        record_error(name, "cudaMalloc failed");
        return;
    }
    f(d_in, d_out, n);
    CK_LAUNCH(name);
    float h_out[3];
    cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost);
    cudaFree(d_in);
    cudaFree(d_out);
    record(name, "f32", tol, h_out, 3);
}

// The dot product: positive factors, so no cancellation; contraction-sensitive (a * b + acc may be one
// fma on the GPU), one mul+add per element a thread adds, each allowed one ulp.
static void case_dot(int n)
{
    char name[128];
    snprintf(name, sizeof name, "solution:dot_product(n=%d)", n);
    if (!dot_product) {
        record_missing(name, "dot_product");
        return;
    }
    std::vector<float> h_a(n > 0 ? n : 1), h_b(n > 0 ? n : 1);
    uint64_t s = 4000 + n;
    for (int i = 0; i < n; i++) {
        h_a[i] = 1.0f + (float)(rng_u32(&s) >> 8) * 0x1p-24f;
        h_b[i] = 1.0f + (float)(rng_u32(&s) >> 8) * 0x1p-24f;
    }
    float *d_a = (float *)dev_copy(h_a.data(), n * sizeof(float));
    float *d_b = (float *)dev_copy(h_b.data(), n * sizeof(float));
    float *d_out = (float *)dev_poisoned(3 * sizeof(float));
    if (!d_a || !d_b || !d_out) {
        record_error(name, "cudaMalloc failed");
        return;
    }
    dot_product(d_a, d_b, d_out, n);
    CK_LAUNCH(name);
    float h_out[3];
    cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost);
    cudaFree(d_a);
    cudaFree(d_b);
    cudaFree(d_out);
    int per_thread = (n + 256 * 1024 - 1) / (256 * 1024);   // ex09: BLOCK 256, at most MAX_BLOCKS 1024
    record(name, "f32", per_thread > 0 ? per_thread : 1, h_out, 3);
}

static void run_solution_cases(void)
{
    case_total("reduce_atomic", reduce_atomic, 1, 0);
    case_total("reduce_atomic", reduce_atomic, 100003, 0);

    const int sizes[] = {1, 257, 100003};
    for (int n : sizes) {
        case_partials("reduce_v1", reduce_v1, n, 256);
        case_partials("reduce_v2_strided", reduce_v2_strided, n, 256);
        case_partials("reduce_v2", reduce_v2, n, 256);
        case_partials("reduce_v3", reduce_v3, n, 256);
        case_partials("reduce_v4", reduce_v4, n, 256);
        case_partials("reduce_v5", reduce_v5, n, 256);
        case_partials("reduce_v6", reduce_v6, n, 256);
    }
    case_partials("reduce_v1", reduce_v1, 65537, 1024);
    case_partials("reduce_v4", reduce_v4, 65537, 64);
    case_partials("reduce_v5", reduce_v5, 65537, 32);
    case_partials("reduce_v5", reduce_v5, 65537, 1024);
    case_partials("reduce_v6", reduce_v6, 1 << 20, 128);

    case_total("reduce_multi_level", reduce_multi_level, 0, 0);
    case_total("reduce_multi_level", reduce_multi_level, 1, 0);
    case_total("reduce_multi_level", reduce_multi_level, 1000003, 0);
    case_total("reduce_fastest", reduce_fastest, 0, 0);
    case_total("reduce_fastest", reduce_fastest, 7, 1);
    case_total("reduce_fastest", reduce_fastest, 1000003, 1);
    case_total("reduce_fastest", reduce_fastest, 1 << 20, 0);

    case_float_total("reduce_max", reduce_max, 0, 0, 0);
    case_float_total("reduce_max", reduce_max, 100003, 0, 0);
    case_float_total("reduce_max", reduce_max, 4099, 1, 0);
    case_float_total("reduce_min", reduce_min, 0, 0, 0);
    case_float_total("reduce_min", reduce_min, 100003, 0, 0);
    case_float_total("reduce_min", reduce_min, 4099, 1, 0);
    case_dot(100003);
    case_dot(1000003);
    case_float_total("sum_compensated", sum_compensated, 0, 0, 0);
    case_float_total("sum_compensated", sum_compensated, 100003, 0, 0);
    case_float_total("sum_compensated", sum_compensated, 1000003, 0, 0);
}

// ---- main ----------------------------------------------------------------------------------------------

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--device") == 0) {
        int sms = 0, threads = 0;
        cudaDeviceProp prop;
        if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess) {
            fprintf(stderr, "same_answers: no CUDA device\n");
            return 1;
        }
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
        cudaDeviceGetAttribute(&threads, cudaDevAttrMaxThreadsPerMultiProcessor, 0);
        printf("sms=%d threads_per_sm=%d name=%s\n", sms, threads, prop.name);
        return 0;
    }
    if (argc != 2) {
        fprintf(stderr, "usage: %s ANSWERS_FILE | --device\n", argv[0]);
        return 2;
    }
    answers = fopen(argv[1], "w");
    if (!answers) {
        perror(argv[1]);
        return 2;
    }
    const char *only = getenv("ONLY");   // ONLY=solutions,float,... runs only those groups
    struct { const char *group; void (*run)(void); } groups[] = {
        {"solutions", run_solution_cases}, {"float", run_float_cases}, {"int", run_int_cases},
        {"warp", run_warp_cases}, {"warp_partial", run_warp_partial_cases},
        {"atomic", run_atomic_cases}, {"printf", run_printf_cases},
        {"library", run_library_cases},
        {"half", run_half_cases},
        {"cluster", run_cluster_cases}, {"coop", run_coop_cases}, {"async", run_async_cases},
    };
    for (auto &g : groups) {
        if (only && *only && !strstr(only, g.group))
            continue;
        g.run();
        fflush(stdout);
    }
    fclose(answers);
    return 0;
}
