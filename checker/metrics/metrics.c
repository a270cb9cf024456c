/* metrics.c - runs one exercise function once on the emulator, on a fixed input, and prints its counters
 * as one line of key=value pairs (see checker/metrics/metrics.sh, which builds it and reads the line).
 *
 * Built once per kernel file, linked with that file and the emulator:
 *   cc -DMETRICS_FN=reduce_v2 -DMETRICS_SHAPE=METRICS_PARTIALS -include checker/contracts/ex03.h -c metrics.c
 * METRICS_FN is the contract function to call; METRICS_SHAPE says how it is called:
 *   METRICS_PARTIALS  int fn(const int *d_in, int *d_out, int n, int block): one partial per block (v1-v6)
 *   METRICS_TOTAL     void fn(const int *d_in, int *d_out, int n): the total in d_out[0] (01, 08, 11)
 *   METRICS_FLOAT     void fn(const float *d_in, float *d_out, int n): a float total (09's max, 10)
 * and Part III's row-wise functions, on n values as rows of METRICS_COLS (1024) values:
 *   METRICS_ROWS16    void fn(const uint16_t *d_in, float *d_out, int rows, int cols): fp16 row statistics,
 *                     mean and norm per row (13)
 *   METRICS_SOFTMAX   void fn(const float *d_in, float *d_out, int rows, int cols): a softmax per row (14)
 *   METRICS_NORM16    void fn(const uint16_t *d_in, const float *gamma, const float *beta, uint16_t *d_out,
 *                     int rows, int cols, float eps): an fp16 LayerNorm per row (15)
 *   METRICS_ROWMAP    int fn(const float *d_in, float *d_out, int rows, int cols, int path): a softmax per row on
 *                     the path its dispatch chooses (16)
 * and the library's (12), the ring's (17), NCCL's (18) and the one-shot's (19), for `make show` only:
 *   METRICS_LIBRARY   int fn(const int *d_in, int n) (Thrust), then sum_cub(d_in, d_out, n, 0) (CUB)
 *   METRICS_RING      cudaError_t fn(float *const *d_bufs, float *const *d_scratch, const int *devices,
 *                     int ranks, size_t n, cudaStream_t const *streams): an all-reduce of n floats over a ring
 *                     of METRICS_RANKS emulated devices
 *   METRICS_ONESHOT   cudaError_t fn(const float *const *d_in, float *const *d_out, unsigned *const *d_flags,
 *                     const int *devices, int ranks, size_t n, cudaStream_t const *streams): an all-reduce of n
 *                     floats in one kernel per device, over METRICS_RANKS emulated devices with peer access
 *   METRICS_DDP       ncclResult_t fn(float *const *d_weights, float *const *d_grads, const float *const *d_acts,
 *                     size_t n, size_t bucket, float lr, ncclComm_t const *comms, cudaStream_t const *compute,
 *                     cudaStream_t const *comm, int ranks): one data-parallel step of n parameters on
 *                     METRICS_RANKS emulated devices, in two buckets (n / 2 + 1), over the emulator's NCCL
 *
 * Usage: metrics [n [block [cols]]]   (defaults: n = 2^20, block = 256, cols = METRICS_COLS; the input is
 * the same on every run)
 * Exit status: 0 and the line on stdout; 1 when the function failed, found something, or was wrong
 * (one sentence on stderr: the tests' report says more).
 * Under EMU_TRACE (`make show`, see checker/emu/emu_trace.c) the input and output are named d_in and d_out
 * in the trace, and the emulator's findings go to stderr, one record a line ("finding: kind=... at=..."). */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "../emu/emu.h"
#include "../i18n/i18n.h"

