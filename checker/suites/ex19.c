/* ex19.c - hidden tests of exercise 19: all-reduces of small messages in one kernel per device, one-shot and
 * two-shot. Every rank must end with the sum, within the rounding of ranks - 1 additions, and with the same
 * bits as every other rank; for any n (0, fewer than the ranks, not a multiple of them), rings of 1 to 4
 * devices, and calls repeated back to back with new inputs, so that the flags are used again. On the
 * emulator the kernels of all ranks run together, and what the flags order is checked (no rank reads a
 * peer's buffer before the peer published it, none overwrites one still read: the emulator's findings), as
 * is where the work runs (the caller's streams, and no wait on the host). */
#include "../harness/harness.h"
#include "../contracts/ex19.h"
#define HARNESS_SPACE_FILE "../spaces/ex19.def"
#include "../harness/harness_space_table.h"
#include "ranks.h"

#include <stdlib.h>

#define CALLS 3   /* the calls of the repeated test */

typedef cudaError_t (*allreduce_fn)(const float *const *, float *const *, unsigned *const *, const int *, int,
                                    size_t, cudaStream_t const *);

static const char SUM_HINT[] = N_("Does every rank add every rank's element i, its own included, after the "
                                  "meeting that says the inputs are in place?");
static const char NOTHING_HINT[] = N_("Is the kernel launched on every rank, and does each thread write its "
                                      "elements of the rank's output?");
static const char GATHER_HINT[] = N_("In the all-gather, which rank's output holds chunk c complete: the owner's "
                                     "(d_out of rank c) or this rank's own, which nobody has written yet?");
static const char BITS_HINT[] = N_("Do all ranks add the values in the same order (rank 0, 1, 2, ...)? A rank "
                                   "that starts from its own value gets other last bits.");
static const char GUARD_HINT[] = N_("Does every loop stop at n (and the two-shot chunks at the end of their "
                                    "chunk, the last one shorter or empty)?");
static const char STREAM_HINT[] = N_("Is every kernel launched on streams[r] of its rank? The default stream "
                                     "(0, or no stream) orders nothing with the caller's streams.");
static const char WAIT_HINT[] = N_("Which call makes the host wait? The function only launches the kernels; "
                                   "the kernels wait for each other through the flags, on the devices.");
static const char ERROR_HINT[] = N_("Which CUDA call failed? Check each call's cudaError_t and return the first "
                                    "that is not cudaSuccess.");

/* ---- The ranks: devices, streams, buffers and the values put in them ----------------------------------- */

typedef struct ring {
    int ranks;
    size_t n;
    const char *name;   /* "oneshot_allreduce" */
    allreduce_fn fn;
    int devices[MAX_RANKS];
    cudaStream_t streams[MAX_RANKS];
    dev_buffer in[MAX_RANKS], out[MAX_RANKS], flags[MAX_RANKS];
    const float *d_in[MAX_RANKS];
    float *d_out[MAX_RANKS];
    unsigned *d_flags[MAX_RANKS];
    float *h_in[MAX_RANKS];    /* what each rank's input holds (the last call's) */
    float *h_out[MAX_RANKS];   /* what its output holds after */
} ring;

/* The ring's devices, the highest first (rank r is device count-1-r: a file that takes rank r for device r
 * uses the wrong one), peer access between every pair, and streams that do not wait for the default stream. */
static void ring_make(ring *g, allreduce_fn fn, const char *name, int ranks, size_t n, uint64_t salt)
{
    memset(g, 0, sizeof *g);
    g->ranks = ranks;
    g->n = n;
    g->fn = fn;
    g->name = name;
    int count = device_count();
    unsigned *zeros = harness_alloc(ALLREDUCE_FLAG_WORDS * sizeof(unsigned)), guard = 0xfeedbeefu;
    memset(zeros, 0, ALLREDUCE_FLAG_WORDS * sizeof(unsigned));
    for (int r = 0; r < ranks; r++) g->devices[r] = count - 1 - r;
    for (int r = 0; r < ranks; r++) {
        CUDA_OK(cudaSetDevice(g->devices[r]));
        for (int q = 0; q < ranks; q++)
            if (q != r && cudaDeviceEnablePeerAccess(g->devices[q], 0) != cudaSuccess) cudaGetLastError();
        CUDA_OK(cudaStreamCreateWithFlags(&g->streams[r], cudaStreamNonBlocking));
        g->h_in[r] = harness_alloc((n ? n : 1) * sizeof(float));
        g->h_out[r] = harness_alloc((n ? n : 1) * sizeof(float));
        ring_values(g->h_in[r], n, r, salt);
        char label[32];
        g->in[r] = dev_input_floats(g->h_in[r], n, HARNESS_GUARD_FLOAT);
        snprintf(label, sizeof label, "d_in[%d]", r);
        dev_name(&g->in[r], label);
        g->out[r] = dev_output_floats(n);
        snprintf(label, sizeof label, "d_out[%d]", r);
        dev_name(&g->out[r], label);
        g->flags[r] = dev_input(zeros, ALLREDUCE_FLAG_WORDS, sizeof(unsigned), &guard, 0);
        snprintf(label, sizeof label, "d_flags[%d]", r);
        dev_name(&g->flags[r], label);
        g->d_in[r] = dev_ptr(&g->in[r]);
        g->d_out[r] = dev_ptr(&g->out[r]);
        g->d_flags[r] = dev_ptr(&g->flags[r]);
    }
    free(zeros);
}

