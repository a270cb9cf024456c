/* ex09.c - hidden tests of exercise 09: beyond sum: max, min and dot product, each with its identity. */
#include "../harness/harness.h"
#include "../contracts/ex09.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

enum op { OP_MAX, OP_MIN, OP_DOT };
static const char *const OP_NAME[] = {"reduce_max", "reduce_min", "dot_product"};
static const char *const IDENTITY_HINT[] = {
    N_("Which value can never win a max, so that a thread, or a lane, with no element can safely contribute "
       "it? Is 0 such a value when every element is negative?"),
    N_("Which value can never win a min, so that a thread, or a lane, with no element can safely contribute "
       "it? Is 0 such a value when every element is positive?"),
    N_("What does a dot product of no elements add up to, and where does each thread's sum start?"),
};
static const char NAN_HINT[] = N_("What do fmaxf(x, NaN) and fmaxf(NaN, x) return? A comparison such as "
                                 "a > b ? a : b does not treat a NaN the same way in both orders.");
static const char *DOT_HINT = N_("Does element i multiply d_a[i] by d_b[i], with the same i for both? Does every "
                                 "thread's sum start at 0, and does every partial reach the total?");

/* The guard around the inputs: one that changes the result visibly when an element outside [0, n) is
 * read. A min needs a negative one. */
static float guard_for(enum op op) { return op == OP_MIN ? -HARNESS_GUARD_FLOAT : HARNESS_GUARD_FLOAT; }

static float *alloc_floats(size_t n)
{
    float *p = malloc((n ? n : 1) * sizeof *p);
    ck_assert_msg(p != NULL, _("The checker ran out of host memory."));
    return p;
}

/* Runs one operator on host data a (and b for a dot product) of n elements; checks that nothing outside
 * d_out[0] was written and that the inputs are unchanged; returns d_out[0]. */
static float run_op(enum op op, const float *a, const float *b, size_t n, char *what, size_t what_len)
{
    snprintf(what, what_len, "%s(n = %zu)", OP_NAME[op], n);
    dev_buffer da = dev_input_floats(a, n, guard_for(op)), db = {0}, out = dev_output_floats(1);
    if (op == OP_DOT) {
        db = dev_input_floats(b, n, guard_for(op));
        dev_name(&da, "d_a");
        dev_name(&db, "d_b");
    }
    if (op == OP_MAX) reduce_max(dev_ptr(&da), dev_ptr(&out), (int)n);
    else if (op == OP_MIN) reduce_min(dev_ptr(&da), dev_ptr(&out), (int)n);
    else dot_product(dev_ptr(&da), dev_ptr(&db), dev_ptr(&out), (int)n);
    harness_after_launch(what);
    float got;
    dev_fetch(&out, &got);
    dev_expect_guards_intact(&out, what);
    dev_expect_unchanged(&da, what);
    if (op == OP_DOT) dev_expect_unchanged(&db, what);
    dev_free(&da);
    dev_free(&db);
    dev_free(&out);
    return got;
}

/* ---- Known mistakes of max and min: what each gives on the test's input ------------------------------------ */

typedef struct extreme_case { enum op op; const float *h; size_t n; float got; } extreme_case;

/* The max (or min) from another start (param 0: 0, 1: -FLT_MAX or FLT_MAX); or (2) on an input with NaNs, a
 * NaN or an element that is not the extreme, as a comparison a > b ? a : b gives: false whenever a NaN is
 * involved, it keeps a NaN in one order and, in the other, lets it reset the max. Which element that leaves
 * depends on the order of the reduction, so this one asks whether the answer (got) is such a value. */
static int model_extreme(const void *ctx, int how, double *out)
{
    const extreme_case *ec = ctx;
    int max = ec->op == OP_MAX, nan = 0, element = isnan(ec->got);
    /* The other operator (fminf where fmaxf belongs, or the other way): with its own identity (3), the other
     * extreme; from this one's identity (4), that identity, which no element replaces. */
    float m = how == 0 ? 0.0f : how == 1 ? (max ? -FLT_MAX : FLT_MAX) : (max ? -INFINITY : INFINITY);
    if (how == 3) max = !max, m = -m;
    if (how == 4) max = !max;
    for (size_t i = 0; i < ec->n; i++) {
        nan |= isnan(ec->h[i]);
        element |= ec->h[i] == ec->got;
        m = max ? fmaxf(m, ec->h[i]) : fminf(m, ec->h[i]);
    }
    *out = how == 2 && nan && element ? ec->got : m;
    return how != 2 || nan;
}