#include <cuda_runtime_api.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define METRICS_PARTIALS 1
#define METRICS_TOTAL 2
#define METRICS_FLOAT 3
#define METRICS_ROWS16 4
#define METRICS_SOFTMAX 5
#define METRICS_NORM16 6
#define METRICS_LIBRARY 7
#define METRICS_ROWMAP 8
#define METRICS_RING 9
#define METRICS_DDP 10
#define METRICS_ONESHOT 11
#define METRICS_RANKS 4
/* Part III's shapes: rows of cols values. */
#define METRICS_ROWWISE (METRICS_SHAPE >= METRICS_ROWS16 && METRICS_SHAPE <= METRICS_ROWMAP && \
                         METRICS_SHAPE != METRICS_LIBRARY)
#define METRICS_COLS 1024

#if !defined(METRICS_FN) || !defined(METRICS_SHAPE)
#error "build with -DMETRICS_FN=<contract function> -DMETRICS_SHAPE=<METRICS_PARTIALS|TOTAL|FLOAT>"
#endif

#define STR2(x) #x
#define STR(x) STR2(x)

/* The fixed input: small values (so no sum overflows), from a fixed-seed xorshift. */
static int value_at(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    *state = x;
    return (int)(x % 201) - 100;
}

/* The emulator's findings of this run, gathered here (each emu_records_take empties the emulator's list). */
static emu_record *findings;
static int nfindings;

static int take_findings(void)
{
    int n;
    emu_record *r = emu_records_take(&n);
    if (n) {
        findings = realloc(findings, (size_t)(nfindings + n) * sizeof *findings);
        if (!findings) abort();
        memcpy(findings + nfindings, r, (size_t)n * sizeof *r);
        nfindings += n;
    }
    free(r);
    return nfindings;
}

static int fail(const char *what)
{
    /* Under EMU_TRACE, the findings behind the failure first, one record a line (`make show` marks both
     * places of each in its picture and prints its words). */
    if (take_findings() && getenv("EMU_TRACE"))
        for (int i = 0; i < nfindings; i++) {
            char line[4096];
            emu_record_encode(&findings[i], EMU_ENCODE_ALL, line, sizeof line);
            fprintf(stderr, "%s\n", line);
        }
    fprintf(stderr, "metrics: %s(...) %s\n", STR(METRICS_FN), what);
    return 1;
}

/* Under EMU_TRACE: the buffer at p (bytes long) is called name in the trace (a guard of no bytes). */
static void name_buffer(const void *p, size_t bytes, const char *name, size_t elem)
{
    if (getenv("EMU_TRACE")) emu_mem_guard(p, bytes, name, elem);
}

#if METRICS_ROWWISE
/* float to fp16 bits, to nearest even (the values here are multiples of 1/8 below 13: exact). */
static uint16_t to_half(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    uint32_t s = (u >> 16) & 0x8000, e = (u >> 23) & 255, m = u & 0x7fffff;
    if (f == 0.0f) return (uint16_t)s;
    return (uint16_t)(s | (e - 112) << 10 | m >> 13);
}
static float from_half(uint16_t h)
{
    int e = (h >> 10) & 31, m = h & 1023;
    float v = e ? ldexpf((float)(m | 1024), e - 25) : ldexpf((float)m, -24);
    return (h & 0x8000) ? -v : v;
}

/* Runs the row-wise function on rows x cols values h_x and checks row 0's result (its mean for ROWS16,
 * that its outputs add up to 1 for SOFTMAX, that they average 0 for NORM16): 1 when right. */