static void ring_free(ring *g)
{
    for (int r = 0; r < g->ranks; r++) {
        cudaSetDevice(g->devices[r]);
        cudaStreamDestroy(g->streams[r]);
        dev_free(&g->in[r]);
        dev_free(&g->out[r]);
        dev_free(&g->flags[r]);
        free(g->h_in[r]);
        free(g->h_out[r]);
    }
}

static void ring_what(const ring *g, int calls, char *buf, size_t len)
{
    int used = snprintf(buf, len, "%s(ranks = %d, n = %zu)", g->name, g->ranks, g->n);
    if (calls > 1 && used > 0 && (size_t)used < len)
        snprintf(buf + used, len - (size_t)used, _(", called %d times back to back"), calls);
}

/* Calls the learner's function `calls` times; before each call after the first, every rank's input gets new
 * values, copied in on the rank's stream (no wait on the host: only the flags order the copy and the peers'
 * reads of the previous call). Then waits for the caller's streams only, reads every output back, and turns
 * the emulator's findings into the failure. */
static void ring_run(ring *g, int calls, uint64_t salt, usage_counts *u)
{
    char what[200];
    ring_what(g, calls, what, sizeof what);
    backend_take_activity(NULL);
    for (int k = 0; k < calls; k++) {
        if (k > 0 && g->n)
            for (int r = 0; r < g->ranks; r++) {
                ring_values(g->h_in[r], g->n, r, salt + 1000 * (uint64_t)k);
                CUDA_OK(cudaSetDevice(g->devices[r]));
                CUDA_OK(cudaMemcpyAsync((void *)g->d_in[r], g->h_in[r], g->n * sizeof(float), cudaMemcpyHostToDevice,
                                        g->streams[r]));
            }
        cudaError_t err = g->fn(g->d_in, g->d_out, g->d_flags, g->devices, g->ranks, g->n, g->streams);
        if (err != cudaSuccess)
            harness_fail(_(ERROR_HINT), _("%s returned %s (%s)."), what, cudaGetErrorName(err), cudaGetErrorString(err));
    }
    if (u) u->known = backend_take_activity(&u->act);
    ranks_sync(g->devices, g->streams, g->ranks);
    for (int r = 0; r < g->ranks; r++) {
        CUDA_OK(cudaSetDevice(g->devices[r]));
        dev_fetch(&g->out[r], g->h_out[r]);
    }
    harness_after_launch(what);
    for (int r = 0; r < g->ranks; r++) {
        CUDA_OK(cudaSetDevice(g->devices[r]));
        if (calls == 1) dev_expect_unchanged(&g->in[r], what);
        dev_expect_guards_intact(&g->out[r], what);
    }
}

/* ---- The check: the sum within its rounding, on every rank, with the same bits everywhere --------------- */

/* ranks - 1 additions in any order, each rounding by at most u times the partial sum: the lesson's bound. */
static double sum_bound(int ranks, double abs_sum)
{
    return (ranks - 1) * HARNESS_FLOAT_UNIT * abs_sum * 1.001 + 1e-37;
}

/* Why rank r's element i is wrong, with its evidence and hint. */
static const char *explain_wrong(const ring *g, int r, size_t i, double expected, char *why, size_t len)
{
    float got = g->h_out[r][i];
    if (!memcmp(&got, &g->h_in[r][i], sizeof got) && g->ranks > 1) {
        harness_evidence("bug-model", "name=own-input hint=1");
        snprintf(why, len, "%s", _("it holds that rank's own input: the peers' values were not added"));
        return _(SUM_HINT);
    }
    harness_explain_float(expected, got, HARNESS_GUARD_FLOAT, why, len);
    if (fabsf(got) >= HARNESS_GUARD_FLOAT / 2) return _(GUARD_HINT);
    uint32_t bits;
    memcpy(&bits, &got, sizeof bits);
    if (bits == 0xffffffffu || isnan(got)) {   /* the poison: never written */
        size_t chunk = (g->n + (size_t)g->ranks - 1) / (size_t)g->ranks;
        if (!strcmp(g->name, "twoshot_allreduce") && chunk && (int)(i / chunk) != r) {
            harness_evidence("bug-model", "name=gather-own-output hint=3");
            return _(GATHER_HINT);
        }
        return _(NOTHING_HINT);
    }
    return _(SUM_HINT);
}

