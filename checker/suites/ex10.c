/* ex10.c - hidden tests of exercise 10: float accuracy, a compensated sum graded against an exact one. */
#include "../harness/harness.h"
#include "../contracts/ex10.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char ORDER_HINT[] = N_("A float keeps 24 bits: what is left of 0.3 when it is added to 2^30? Does each "
                                   "thread keep the rounding error of every addition in c, whichever of sum and x "
                                   "is the larger (Kahan's original forgets the case where x is), and does c reach "
                                   "the block's double total?");
static const char *INDEX_HINT = N_("Is every element added exactly once (the grid-stride loop), and does every "
                                   "block's partial reach the total?");

/* The bound every result must meet, with u = 2^-24 and S the exact sum:
 *
 *     |result - S| <= 2u|S| + 64u^2 sum|x_i|
 *
 * The first term is the rounding of the total to float, which no float result can avoid (at most u|S|),
 * with a factor 2 of room. The second is what a compensated sum adds: each addition's error is kept in c
 * exactly, but c rounds too, by u times errors that are themselves at most u|x_i|; 64 allows that over a
 * grid-stride loop of a few dozen elements per thread (Higham, "The accuracy of floating point summation",
 * 1993: Kahan's and Neumaier's sums err by O(u) + O(n u^2) times sum|x_i|, where a plain loop errs by up to
 * (n - 1)u sum|x_i| and a tree by log2(n) u sum|x_i|). */
static double tolerance(double exact, double abs_sum)
{
    const double u = HARNESS_FLOAT_UNIT;
    return 2 * u * fabs(exact) + 64 * u * u * abs_sum;
}

/* "sum_compensated(n = 1000)", for messages. */
static const char *what_of(size_t n)
{
    static char what[64];
    snprintf(what, sizeof what, "sum_compensated(n = %zu)", n);
    return what;
}

static float *alloc_floats(size_t n)
{
    float *p = malloc((n ? n : 1) * sizeof *p);
    ck_assert_msg(p != NULL, _("The checker ran out of host memory."));
    return p;
}

/* ---- Known mistakes: the sum each gives (ctx: the exact sum) ---------------------------------------------- */

/* The exact sum rounded to a 16-bit float (param: the format): a value or the running sum kept in one. */
static int model_rounded(const void *ctx, int kind, double *out)
{
    double exact = *(const double *)ctx;
    *out = harness_half_to_float((harness_half_kind)kind, harness_float_to_half((harness_half_kind)kind, (float)exact));
    return 1;
}

static const char HALF_SUM[] = N_("it is the exact sum rounded to a 16-bit float: a value, or the running sum, "
                                  "was kept in a half (fp16, 11 bits) or a bfloat16 (8 bits) on its way");
static const char HALF_SUM_HINT[] = N_("Which variable of your sum is a __half or a __nv_bfloat16, or goes through "
                                       "one? A float keeps 24 bits, a half 11.");

static const harness_bug_model SUM_MODELS[] = {
    {"sum-in-16-bits", model_rounded, HARNESS_F16, HALF_SUM, HALF_SUM_HINT, 1},
    {"sum-in-16-bits", model_rounded, HARNESS_BF16, HALF_SUM, HALF_SUM_HINT, 1},
    {0},
};

/* Runs sum_compensated on h: its result, and the error the bound allows (tol) around the exact sum. */
static float run_sum(const float *h, size_t n, double *exact, double *tol)
{
    double abs_sum;
    *exact = harness_sum_floats(h, n, &abs_sum);
    *tol = tolerance(*exact, abs_sum);
    char what[256];
    snprintf(what, sizeof what, "sum_compensated(n = %zu)", n);
    dev_buffer in = dev_input_floats(h, n, HARNESS_GUARD_FLOAT), out = dev_output_floats(1);
    sum_compensated(dev_ptr(&in), dev_ptr(&out), (int)n);
    harness_after_launch(what);
    float got;
    dev_fetch(&out, &got);
    dev_expect_guards_intact(&out, what);
    dev_expect_unchanged(&in, what);
    dev_free(&in);
    dev_free(&out);
    return got;
}

/* Whether the compensation works at all, asked when huge values that cancel swallowed the small ones: a
 * large sum of values in [0, 1) within the bound says it does, for a running sum larger than each value
 * (Kahan's case), so what failed is the other case, a value larger than the running sum (Neumaier's). */
static int compensates_small_values(void)
{
    size_t n = harness_large_n();
    float *h = malloc(n * sizeof *h);
    if (!h) return -1;
    harness_random_floats(h, n, 0.0f, 1.0f, 1);
    double exact, tol;
    float got = run_sum(h, n, &exact, &tol);
    free(h);
    return fabs((double)got - exact) <= tol;
}

/* Runs sum_compensated on h and fails with the numbers when the result is outside the bound; giants: the
 * input holds huge values that cancel. */
