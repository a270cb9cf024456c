/* ex01.c - hidden tests of exercise 01: a CPU reference, then one atomicAdd per element. */
#include "../harness/harness.h"
#include "../contracts/ex01.h"
#define HARNESS_SPACE_FILE "../spaces/ex01.def"
#include "../harness/harness_space_table.h"

#include <stdio.h>
#include <stdlib.h>

static const char ZERO_HINT[] = N_("d_out holds garbage before your launcher runs: what must it hold before the "
                                  "first atomicAdd?");
static const char GRID_HINT[] = N_("How many blocks of 256 threads cover n elements when n is not a multiple "
                                  "of 256? And what must the threads past the end do?");
static const char ADD_HINT[] = N_("Nothing reached d_out[0]: does each thread whose i is below n call "
                                 "atomicAdd(d_out, d_in[i])?");

static const total_spec ATOMIC = {
    .launch = reduce_atomic,
    .name = "reduce_atomic",
    .nothing_hint = ADD_HINT,
    .zero_hint = ZERO_HINT,
    .wrong_hint = GRID_HINT,
};

/* Runs reduce_atomic on n fresh values and compares d_out[0] with the sum. */
static void expect_atomic_sum(size_t n, uint64_t salt)
{
    expect_int_total(&ATOMIC, n, 0, 1, salt, NULL);
}

START_TEST(test_ex01_cpu_reference)
{
    static const int sizes[] = {0, 1, 7, 256, 1000};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        int n = sizes[k], h_in[1000];
        harness_random_ints(h_in, (size_t)n, -1000, 1000, 100 + k);
        long long expected = harness_sum_ints(h_in, 0, (size_t)n);
        long long got = reduce_cpu(h_in, n);
        if (got != expected)
            harness_fail(_("Loop over all n elements and add each one to a 64-bit total that starts at 0."),
                         _("reduce_cpu(n = %d) returned %lld, but the sum is %lld."), n, got, expected);
    }
    int big[4] = {2000000000, 2000000000, 2000000000, 2000000000};
    if (reduce_cpu(big, 4) != 8000000000LL)
        harness_fail(_("An int holds at most 2147483647; which type holds 8000000000?"),
                     _("reduce_cpu of four times 2000000000 returned %lld instead of 8000000000: the total "
                       "overflowed."), reduce_cpu(big, 4));
}
END_TEST

START_TEST(test_ex01_one_block)
{
    expect_atomic_sum(256, 1);
}
END_TEST

START_TEST(test_ex01_four_full_blocks)
{
    expect_atomic_sum(1024, 2);
}
END_TEST

/* ---- The declared input space (checker/spaces/ex01.def): each test below runs the cases of its concern --- */

enum { LESSON_BLOCK = 256 };

static void run_case(const harness_cover *c, size_t k, uint64_t salt, const void *ctx)
{
    size_t n = harness_case_size(c, k, "n", "", NULL);
    int lo, hi;
    harness_value_range(harness_case_label(c, k, "values"), n, &lo, &hi);
    (void)ctx;
    expect_int_total_in(&ATOMIC, n, 0, 1, lo, hi, salt, NULL);
}

static int fewer_than_a_block(const harness_cover *c, size_t k, const void *ctx)
{
    (void)ctx;
    return harness_case_size(c, k, "n", "", NULL) < LESSON_BLOCK;
}

static int not_a_multiple(const harness_cover *c, size_t k, const void *ctx)
{
    (void)ctx;
    size_t n = harness_case_size(c, k, "n", "", NULL);
    return n > LESSON_BLOCK && n % LESSON_BLOCK;
}

static int whole_blocks(const harness_cover *c, size_t k, const void *ctx)
{
    (void)ctx;
    return harness_case_size(c, k, "n", "", NULL) % LESSON_BLOCK == 0;
}

START_TEST(test_ex01_small_sizes)
{
    harness_cover_run(&SPACE, fewer_than_a_block, run_case, 10, NULL);
}
END_TEST

START_TEST(test_ex01_not_a_multiple_of_the_block)
{
    harness_cover_run(&SPACE, not_a_multiple, run_case, 10, NULL);
}
END_TEST

START_TEST(test_ex01_whole_blocks)
{
    harness_cover_run(&SPACE, whole_blocks, run_case, 10, NULL);
}
END_TEST

int main(int argc, char **argv)
{
    const harness_test tests[] = {
        {N_("core: the CPU reference sums every element in 64 bits"), test_ex01_cpu_reference, NEEDS_NOTHING},
        {N_("core: one block of 256 elements"), test_ex01_one_block, NEEDS_DEVICE},
        {N_("core: four full blocks (1024 elements)"), test_ex01_four_full_blocks, NEEDS_DEVICE},
        {N_("sizes: fewer elements than one block (1 to 255)"), test_ex01_small_sizes, NEEDS_DEVICE},
        {N_("sizes: n not a multiple of the block (257 to 65537)"), test_ex01_not_a_multiple_of_the_block, NEEDS_DEVICE},
        {N_("sizes: whole blocks, up to the large input"), test_ex01_whole_blocks, NEEDS_DEVICE},
        {0},
    };
    const harness_exercise ex = {"01", N_("Your first kernel: one atomicAdd per element"),
                                 "exercises/01-atomic/lesson.md", tests, &SPACE};
    return harness_run(&ex, argc, argv);
}