static int rows_run(const float *h_x, int rows, int cols)
{
    size_t count = (size_t)rows * cols;
    double first = 0;
#if METRICS_SHAPE == METRICS_SOFTMAX || METRICS_SHAPE == METRICS_ROWMAP
    float *d_in, *d_out, *h_out = malloc((size_t)cols * sizeof *h_out);
    if (!h_out || cudaMalloc((void **)&d_in, count * 4) || cudaMalloc((void **)&d_out, count * 4) ||
        cudaMemcpy(d_in, h_x, count * 4, cudaMemcpyHostToDevice))
        return 0;
    name_buffer(d_in, count * 4, "d_in", 4);
    name_buffer(d_out, count * 4, "d_out", 4);
#if METRICS_SHAPE == METRICS_ROWMAP
    int path = METRICS_FN(d_in, d_out, rows, cols, 0);
    if (getenv("EMU_TRACE")) fprintf(stderr, "path: %d\n", path);   /* make show says which it drew */
    if (!path) return 0;
#else
    METRICS_FN(d_in, d_out, rows, cols);
#endif
    if (cudaGetLastError() || cudaDeviceSynchronize()) return 0;
    cudaMemcpy(h_out, d_out, (size_t)cols * 4, cudaMemcpyDeviceToHost);
    for (int c = 0; c < cols; c++) first += h_out[c];
    return fabs(first - 1) < 1e-3;
#else
    uint16_t *h_in = malloc(count * 2), *d_in;
    if (!h_in) return 0;
    for (size_t i = 0; i < count; i++) h_in[i] = to_half(h_x[i]);
    if (cudaMalloc((void **)&d_in, count * 2) || cudaMemcpy(d_in, h_in, count * 2, cudaMemcpyHostToDevice)) return 0;
    name_buffer(d_in, count * 2, "d_in", 2);
#if METRICS_SHAPE == METRICS_ROWS16
    float *d_out, got[2];
    if (cudaMalloc((void **)&d_out, 2 * (size_t)rows * 4)) return 0;
    name_buffer(d_out, 2 * (size_t)rows * 4, "d_out", 4);
    METRICS_FN(d_in, d_out, rows, cols);
    if (cudaGetLastError() || cudaDeviceSynchronize()) return 0;
    cudaMemcpy(got, d_out, sizeof got, cudaMemcpyDeviceToHost);
    for (int c = 0; c < cols; c++) first += from_half(h_in[c]);
    return fabs(got[0] - first / cols) < 1e-3;
#else
    float *d_gamma, *d_beta, *ones = malloc((size_t)cols * 4), *zeros = calloc((size_t)cols, 4);
    uint16_t *d_out, *h_out = malloc((size_t)cols * 2);
    if (!ones || !zeros || !h_out) return 0;
    for (int c = 0; c < cols; c++) ones[c] = 1.0f;
    if (cudaMalloc((void **)&d_gamma, (size_t)cols * 4) || cudaMalloc((void **)&d_beta, (size_t)cols * 4) ||
        cudaMalloc((void **)&d_out, count * 2) ||
        cudaMemcpy(d_gamma, ones, (size_t)cols * 4, cudaMemcpyHostToDevice) ||
        cudaMemcpy(d_beta, zeros, (size_t)cols * 4, cudaMemcpyHostToDevice))
        return 0;
    name_buffer(d_gamma, (size_t)cols * 4, "d_gamma", 4);
    name_buffer(d_beta, (size_t)cols * 4, "d_beta", 4);
    name_buffer(d_out, count * 2, "d_out", 2);
    METRICS_FN(d_in, d_gamma, d_beta, d_out, rows, cols, 1e-5f);
    if (cudaGetLastError() || cudaDeviceSynchronize()) return 0;
    cudaMemcpy(h_out, d_out, (size_t)cols * 2, cudaMemcpyDeviceToHost);
    for (int c = 0; c < cols; c++) first += from_half(h_out[c]);
    return fabs(first / cols) < 1e-2;
#endif
#endif
}
#endif

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1 << 20;
    int block = argc > 2 ? atoi(argv[2]) : 256;
    int cols = argc > 3 ? atoi(argv[3]) : METRICS_COLS;
    if (n < 1 || block < 1 || cols < 1) return fail("needs n >= 1, block >= 1 and cols >= 1");

    /* The harness reports findings itself; here one finding is enough to say "no numbers". */
    setenv("EMU_QUIET", "1", 0);
    /* The findings' words in the learner's language, for `make show` to print. */
    course_i18n_init();
    /* A kernel that never ends stops in seconds, as in the tests: 16 warp instructions per element. */
    char budget[32];
    snprintf(budget, sizeof budget, "%d", 16 * (n > (1 << 20) ? n : 1 << 20));
    setenv("EMU_BUDGET", budget, 0);
    uint64_t state = 0x9E3779B97F4A7C15ull;
    size_t out_count = (size_t)n / (size_t)block + 2;  /* room for one partial per block of the grid */
    int ok = 1;
    emu_metrics m;
    emu_metrics_take(&m); /* start from zero */