static const harness_bug_model EXTREME_MODELS[] = {
    {"identity-zero", model_extreme, 0,
     N_("it is what a max (or min) that starts at 0 gives: 0 wins over every element of the other sign"),
     N_("Which value can never win a max (a min), so that a thread, or a lane, with no element can safely "
        "contribute it? Is 0 such a value?"), 1},
    {"identity-flt-max", model_extreme, 1,
     N_("it is what a max (or min) that starts at -FLT_MAX (FLT_MAX) gives: where no element replaces the start "
        "(none at all, or only infinities or NaNs), it stays where the infinity belongs, so the start, the "
        "identity, must be -INFINITY (INFINITY)"),
     N_("Which value can never win a max, -FLT_MAX or -INFINITY? What does a max of -inf only, or of nothing, "
        "give from each?"), 1},
    {"nan-compared", model_extreme, 2,
     N_("on an input with NaNs it is a NaN, or an element that is not the extreme: a comparison such as a > b ? "
        "a : b is false whenever a NaN is involved, so it keeps the NaN in one order and lets the NaN reset the "
        "max in the other; fmaxf and fminf ignore a NaN in either order"), NAN_HINT, 3},
    {"other-operator", model_extreme, 4,
     N_("it is the identity itself: the reduction applies the other operator (fmaxf to a min's +inf, or fminf to "
        "a max's -inf), and no element can replace the identity then"),
     N_("Which operator does each function's reduction apply, fmaxf or fminf, and is its identity the one of "
        "that operator?"), 0},
    {"other-extreme", model_extreme, 3,
     N_("it is the other extreme: reduce_max gave the min, or reduce_min the max, as fminf where fmaxf belongs "
        "(or the other way round) gives"),
     N_("Which operator does each function's reduction apply, fmaxf or fminf, and is its identity the one of "
        "that operator?"), 0},
    {0},
};

/* Max or min: the answer is exact (no rounding), so it must match bit for bit, NaN rules included; a wrong one
 * is first held against the known mistakes. */
static void expect_extreme(enum op op, const float *h, size_t n, const char *input)
{
    float expected = op == OP_MAX ? -INFINITY : INFINITY;
    for (size_t i = 0; i < n; i++) expected = op == OP_MAX ? fmaxf(expected, h[i]) : fminf(expected, h[i]);
    char what[256];
    float got = run_op(op, h, NULL, n, what, sizeof what);
    if (!harness_same_float(expected, got)) {
        char want[48], have[48];
        extreme_case ec = {op, h, n, got};
        double w = expected, g = got;
        harness_output o = {1, 1, &w, &g, NULL, NULL, 0, 0};
        harness_diagnosis d;
        harness_diagnose(&o, EXTREME_MODELS, &ec, &d);
        if (d.seen != SEEN_MODEL) harness_explain_float(expected, got, guard_for(op), d.words, sizeof d.words);
        harness_describe_float(expected, want, sizeof want);
        harness_describe_float(got, have, sizeof have);
        harness_fail(d.seen == SEEN_MODEL ? d.hint : NULL, _("%s of %s should give %s, but it gave %s: %s."), what,
                     input, want, have, d.words);
    }
}

/* The rounding bound of a float dot product: each product a_i * b_i is rounded once, then passes through
 * the additions on its way to the total (harness_tree_sum_tolerance says how far that can take it). */
static double dot_tolerance(size_t n, double abs_sum) { return harness_tree_sum_tolerance(n, abs_sum); }

/* ---- Known mistakes of the dot product ---------------------------------------------------------------------- */

typedef struct dot_case { const float *a, *b; size_t n; } dot_case;

/* The sum of a[i] * a[i] (param 0) or of b[i] * b[i] (1): one input where the other belongs. */
static int model_one_input(const void *ctx, int which, double *out)
{
    const dot_case *dc = ctx;
    const float *x = which ? dc->b : dc->a;
    *out = harness_dot_floats(x, x, dc->n, NULL);
    return 1;
}

static const char ONE_INPUT[] = N_("it is the sum of the squares of one input: one of d_a and d_b stands where the "
                                   "other belongs");
static const char ONE_INPUT_HINT[] = N_("Which two elements does each term multiply: d_a[i] by d_b[i]?");

static const harness_bug_model DOT_MODELS[] = {
    {"one-input-twice", model_one_input, 0, ONE_INPUT, ONE_INPUT_HINT, 0},
    {"one-input-twice", model_one_input, 1, ONE_INPUT, ONE_INPUT_HINT, 0},
    {0},
};

