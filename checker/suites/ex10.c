/* ex10.c - hidden tests of exercise 10: float accuracy, a compensated sum graded against an exact one. */
#include "../harness/harness.h"
#include "../contracts/ex10.h"

#define HARNESS_SPACE_FILE "../spaces/ex10.def"
#include "../harness/harness_space_table.h"

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

/* "sum_compensated(n = 1000)", for messages; offset: d_in's bytes past a 16-byte boundary. */
static const char *what_of(size_t n, size_t offset)
{
    static char what[160];
    if (offset) snprintf(what, sizeof what, _("%s(n = %zu, d_in %zu bytes past a 16-byte boundary)"), "sum_compensated", n,
                         offset);
    else snprintf(what, sizeof what, "sum_compensated(n = %zu)", n);
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

/* Runs sum_compensated on h, its first element offset bytes past a 16-byte boundary: its result, and the error
 * the bound allows (tol) around the exact sum. */
static float run_sum(const float *h, size_t n, size_t offset, double *exact, double *tol)
{
    double abs_sum;
    *exact = harness_sum_floats(h, n, &abs_sum);
    *tol = tolerance(*exact, abs_sum);
    char what[256];
    snprintf(what, sizeof what, "%s", what_of(n, offset));
    float guard = HARNESS_GUARD_FLOAT;
    dev_buffer in = dev_input(h, n, sizeof(float), &guard, offset), out = dev_output_floats(1);
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
    float got = run_sum(h, n, 0, &exact, &tol);
    free(h);
    return fabs((double)got - exact) <= tol;
}

/* Runs sum_compensated on h (its first element offset bytes past a 16-byte boundary) and fails with the numbers
 * when the result is outside the bound; giants: the input holds huge values that cancel. */
static void expect_accurate_at(const float *h, size_t n, size_t offset, const char *input, const char *hint,
                               int giants)
{
    double exact, tol;
    float got = run_sum(h, n, offset, &exact, &tol);
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
                                "%s, %.3g times the bound%s."), what_of(n, offset), input, exact, tol, have, why, err / tol,
                     extra);
    }
}

static void expect_accurate(const float *h, size_t n, const char *input, const char *hint, int giants)
{
    expect_accurate_at(h, n, 0, input, hint, giants);
}

/* Values in [0, 1) with pairs of +M and -M (M between 2^30 and 2^31) at random places. The pairs cancel exactly,
 * so S is the sum of the small values; but wherever a running sum holds an M, small values added to it are lost
 * (the spacing of floats near 2^30 is 128). A plain loop or a float tree is off by thousands of times the bound;
 * Kahan's original misses the bits of a small running sum when an M arrives after it; Neumaier's compensation
 * keeps them. One value per slot of n / (2 pairs) elements, at a random place in it: +M in the first half of the
 * input, its -M in the second, so that a running sum in index order holds a giant most of the way. */