#if METRICS_ROWWISE
    /* Rows of cols values in [-12.5, 12.5]. */
    int rows = n / cols;
    if (rows < 1) return fail("needs n >= cols");
    size_t count = (size_t)rows * cols;
    float *h_x = malloc(count * sizeof *h_x);
    if (!h_x) return fail("could not get host memory");
    for (size_t i = 0; i < count; i++) h_x[i] = (float)value_at(&state) / 8.0f;
    if (!rows_run(h_x, rows, cols)) return fail("gave a wrong result");
    free(h_x);
    (void)out_count;
#elif METRICS_SHAPE == METRICS_LIBRARY
    /* Thrust's sum, then CUB's into d_out[0]: both checked against the sum of the input. */
    int *h_in = malloc((size_t)n * sizeof *h_in), *d_in, *d_out, got = 0;
    long long expected = 0;
    if (!h_in) return fail("could not get host memory");
    for (int i = 0; i < n; i++) h_in[i] = value_at(&state), expected += h_in[i];
    if (cudaMalloc((void **)&d_in, (size_t)n * sizeof *d_in) || cudaMalloc((void **)&d_out, sizeof *d_out) ||
        cudaMemcpy(d_in, h_in, (size_t)n * sizeof *d_in, cudaMemcpyHostToDevice))
        return fail("could not set up device memory");
    name_buffer(d_in, (size_t)n * sizeof *d_in, "d_in", sizeof *d_in);
    name_buffer(d_out, sizeof *d_out, "d_out", sizeof *d_out);
    ok = METRICS_FN(d_in, n) == expected;
    if (sum_cub(d_in, d_out, n, 0) || cudaDeviceSynchronize()) return fail("failed to launch or to run");
    cudaMemcpy(&got, d_out, sizeof got, cudaMemcpyDeviceToHost);
    ok = ok && got == expected;
    (void)out_count; (void)block;
#elif METRICS_SHAPE == METRICS_RING
    /* Eighths of small integers, so that every order of the ranks' additions gives the exact sum. */
    int devices[METRICS_RANKS];
    float *d_bufs[METRICS_RANKS], *d_scratch[METRICS_RANKS], *h = malloc((size_t)n * sizeof *h);
    double *expected = calloc((size_t)n, sizeof *expected);
    cudaStream_t streams[METRICS_RANKS];
    size_t chunk = ((size_t)n + METRICS_RANKS - 1) / METRICS_RANKS;
    if (!h || !expected) return fail("could not get host memory");
    for (int r = 0; r < METRICS_RANKS; r++) {
        char name[32];
        devices[r] = r;
        for (int i = 0; i < n; i++) h[i] = (float)value_at(&state) / 8.0f, expected[i] += h[i];
        if (cudaSetDevice(r) || cudaStreamCreate(&streams[r]) || cudaMalloc((void **)&d_bufs[r], (size_t)n * sizeof *h) ||
            cudaMalloc((void **)&d_scratch[r], chunk * sizeof *h) ||
            cudaMemcpy(d_bufs[r], h, (size_t)n * sizeof *h, cudaMemcpyHostToDevice))
            return fail("could not set up device memory");
        snprintf(name, sizeof name, "d_bufs[%d]", r);
        name_buffer(d_bufs[r], (size_t)n * sizeof *h, name, sizeof *h);
        snprintf(name, sizeof name, "d_scratch[%d]", r);
        name_buffer(d_scratch[r], chunk * sizeof *h, name, sizeof *h);
    }
    if (METRICS_FN(d_bufs, d_scratch, devices, METRICS_RANKS, (size_t)n, streams)) return fail("failed to launch or to run");
    for (int r = 0; r < METRICS_RANKS; r++) {
        if (cudaSetDevice(r) || cudaStreamSynchronize(streams[r]) ||
            cudaMemcpy(h, d_bufs[r], (size_t)n * sizeof *h, cudaMemcpyDeviceToHost))
            return fail("failed to launch or to run");
        for (int i = 0; i < n; i++) ok = ok && h[i] == (float)expected[i];
    }
    free(h);
    free(expected);
    (void)out_count; (void)block;