static void expect_dot(size_t n, uint64_t salt)
{
    float *a = alloc_floats(n), *b = alloc_floats(n);
    harness_random_floats(a, n, -1.0f, 1.0f, salt);
    harness_random_floats(b, n, -1.0f, 1.0f, salt + 1000);
    double abs_sum, expected = harness_dot_floats(a, b, n, &abs_sum);
    double tol = dot_tolerance(n, abs_sum);
    char what[256];
    float got = run_op(OP_DOT, a, b, n, what, sizeof what);
    if (!(fabs((double)got - expected) <= tol)) {
        char have[48], why[600];
        double g = got;
        dot_case dc = {a, b, n};
        harness_output o = {1, 1, &expected, &g, NULL, NULL, tol, 1e-5};
        harness_diagnosis d;
        harness_diagnose(&o, DOT_MODELS, &dc, &d);   /* a known mistake, or NaN, inf, just past the bound */
        harness_describe_float(got, have, sizeof have);
        harness_explain_float(expected, got, HARNESS_GUARD_FLOAT, why, sizeof why);
        if (d.seen == SEEN_MODEL)
            harness_fail(d.hint, _("%s of random values in [-1, 1] should give %.9g (give or take %.2g of rounding), "
                                   "but it gave %s: %s."), what, expected, tol, have, d.words);
        harness_fail(_(got == 0.0f && n > 0 ? IDENTITY_HINT[OP_DOT] : DOT_HINT),
                     _("%s of random values in [-1, 1] should give %.9g (give or take %.2g of rounding), "
                       "but it gave %s: %s."), what, expected, tol, have, why);
    }
    free(a);
    free(b);
}

static void expect_random_extreme(enum op op, size_t n, float lo, float hi, uint64_t salt)
{
    float *h = alloc_floats(n);
    harness_random_floats(h, n, lo, hi, salt);
    char input[400];
    snprintf(input, sizeof input, _("random values in [%g, %g)"), (double)lo, (double)hi);
    expect_extreme(op, h, n, input);
    free(h);
}

START_TEST(test_ex09_max)
{
    expect_random_extreme(OP_MAX, 1000, -1000, 1000, 1);
}
END_TEST

START_TEST(test_ex09_min)
{
    expect_random_extreme(OP_MIN, 1000, -1000, 1000, 2);
}
END_TEST

START_TEST(test_ex09_dot)
{
    expect_dot(1000, 3);
}
END_TEST

START_TEST(test_ex09_empty_input)
{
    static const char *const want[] = {"-inf", "+inf", "0"};
    for (int op = OP_MAX; op <= OP_DOT; op++) {
        float dummy = 0, expected = op == OP_MAX ? -INFINITY : op == OP_MIN ? INFINITY : 0.0f;
        char what[256];
        float got = run_op((enum op)op, &dummy, &dummy, 0, what, sizeof what);
        if (!harness_same_float(expected, got)) {
            char have[48], why[1400];
            harness_describe_float(got, have, sizeof have);
            harness_explain_float(expected, got, 0, why, sizeof why);
            if (op != OP_DOT) {   /* the start of a max or min that is not its identity says so at n = 0 */
                extreme_case ec = {(enum op)op, &dummy, 0, got};
                double w = expected, g = got;
                harness_output o = {1, 1, &w, &g, NULL, NULL, 0, 0};
                harness_diagnosis d;
                harness_diagnose(&o, EXTREME_MODELS, &ec, &d);
                if (d.seen == SEEN_MODEL)
                    harness_fail(d.hint, _("%s should give its identity, %s, but it gave %s: %s."), what, want[op],
                                 have, d.words);
            }
            /* A finite extreme where the infinity belongs is the wrong identity, not a missing launch. */
            int wrong_identity = op != OP_DOT && fabsf(got) == FLT_MAX;
            harness_fail(wrong_identity ? _(IDENTITY_HINT[op])
                                        : _("With n = 0, is a block still launched to write the identity? A "
                                            "cudaMemset writes a repeated byte: can it write -inf?"),
                         _("%s should give its identity, %s, but it gave %s: %s."), what, want[op], have, why);
        }
    }
}
END_TEST

START_TEST(test_ex09_all_negative_max)
{
    static const size_t sizes[] = {1, 33, 257, 1000, 4099};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
        expect_random_extreme(OP_MAX, sizes[k], -1000, -1, 10 + k);
}
END_TEST

START_TEST(test_ex09_all_positive_min)
{
    static const size_t sizes[] = {1, 33, 257, 1000, 4099};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
        expect_random_extreme(OP_MIN, sizes[k], 1, 1000, 20 + k);
}
END_TEST

