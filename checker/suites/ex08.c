/* ex08.c - hidden tests of exercise 08: a multi-level reduction on the host, one total for any n. */
#include "../harness/harness.h"
#include "../contracts/ex08.h"
#define HARNESS_SPACE_FILE "../spaces/ex08.def"
#include "../harness/harness_space_table.h"

#include <stdio.h>
#include <stdlib.h>

static const char LEVELS_HINT[] = N_("Each block of level 1 writes one partial: how many partials are there, and "
                                    "does level 2 read exactly that many, no more and no fewer?");
static const char ZERO_HINT[] = N_("With atomics, d_out[0] holds garbage before your launcher runs: what must it "
                                  "hold before the first atomicAdd?");
static const char EMPTY_HINT[] = N_("With n = 0, how many blocks does your grid formula give, and can a kernel be "
                                   "launched with that many? Who writes d_out[0] then?");

/* A test that cannot run here ends as not run, with a sentence that says why. */
static void not_run_here(const char *why)
{
    char said[700];
    snprintf(said, sizeof said, _("not run here, %s"), why);
    harness_not_run(said);
}

static const total_spec MULTI_LEVEL = {
    .launch = reduce_multi_level,
    .name = "reduce_multi_level",
    .nothing_hint = LEVELS_HINT,
    .zero_hint = ZERO_HINT,
    .wrong_hint = LEVELS_HINT,
};

/* Runs reduce_multi_level on n fresh values, `calls` times into the same output, and compares d_out[0]
 * with the sum after each call. */
static void expect_total_calls(size_t n, uint64_t salt, int calls)
{
    expect_int_total(&MULTI_LEVEL, n, 0, calls, salt, n == 0 ? EMPTY_HINT : NULL);
}

static void expect_total(size_t n, uint64_t salt) { expect_total_calls(n, salt, 1); }

START_TEST(test_ex08_one_element)
{
    expect_total(1, 1);
}
END_TEST

START_TEST(test_ex08_several_blocks)
{
    expect_total(1000, 2);
}
END_TEST

/* ---- The declared input space (checker/spaces/ex08.def): each test below runs the cases of its concern ---- */

enum { LESSON_BLOCK = 256, LESSON_LEVEL_ONE_THREADS = 1024 * 256, LARGEST_N = 2147483647 };

static size_t case_n(const harness_cover *c, size_t k) { return harness_case_size(c, k, "n", "", NULL); }

static int case_calls(const harness_cover *c, size_t k) { return (int)harness_case_number(c, k, "calls"); }

static void run_case(const harness_cover *c, size_t k, uint64_t salt, const void *ctx)
{
    (void)ctx;
    size_t n = case_n(c, k);
    int lo, hi;
    harness_value_range(harness_case_label(c, k, "values"), n, &lo, &hi);
    expect_int_total_in(&MULTI_LEVEL, n, 0, case_calls(c, k), lo, hi, salt, n == 0 ? EMPTY_HINT : NULL);
}

/* Each case belongs to one test: n = 0 and n = 2^31 - 1 to their own, then a second call to its own, then the
 * rest by size. */
static int sized(const harness_cover *c, size_t k, size_t from, size_t to)
{
    size_t n = case_n(c, k);
    return n != 0 && n != LARGEST_N && case_calls(c, k) == 1 && n >= from && n <= to;
}

static int empty(const harness_cover *c, size_t k, const void *ctx)
{
    (void)ctx;
    return case_n(c, k) == 0;
}

static int second_call(const harness_cover *c, size_t k, const void *ctx)
{
    (void)ctx;
    size_t n = case_n(c, k);
    return n != 0 && n != LARGEST_N && case_calls(c, k) == 2;
}

static int fewer_than_a_block(const harness_cover *c, size_t k, const void *ctx)
{
    (void)ctx;
    return sized(c, k, 1, LESSON_BLOCK - 1);
}

static int up_to_the_first_level(const harness_cover *c, size_t k, const void *ctx)
{
    (void)ctx;
    return sized(c, k, LESSON_BLOCK, LESSON_LEVEL_ONE_THREADS);
}

static int beyond_the_first_level(const harness_cover *c, size_t k, const void *ctx)
{
    (void)ctx;
    return sized(c, k, LESSON_LEVEL_ONE_THREADS + 1, LARGEST_N - 1);
}

START_TEST(test_ex08_empty_input)
{
    harness_cover_run(&SPACE, empty, run_case, 10, NULL);
}
END_TEST

START_TEST(test_ex08_small_sizes)
{
    harness_cover_run(&SPACE, fewer_than_a_block, run_case, 10, NULL);
}
END_TEST

START_TEST(test_ex08_more_elements_than_threads)
{
    harness_cover_run(&SPACE, beyond_the_first_level, run_case, 10, NULL);
}
END_TEST

