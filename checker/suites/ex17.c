/* ex17.c - hidden tests of exercise 17: an all-reduce over a ring of devices, by hand. Every rank must end with
 * the sum, within the rounding of a ring's order of additions, and with the same bits as every other rank; for
 * any n (0, fewer than the ranks, not a multiple of them) and rings of 1 to 4 devices. On the emulator, the
 * order that the learner's streams and events define is checked too (no rank reads a chunk before it is
 * published, none overwrites one still read: the emulator's findings), and where the work runs (the caller's
 * streams, never the default stream, and no wait on the host). */
#include "../harness/harness.h"
#include "../contracts/ex17.h"
#define HARNESS_SPACE_FILE "../spaces/ex17.def"
#include "../harness/harness_space_table.h"
#include "ranks.h"

#include <stdlib.h>

static const char SUM_HINT[] = N_("After the reduce-scatter, does each rank hold one complete chunk, and does the "
                                  "all-gather copy those complete chunks round the ring (copy, not add)?");
static const char NOTHING_HINT[] = N_("Does each step copy a chunk from the left neighbour (cudaMemcpyPeerAsync on "
                                      "the receiver's stream) and then add it with a kernel on that stream?");
static const char PARTIAL_HINT[] = N_("A chunk's sum passes through every rank once: how many steps does the "
                                      "reduce-scatter take on a ring of N, and which chunk does rank r receive at "
                                      "step s?");
static const char BITS_HINT[] = N_("Is each chunk's sum made once, by one rank, and then only copied? A rank that "
                                   "adds the values in its own order gets other last bits.");
static const char GUARD_HINT[] = N_("Does the last chunk end at n? With ceil(n / ranks) floats per chunk, the last "
                                    "one may be shorter, and with n < ranks some chunks are empty.");
static const char STREAM_HINT[] = N_("Is every copy and every kernel given streams[r] of the rank it works for? "
                                     "The default stream (0, or no stream) orders nothing with the caller's "
                                     "streams.");
static const char WAIT_HINT[] = N_("Which call makes the host wait: a cudaStreamSynchronize, a "
                                   "cudaDeviceSynchronize, a cudaMemcpy without Async? Order the steps with "
                                   "events that streams wait for (cudaStreamWaitEvent), on the devices.");
static const char ERROR_HINT[] = N_("Which CUDA call failed? Check each call's cudaError_t and return the first "
                                    "that is not cudaSuccess.");

/* ---- A ring: its devices, streams, buffers and the values put in them ----------------------------------- */

typedef struct ring {
    int ranks;
    size_t n, chunk;
    int devices[MAX_RANKS];
    cudaStream_t streams[MAX_RANKS];
    dev_buffer bufs[MAX_RANKS], scratch[MAX_RANKS];
    float *d_bufs[MAX_RANKS], *d_scratch[MAX_RANKS];
    float *h_in[MAX_RANKS];    /* what each rank held before */
    float *h_out[MAX_RANKS];   /* what it holds after */
} ring;

/* The ring's devices, the highest first: rank r is device count-1-r, so that a file which takes rank r for
 * device r uses the wrong device. Streams that do not wait for the default stream (cudaStreamNonBlocking), as
 * NCCL's callers' often do, so that work left on the default stream is ordered by nothing. */
static void ring_make(ring *g, int ranks, size_t n, uint64_t salt)
{
    memset(g, 0, sizeof *g);
    g->ranks = ranks;
    g->n = n;
    g->chunk = (n + (size_t)ranks - 1) / (size_t)ranks;
    int count = device_count();
    for (int r = 0; r < ranks; r++) {
        g->devices[r] = count - 1 - r;
        CUDA_OK(cudaSetDevice(g->devices[r]));
        CUDA_OK(cudaStreamCreateWithFlags(&g->streams[r], cudaStreamNonBlocking));
        g->h_in[r] = harness_alloc((n ? n : 1) * sizeof(float));
        g->h_out[r] = harness_alloc((n ? n : 1) * sizeof(float));
        ring_values(g->h_in[r], n, r, salt);
        char name[32];
        g->bufs[r] = dev_input_floats(g->h_in[r], n, HARNESS_GUARD_FLOAT);
        snprintf(name, sizeof name, "d_bufs[%d]", r);
        dev_name(&g->bufs[r], name);
        g->scratch[r] = dev_output_floats(g->chunk);
        snprintf(name, sizeof name, "d_scratch[%d]", r);
        dev_name(&g->scratch[r], name);
        g->d_bufs[r] = dev_ptr(&g->bufs[r]);
        g->d_scratch[r] = dev_ptr(&g->scratch[r]);
    }
}

static void ring_free(ring *g)
{
    for (int r = 0; r < g->ranks; r++) {
        cudaSetDevice(g->devices[r]);
        cudaStreamDestroy(g->streams[r]);
        dev_free(&g->bufs[r]);
        dev_free(&g->scratch[r]);
        free(g->h_in[r]);
        free(g->h_out[r]);
    }
}

