/* ex11.c - hidden tests of exercise 11: the fastest reduction, single pass, 16-byte loads, any alignment. */
#include "../harness/harness.h"
#include "../contracts/ex11.h"

#define HARNESS_SPACE_FILE "../spaces/ex11.def"
#include "../harness/harness_space_table.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char ZERO_HINT[] = N_("d_out holds garbage before your launcher runs: what must it hold before the "
                                  "first block's atomicAdd, and which call sets it without a second kernel?");
static const char EDGE_HINT[] = N_("Which elements do the int4 loads miss: the ints before the first 16-byte "
                                  "boundary (the head), and those after the last whole int4 (the tail)? Who adds them?");
static const char ALIGN_HINT[] = N_("An int4 load needs an address that is a multiple of 16. When d_in is not, how "
                                   "many ints must be read one by one before the int4s start, and do the head, the "
                                   "int4s and the tail then take each element once: where does each one begin?");

static const total_spec FASTEST = {
    .launch = reduce_fastest,
    .name = "reduce_fastest",
    .nothing_hint = EDGE_HINT,
    .zero_hint = ZERO_HINT,
    .wrong_hint = EDGE_HINT,
};

/* Runs reduce_fastest on n fresh values whose first one sits offset_ints ints past a 16-byte boundary,
 * `calls` times into the same output, and compares d_out[0] with the sum. */
static void expect_sum_calls(size_t n, size_t offset_ints, uint64_t salt, int calls, const char *hint)
{
    expect_int_total(&FASTEST, n, offset_ints, calls, salt, hint);
}

static void expect_sum(size_t n, size_t offset_ints, uint64_t salt, const char *hint)
{
    expect_sum_calls(n, offset_ints, salt, 1, hint);
}

START_TEST(test_ex11_small)
{
    expect_sum(1000, 0, 1, EDGE_HINT);
}
END_TEST

START_TEST(test_ex11_empty_input)
{
    expect_sum(0, 0, 2, _("With n = 0, is d_out[0] still set to 0, and does the launch still have at least "
                          "one block?"));
}
END_TEST

/* ---- The declared inputs (checker/spaces/ex11.def) ---------------------------------------------------------- */

/* Which test runs a case: each case runs once, in the test of what it checks. */
enum concern { FOR_TAIL, FOR_ALIGNMENT, FOR_GRID_STRIDE };

/* From here on every thread of a grid the size of the machine has a pack, and its grid-stride loop goes round. */
#define GRID_STRIDE_INTS 131072

static enum concern concern_of(const harness_cover *c, size_t k)
{
    if (harness_case_number(c, k, "n") >= GRID_STRIDE_INTS) return FOR_GRID_STRIDE;
    return harness_case_number(c, k, "offset") ? FOR_ALIGNMENT : FOR_TAIL;
}

/* The cases of one concern, and the hint for their failures. */
typedef struct case_concern { enum concern concern; const char *hint; } case_concern;

static int of_concern(const harness_cover *c, size_t k, const void *ctx)
{
    return concern_of(c, k) == ((const case_concern *)ctx)->concern;
}

/* Case k: n ints from its range of values, d_in off 16 bytes by its offset. (A second call into the same d_out,
 * which a total not set back to 0 gets wrong whatever n is, has its own test.) */
static void run_case(const harness_cover *c, size_t k, uint64_t salt, const void *ctx)
{
    size_t n = (size_t)harness_case_number(c, k, "n"), offset_ints = (size_t)harness_case_number(c, k, "offset") / 4;
    int lo, hi;
    harness_value_range(harness_case_label(c, k, "values"), n, &lo, &hi);
    expect_int_total_in(&FASTEST, n, offset_ints, 1, lo, hi, salt, ((const case_concern *)ctx)->hint);
}

static void run_cases(enum concern concern, const char *hint)
{
    case_concern cc = {concern, hint};
    harness_cover_run(&SPACE, of_concern, run_case, 1000, &cc);
}

START_TEST(test_ex11_tail)
{
    run_cases(FOR_TAIL, EDGE_HINT);
}
END_TEST

START_TEST(test_ex11_any_alignment)
{
    run_cases(FOR_ALIGNMENT, ALIGN_HINT);
}
END_TEST

START_TEST(test_ex11_grid_stride)
{
    run_cases(FOR_GRID_STRIDE, EDGE_HINT);
}
END_TEST

START_TEST(test_ex11_second_call)
{
    expect_sum_calls(4099, 1, 5, 2, ZERO_HINT);
}
END_TEST