START_TEST(test_ex08_up_to_the_first_level)
{
    harness_cover_run(&SPACE, up_to_the_first_level, run_case, 10, NULL);
}
END_TEST

START_TEST(test_ex08_second_call)
{
    harness_cover_run(&SPACE, second_call, run_case, 10, NULL);
}
END_TEST

/* n = 2^31 - 1, the largest int: 8 GiB of 0s and 1s (so the total, about 2^30, fits in an int). A grid
 * that is computed as (n + BLOCK - 1) / BLOCK in int, or an index that is an int in a grid-stride loop,
 * overflows here. The input is one chunk of 64 MiB over and over, so no 8 GiB host image is needed, and on
 * the emulator it costs the chunk's memory (dev_input_repeated). On a GPU without room for it the test
 * ends as not run, with a sentence that says why, instead of failing; on a GPU machine the emulator's
 * second opinion runs it only where the GPU did not pass it cleanly (NEEDS_DEVICE_GPU_FIRST): it is 7.7 s
 * of the emulator's 8.1 s for this suite on a 2-core machine. */
static void expect_no_overflow(const harness_cover *c, size_t k, uint64_t salt, const void *ctx)
{
    (void)ctx;
    const size_t n = case_n(c, k), chunk = (size_t)1 << 24;
    int *h_chunk = malloc(chunk * sizeof *h_chunk);
    ck_assert_msg(h_chunk != NULL, _("The checker ran out of host memory."));
    harness_random_ints(h_chunk, chunk, 0, 1, salt);
    long long expected = (long long)(n / chunk) * harness_sum_ints(h_chunk, 0, chunk) +
                         harness_sum_ints(h_chunk, 0, n % chunk);
    char why[600];
    int *d_in = dev_input_repeated(h_chunk, chunk * sizeof(int), n * sizeof(int), why, sizeof why);
    free(h_chunk);
    if (!d_in) {
        not_run_here(why);
        return;
    }
    harness_budget_for(n);

    dev_buffer out = dev_output_ints(1);
    const char *what = "reduce_multi_level(n = 2147483647)";
    reduce_multi_level(d_in, dev_ptr(&out), (int)n);
    harness_after_launch(what);
    int got;
    dev_fetch(&out, &got);
    if (got != (int)expected) {
        char why[600];
        harness_explain_int((int)expected, got, why, sizeof why);
        /* The sum plus the poison is an accumulator never zeroed, whatever n: the overflow hint would mislead. */
        int not_zeroed = (int)((unsigned)expected + (unsigned)HARNESS_POISON_INT) == got;
        /* The last test: as the first failure, every smaller n passed, so an index or a grid overflows here. */
        if (!not_zeroed) harness_evidence("int-overflow", "n=%zu", n);
        harness_fail(not_zeroed ? _(ZERO_HINT)
                                : _("For n = 2147483647, what is n + BLOCK - 1 in an int? And what is i + stride in "
                                    "a grid-stride loop when i is an int close to n?"),
                     _("%s on 0s and 1s should leave %lld in d_out[0], but it left %d: %s."), what, expected, got,
                     why);
    }
    dev_expect_guards_intact(&out, what);
    dev_free(&out);
    CUDA_OK(cudaFree(d_in));
}

static int largest(const harness_cover *c, size_t k, const void *ctx)
{
    (void)ctx;
    return case_n(c, k) == LARGEST_N;
}

START_TEST(test_ex08_no_overflow_near_2_31)
{
    harness_cover_run(&SPACE, largest, expect_no_overflow, 10, NULL);
}
END_TEST

int main(int argc, char **argv)
{
    const harness_test tests[] = {
        {N_("core: one element is its own total"), test_ex08_one_element, NEEDS_DEVICE},
        {N_("core: 1000 elements in several blocks give one total"), test_ex08_several_blocks, NEEDS_DEVICE},
        {N_("edges: n = 0 leaves 0 in d_out[0]"), test_ex08_empty_input, NEEDS_DEVICE},
        {N_("sizes: fewer elements than one block (1 to 255)"), test_ex08_small_sizes, NEEDS_DEVICE},
        {N_("sizes: more elements than the first level has threads"), test_ex08_more_elements_than_threads, NEEDS_DEVICE},
        {N_("sizes: one block up to as many elements as the lesson's first level has threads"),
         test_ex08_up_to_the_first_level, NEEDS_DEVICE},
        {N_("edges: a second call into the same d_out gives the same total"), test_ex08_second_call, NEEDS_DEVICE},
        {N_("edges: indices do not overflow for n near 2^31"), test_ex08_no_overflow_near_2_31, NEEDS_DEVICE_GPU_FIRST},
        {0},
    };
    const harness_exercise ex = {"08", N_("A multi-level reduction, one total for any n"),
                                 "exercises/08-multi-level/lesson.md", tests, &SPACE};
    return harness_run(&ex, argc, argv);
}