static void make_giants(float *h, size_t n, size_t pairs, uint64_t salt)
{
    harness_random_floats(h, n, 0.0f, 1.0f, salt);
    if (pairs == 0) return;
    size_t slot = n / (2 * pairs);
    float *big = alloc_floats(pairs);
    int *offset = malloc(2 * pairs * sizeof *offset);
    ck_assert_msg(offset != NULL, _("The checker ran out of host memory."));
    harness_random_floats(big, pairs, 1.0f, 2.0f, salt + 1);
    harness_random_ints(offset, 2 * pairs, 0, (int)slot - 1, salt + 2);
    for (size_t k = 0; k < pairs; k++) {
        float m = ldexpf(big[k], 30);
        h[k * slot + (size_t)offset[k]] = m;
        h[(k + pairs) * slot + (size_t)offset[k + pairs]] = -m;
    }
    free(big);
    free(offset);
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

/* 100 pairs of giants (make_giants) among harness_large_n() values. */
START_TEST(test_ex10_cancelling_giants)
{
    enum { PAIRS = 100 };
    size_t n = harness_large_n();
    float *h = alloc_floats(n);
    make_giants(h, n, PAIRS, 2);
    char input[200];
    snprintf(input, sizeof input, _("values in [0, 1) with %zu pairs of +M and -M (M ~ 2^30) that cancel"),
             (size_t)PAIRS);
    expect_accurate(h, n, input, ORDER_HINT, 1);
    free(h);
}
END_TEST

/* ---- The declared inputs (checker/spaces/ex10.def) ---------------------------------------------------------- */

/* Which test runs a case, by its values: each case runs once. */
enum concern { FOR_SIZES, FOR_FAR_FROM_ZERO, FOR_CANCELLATION };

static enum concern concern_of(const char *values)
{
    if (!strcmp(values, "mean-1000") || !strcmp(values, "huge")) return FOR_FAR_FROM_ZERO;
    if (!strcmp(values, "zero-sum") || !strcmp(values, "giants")) return FOR_CANCELLATION;
    return FOR_SIZES;
}

/* n / 2 values x in [-1e6, 1e6), then their negatives rotated by a random amount (an odd n adds one 0.5): they
 * cancel exactly, after a running sum in index order has grown to about 1e6 sqrt(n). */
static void make_zero_sum(float *h, size_t n, uint64_t salt)
{
    size_t half = n / 2;
    harness_random_floats(h, half, -1e6f, 1e6f, salt);
    int turn = 0;
    if (half > 1) harness_random_ints(&turn, 1, 1, (int)half - 1, salt + 1);
    for (size_t i = 0; i < half; i++) h[half + i] = -h[(i + (size_t)turn) % half];
    if (n % 2) h[n - 1] = 0.5f;
}

/* The cases of one concern, and the hint for their failures. */
typedef struct case_concern { enum concern concern; const char *hint; } case_concern;

/* Runs case k: n values of its kind, d_in off 16 bytes by its offset. */
static void run_case(const harness_cover *c, size_t k, uint64_t case_salt, const void *ctx)
{
    const char *hint = ((const case_concern *)ctx)->hint;
    const char *values = harness_case_label(c, k, "values");
    size_t n = (size_t)harness_case_number(c, k, "n"), offset = (size_t)harness_case_number(c, k, "offset");
    uint64_t salt = 8 * case_salt;   /* room for the salts make_giants and make_zero_sum add */
    float *h = alloc_floats(n), lo = -1.0f, hi = 1.0f;
    char input[200];
    if (!strcmp(values, "zero-sum")) {
        make_zero_sum(h, n, salt);
        snprintf(input, sizeof input, _("%zu values x in [-1e6, 1e6), then their negatives in another order: they cancel "
                                        "exactly"), n / 2);
    } else if (!strcmp(values, "giants")) {
        size_t pairs = n / 8 < 100 ? n / 8 : 100;
        make_giants(h, n, pairs, salt);
        snprintf(input, sizeof input, _("values in [0, 1) with %zu pairs of +M and -M (M ~ 2^30) that cancel"), pairs);
    } else {
        if (!strcmp(values, "uniform")) lo = 0.0f;
        if (!strcmp(values, "negative")) hi = 0.0f;
        if (!strcmp(values, "mean-1000")) lo = 999.0f, hi = 1001.0f;
        if (!strcmp(values, "huge")) lo = -1e30f, hi = 1e30f;
        harness_random_floats(h, n, lo, hi, salt);
        snprintf(input, sizeof input, _("random values in [%g, %g)"), (double)lo, (double)hi);
    }
    expect_accurate_at(h, n, offset, input, hint, !strcmp(values, "giants"));
    free(h);
}

static int of_concern(const harness_cover *c, size_t k, const void *ctx)
{
    return concern_of(harness_case_label(c, k, "values")) == ((const case_concern *)ctx)->concern;
}

static void run_cases(enum concern concern, const char *hint)
{
    case_concern cc = {concern, hint};
    harness_cover_run(&SPACE, of_concern, run_case, 1000, &cc);
}

START_TEST(test_ex10_sizes)
{
    run_cases(FOR_SIZES, INDEX_HINT);
}
END_TEST

START_TEST(test_ex10_far_from_zero)
{
    run_cases(FOR_FAR_FROM_ZERO, ORDER_HINT);
}
END_TEST

START_TEST(test_ex10_cancellation)
{
    run_cases(FOR_CANCELLATION, ORDER_HINT);
}
END_TEST

int main(int argc, char **argv)
{
    const harness_test tests[] = {
        {N_("core: n = 0 gives 0, and one element gives itself"), test_ex10_empty_and_single, NEEDS_DEVICE},
        {N_("core: a large sum of values in [0, 1) stays within the bound"), test_ex10_large_positive_sum, NEEDS_DEVICE},
        {N_("concept: huge values that cancel do not swallow the small ones"), test_ex10_cancelling_giants, NEEDS_DEVICE},
        {N_("sizes: n at -1, 0, +1 of the warp, block, 2 x block, grid-stride, its step; d_in off 16 bytes"),
         test_ex10_sizes, NEEDS_DEVICE},
        {N_("edges: values far from 0 (1000 +- 1, up to 1e30) stay within the bound"), test_ex10_far_from_zero,
         NEEDS_DEVICE},
        {N_("edges: values that cancel (pairs +x and -x, giants +M and -M) stay within the bound"),
         test_ex10_cancellation, NEEDS_DEVICE},
        {0},
    };
    const harness_exercise ex = {"10", N_("Float accuracy: order of additions, error growth, compensated sums"), "exercises/10-float-accuracy/lesson.md",
                                 tests, &SPACE};
    return harness_run(&ex, argc, argv);
}