#elif METRICS_SHAPE == METRICS_ONESHOT
    /* Eighths of small integers, as for the ring: every order of the additions gives the exact sum. */
    int devices[METRICS_RANKS];
    const float *d_in[METRICS_RANKS];
    float *d_out[METRICS_RANKS], *h = malloc((size_t)n * sizeof *h);
    unsigned *d_flags[METRICS_RANKS];
    double *expected = calloc((size_t)n, sizeof *expected);
    cudaStream_t streams[METRICS_RANKS];
    const size_t flag_bytes = ALLREDUCE_FLAG_WORDS * sizeof(unsigned);
    if (!h || !expected) return fail("could not get host memory");
    for (int r = 0; r < METRICS_RANKS; r++) {
        char name[32];
        float *in;
        devices[r] = r;
        for (int i = 0; i < n; i++) h[i] = (float)value_at(&state) / 8.0f, expected[i] += h[i];
        if (cudaSetDevice(r) || cudaStreamCreate(&streams[r]) || cudaMalloc((void **)&in, (size_t)n * sizeof *h) ||
            cudaMalloc((void **)&d_out[r], (size_t)n * sizeof *h) || cudaMalloc((void **)&d_flags[r], flag_bytes) ||
            cudaMemcpy(in, h, (size_t)n * sizeof *h, cudaMemcpyHostToDevice) || cudaMemset(d_flags[r], 0, flag_bytes))
            return fail("could not set up device memory");
        for (int q = 0; q < METRICS_RANKS; q++)
            if (q != r && cudaDeviceEnablePeerAccess(q, 0)) return fail("could not set up device memory");
        d_in[r] = in;
        snprintf(name, sizeof name, "d_in[%d]", r);
        name_buffer(in, (size_t)n * sizeof *h, name, sizeof *h);
        snprintf(name, sizeof name, "d_out[%d]", r);
        name_buffer(d_out[r], (size_t)n * sizeof *h, name, sizeof *h);
    }
    if (METRICS_FN(d_in, d_out, d_flags, devices, METRICS_RANKS, (size_t)n, streams)) return fail("failed to launch or to run");
    for (int r = 0; r < METRICS_RANKS; r++) {
        if (cudaSetDevice(r) || cudaStreamSynchronize(streams[r]) ||
            cudaMemcpy(h, d_out[r], (size_t)n * sizeof *h, cudaMemcpyDeviceToHost))
            return fail("failed to launch or to run");
        for (int i = 0; i < n; i++) ok = ok && h[i] == (float)expected[i];
    }
    free(h);
    free(expected);
