/* ranks.h - what the suites of Part IV (exercises 17 to 19) share: the devices a set of ranks runs on, the
 * values each rank starts with, the case of the declared space that says n against the ranks, and the checks
 * every all-reduce gets: the same bits on every rank, and its work on the caller's streams with no wait on
 * the host. Included by those suites after harness.h and their space table; a suite uses what it needs (the
 * functions are static inline, so an unused one costs no warning). */
#ifndef RANKS_H
#define RANKS_H

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define MAX_RANKS 4

/* What a call asked of the runtime (the emulator counts it; a GPU does not). */
typedef struct usage_counts {
    int known;
    emu_activity act;
} usage_counts;

static inline int device_count(void)
{
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) count = 0;
    cudaGetLastError();
    return count;
}

/* 1 when this machine has devices enough for ranks; else 0 (the caller moves on, or the test is not run). */
static inline int ring_fits(int ranks) { return ranks <= device_count(); }

static inline void need_ring(int ranks)
{
    if (ring_fits(ranks)) return;
    char why[300];
    snprintf(why, sizeof why, _("not run here: a ring of %d needs %d devices, and this machine has %d."), ranks, ranks,
             device_count());
    harness_not_run(why);
}

static inline int largest_ring(void)
{
    int count = device_count();
    return count < MAX_RANKS ? count : MAX_RANKS;
}

/* Values of every magnitude from 2^-10 to 2^10, of both signs: their sum in another order has other last bits. */
static inline void ring_values(float *h, size_t n, int rank, uint64_t salt)
{
    harness_random_floats(h, n, -1.0f, 1.0f, salt * 16 + (uint64_t)rank);
    for (size_t i = 0; i < n; i++) h[i] = ldexpf(h[i], (int)((i * 7 + (size_t)rank * 3) % 21) - 10);
}

/* The n of case k of the declared space (ranks-1, multiple-1, multiple, multiple+1 with multiple = ranks x
 * 1000, or a number). */
static inline size_t case_n(const harness_cover *c, size_t k, int ranks)
{
    const char *label = harness_case_label(c, k, "n");
    if (!strcmp(label, "ranks-1")) return (size_t)ranks - 1;
    if (!strncmp(label, "multiple", 8)) return (size_t)ranks * 1000 + (size_t)(label[8] == '+') - (size_t)(label[8] == '-');
    return (size_t)harness_case_number(c, k, "n");
}

/* The exact sum of element i over the ranks' inputs h_in[0..ranks), in double; *abs_sum gets the sum of their
 * magnitudes, for the rounding bound. */
static inline double ranks_element_sum(float *const *h_in, int ranks, size_t i, double *abs_sum)
{
    double s = 0, a = 0;
    for (int r = 0; r < ranks; r++) {
        s += (double)h_in[r][i];
        a += fabs((double)h_in[r][i]);
    }
    *abs_sum = a;
    return s;
}

/* Waits for the caller's streams only, rank by rank (what the learner's function left running ends first). */
static inline void ranks_sync(const int *devices, cudaStream_t const *streams, int ranks)
{
    for (int r = 0; r < ranks; r++) {
        CUDA_OK(cudaSetDevice(devices[r]));
        CUDA_OK(cudaStreamSynchronize(streams[r]));
    }
}

/* Fails the test when an element of out[r] differs in its bits from out[0]'s (what: the call; lesson_hint:
 * the lesson's hint about the order of additions, for make hint). */
static inline void expect_same_bits(float *const *out, int ranks, size_t n, const char *what, const char *hint,
                             int lesson_hint)
{
    for (int r = 1; r < ranks; r++)
        for (size_t i = 0; i < n; i++)
            if (memcmp(&out[r][i], &out[0][i], sizeof(float))) {
                harness_evidence("bug-model", "name=bits-differ hint=%d", lesson_hint);
                harness_fail(hint, _("%s: element %zu is %.9g on rank 0 and %.9g on rank %d. Both are within "
                                     "the rounding bound of the sum, but an all-reduce must give every rank "
                                     "the same bits: replicas of a model whose weights differ in the last "
                                     "bit drift apart."),
                             what, i, out[0][i], out[r][i], r);
            }
}

/* Fails the test when the call (what) put work on the default stream or made the host wait, as the emulator
 * counted it (u). */
static inline void expect_own_streams(const usage_counts *u, const char *what, const char *stream_hint, const char *wait_hint)
{
    uint64_t on_default = u->act.default_stream_launches + u->act.default_stream_copies;
    if (u->known && on_default > 0)
        harness_fail(stream_hint, _("%s put %" PRIu64 " of its kernels and copies on the default stream, which the "
                                    "caller's streams (made with cudaStreamNonBlocking) do not wait for."),
                     what, on_default);
    if (u->known && u->act.host_waits > 0) {
        char waits[32];
        harness_times(u->act.host_waits, waits, sizeof waits);
        harness_fail(wait_hint, _("%s made the host wait for a device %s: it should only enqueue work, and "
                                  "return while the devices run it."), what, waits);
    }
}

#endif
