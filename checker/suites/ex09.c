/* ex09.c - hidden tests of exercise 09: beyond sum: max, min and dot product, each with its identity. */
#include "../harness/harness.h"
#include "../contracts/ex09.h"

#define HARNESS_SPACE_FILE "../spaces/ex09.def"
#include "../harness/harness_space_table.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* Where the inputs start: offset bytes (d_b: offset_b) past a 16-byte boundary, as a caller's d_in + 1 does. */
typedef struct placement { size_t offset, offset_b; } placement;
static const placement ALIGNED = {0, 0};

/* Runs one operator on host data a (and b for a dot product) of n elements; checks that nothing outside
 * d_out[0] was written and that the inputs are unchanged; returns d_out[0]. */
static float run_op_at(enum op op, const float *a, const float *b, size_t n, placement at, char *what,
                       size_t what_len)
{
    if (at.offset || (op == OP_DOT && at.offset_b))
        snprintf(what, what_len, op == OP_DOT ? _("%s(n = %zu, d_a %zu and d_b %zu bytes past a 16-byte boundary)")
                                              : _("%s(n = %zu, d_in %zu bytes past a 16-byte boundary)"),
                 OP_NAME[op], n, at.offset, at.offset_b);
    else
        snprintf(what, what_len, "%s(n = %zu)", OP_NAME[op], n);
    float guard = guard_for(op);
    dev_buffer da = dev_input(a, n, sizeof(float), &guard, at.offset), db = {0}, out = dev_output_floats(1);
    if (op == OP_DOT) {
        db = dev_input(b, n, sizeof(float), &guard, at.offset_b);
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

static float run_op(enum op op, const float *a, const float *b, size_t n, char *what, size_t what_len)
{
    return run_op_at(op, a, b, n, ALIGNED, what, what_len);
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
static void expect_extreme_at(enum op op, const float *h, size_t n, const char *input, placement at)
{
    float expected = op == OP_MAX ? -INFINITY : INFINITY;
    for (size_t i = 0; i < n; i++) expected = op == OP_MAX ? fmaxf(expected, h[i]) : fminf(expected, h[i]);
    char what[256];
    float got = run_op_at(op, h, NULL, n, at, what, sizeof what);
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

/* The dot product where an infinity or a NaN is among the products, as IEEE arithmetic gives it in any order of
 * additions: NaN when a product is NaN (a NaN, or 0 * inf) or when +inf and -inf meet, else the infinity. Returns
 * 0 when every product is finite: then the sum is within the rounding bound of the exact one. */
static int dot_of_specials(const float *a, const float *b, size_t n, float *out)
{
    int nan = 0, pos = 0, neg = 0;
    for (size_t i = 0; i < n; i++) {
        double p = (double)a[i] * b[i];
        if (isnan(p)) nan = 1;
        else if (isinf(p)) p > 0 ? (pos = 1) : (neg = 1);
    }
    if (!nan && !pos && !neg) return 0;
    *out = nan || (pos && neg) ? NAN : pos ? INFINITY : -INFINITY;
    return 1;
}

/* The dot product of a and b: exact where an infinity or a NaN decides it (a NaN computed by the kernel, not
 * the poison), else within the rounding bound, a wrong one first held against the known mistakes. */
static void expect_dot_at(const float *a, const float *b, size_t n, const char *input, placement at)
{
    char what[256], have[48], want[48];
    float special;
    if (dot_of_specials(a, b, n, &special)) {
        float got = run_op_at(OP_DOT, a, b, n, at, what, sizeof what);
        if (harness_same_float(special, got) && !harness_is_poison_float(got)) return;
        char why[1400];
        harness_describe_float(special, want, sizeof want);
        harness_describe_float(got, have, sizeof have);
        harness_explain_float(special, got, HARNESS_GUARD_FLOAT, why, sizeof why);
        harness_fail(isnan(special) && !isnan(got) ? _("A NaN plus anything is NaN, and so is inf * 0: is every "
                                                       "element, the first and the last included, in the sum?")
                                                   : _(DOT_HINT),
                     _("%s of %s should give %s, but it gave %s: %s."), what, input, want, have, why);
    }
    double abs_sum, expected = harness_dot_floats(a, b, n, &abs_sum);
    double tol = dot_tolerance(n, abs_sum);
    float got = run_op_at(OP_DOT, a, b, n, at, what, sizeof what);
    if (!(fabs((double)got - expected) <= tol)) {
        char why[600];
        double g = got;
        dot_case dc = {a, b, n};
        harness_output o = {1, 1, &expected, &g, NULL, NULL, tol, 1e-5};
        harness_diagnosis d;
        harness_diagnose(&o, DOT_MODELS, &dc, &d);   /* a known mistake, or NaN, inf, just past the bound */
        harness_describe_float(got, have, sizeof have);
        harness_explain_float(expected, got, HARNESS_GUARD_FLOAT, why, sizeof why);
        if (d.seen == SEEN_MODEL)
            harness_fail(d.hint, _("%s of %s should give %.9g (give or take %.2g of rounding), but it gave %s: %s."),
                         what, input, expected, tol, have, d.words);
        harness_fail(_(got == 0.0f && n > 0 ? IDENTITY_HINT[OP_DOT] : DOT_HINT),
                     _("%s of %s should give %.9g (give or take %.2g of rounding), but it gave %s: %s."), what, input,
                     expected, tol, have, why);
    }
}

static void expect_dot(size_t n, uint64_t salt)
{
    float *a = alloc_floats(n), *b = alloc_floats(n);
    harness_random_floats(a, n, -1.0f, 1.0f, salt);
    harness_random_floats(b, n, -1.0f, 1.0f, salt + 1000);
    expect_dot_at(a, b, n, _("random values in [-1, 1)"), ALIGNED);
    free(a);
    free(b);
}

static void expect_random_extreme(enum op op, size_t n, float lo, float hi, uint64_t salt)
{
    float *h = alloc_floats(n);
    harness_random_floats(h, n, lo, hi, salt);
    char input[400];
    snprintf(input, sizeof input, _("random values in [%g, %g)"), (double)lo, (double)hi);
    expect_extreme_at(op, h, n, input, ALIGNED);
    free(h);
}

/* ---- The declared inputs (checker/spaces/ex09.def): each case's values, made from the seed ---------------- */

/* Which test runs a case: each case runs once, in the test of what its values check. */
enum concern { FOR_SIZES, FOR_MAX_IDENTITY, FOR_MIN_IDENTITY, FOR_IDENTITY_ONLY, FOR_INFINITY, FOR_NAN };

static int kind_is(const char *values, const char *prefix) { return !strncmp(values, prefix, strlen(prefix)); }

static enum op op_of(const harness_cover *c, size_t k)
{
    return harness_case_is(c, k, "op", "max") ? OP_MAX : harness_case_is(c, k, "op", "min") ? OP_MIN : OP_DOT;
}

static enum concern concern_of(enum op op, const char *values)
{
    if (!strcmp(values, "negative") || !strcmp(values, "huge"))
        return op == OP_MAX ? FOR_MAX_IDENTITY : op == OP_MIN && !strcmp(values, "huge") ? FOR_MIN_IDENTITY
                                                                                            : FOR_SIZES;
    if (!strcmp(values, "positive")) return op == OP_MIN ? FOR_MIN_IDENTITY : FOR_SIZES;
    if (!strcmp(values, "identity-only") || !strcmp(values, "nan-only")) return FOR_IDENTITY_ONLY;
    if (kind_is(values, "nan-")) return FOR_NAN;
    if (kind_is(values, "inf-") || kind_is(values, "losing-inf")) return FOR_INFINITY;
    return FOR_SIZES;
}

/* The infinity that wins op: +inf in a max (and a dot product), -inf in a min; the other one never does. */
static float winning_inf(enum op op) { return op == OP_MIN ? -INFINITY : INFINITY; }

/* Case k's input for op, and its words: a and b (b only for a dot product) of n values. */
static void make_values(enum op op, const char *values, float *a, float *b, size_t n, uint64_t salt, char *input,
                        size_t len)
{
    int dot = op == OP_DOT;
    float lo = dot ? -1.0f : -1000.0f, hi = dot ? 1.0f : 1000.0f;
    const char *inf_name = op == OP_MIN ? "-inf" : "+inf", *losing_name = op == OP_MIN ? "+inf" : "-inf";
    if (!strcmp(values, "negative")) lo = dot ? -1.0f : -1000.0f, hi = dot ? -0.001f : -1.0f;
    if (!strcmp(values, "positive")) lo = dot ? 0.001f : 1.0f, hi = dot ? 1.0f : 1000.0f;
    if (!strcmp(values, "huge")) {
        if (dot) lo = -1e15f, hi = 1e15f;
        else lo = op == OP_MAX ? -3.4e38f : 1e37f, hi = op == OP_MAX ? -1e37f : 3.4e38f;
    }
    /* A dot product's d_b has d_a's range, but positive where d_a is negative: every product negative. */
    float b_lo = dot && hi < 0 ? 0.001f : lo, b_hi = dot && hi < 0 ? 1.0f : hi;
    harness_random_floats(a, n, lo, hi, salt);
    if (dot) harness_random_floats(b, n, b_lo, b_hi, salt + 1000);
    if (dot) snprintf(input, len, _("random pairs in [%g, %g) x [%g, %g)"), (double)lo, (double)hi, (double)b_lo,
                      (double)b_hi);
    else snprintf(input, len, _("random values in [%g, %g)"), (double)lo, (double)hi);
    char base[400];
    snprintf(base, sizeof base, "%s", input);
    if (!strcmp(values, "identity-only")) {
        for (size_t i = 0; i < n; i++) a[i] = dot ? 0.0f : -winning_inf(op);
        snprintf(input, len, dot ? _("pairs whose d_a is 0 only") : _("%s only"), losing_name);
    } else if (!strcmp(values, "nan-only")) {
        for (size_t i = 0; i < n; i++) a[i] = NAN;
        snprintf(input, len, "%s", dot ? _("pairs whose d_a is NaN only")
                                       : _("NaNs only (NaN is ignored, so the identity remains)"));
    } else if (kind_is(values, "nan-")) {
        /* In a dot product the NaN sits in d_a or, last and every 7th, in d_b. */
        const char *where = values + 4;
        float *x = dot && (!strcmp(where, "last") || !strcmp(where, "every-7")) ? b : a;
        size_t inside = harness_place_floats(x, n, where, NAN, salt + 7);
        if (!strcmp(where, "inside")) snprintf(input, len, _("%s with a NaN at index %zu"), base, inside);
        else if (!strcmp(where, "first")) snprintf(input, len, _("%s with a NaN first"), base);
        else if (!strcmp(where, "last")) snprintf(input, len, _("%s with a NaN last"), base);
        else if (!strcmp(where, "every-7")) snprintf(input, len, _("%s with a NaN every 7 elements"), base);
        else snprintf(input, len, _("%s with a NaN at every multiple of 32 (each warp's first value)"), base);
    } else if (kind_is(values, "inf-")) {
        const char *where = values + 4;
        size_t inside = harness_place_floats(a, n, where, winning_inf(op), salt + 7);
        if (!strcmp(where, "inside")) snprintf(input, len, _("%s with %s at index %zu"), base, inf_name, inside);
        else if (!strcmp(where, "first")) snprintf(input, len, _("%s with %s first"), base, inf_name);
        else if (!strcmp(where, "last")) snprintf(input, len, _("%s with %s last"), base, inf_name);
        else snprintf(input, len, _("%s with %s at every multiple of 32 (each warp's first value)"), base, inf_name);
    } else if (kind_is(values, "losing-inf")) {
        if (dot) {   /* the infinity that cannot win a dot product: inf * 0 */
            size_t inside = harness_place_floats(a, n, "inside", INFINITY, salt + 7);
            harness_place_floats(b, n, "inside", 0.0f, salt + 7);
            snprintf(input, len, _("%s with +inf * 0 at index %zu"), base, inside);
        } else {     /* each thread's first values, before its finite ones: the first half of the input */
            for (size_t i = 0; i < n / 2; i++) a[i] = -winning_inf(op);
            snprintf(input, len, _("%s, the first half of them %s (each thread's first values)"), base, losing_name);
        }
    }
}

/* Runs case k of the covering set: its op on its n values of its kind, its inputs off 16 bytes by its offsets. */
static void run_case(const harness_cover *c, size_t k, uint64_t salt, const void *ctx)
{
    (void)ctx;
    const char *values = harness_case_label(c, k, "values");
    enum op op = op_of(c, k);
    size_t n = (size_t)harness_case_number(c, k, "n");
    placement at = {(size_t)harness_case_number(c, k, "offset"), (size_t)harness_case_number(c, k, "offset_b")};
    float *a = alloc_floats(n), *b = alloc_floats(n);
    char input[400];
    make_values(op, values, a, b, n, 16 * salt, input, sizeof input);   /* room for the salts it adds */
    if (op == OP_DOT) expect_dot_at(a, b, n, input, at);
    else expect_extreme_at(op, a, n, input, at);
    free(a);
    free(b);
}

static int of_concern(const harness_cover *c, size_t k, const void *concern)
{
    return concern_of(op_of(c, k), harness_case_label(c, k, "values")) == *(const enum concern *)concern;
}

static void run_cases(enum concern concern)
{
    harness_cover_run(&SPACE, of_concern, run_case, 1000, &concern);
}

/* ---- Tests ------------------------------------------------------------------------------------------------ */

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


START_TEST(test_ex09_max_identity)
{
    run_cases(FOR_MAX_IDENTITY);
}
END_TEST

START_TEST(test_ex09_min_identity)
{
    run_cases(FOR_MIN_IDENTITY);
}
END_TEST

START_TEST(test_ex09_identity_only)
{
    run_cases(FOR_IDENTITY_ONLY);
}
END_TEST

START_TEST(test_ex09_infinities)
{
    run_cases(FOR_INFINITY);
}
END_TEST

START_TEST(test_ex09_nan)
{
    run_cases(FOR_NAN);
}
END_TEST

START_TEST(test_ex09_sizes)
{
    run_cases(FOR_SIZES);
}
END_TEST

int main(int argc, char **argv)
{
    const harness_test tests[] = {
        {N_("core: max of 1000 random values"), test_ex09_max, NEEDS_DEVICE},
        {N_("core: min of 1000 random values"), test_ex09_min, NEEDS_DEVICE},
        {N_("core: dot product of 1000 random pairs, within the rounding bound"), test_ex09_dot, NEEDS_DEVICE},
        {N_("edges: n = 0 gives the identity: -inf, +inf and 0"), test_ex09_empty_input, NEEDS_DEVICE},
        {N_("edges: max of all-negative values is negative (the identity is not 0)"), test_ex09_max_identity, NEEDS_DEVICE},
        {N_("edges: min of all-positive values is positive (the identity is not 0)"), test_ex09_min_identity, NEEDS_DEVICE},
        {N_("edges: the identity only, or NaNs only, gives the identity (a dot product: NaN)"),
         test_ex09_identity_only, NEEDS_DEVICE},
        {N_("edges: +inf wins a max, -inf a min, wherever it sits; inf * 0 makes a dot NaN"), test_ex09_infinities, NEEDS_DEVICE},
        {N_("edges: max and min ignore NaN wherever it sits, a dot product with a NaN is NaN"), test_ex09_nan,
         NEEDS_DEVICE},
        {N_("sizes: n at -1, 0, +1 of the warp, block, 2 x block, grid-stride; inputs off 16 bytes"),
         test_ex09_sizes, NEEDS_DEVICE},
        {0},
    };
    const harness_exercise ex = {"09", N_("Beyond sum: max, min and dot product, each with its identity"),
                                 "exercises/09-beyond-sum/lesson.md", tests, &SPACE};
    return harness_run(&ex, argc, argv);
}