#elif METRICS_SHAPE == METRICS_DDP
    /* Weights and activations in eighths of small integers and lr = 1/2: every product, the sum of the ranks'
     * gradients in any order, its quarter and the update are exact, the same on every rank. */
    int devices[METRICS_RANKS];
    float *d_w[METRICS_RANKS], *d_g[METRICS_RANKS], *d_a[METRICS_RANKS];
    float *w = malloc((size_t)n * sizeof *w), *h = malloc((size_t)n * sizeof *h);
    double *grad = calloc((size_t)n, sizeof *grad);
    cudaStream_t compute[METRICS_RANKS], comm[METRICS_RANKS];
    ncclComm_t comms[METRICS_RANKS];
    if (!w || !h || !grad) return fail("could not get host memory");
    for (int i = 0; i < n; i++) w[i] = (float)value_at(&state) / 8.0f;
    for (int r = 0; r < METRICS_RANKS; r++) {
        char name[32];
        devices[r] = r;
        for (int i = 0; i < n; i++) h[i] = (float)value_at(&state) / 8.0f, grad[i] += (double)h[i] * w[i] / METRICS_RANKS;
        if (cudaSetDevice(r) || cudaStreamCreate(&compute[r]) || cudaStreamCreate(&comm[r]) ||
            cudaMalloc((void **)&d_w[r], (size_t)n * sizeof *h) || cudaMalloc((void **)&d_g[r], (size_t)n * sizeof *h) ||
            cudaMalloc((void **)&d_a[r], (size_t)n * sizeof *h) ||
            cudaMemcpy(d_w[r], w, (size_t)n * sizeof *h, cudaMemcpyHostToDevice) ||
            cudaMemcpy(d_a[r], h, (size_t)n * sizeof *h, cudaMemcpyHostToDevice))
            return fail("could not set up device memory");
        snprintf(name, sizeof name, "d_grads[%d]", r);
        name_buffer(d_g[r], (size_t)n * sizeof *h, name, sizeof *h);
        snprintf(name, sizeof name, "d_weights[%d]", r);
        name_buffer(d_w[r], (size_t)n * sizeof *h, name, sizeof *h);
        snprintf(name, sizeof name, "d_acts[%d]", r);
        name_buffer(d_a[r], (size_t)n * sizeof *h, name, sizeof *h);
    }
    if (ncclCommInitAll(comms, METRICS_RANKS, devices) != ncclSuccess) return fail("could not make communicators");
    if (METRICS_FN(d_w, d_g, (const float *const *)d_a, (size_t)n, (size_t)n / 2 + 1, 0.5f, comms, compute, comm,
                   METRICS_RANKS))
        return fail("failed to launch or to run");
    for (int r = 0; r < METRICS_RANKS; r++) {
        if (cudaSetDevice(r) || cudaStreamSynchronize(compute[r]) ||
            cudaMemcpy(h, d_w[r], (size_t)n * sizeof *h, cudaMemcpyDeviceToHost))
            return fail("failed to launch or to run");
        for (int i = 0; i < n; i++) ok = ok && h[i] == (float)(w[i] - 0.5 * grad[i]);
        ncclCommDestroy(comms[r]);
    }
    free(w);
    free(h);
    free(grad);
    (void)out_count; (void)block;
#elif METRICS_SHAPE == METRICS_FLOAT
    float *h_in = malloc((size_t)n * sizeof *h_in), *d_in, *d_out, got;
    if (!h_in) return fail("could not get host memory");
    for (int i = 0; i < n; i++) h_in[i] = (float)value_at(&state) / 8.0f;
    if (cudaMalloc((void **)&d_in, (size_t)n * sizeof *d_in) || cudaMalloc((void **)&d_out, out_count * sizeof *d_out) ||
        cudaMemcpy(d_in, h_in, (size_t)n * sizeof *d_in, cudaMemcpyHostToDevice))
        return fail("could not set up device memory");
    name_buffer(d_in, (size_t)n * sizeof *d_in, "d_in", sizeof *d_in);
    name_buffer(d_out, out_count * sizeof *d_out, "d_out", sizeof *d_out);
    METRICS_FN(d_in, d_out, n);
    if (cudaGetLastError() || cudaDeviceSynchronize()) return fail("failed to launch or to run");
    cudaMemcpy(&got, d_out, sizeof got, cudaMemcpyDeviceToHost);
    double max = h_in[0], sum = 0;
    for (int i = 0; i < n; i++) sum += h_in[i], max = h_in[i] > max ? h_in[i] : max;
    ok = got == (float)max || fabs(got - sum) <= 1e-3 * (fabs(sum) + 1); /* a max, or a sum */