START_TEST(test_ex09_infinities)
{
    const size_t n = 1000;
    float *h = alloc_floats(n), *ones = alloc_floats(n);
    harness_random_floats(h, n, -1000, 1000, 30);
    for (size_t i = 0; i < n; i++) ones[i] = 1.0f;
    h[617] = INFINITY;
    expect_extreme(OP_MAX, h, n, _("values in [-1000, 1000) and one +inf"));
    h[617] = -INFINITY;
    expect_extreme(OP_MIN, h, n, _("values in [-1000, 1000) and one -inf"));
    for (size_t i = 0; i < n; i++) h[i] = -INFINITY;
    expect_extreme(OP_MAX, h, n, _("-inf only"));

    harness_random_floats(h, n, -1, 1, 31);
    h[200] = INFINITY;   /* times ones[200] = 1: the dot product is +inf */
    char what[256], have[48];
    float got = run_op(OP_DOT, h, ones, n, what, sizeof what);
    harness_describe_float(got, have, sizeof have);
    if (!(isinf(got) && got > 0))
        harness_fail(_(DOT_HINT), _("%s of values in [-1, 1) and one +inf, times 1s, should give +inf, but it gave "
                       "%s."), what, have);
    ones[200] = 0.0f;    /* inf * 0 is NaN, and NaN spreads through every addition */
    got = run_op(OP_DOT, h, ones, n, what, sizeof what);
    harness_describe_float(got, have, sizeof have);
    if (!isnan(got))
        harness_fail(_(DOT_HINT), _("%s where one product is +inf * 0 should give NaN, but it gave %s."), what, have);
    free(h);
    free(ones);
}
END_TEST

START_TEST(test_ex09_nan)
{
    const size_t n = 1000;
    float *h = alloc_floats(n), *ones = alloc_floats(n);
    for (size_t i = 0; i < n; i++) ones[i] = 1.0f;
    harness_random_floats(h, n, -1000, -1, 40);
    for (size_t i = 0; i < n; i += 7) h[i] = NAN;
    expect_extreme(OP_MAX, h, n, _("values in [-1000, -1) with a NaN every 7 elements"));
    for (size_t i = 0; i < n; i++) h[i] = -h[i];
    expect_extreme(OP_MIN, h, n, _("values in (1, 1000] with a NaN every 7 elements"));
    for (size_t i = 0; i < n; i++) h[i] = NAN;
    expect_extreme(OP_MAX, h, n, _("NaNs only (NaN is ignored, so the identity remains)"));
    expect_extreme(OP_MIN, h, n, _("NaNs only (NaN is ignored, so the identity remains)"));

    harness_random_floats(h, n, -1, 1, 41);
    h[999] = NAN;
    char what[256], have[48];
    float got = run_op(OP_DOT, h, ones, n, what, sizeof what);
    harness_describe_float(got, have, sizeof have);
    if (!isnan(got))
        harness_fail(_("A NaN plus anything is NaN: is every element, the last one included, in the sum?"),
                     _("%s of values in [-1, 1) with a NaN as the last element should give NaN, but it gave %s."),
                     what, have);
    free(h);
    free(ones);
}
END_TEST

START_TEST(test_ex09_every_size)
{
    size_t sizes[64];
    int count = harness_sizes(harness_large_n(), sizes);
    for (int k = 0; k < count; k++) {
        expect_random_extreme(OP_MAX, sizes[k], -1000, 1000, 100 + (uint64_t)k);
        expect_random_extreme(OP_MIN, sizes[k], -1000, 1000, 200 + (uint64_t)k);
        expect_dot(sizes[k], 300 + (uint64_t)k);
    }
}
END_TEST

int main(int argc, char **argv)
{
    const harness_test tests[] = {
        {N_("core: max of 1000 random values"), test_ex09_max, NEEDS_DEVICE},
        {N_("core: min of 1000 random values"), test_ex09_min, NEEDS_DEVICE},
        {N_("core: dot product of 1000 random pairs, within the rounding bound"), test_ex09_dot, NEEDS_DEVICE},
        {N_("edges: n = 0 gives the identity: -inf, +inf and 0"), test_ex09_empty_input, NEEDS_DEVICE},
        {N_("edges: max of all-negative values is negative (the identity is not 0)"), test_ex09_all_negative_max, NEEDS_DEVICE},
        {N_("edges: min of all-positive values is positive (the identity is not 0)"), test_ex09_all_positive_min, NEEDS_DEVICE},
        {N_("edges: +inf wins a max, -inf wins a min, inf * 0 makes a dot NaN"), test_ex09_infinities, NEEDS_DEVICE},
        {N_("edges: max and min ignore NaN, a dot product with a NaN is NaN"), test_ex09_nan, NEEDS_DEVICE},
        {N_("sizes: every edge size up to the large one, for max, min and dot"), test_ex09_every_size, NEEDS_DEVICE},
        {0},
    };
    const harness_exercise ex = {"09", N_("Beyond sum: max, min and dot product, each with its identity"),
                                 "exercises/09-beyond-sum/lesson.md", tests, NULL};
    return harness_run(&ex, argc, argv);
}