/* Fails the test when the call wrote outside rank r's array (named name): in the guards around it. */
static void expect_guards(const dev_buffer *b, const char *name, int r, const char *what)
{
    long index;
    if (!dev_guard_written(b, &index)) return;
    harness_fail(_(GUARD_HINT), _("%s wrote %s[%d][%ld], outside the %zu floats of %s[%d]."), what, name, r, index,
                 b->count, name, r);
}

static void ring_what(const ring *g, char *buf, size_t len)
{
    snprintf(buf, len, "ring_allreduce(ranks = %d, n = %zu)", g->ranks, g->n);
}

/* Calls the learner's function `calls` times back to back, then waits for the caller's streams only, reads
 * every rank's buffer back (the emulator checks that nothing the function left running still touches it), and
 * turns the emulator's findings into the failure. */
static void ring_run(ring *g, int calls, usage_counts *u)
{
    char what[200];
    ring_what(g, what, sizeof what);
    backend_take_activity(NULL);
    for (int k = 0; k < calls; k++) {
        cudaError_t err = ring_allreduce(g->d_bufs, g->d_scratch, g->devices, g->ranks, g->n, g->streams);
        if (err != cudaSuccess)
            harness_fail(_(ERROR_HINT), _("%s returned %s (%s)."), what, cudaGetErrorName(err), cudaGetErrorString(err));
    }
    if (u) u->known = backend_take_activity(&u->act);
    ranks_sync(g->devices, g->streams, g->ranks);
    for (int r = 0; r < g->ranks; r++) {
        CUDA_OK(cudaSetDevice(g->devices[r]));
        dev_fetch(&g->bufs[r], g->h_out[r]);
    }
    harness_after_launch(what);
    for (int r = 0; r < g->ranks; r++) {
        CUDA_OK(cudaSetDevice(g->devices[r]));
        expect_guards(&g->bufs[r], "d_bufs", r, what);
        expect_guards(&g->scratch[r], "d_scratch", r, what);
    }
}

/* ---- The check: the sum within the ring's rounding, on every rank, with the same bits everywhere ---------- */

/* The ranks' values added one after another, in any order: each of the ranks - 1 additions rounds once, by at
 * most u times the partial sum, so the error is below (ranks - 1) u sum|x| (the lesson's bound). After a second
 * call on the sums, ranks times as much, and the second sum's own rounding. */
static double ring_bound(int ranks, int calls, double abs_sum)
{
    double once = (ranks - 1) * HARNESS_FLOAT_UNIT * abs_sum;
    return (calls == 1 ? once : 2.0 * ranks * once) * 1.001 + 1e-37;
}

/* The sum of k ranks' values of element i, the ranks first, first+1, ... round the ring. */
static double segment_sum(const ring *g, size_t i, int first, int k)
{
    double s = 0;
    for (int j = 0; j < k; j++) s += (double)g->h_in[(first + j) % g->ranks][i];
    return s;
}

/* Why rank r's element i is wrong, as a sentence fragment, with its evidence and hint. */
static const char *explain_wrong(const ring *g, int r, size_t i, double expected, double bound, char *why,
                                 size_t len)
{
    float got = g->h_out[r][i];
    if (!memcmp(&got, &g->h_in[r][i], sizeof got) && g->ranks > 1) {
        harness_evidence("bug-model", "name=nothing-added hint=1");
        snprintf(why, len, "%s", _("it still holds that rank's own input: nothing reached it"));
        return _(NOTHING_HINT);
    }
    for (int k = 2; k < g->ranks; k++)
        for (int first = 0; first < g->ranks; first++)
            if (fabs(got - segment_sum(g, i, first, k)) <= bound) {
                harness_evidence("bug-model", "name=partial-sum k=%d hint=2", k);
                snprintf(why, len, _("it holds the sum of only %d of the %d ranks' values"), k, g->ranks);
                return _(PARTIAL_HINT);
            }
    for (int k = 1; k < g->ranks; k++)
        for (int first = 0; first < g->ranks; first++)
            if (fabs(got - expected - segment_sum(g, i, first, k)) <= 2 * bound) {
                harness_evidence("bug-model", "name=allgather-adds hint=3");
                snprintf(why, len, _("it holds the sum plus the values of %d of the ranks again: a chunk that was "
                                     "complete was added to instead of copied"), k);
                return _(SUM_HINT);
            }
    harness_explain_float(expected, got, HARNESS_GUARD_FLOAT, why, len);
    if (fabsf(got) >= HARNESS_GUARD_FLOAT / 2) return _(GUARD_HINT);
    return _(SUM_HINT);
}

/* "chunks 1 and 3 of 4": which of rank r's chunks hold a wrong element. */
static void wrong_chunks(const ring *g, int r, int calls, char *buf, size_t len)
{
    size_t used = 0;
    int listed = 0;
    buf[0] = '\0';
    for (int c = 0; c < g->ranks && g->chunk; c++) {
        int wrong = 0;
        for (size_t i = (size_t)c * g->chunk; i < g->n && i < (size_t)(c + 1) * g->chunk && !wrong; i++) {
            double a, s = ranks_element_sum(g->h_in, g->ranks, i, &a);
            double expected = calls == 1 ? s : s * g->ranks;
            wrong = !(fabs((double)g->h_out[r][i] - expected) <= ring_bound(g->ranks, calls, a));
        }
        if (wrong && used + 16 < len) used += (size_t)snprintf(buf + used, len - used, "%s%d", listed++ ? ", " : "", c);
    }
}