#else
    int *h_in = malloc((size_t)n * sizeof *h_in), *h_out = malloc(out_count * sizeof *h_out), *d_in, *d_out;
    if (!h_in || !h_out) return fail("could not get host memory");
    long long expected = 0, got = 0;
    for (int i = 0; i < n; i++) h_in[i] = value_at(&state), expected += h_in[i];
    if (cudaMalloc((void **)&d_in, (size_t)n * sizeof *d_in) || cudaMalloc((void **)&d_out, out_count * sizeof *d_out) ||
        cudaMemcpy(d_in, h_in, (size_t)n * sizeof *d_in, cudaMemcpyHostToDevice) ||
        cudaMemset(d_out, 0, out_count * sizeof *d_out))
        return fail("could not set up device memory");
    name_buffer(d_in, (size_t)n * sizeof *d_in, "d_in", sizeof *d_in);
    name_buffer(d_out, out_count * sizeof *d_out, "d_out", sizeof *d_out);
#if METRICS_SHAPE == METRICS_PARTIALS
    int grid = METRICS_FN(d_in, d_out, n, block);
    if (grid < 1 || (size_t)grid > out_count) return fail("returned a grid outside [1, n / block + 2]");
#else
    int grid = 1;
    METRICS_FN(d_in, d_out, n);
#endif
    if (cudaGetLastError() || cudaDeviceSynchronize()) return fail("failed to launch or to run");
    cudaMemcpy(h_out, d_out, (size_t)grid * sizeof *h_out, cudaMemcpyDeviceToHost);
    for (int b = 0; b < grid; b++) got += h_out[b];
    ok = got == expected;
#endif

    if (take_findings() > 0) return fail("ran, but the emulator found a bug in it");
    if (!ok) return fail("gave a wrong result");
    emu_metrics_take(&m);
    if (m.blocks == 0) return fail("launched no kernel");

    /* Per block: barriers are counted once per warp, so a block's __syncthreads() count is divided by its
     * warps. threads_per_block is the last launch's (a second pass may use another). */
    double warps = (double)((m.threads_per_block + 31) / 32);
    printf("n=%d block=%d", n, block);
#if METRICS_ROWWISE
    printf(" cols=%d", cols);
#endif
    printf(" warp_instructions=%llu thread_instructions=%llu divergent_branches=%llu",
           (unsigned long long)m.warp_instructions, (unsigned long long)m.thread_instructions,
           (unsigned long long)m.divergent_branches);
    printf(" shared_loads=%llu shared_stores=%llu bank_conflicts=%llu",
           (unsigned long long)m.shared_load_instructions, (unsigned long long)m.shared_store_instructions,
           (unsigned long long)(m.shared_load_bank_conflicts + m.shared_store_bank_conflicts));
    printf(" load_requests=%llu load_sectors=%llu store_requests=%llu store_sectors=%llu",
           (unsigned long long)m.global_load_requests, (unsigned long long)m.global_load_sectors,
           (unsigned long long)m.global_store_requests, (unsigned long long)m.global_store_sectors);
    printf(" atomics=%llu barriers=%llu blocks=%llu threads_per_block=%llu",
           (unsigned long long)(m.global_atomics + m.shared_atomics), (unsigned long long)m.barriers,
           (unsigned long long)m.blocks, (unsigned long long)m.threads_per_block);
    printf(" active_lanes=%.1f barriers_per_block=%.1f sectors_per_request=%.1f",
           m.warp_instructions ? (double)m.thread_instructions / (double)m.warp_instructions : 0.0,
           (double)m.barriers / (double)m.blocks / warps,
           m.global_load_requests ? (double)m.global_load_sectors / (double)m.global_load_requests : 0.0);
    /* what the loads asked for (cp.async's copies too), and other blocks' shared memory read (a cluster's) */
    printf(" read_bytes=%llu async_sectors=%llu dsmem_loads=%llu", (unsigned long long)m.global_read_bytes,
           (unsigned long long)m.global_async_sectors, (unsigned long long)m.dsmem_load_requests);
#if METRICS_ROWWISE
    /* the warps launched per row: several rows share a warp below 1 (the last launch's blocks) */
    printf(" warps_per_row=%.3g", (double)m.blocks * warps / (double)(n / cols));
#endif
    printf("\n");
    return 0;
}