/* Counted by the emulator as Nsight Compute counts them. A warp's 16-byte loads of 32 consecutive int4s
 * cover 512 bytes: one request and 16 sectors of 32 bytes. So n ints read once, in int4s, take about
 * n * 4 / 32 sectors and n * 4 / 512 requests; 4-byte loads would take n * 4 / 128 requests, 4 times as
 * many. Allowed: twice the int4 count of requests, and sectors within 1% (plus a few for the head and
 * the tail) of reading every byte once. */
START_TEST(test_ex11_read_once_in_16_byte_loads)
{
    const size_t n = harness_large_n() + 3;
    int *h_in = malloc(n * sizeof *h_in);
    ck_assert_msg(h_in != NULL, _("The checker ran out of host memory."));
    harness_random_ints(h_in, n, -100, 100, 7);
    int expected = (int)harness_sum_ints(h_in, 0, n);
    dev_buffer in = dev_input_ints(h_in, n), out = dev_output_ints(1);
    emu_metrics m;
    backend_take_metrics(&m);   /* forget what came before */
    char what[256];
    snprintf(what, sizeof what, "reduce_fastest(n = %zu)", n);
    reduce_fastest(dev_ptr(&in), dev_ptr(&out), (int)n);
    harness_after_launch(what);
    backend_take_metrics(&m);
    int got;
    dev_fetch(&out, &got);
    if (got != expected) {
        char why[600];
        harness_explain_int(expected, got, why, sizeof why);
        harness_fail(_(EDGE_HINT), _("%s should leave %d in d_out[0], but it left %d: %s."), what, expected, got, why);
    }

    uint64_t bytes = (uint64_t)n * sizeof(int);
    uint64_t sector_limit = bytes / 32 + bytes / 32 / 100 + 64;
    /* 16-byte loads: one request per warp per 512 bytes. A quarter more, plus the head and tail, is
     * allowed; 8-byte loads (one request per 256 bytes) do not fit under it. */
    uint64_t request_limit = bytes / 512 * 5 / 4 + 64;
    if (m.global_load_sectors > sector_limit)
        harness_fail(_("Does any thread read an element that another thread reads too, or does the grid-stride "
                       "loop start or step wrong?"),
                     _("%s read %" PRIu64 " sectors of 32 bytes (%" PRIu64 " bytes), but the input is %" PRIu64
                       " bytes: at most %" PRIu64 " sectors were expected, each byte read once."),
                     what, m.global_load_sectors, m.global_load_sectors * 32, bytes, sector_limit);
    if (m.global_load_requests > request_limit)
        harness_fail(_("Is the loop body one 16-byte (int4) load per thread, with the 32 lanes of a warp loading "
                       "32 consecutive int4s?"),
                     _("%s made %" PRIu64 " global load requests; 16-byte loads of %" PRIu64 " bytes need about "
                       "%" PRIu64 " (one per warp per 512 bytes), and at most %" PRIu64 " are allowed. 8-byte "
                       "loads would need %" PRIu64 ", 4-byte loads %" PRIu64 "."), what, m.global_load_requests,
                     bytes, bytes / 512, request_limit, bytes / 256, bytes / 128);
    dev_free(&in);
    dev_free(&out);
    free(h_in);
}
END_TEST

int main(int argc, char **argv)
{
    const harness_test tests[] = {
        {N_("core: 1000 elements in a single pass"), test_ex11_small, NEEDS_DEVICE},
        {N_("edges: n = 0 leaves 0 in d_out[0]"), test_ex11_empty_input, NEEDS_DEVICE},
        {N_("sizes: n at -1, 0, +1 of the pack, a warp's and a block's packs (the tail)"), test_ex11_tail, NEEDS_DEVICE},
        {N_("edges: any alignment of the input"), test_ex11_any_alignment, NEEDS_DEVICE},
        {N_("sizes: n at -1, 0, +1 of the grid-stride and its step of four packs, at any alignment"),
         test_ex11_grid_stride, NEEDS_DEVICE},
        {N_("edges: a second call into the same d_out gives the same total"), test_ex11_second_call, NEEDS_DEVICE},
        {N_("concept: each input byte is read once, in 16-byte loads"), test_ex11_read_once_in_16_byte_loads, NEEDS_EMULATOR},
        {0},
    };
    const harness_exercise ex = {"11", N_("The fastest reduction: 16-byte loads, tuning, single pass; race CUB"),
                                 "exercises/11-fastest/lesson.md", tests, &SPACE};
    return harness_run(&ex, argc, argv);
}