static void ring_expect(const ring *g, int calls)
{
    char what[200];
    ring_what(g, calls, what, sizeof what);
    for (int r = 0; r < g->ranks; r++)
        for (size_t i = 0; i < g->n; i++) {
            double a, expected = ranks_element_sum(g->h_in, g->ranks, i, &a), bound = sum_bound(g->ranks, a);
            float got = g->h_out[r][i];
            if (fabs((double)got - expected) <= bound) continue;
            char why[400], got_text[64];
            const char *hint = explain_wrong(g, r, i, expected, why, sizeof why);
            harness_describe_float(got, got_text, sizeof got_text);
            harness_fail(hint, _("%s: rank %d's element %zu should be %.9g, within %.3g, but it is %s: %s."), what, r,
                         i, expected, bound, got_text, why);
        }
    expect_same_bits(g->h_out, g->ranks, g->n, what, _(BITS_HINT), 2);
}

static void expect_ring(allreduce_fn fn, const char *name, int ranks, size_t n, int calls, uint64_t salt)
{
    if (!ring_fits(ranks)) return;
    ring g;
    ring_make(&g, fn, name, ranks, n, salt);
    ring_run(&g, calls, salt, NULL);
    ring_expect(&g, calls);
    ring_free(&g);
}

#define ONESHOT oneshot_allreduce, "oneshot_allreduce"
#define TWOSHOT twoshot_allreduce, "twoshot_allreduce"

/* ---- The tests ------------------------------------------------------------------------------------------ */

START_TEST(test_ex19_oneshot_core)
{
    need_ring(2);
    for (int ranks = 2; ranks <= MAX_RANKS; ranks++) expect_ring(ONESHOT, ranks, 3000, 1, 10 + (uint64_t)ranks);
}
END_TEST

START_TEST(test_ex19_twoshot_core)
{
    need_ring(2);
    for (int ranks = 2; ranks <= MAX_RANKS; ranks++) expect_ring(TWOSHOT, ranks, 3000, 1, 20 + (uint64_t)ranks);
}
END_TEST

/* The declared rings and sizes (checker/spaces/ex19.def), every pair of a ring and an n, both forms. */
START_TEST(test_ex19_declared)
{
    harness_cover c;
    harness_cover_build(&SPACE, &c);
    for (size_t k = 0; k < c.cases; k++) {
        int ranks = (int)harness_case_number(&c, k, "ranks");
        size_t n = case_n(&c, k, ranks);
        expect_ring(ONESHOT, ranks, n, 1, 30 + (uint64_t)k);
        expect_ring(TWOSHOT, ranks, n, 1, 60 + (uint64_t)k);
    }
    harness_cover_free(&c);
}
END_TEST

/* Calls back to back with new inputs copied in between on each rank's stream: the second call's flags must not
 * pass for the first's, and no rank may end while a peer still reads its buffers. */
START_TEST(test_ex19_repeated)
{
    need_ring(2);
    expect_ring(ONESHOT, largest_ring(), 2051, CALLS, 90);
    expect_ring(TWOSHOT, largest_ring(), 2051, CALLS, 95);
}
END_TEST

/* Counted by the emulator: every launch on the caller's streams, and no wait on the host. */
START_TEST(test_ex19_streams)
{
    need_ring(2);
    ring g;
    usage_counts u;
    ring_make(&g, ONESHOT, largest_ring(), 2051, 99);
    ring_run(&g, 1, 99, &u);
    ring_expect(&g, 1);
    char what[200];
    ring_what(&g, 1, what, sizeof what);
    expect_own_streams(&u, what, _(STREAM_HINT), _(WAIT_HINT));
    ring_free(&g);
}
END_TEST

int main(int argc, char **argv)
{
    const harness_test tests[] = {
        {N_("core: one-shot, every rank holds the sum, on 2, 3 and 4 devices"), test_ex19_oneshot_core, NEEDS_DEVICE},
        {N_("core: two-shot, every rank holds the sum, on 2, 3 and 4 devices"), test_ex19_twoshot_core, NEEDS_DEVICE},
        {N_("sizes: n against the ranks (empty, fewer, a multiple and 1 off), 1 to 4 devices, both forms"),
         test_ex19_declared, NEEDS_DEVICE},
        {N_("concept: calls back to back with new inputs, the flags used again"), test_ex19_repeated, NEEDS_DEVICE},
        {N_("concept: the kernels run on the caller's streams and the host never waits"), test_ex19_streams,
         NEEDS_EMULATOR},
        {0},
    };
    const harness_exercise ex = {"19", N_("Part IV: small messages, a one-shot and a two-shot all-reduce in one kernel"),
                                 "exercises/19-oneshot-allreduce/lesson.md", tests, &SPACE};
    return harness_run(&ex, argc, argv);
}