static void ring_expect(const ring *g, int calls)
{
    char what[200];
    ring_what(g, what, sizeof what);
    if (calls > 1) {
        size_t used = strlen(what);
        snprintf(what + used, sizeof what - used, _(", called %d times back to back"), calls);
    }
    for (int r = 0; r < g->ranks; r++)
        for (size_t i = 0; i < g->n; i++) {
            double a, s = ranks_element_sum(g->h_in, g->ranks, i, &a);
            double expected = calls == 1 ? s : s * g->ranks, bound = ring_bound(g->ranks, calls, a);
            float got = g->h_out[r][i];
            if (fabs((double)got - expected) <= bound) continue;
            char why[400], got_text[64], chunks[200];
            const char *hint = explain_wrong(g, r, i, expected, bound, why, sizeof why);
            harness_describe_float(got, got_text, sizeof got_text);
            wrong_chunks(g, r, calls, chunks, sizeof chunks);
            harness_fail(hint, _("%s: rank %d's element %zu (in chunk %zu of %d) should be %.9g, within %.3g, but "
                                 "it is %s: %s. Rank %d's wrong chunks: %s."),
                         what, r, i, g->chunk ? i / g->chunk : 0, g->ranks, expected, bound, got_text, why, r,
                         chunks[0] ? chunks : "-");
        }
    expect_same_bits(g->h_out, g->ranks, g->n, what, _(BITS_HINT), 4);
}

/* One ring, one call, checked; a ring that this machine cannot hold is skipped (need_ring says why). */
static void expect_ring(int ranks, size_t n, uint64_t salt)
{
    if (!ring_fits(ranks)) return;
    ring g;
    ring_make(&g, ranks, n, salt);
    ring_run(&g, 1, NULL);
    ring_expect(&g, 1);
    ring_free(&g);
}

/* ---- The tests ------------------------------------------------------------------------------------------ */

START_TEST(test_ex17_core)
{
    need_ring(2);
    for (int ranks = 2; ranks <= MAX_RANKS; ranks++) expect_ring(ranks, 3000, 10 + (uint64_t)ranks);
}
END_TEST

/* The declared rings and sizes (checker/spaces/ex17.def), every pair of a ring and an n. */
START_TEST(test_ex17_declared)
{
    harness_cover c;
    harness_cover_build(&SPACE, &c);
    for (size_t k = 0; k < c.cases; k++) {
        int ranks = (int)harness_case_number(&c, k, "ranks");
        expect_ring(ranks, case_n(&c, k, ranks), 30 + (uint64_t)k);
    }
    harness_cover_free(&c);
}
END_TEST

START_TEST(test_ex17_large)
{
    need_ring(2);
    expect_ring(largest_ring(), harness_large_n() + 3, 60);
}
END_TEST

/* Two calls with no wait between them: the second's first steps write buffers that the first's last copies
 * read, and read chunks that its last copies write. Only the function's own events order them. */
START_TEST(test_ex17_back_to_back)
{
    need_ring(2);
    ring g;
    ring_make(&g, largest_ring(), 4099, 80);
    ring_run(&g, 2, NULL);
    ring_expect(&g, 2);
    ring_free(&g);
}
END_TEST

/* Counted by the emulator: every launch and copy on the caller's streams, and no wait on the host. */
START_TEST(test_ex17_streams)
{
    need_ring(2);
    ring g;
    usage_counts u;
    ring_make(&g, largest_ring(), 4099, 90);
    ring_run(&g, 1, &u);
    ring_expect(&g, 1);
    char what[200];
    ring_what(&g, what, sizeof what);
    expect_own_streams(&u, what, _(STREAM_HINT), _(WAIT_HINT));
    ring_free(&g);
}
END_TEST

int main(int argc, char **argv)
{
    const harness_test tests[] = {
        {N_("core: every rank holds the sum, on rings of 2, 3 and 4 devices"), test_ex17_core, NEEDS_DEVICE},
        {N_("sizes: n against the ring (empty, fewer than the ranks, a multiple and 1 off), rings of 1 to 4"),
         test_ex17_declared, NEEDS_DEVICE},
        {N_("sizes: the large n on the largest ring"), test_ex17_large, NEEDS_DEVICE},
        {N_("concept: two calls back to back, no wait between them"), test_ex17_back_to_back, NEEDS_DEVICE},
        {N_("concept: the work runs on the caller's streams and the host never waits"), test_ex17_streams,
         NEEDS_EMULATOR},
        {0},
    };
    const harness_exercise ex = {"17", N_("Part IV: a ring all-reduce by hand, over several devices"),
                                 "exercises/17-ring-allreduce/lesson.md", tests, &SPACE};
    return harness_run(&ex, argc, argv);
}