static void expect_accurate(const float *h, size_t n, const char *input, const char *hint, int giants)
{
    double exact, tol;
    float got = run_sum(h, n, &exact, &tol);
    double err = fabs((double)got - exact);
    if (!(err <= tol)) {
        char have[48], why[1400], extra[600] = "";
        harness_describe_float(got, have, sizeof have);
        harness_explain_float(exact, got, HARNESS_GUARD_FLOAT, why, sizeof why);
        double g = got;
        harness_output o = {1, 1, &exact, &g, NULL, NULL, tol, 0};
        harness_diagnosis d;
        harness_diagnose(&o, SUM_MODELS, &exact, &d);
        if (d.seen == SEEN_MODEL) snprintf(why, sizeof why, "%s", d.words), hint = d.model->hint;
        /* A compensation that fails: for every running sum (the large sum fails too), or only where a value
         * is larger than the running sum (Kahan's original, which Neumaier's fixes). */
        if (d.seen != SEEN_MODEL && isfinite(got) && n > 1000 && hint == ORDER_HINT) {
            int small_ok = giants ? compensates_small_values() : 0;
            if (small_ok == 1) {
                harness_evidence("bug-model", "name=kahan-not-neumaier hint=3");
                snprintf(extra, sizeof extra, "%s", _("; yet a large sum of values in [0, 1) is within "
                                                      "the bound: the compensation keeps what a small value "
                                                      "loses to a larger running sum, and fails only where a "
                                                      "value is larger than the running sum, as Kahan's "
                                                      "original does (so does a c that meets the sum in float, "
                                                      "or with the wrong sign)"));
                hint = N_("When x is larger than the running sum, which of the two loses its low bits in t = sum "
                          "+ x, and is (sum - t) + x still exact then? And does c meet the sum in double, or in "
                          "float?");
            } else if (small_ok == 0) {
                harness_evidence("bug-model", "name=compensation-lost hint=4");
                snprintf(extra, sizeof extra, "%s", _("; even a large sum of values in [0, 1) is off by "
                                                                "more than the bound: what the compensation keeps "
                                                                "never reaches the result"));
                hint = N_("Each thread's c holds what its additions lost: is it added to the thread's sum at the "
                          "end, and does it reach the block's total, and the grid's?");
            }
        }
        harness_fail(_(hint), _("%s of %s should give %.9g within %.3g (2u|S| + 64u^2 sum|x|), but it gave %s: "
                                "%s, %.3g times the bound%s."), what_of(n), input, exact, tol, have, why, err / tol,
                     extra);
    }
}

START_TEST(test_ex10_empty_and_single)
{
    float one = -1234.5f;
    expect_accurate(&one, 0, _("no element"), INDEX_HINT, 0);
    expect_accurate(&one, 1, _("the single element -1234.5"), INDEX_HINT, 0);
}
END_TEST

/* harness_large_n() values: 2^20 on the emulator, 2^24 on a GPU. A plain loop (or one atomicAdd per
 * element) over 2^20 values in [0, 1] is off by tens of times the
 * bound: once the running sum passes 2^18, each addition rounds to a multiple of 2^-6. */
START_TEST(test_ex10_large_positive_sum)
{
    size_t n = harness_large_n();
    float *h = alloc_floats(n);
    harness_random_floats(h, n, 0.0f, 1.0f, 1);
    expect_accurate(h, n, _("random values in [0, 1)"), ORDER_HINT, 0);
    free(h);
}
END_TEST

/* Values in [0, 1) with 100 pairs of +M and -M (M between 2^30 and 2^31) at random places. The pairs
 * cancel exactly, so S is the sum of the small values; but wherever a running sum holds an M, small
 * values added to it are lost (the spacing of floats near 2^30 is 128). A plain loop or a float tree is
 * off by thousands of times the bound; Kahan's original misses the bits of a small running sum when an
 * M arrives after it; Neumaier's compensation keeps them. */
START_TEST(test_ex10_cancelling_giants)
{
    enum { PAIRS = 100 };
    size_t n = harness_large_n(), slot = n / (2 * PAIRS);
    float *h = alloc_floats(n), big[PAIRS];
    int offset[2 * PAIRS];
    harness_random_floats(h, n, 0.0f, 1.0f, 2);
    harness_random_floats(big, PAIRS, 1.0f, 2.0f, 3);
    harness_random_ints(offset, 2 * PAIRS, 0, (int)slot - 1, 4);
    /* One value per slot of n / 200 elements, at a random place in it: +M in the first half of the input,
     * its -M in the second, so that a running sum in index order holds a giant most of the way. */
    for (size_t k = 0; k < PAIRS; k++) {
        float m = ldexpf(big[k], 30);
        h[k * slot + (size_t)offset[k]] = m;
        h[(k + PAIRS) * slot + (size_t)offset[k + PAIRS]] = -m;
    }
    expect_accurate(h, n, _("values in [0, 1) with 100 pairs of +M and -M (M ~ 2^30) that cancel"), ORDER_HINT, 1);
    free(h);
}
END_TEST

START_TEST(test_ex10_every_size)
{
    size_t sizes[64];
    int count = harness_sizes(harness_large_n(), sizes);
    for (int k = 0; k < count; k++) {
        float *h = alloc_floats(sizes[k]);
        harness_random_floats(h, sizes[k], -1.0f, 1.0f, 10 + (uint64_t)k);
        expect_accurate(h, sizes[k], _("random values in [-1, 1)"), INDEX_HINT, 0);
        free(h);
    }
}
END_TEST

int main(int argc, char **argv)
{
    const harness_test tests[] = {
        {N_("core: n = 0 gives 0, and one element gives itself"), test_ex10_empty_and_single, NEEDS_DEVICE},
        {N_("core: a large sum of values in [0, 1) stays within the bound"), test_ex10_large_positive_sum, NEEDS_DEVICE},
        {N_("concept: huge values that cancel do not swallow the small ones"), test_ex10_cancelling_giants, NEEDS_DEVICE},
        {N_("sizes: every edge size up to the large one, values in [-1, 1)"), test_ex10_every_size, NEEDS_DEVICE},
        {0},
    };
    const harness_exercise ex = {"10", N_("Float accuracy: order of additions, error growth, compensated sums"), "exercises/10-float-accuracy/lesson.md",
                                 tests, NULL};
    return harness_run(&ex, argc, argv);
}
