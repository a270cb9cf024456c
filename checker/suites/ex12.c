/* ex12.c - hidden tests of exercise 12: the library does the reducing. Thrust's reduce and transform_reduce
 * with the right identities and an operator of the learner's own; CUB's DeviceReduce::Sum with storage the
 * caller owns, on a stream. On the emulator, how the library is used is graded too: where it runs, what it
 * copies, how often it allocates, whether it waits. */
#include "../harness/harness.h"
#include "../contracts/ex12.h"

#define HARNESS_SPACE_FILE "../spaces/ex12.def"
#include "../harness/harness_space_table.h"

#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char SUM_HINT[] = N_("Does thrust::reduce get thrust::device, then d_in and d_in + n, then 0 as the "
                                  "initial value?");
static const char MAX_HINT[] = N_("Which value can never win a max, so that n = 0 returns it and it never beats an "
                                  "element? Is 0 such a value when every element is negative? Is -FLT_MAX, when an "
                                  "element is -inf?");
static const char NORM_HINT[] = N_("Is every element squared on its way into a sum that starts at 0, and is the square "
                                   "root of that sum returned?");
static const char RANGE_HINT[] = N_("Does merge_ranges keep the smaller of the two mins and the larger of the two "
                                    "maxes, and does n = 0 give {+inf, -inf}, the range that changes nothing?");
static const char NAN_HINT[] = N_("Is merge_ranges commutative when one side is NaN? a.min < b.min ? a.min : b.min "
                                  "picks b.min whenever the comparison is false, so a NaN in b wins and a NaN in a "
                                  "loses. fminf and fmaxf ignore a NaN in either order.");
static const char CUB_HINT[] = N_("With NULL as its storage, cub::DeviceReduce::Sum only writes into bytes how many "
                                  "it needs. Is there a second call, with that much storage, d_in, d_out and n?");
static const char CUB_SUM_HINT[] = N_("Does the second call of cub::DeviceReduce::Sum get the storage, its size, d_in, "
                                      "d_out and n, in that order?");
static const char ERROR_HINT[] = N_("CUB returns cudaErrorInvalidValue when the storage it is given is smaller than "
                                    "the size it asked for. Does the first call (NULL storage) ask for this n, and is "
                                    "the storage you hold at least that large?");

/* ---- Measuring what a call asked of the runtime (the emulator counts it; a GPU does not) ---------------- */

typedef struct usage {
    int known;          /* 0 on a GPU: nothing was counted */
    emu_activity act;
    emu_metrics met;
} usage;

static void usage_begin(void)
{
    backend_take_activity(NULL);
    backend_take_metrics(NULL);
}

static usage usage_end(void)
{
    usage u;
    u.known = backend_take_activity(&u.act);
    if (!backend_take_metrics(&u.met)) u.known = 0;
    return u;
}

/* ---- Inputs ---------------------------------------------------------------------------------------------- */

static int *random_ints(size_t n, uint64_t salt)
{
    int *h = malloc((n ? n : 1) * sizeof *h);
    ck_assert_msg(h != NULL, _("The checker ran out of host memory."));
    int range = harness_safe_int_range(n);
    harness_random_ints(h, n, -range, range, salt);
    return h;
}

static float *random_floats(size_t n, float lo, float hi, uint64_t salt)
{
    float *h = malloc((n ? n : 1) * sizeof *h);
    ck_assert_msg(h != NULL, _("The checker ran out of host memory."));
    harness_random_floats(h, n, lo, hi, salt);
    return h;
}

/* "max_thrust(n = 5)", or with where d_in starts: offset bytes past a 16-byte boundary. */
static void describe_call(const char *name, size_t n, size_t offset, char *what, size_t len)
{
    if (offset) snprintf(what, len, _("%s(n = %zu, d_in %zu bytes past a 16-byte boundary)"), name, n, offset);
    else snprintf(what, len, "%s(n = %zu)", name, n);
}

/* ---- The Thrust functions: each runs on a guarded copy of h, and the input must come back unchanged ------- */

static int run_sum_thrust(const int *h, size_t n, size_t offset, usage *u)
{
    int guard = HARNESS_GUARD_INT;
    dev_buffer in = dev_input(h, n, sizeof(int), &guard, offset);
    char what[256];
    describe_call("sum_thrust", n, offset, what, sizeof what);
    usage_begin();
    int got = sum_thrust(dev_ptr(&in), (int)n);
    if (u) *u = usage_end();
    harness_after_launch(what);
    dev_expect_unchanged(&in, what);
    dev_free(&in);
    return got;
}

enum float_fn { FN_MAX, FN_NORM, FN_MINMAX };
static const char *const FN_NAME[] = {"max_thrust", "norm_thrust", "minmax_thrust"};

/* Runs one of the float functions on h, d_in offset bytes past a 16-byte boundary; for max and norm the value is
 * in r.max. */
static float_range run_float_fn(enum float_fn fn, const float *h, size_t n, size_t offset, usage *u)
{
    float guard = HARNESS_GUARD_FLOAT;
    dev_buffer in = dev_input(h, n, sizeof(float), &guard, offset);
    char what[256];
    describe_call(FN_NAME[fn], n, offset, what, sizeof what);
    float_range r = {0, 0};
    usage_begin();
    if (fn == FN_MAX) r.max = max_thrust(dev_ptr(&in), (int)n);
    else if (fn == FN_NORM) r.max = norm_thrust(dev_ptr(&in), (int)n);
    else r = minmax_thrust(dev_ptr(&in), (int)n);
    if (u) *u = usage_end();
    harness_after_launch(what);
    dev_expect_unchanged(&in, what);
    dev_free(&in);
    return r;
}

/* Each expect_ function checks one call's answer; u, when not NULL, receives what the call asked of the
 * runtime (for the concept tests, which grade how only once the answer is right). */
/* sum_thrust of h, n ints drawn from [lo, hi]. */
static void check_sum_thrust(const int *h, size_t n, size_t offset, int lo, int hi, const char *input, usage *u)
{
    int expected = (int)harness_sum_ints(h, 0, n), got = run_sum_thrust(h, n, offset, u);
    if (got != expected) {
        char why[600], what[256];
        const char *hint = SUM_HINT;
        describe_call("sum_thrust", n, offset, what, sizeof what);
        if (!harness_explain_subset(h, n, got, why, sizeof why)) harness_explain_int(expected, got, why, sizeof why);
        /* Off by float's rounding of such sums: thrust::reduce accumulates in the type of its initial value. */
        if (harness_explain_rounding(expected, got, n, lo, hi, why, sizeof why))
            hint = N_("thrust::reduce adds in the type of its initial value: is yours 0, an int, or 0.0f, a float, "
                      "which keeps 24 bits?");
        harness_fail(_(hint), _("%s of %s should return %d, but it returned %d: %s."), what, input, expected, got,
                     why);
    }
}

static void expect_sum_thrust(size_t n, uint64_t salt, usage *u)
{
    int *h = random_ints(n, salt), lo, hi;
    harness_value_range("mixed", n, &lo, &hi);
    check_sum_thrust(h, n, 0, lo, hi, _("random ints"), u);
    free(h);
}

/* ---- Known mistakes of max_thrust and norm_thrust: what each returns on the test's input ------------------ */

typedef struct float_case { const float *h; size_t n; } float_case;

/* The max from a start other than -inf: 0 (param 0), -FLT_MAX (1); or the min, from +inf (2) or from the max's
 * own start, -inf (3). */
static int model_max_from(const void *ctx, int param, double *out)
{
    const float_case *fc = ctx;
    float m = param == 3 ? -INFINITY : param == 2 ? INFINITY : param ? -FLT_MAX : 0.0f;
    for (size_t i = 0; i < fc->n; i++) m = param >= 2 ? fminf(m, fc->h[i]) : fmaxf(m, fc->h[i]);
    *out = m;
    return 1;
}

static const char MIN_FOR_MAX_HINT[] = N_("Which binary operator does the reduce apply: thrust::maximum<float>()?");

static const harness_bug_model MAX_MODELS[] = {
    {"max-from-zero", model_max_from, 0,
     N_("it is what a max that starts at 0 returns: 0 beats every negative element"), MAX_HINT, 2},
    {"max-from-flt-max", model_max_from, 1,
     N_("it is what a max that starts at -FLT_MAX returns: where no element beats it (none at all, or -inf "
        "only), the start stays where -inf belongs"), MAX_HINT, 2},
    {"min-for-max", model_max_from, 2, N_("it is the smallest element: the reduce took thrust::minimum (or fminf) "
                                          "where the max belongs"), MIN_FOR_MAX_HINT, 0},
    {"min-for-max", model_max_from, 3, N_("it is the start, -inf, itself: the reduce took thrust::minimum (or "
                                          "fminf) where the max belongs, and no element is below -inf"),
     MIN_FOR_MAX_HINT, 0},
    {0},
};

/* param: 0 the square root left out, 1 the squares left out, 2 the mean of the squares, not their sum. */
static int model_norm(const void *ctx, int param, double *out)
{
    const float_case *fc = ctx;
    double squares = 0, sum = 0;
    for (size_t i = 0; i < fc->n; i++) squares += (double)fc->h[i] * fc->h[i], sum += fc->h[i];
    *out = param == 0 ? squares : param == 1 ? sqrt(sum) : sqrt(squares / (double)fc->n);
    return param != 2 || fc->n > 1;
}

static const harness_bug_model NORM_MODELS[] = {
    {"no-sqrt", model_norm, 0, N_("it is the sum of the squares itself: the square root was not taken"),
     NORM_HINT, 0},
    {"not-squared", model_norm, 1, N_("it is the square root of the sum of the elements: they were not squared "
                                      "on the way in (NaN where that sum is negative)"), NORM_HINT, 0},
    {"mean-of-squares", model_norm, 2, N_("it is the root of the mean of the squares, not of their sum"),
     NORM_HINT, 0},
    {0},
};

/* One float answer against the right one: the models first, then the usual fragment; NULL models: none. */
static void explain_one(const harness_bug_model *models, const float *h, size_t n, double expected, float got,
                        double tol, harness_diagnosis *d)
{
    float_case fc = {h, n};
    double want = expected, have = got;
    harness_output o = {1, 1, &want, &have, NULL, NULL, tol, 1e-5};
    harness_diagnose(&o, models, &fc, d);
    if (d->seen != SEEN_MODEL) harness_explain_float(expected, got, HARNESS_GUARD_FLOAT, d->words, sizeof d->words);
}

/* The largest element, as fmaxf from -inf finds it (d_in holds no NaN for max_thrust). */
static void expect_max_at(const float *h, size_t n, size_t offset, const char *input, usage *u)
{
    float expected = -INFINITY;
    for (size_t i = 0; i < n; i++) expected = fmaxf(expected, h[i]);
    float got = run_float_fn(FN_MAX, h, n, offset, u).max;
    if (harness_same_float(expected, got)) return;
    char want[48], have[48], what[256];
    describe_call("max_thrust", n, offset, what, sizeof what);
    harness_diagnosis d;
    explain_one(MAX_MODELS, h, n, expected, got, 0, &d);
    harness_describe_float(expected, want, sizeof want);
    harness_describe_float(got, have, sizeof have);
    harness_fail(d.seen == SEEN_MODEL ? d.hint : NULL, _("%s of %s should return %s, but it returned %s: %s."), what,
                 input, want, have, d.words);
}

static void expect_max(const float *h, size_t n, const char *input, usage *u)
{
    expect_max_at(h, n, 0, input, u);
}

static void expect_random_max(size_t n, float lo, float hi, uint64_t salt, usage *u)
{
    float *h = random_floats(n, lo, hi, salt);
    char input[400];
    snprintf(input, sizeof input, _("random values in [%g, %g)"), (double)lo, (double)hi);
    expect_max(h, n, input, u);
    free(h);
}

/* Whether x, the square of a float that is the correctly rounded square root of a whole number below 2^24,
 * could be that number: the float's rounding (2^-24 of it) doubles in its square. */
static int is_whole(double x)
{
    return isfinite(x) && fabs(x - nearbyint(x)) <= 2.5e-7 * fabs(x) + 1e-9;
}

/* The probes' 16 values of the checker's, their exact sum of squares, and the norm norm_thrust returned for them:
 * one run of the learner's function that both probes below read. */
typedef struct {
    float x[16];
    double exact;
    float norm;
    int exact_not_whole;   /* exact is at least 0.05 from a whole number: a whole one back is a mark, not luck */
} norm_probe;

/* The seed's first draw of 16 values whose exact sum of squares is not nearly whole, or the next (about one
 * draw in ten is), and norm_thrust of them. */
static void norm_probe_run(norm_probe *p)
{
    for (uint64_t salt = 991; salt < 1001; salt++) {
        harness_random_floats(p->x, 16, -1.0f, 1.0f, salt);
        harness_dot_floats(p->x, p->x, 16, &p->exact);
        p->exact_not_whole = fabs(p->exact - nearbyint(p->exact)) >= 0.05;
        if (p->exact_not_whole) break;
    }
    p->norm = run_float_fn(FN_NORM, p->x, 16, 0, NULL).max;
}

/* A reduction's operator written as a fold, acc + x * x: Thrust applies it to two partial results too, so the
 * answer squares some partial sums (and overflows on long inputs). Its mark, on 16 values of the checker's:
 * norm_thrust of 2x is not twice norm_thrust of x, as a norm's is. Whole squares back on both, no larger than
 * the exact sums, are the mark of a total kept in an integer instead (its ratio is not 2 either); a fold's
 * squared partials are far larger. */
static int fold_probe(const norm_probe *p, harness_diagnosis *d)
{
    float twice[16];
    for (size_t i = 0; i < 16; i++) twice[i] = 2 * p->x[i];
    float once = p->norm, doubled = run_float_fn(FN_NORM, twice, 16, 0, NULL).max;
    double ratio = doubled / once;
    if (!isfinite(ratio) || fabs(ratio - 2) < 1e-3 || fabs(ratio - 4) < 1e-3) return 0;
    double once2 = (double)once * once, doubled2 = (double)doubled * doubled;
    if (is_whole(once2) && is_whole(doubled2) && once2 <= p->exact + 0.5 && doubled2 <= 4 * p->exact + 0.5) return 0;
    char seen[sizeof d->words];
    snprintf(seen, sizeof seen, "%s", d->words);
    d->seen = SEEN_MODEL;
    harness_evidence("bug-model", "name=fold-as-operator hint=3");
    snprintf(d->words, sizeof d->words, _("%s; and on 16 values of the checker's it returned %.6g, on twice those "
                                          "values %.6g, %.4g times as much, where a norm doubles: the answer mixes "
                                          "squared and unsquared sums, as an operator written as a fold (acc + x * "
                                          "x) gives, since thrust::reduce applies its operator to two partial sums "
                                          "too, and squares one of them"), seen, once, doubled, ratio);
    d->hint = _("thrust::reduce's operator must take two partial results alike (associative and commutative): "
                "which call applies a unary function to each element on its way into a plain sum?");
    return 1;
}

/* An initial value that is an int (0) makes transform_reduce keep its total in int: the sum of squares of values
 * in [-1, 1] loses fractions, so the result is the square root of a whole number. Its mark: the squares of what
 * came back, on the input and on 16 values of the checker's, are whole numbers no larger than the exact sums
 * (each step drops a fraction), where the checker's exact sum is not whole. The probe is what tells: past 2^24
 * every float is whole, and on an input whose own sum is nearly whole a whole answer says nothing. */
static int int_sum_probe(float got, double squares, const norm_probe *p, harness_diagnosis *d)
{
    double g2 = (double)got * got, p2 = (double)p->norm * p->norm, exact16 = p->exact;
    if (!is_whole(g2) || !is_whole(p2) || g2 > squares + 0.5 || p2 > exact16 + 0.5 || !p->exact_not_whole)
        return 0;
    char seen[sizeof d->words];
    snprintf(seen, sizeof seen, "%s", d->words);
    d->seen = SEEN_MODEL;
    harness_evidence("bug-model", "name=int-accumulator hint=10");
    snprintf(d->words, sizeof d->words, _("%s; its square is %.6g, a whole number, where the sum of squares is %.6g "
                                          "(and on 16 values of the checker's, %.6g where it is %.6g): the squares "
                                          "were added in an integer type, which drops their fractions"),
             seen, g2, squares, p2, exact16);
    d->hint = _("In which type does the reduction add: the elements', or its initial value's? Is 0 an int?");
    return 1;
}

/* The norm of floats in [-1, 1], against sqrt of the exact sum of squares S. The float sum of squares is
 * within harness_tree_sum_tolerance(n, S) of S; through the square root that is at most that much divided
 * by sqrt(S), plus the square root's own rounding (half a unit in the last place of the result). */
/* Where a NaN or an infinity is among the elements, the norm is NaN, else +inf, exactly: returns 1 and the
 * value then, 0 when every element is finite. */
static int norm_of_specials(const float *h, size_t n, float *out)
{
    int nan = 0, inf = 0;
    for (size_t i = 0; i < n; i++) nan |= isnan(h[i]), inf |= isinf(h[i]);
    if (nan || inf) *out = nan ? NAN : INFINITY;
    return nan || inf;
}

static void check_norm(const float *h, size_t n, size_t offset, const char *input, usage *u)
{
    char have[48], what[256];
    describe_call("norm_thrust", n, offset, what, sizeof what);
    float special;
    if (norm_of_specials(h, n, &special)) {
        float got = run_float_fn(FN_NORM, h, n, offset, u).max;
        if (harness_same_float(special, got)) return;
        char want[48];
        harness_describe_float(special, want, sizeof want);
        harness_describe_float(got, have, sizeof have);
        harness_fail(_(NORM_HINT), _("%s of %s should return %s, as IEEE arithmetic gives it, but it returned %s."),
                     what, input, want, have);
    }
    double squares;
    harness_dot_floats(h, h, n, &squares);
    double expected = sqrt(squares);
    double tol = expected > 0 ? harness_tree_sum_tolerance(n, squares) / expected + HARNESS_FLOAT_UNIT * expected : 0;
    float got = run_float_fn(FN_NORM, h, n, offset, u).max;
    if (!(fabs((double)got - expected) <= tol)) {
        harness_diagnosis d;
        explain_one(NORM_MODELS, h, n, expected, got, tol, &d);
        if (d.seen != SEEN_MODEL) {
            norm_probe p;
            norm_probe_run(&p);
            if (!int_sum_probe(got, squares, &p, &d) && !fold_probe(&p, &d)) d.hint = _(NORM_HINT);
        }
        harness_describe_float(got, have, sizeof have);
        harness_fail(d.hint, _("%s of %s should return %.9g (give or take %.2g of rounding), but it returned %s: %s."),
                     what, input, expected, tol, have, d.words);
    }
}

static void expect_norm(size_t n, uint64_t salt, usage *u)
{
    float *h = random_floats(n, -1.0f, 1.0f, salt);
    check_norm(h, n, 0, _("random values in [-1, 1)"), u);
    free(h);
}

static int is_element(const float *h, size_t n, float x)
{
    for (size_t i = 0; i < n; i++)
        if (h[i] == x) return 1;
    return 0;
}

/* The range, as fminf and fmaxf from {+inf, -inf} find it: NaN ignored. */
static void expect_minmax_at(const float *h, size_t n, size_t offset, const char *input, const char *hint, usage *u)
{
    float_range want = {INFINITY, -INFINITY};
    for (size_t i = 0; i < n; i++) {
        want.min = fminf(want.min, h[i]);
        want.max = fmaxf(want.max, h[i]);
    }
    float_range got = run_float_fn(FN_MINMAX, h, n, offset, u);
    if (harness_same_float(want.min, got.min) && harness_same_float(want.max, got.max)) return;
    /* The NaN hint fits a range that holds a NaN or two of the input's own elements (the NaNs moved the
     * result); anything else is a plain mistake of the merge or the identity. */
    if (hint != RANGE_HINT && !isnan(got.min) && !isnan(got.max) &&
        !(is_element(h, n, got.min) && is_element(h, n, got.max)))
        hint = RANGE_HINT;
    char w0[48], w1[48], g0[48], g1[48], what[256];
    describe_call("minmax_thrust", n, offset, what, sizeof what);
    harness_describe_float(want.min, w0, sizeof w0);
    harness_describe_float(want.max, w1, sizeof w1);
    harness_describe_float(got.min, g0, sizeof g0);
    harness_describe_float(got.max, g1, sizeof g1);
    int guard = fabsf(got.min) == HARNESS_GUARD_FLOAT || fabsf(got.max) == HARNESS_GUARD_FLOAT;
    harness_fail(_(hint), _("%s of %s should return {%s, %s}, but it returned {%s, %s}%s."), what, input, w0, w1, g0,
                 g1, guard ? _(": the guard value that surrounds the input was read") : "");
}

static void expect_minmax(const float *h, size_t n, const char *input, const char *hint, usage *u)
{
    expect_minmax_at(h, n, 0, input, hint, u);
}

static void expect_random_minmax(size_t n, uint64_t salt, usage *u)
{
    float *h = random_floats(n, -1000, 1000, salt);
    expect_minmax(h, n, _("random values in [-1000, 1000)"), RANGE_HINT, u);
    free(h);
}

/* ---- CUB: the sum left in d_out[0], on a stream of the checker's ------------------------------------------ */

/* One call on the first n elements of the input; what it returns must be cudaSuccess. */
static void call_sum_cub(const dev_buffer *in, const dev_buffer *out, size_t n, cudaStream_t stream)
{
    cudaError_t err = sum_cub(dev_ptr(in), dev_ptr(out), (int)n, stream);
    if (err != cudaSuccess)
        harness_fail(_(ERROR_HINT), _("sum_cub(n = %zu) returned %s (%s) instead of cudaSuccess."), n,
                     cudaGetErrorName(err), cudaGetErrorString(err));
}

/* Once the stream is done: d_out[0] must hold the sum, and nothing else of d_out may have changed. */
static void expect_cub_result(const dev_buffer *out, int expected, const char *what)
{
    int got;
    dev_fetch(out, &got);
    if (got != expected) {
        char why[600];
        harness_explain_int(expected, got, why, sizeof why);
        harness_fail(_(got == HARNESS_POISON_INT ? CUB_HINT : CUB_SUM_HINT),
                     _("%s should leave %d in d_out[0], but it left %d: %s."), what, expected, got, why);
    }
    dev_expect_guards_intact(out, what);
}

/* Calls sum_cub `calls` times into the same d_out on a stream, on h with d_in offset bytes past a 16-byte boundary,
 * and checks d_out[0] after each (once the stream is done), what sum_cub returned, that nothing else of d_out was
 * written and that d_in is unchanged. after_small: a call on one element comes first, so that storage sized for it
 * must grow. */
static void check_sum_cub(const int *h, size_t n, size_t offset, int calls, int after_small)
{
    int expected = (int)harness_sum_ints(h, 0, n), guard = HARNESS_GUARD_INT;
    dev_buffer in = dev_input(h, n, sizeof(int), &guard, offset), out = dev_output_ints(1);
    cudaStream_t stream;
    CUDA_OK(cudaStreamCreate(&stream));
    char name[256], later[320];
    describe_call("sum_cub", n, offset, name, sizeof name);
    const char *called = name;
    if (after_small) {
        const int one = 12345;
        dev_buffer in1 = dev_input_ints(&one, 1), out1 = dev_output_ints(1);
        call_sum_cub(&in1, &out1, 1, stream);
        CUDA_OK(cudaStreamSynchronize(stream));
        harness_after_launch("sum_cub(n = 1)");
        expect_cub_result(&out1, one, "sum_cub(n = 1)");
        dev_free(&in1);
        dev_free(&out1);
        snprintf(later, sizeof later, _("%s, after a call on n = 1,"), name);
        called = later;
    }
    for (int call = 1; call <= calls; call++) {
        char what[400];
        snprintf(what, sizeof what, "%s%s", called, call > 1 ? _(", called a second time,") : "");
        call_sum_cub(&in, &out, n, stream);
        CUDA_OK(cudaStreamSynchronize(stream));
        harness_after_launch(what);
        expect_cub_result(&out, expected, what);
    }
    dev_expect_unchanged(&in, "sum_cub");
    CUDA_OK(cudaStreamDestroy(stream));
    dev_free(&in);
    dev_free(&out);
}

static void expect_sum_cub_calls(size_t n, uint64_t salt, int calls)
{
    int *h = random_ints(n, salt);
    check_sum_cub(h, n, 0, calls, 0);
    free(h);
}

/* ---- Tests ------------------------------------------------------------------------------------------------ */

START_TEST(test_ex12_sum_thrust)
{
    expect_sum_thrust(1000, 1, NULL);
}
END_TEST

START_TEST(test_ex12_max_thrust)
{
    expect_random_max(1000, -1000, 1000, 2, NULL);
}
END_TEST

START_TEST(test_ex12_norm_thrust)
{
    expect_norm(1000, 3, NULL);
}
END_TEST

START_TEST(test_ex12_minmax_thrust)
{
    expect_random_minmax(1000, 4, NULL);
}
END_TEST

START_TEST(test_ex12_sum_cub)
{
    expect_sum_cub_calls(1000, 5, 1);
}
END_TEST

START_TEST(test_ex12_empty_input)
{
    expect_sum_thrust(0, 6, NULL);
    float none = 0;
    expect_max(&none, 0, _("nothing"), NULL);   /* its known mistakes: a start of 0 or -FLT_MAX */
    expect_norm(0, 7, NULL);
    expect_minmax(&none, 0, _("nothing"), _("With n = 0, transform_reduce returns its initial value: which range "
                                         "changes nothing when it is merged with another?"), NULL);
    expect_sum_cub_calls(0, 8, 1);
}
END_TEST

START_TEST(test_ex12_one_element)
{
    expect_sum_thrust(1, 9, NULL);
    expect_random_max(1, -1000, -1, 10, NULL);
    expect_norm(1, 11, NULL);
    expect_random_minmax(1, 12, NULL);
    expect_sum_cub_calls(1, 13, 1);
}
END_TEST

START_TEST(test_ex12_cub_second_call)
{
    expect_sum_cub_calls(4099, 50, 2);
    expect_sum_cub_calls(harness_large_n(), 51, 2);
}
END_TEST

/* ---- The declared inputs (checker/spaces/ex12.def): each case's values, made from the seed ------------------ */

enum set_fn { SET_SUM, SET_MAX, SET_NORM, SET_MINMAX, SET_CUB };
static const char *const SET_FN[] = {"sum", "max", "norm", "minmax", "cub"};

/* Which test runs a case: each case runs once, in the test of what its values check. */
enum concern { FOR_SIZES, FOR_MAX_IDENTITY, FOR_MINMAX_NAN, FOR_INT_RANGE };

static enum set_fn fn_of(const harness_cover *c, size_t k)
{
    int f = 0;
    while (!harness_case_is(c, k, "fn", SET_FN[f])) f++;
    return (enum set_fn)f;
}

static int kind_is(const char *values, const char *prefix) { return !strncmp(values, prefix, strlen(prefix)); }

static enum concern concern_of(enum set_fn fn, const char *values)
{
    if (fn == SET_MAX && (!strcmp(values, "negative") || !strcmp(values, "huge") || !strcmp(values, "identity-only") ||
                          !strcmp(values, "losing-inf-first")))
        return FOR_MAX_IDENTITY;
    if (fn == SET_MINMAX && kind_is(values, "nan-")) return FOR_MINMAX_NAN;
    if ((fn == SET_SUM || fn == SET_CUB) && !strcmp(values, "huge")) return FOR_INT_RANGE;
    return FOR_SIZES;
}

/* The ints of sum_thrust and sum_cub, drawn from [*lo, *hi]: both signs within the range whose partial sums fit
 * with room; all negative; the largest magnitudes whose partial sums still fit, of one sign (INT_MAX / n, a total
 * past a float's 24 bits); zeros only (the identity); the float kinds read as both signs. */
static void make_ints(const char *values, int *h, size_t n, uint64_t salt, int *lo, int *hi, char *input,
                      size_t len)
{
    harness_value_range(!strcmp(values, "huge") ? "largest" : !strcmp(values, "negative") ? "negative" : "mixed", n,
                        lo, hi);
    harness_random_ints(h, n, *lo, *hi, salt);
    if (!strcmp(values, "identity-only")) {
        memset(h, 0, n * sizeof *h);
        snprintf(input, len, "%s", _("zeros only"));
    } else {
        snprintf(input, len, _("random ints in [%d, %d]"), *lo, *hi);
    }
}


/* The floats of max, norm and minmax, as ex12.def says each reads a kind. */
static void make_floats(enum set_fn fn, const char *values, float *h, size_t n, uint64_t salt, char *input,
                        size_t len)
{
    float lo = fn == SET_NORM ? -1.0f : -1000.0f, hi = fn == SET_NORM ? 1.0f : 1000.0f;
    if (!strcmp(values, "negative")) hi = fn == SET_NORM ? 0.0f : -1.0f;
    if (!strcmp(values, "huge")) {
        lo = fn == SET_NORM ? -1e15f : -3.4e38f;
        hi = fn == SET_NORM ? 1e15f : fn == SET_MAX ? -1e37f : 3.4e38f;
    }
    harness_random_floats(h, n, lo, hi, salt);
    char base[200];
    snprintf(base, sizeof base, _("random values in [%g, %g)"), (double)lo, (double)hi);
    snprintf(input, len, "%s", base);
    if (!strcmp(values, "identity-only")) {
        /* max: -inf only; norm: zeros only; minmax: infinities of both signs only */
        for (size_t i = 0; i < n; i++)
            h[i] = fn == SET_MAX ? -INFINITY : fn == SET_NORM ? 0.0f : (i % 2 ? INFINITY : -INFINITY);
        snprintf(input, len, "%s", fn == SET_MAX ? _("-inf only") : fn == SET_NORM ? _("zeros only")
                                                                                  : _("-inf and +inf only"));
    } else if (!strcmp(values, "losing-inf-first")) {
        /* the first half -inf (norm: +inf), before finite values */
        for (size_t i = 0; i < n / 2; i++) h[i] = fn == SET_NORM ? INFINITY : -INFINITY;
        snprintf(input, len, _("%s, the first half of them %s (each thread's first values)"), base,
                 fn == SET_NORM ? "+inf" : "-inf");
    } else if (kind_is(values, "nan-")) {
        /* max_thrust's d_in holds no NaN: +inf stands there, the value that wins a max wherever it sits */
        const char *where = values + 4;
        float v = fn == SET_MAX ? INFINITY : NAN;
        const char *name = fn == SET_MAX ? "+inf" : "NaN";
        size_t inside = harness_place_floats(h, n, where, v, salt + 7);
        if (!strcmp(where, "only")) snprintf(input, len, _("%s only"), name);
        else if (!strcmp(where, "inside")) snprintf(input, len, _("%s with %s at index %zu"), base, name, inside);
        else if (!strcmp(where, "first")) snprintf(input, len, _("%s with %s first"), base, name);
        else if (!strcmp(where, "last")) snprintf(input, len, _("%s with %s last"), base, name);
        else snprintf(input, len, _("%s with %s every 7 elements"), base, name);
    }
}

/* Runs case k of the covering set: its function on n values of its kind, d_in off 16 bytes by its offset. */
static void run_case(const harness_cover *c, size_t k, uint64_t case_salt, const void *ctx)
{
    (void)ctx;
    enum set_fn fn = fn_of(c, k);
    const char *values = harness_case_label(c, k, "values");
    size_t n = (size_t)harness_case_number(c, k, "n"), offset = (size_t)harness_case_number(c, k, "offset");
    uint64_t salt = 16 * case_salt;   /* room for the salts make_floats adds */
    char input[400];
    if (fn == SET_SUM || fn == SET_CUB) {
        int *h = malloc((n ? n : 1) * sizeof *h);
        ck_assert_msg(h != NULL, _("The checker ran out of host memory."));
        int lo, hi;
        make_ints(values, h, n, salt, &lo, &hi, input, sizeof input);
        if (fn == SET_SUM) check_sum_thrust(h, n, offset, lo, hi, input, NULL);
        else check_sum_cub(h, n, offset, 1, harness_case_is(c, k, "before", "small"));
        free(h);
        return;
    }
    float *h = random_floats(n, 0.0f, 1.0f, salt);
    make_floats(fn, values, h, n, salt, input, sizeof input);
    if (fn == SET_MAX) expect_max_at(h, n, offset, input, NULL);
    else if (fn == SET_NORM) check_norm(h, n, offset, input, NULL);
    else expect_minmax_at(h, n, offset, input, kind_is(values, "nan-") ? NAN_HINT : RANGE_HINT, NULL);
    free(h);
}

static int of_concern(const harness_cover *c, size_t k, const void *concern)
{
    return concern_of(fn_of(c, k), harness_case_label(c, k, "values")) == *(const enum concern *)concern;
}

static void run_cases(enum concern concern)
{
    harness_cover_run(&SPACE, of_concern, run_case, 1000, &concern);
}

START_TEST(test_ex12_max_identity)
{
    run_cases(FOR_MAX_IDENTITY);
}
END_TEST

START_TEST(test_ex12_minmax_nan)
{
    run_cases(FOR_MINMAX_NAN);
}
END_TEST

START_TEST(test_ex12_int_range)
{
    run_cases(FOR_INT_RANGE);
}
END_TEST

START_TEST(test_ex12_sizes)
{
    run_cases(FOR_SIZES);
}
END_TEST

/* Counted by the emulator. Thrust's reduce launches one or two kernels and allocates a few kilobytes of
 * temporary storage; a call that launches none was computed by the CPU, and one that allocates as much as
 * the input copied it first. Each answer is checked first: these grade how, once the answer is right. */
static usage thrust_usage(int fn, size_t n, uint64_t salt)
{
    usage u;
    if (fn < 0) expect_sum_thrust(n, salt, &u);
    else if (fn == FN_MAX) expect_random_max(n, -1000, 1000, salt, &u);
    else if (fn == FN_NORM) expect_norm(n, salt, &u);
    else expect_random_minmax(n, salt, &u);
    return u;
}

START_TEST(test_ex12_thrust_on_device)
{
    const size_t n = harness_large_n();
    const uint64_t input_bytes = (uint64_t)n * 4;
    for (int fn = -1; fn <= FN_MINMAX; fn++) {
        usage u = thrust_usage(fn, n, 60 + (uint64_t)fn);
        const char *name = fn < 0 ? "sum_thrust" : FN_NAME[fn];
        if (u.act.launches == 0)
            harness_fail(_("Raw pointers are host iterators: without thrust::device as its first argument, Thrust "
                           "runs the algorithm on the CPU, which on a GPU machine cannot read d_in at all."),
                         _("%s(n = %zu) returned the right value but launched no kernel: the CPU computed it, "
                           "reading device memory."), name, n);
        if (u.act.allocated_bytes >= input_bytes / 2)
            harness_fail(_("thrust::reduce and thrust::transform_reduce read d_in where it is, through the raw "
                           "pointers: which vector did you fill, and does any call need it?"),
                         _("%s(n = %zu) allocated %" PRIu64 " bytes of device memory, as much as a copy of its %"
                         PRIu64 "-byte input: the library needs a few kilobytes of temporary storage."), name, n,
                         u.act.allocated_bytes, input_bytes);
    }
}
END_TEST

/* Counted by the emulator as Nsight Compute counts them: one pass over n floats reads n * 4 / 32 sectors of
 * 32 bytes, and a reduction writes only its few partial results. Allowed: a tenth more reading, and writes of
 * up to an eighth of the input (a vector of the squares, or of the ranges, is the whole input or twice it). */
START_TEST(test_ex12_one_pass)
{
    const size_t n = harness_large_n();
    const uint64_t bytes = (uint64_t)n * 4, sector_limit = bytes / 32 + bytes / 320 + 64, write_limit = bytes / 8;
    for (int fn = FN_NORM; fn <= FN_MINMAX; fn++) {
        usage u = thrust_usage(fn, n, 70 + (uint64_t)fn);
        uint64_t read = u.met.global_load_sectors * 32, written = u.met.global_store_sectors * 32;
        if (written > write_limit)
            harness_fail(fn == FN_NORM ? _("thrust::transform_reduce applies its unary operator to each element on "
                                           "its way into the sum: what is left for a vector of squares to do?")
                                       : _("One transform_reduce with as_range and merge_ranges finds both ends: "
                                           "what is left for a vector of ranges to do?"),
                         _("%s(n = %zu) wrote %" PRIu64 " bytes to device memory for a %" PRIu64 "-byte input: a "
                           "temporary vector, where a reduction writes a few partial results."), FN_NAME[fn], n,
                         written, bytes);
        if (u.met.global_load_sectors > sector_limit)
            harness_fail(fn == FN_NORM ? _("Is each element loaded once, by one transform_reduce? A transform and "
                                           "then a reduce read it twice, and so does inner_product(d_in, d_in + n, "
                                           "d_in), once for each of its two inputs.")
                                       : _("Are the min and the max found by one transform_reduce, not by one "
                                           "reduction each?"),
                         _("%s(n = %zu) read %" PRIu64 " bytes from device memory: %.1f times its %" PRIu64
                           "-byte input, where one pass reads it once."), FN_NAME[fn], n, read,
                         (double)read / (double)bytes, bytes);
    }
}
END_TEST

/* Counted by the emulator: after a first call, which may allocate the storage, twenty more calls of any size
 * up to the first's allocate nothing and make the host wait for nothing. */
START_TEST(test_ex12_cub_storage_once)
{
    const size_t n = harness_large_n();
    int *h = random_ints(n, 80);
    dev_buffer in = dev_input_ints(h, n), out = dev_output_ints(1);
    cudaStream_t stream;
    CUDA_OK(cudaStreamCreate(&stream));
    usage_begin();
    call_sum_cub(&in, &out, n, stream);
    usage first = usage_end();
    static const size_t later[] = {1, 257, 4099, 65537};
    usage_begin();
    for (int call = 0; call < 20; call++)
        call_sum_cub(&in, &out, call % 5 == 4 ? n : later[call % 5], stream);
    usage rest = usage_end();
    CUDA_OK(cudaStreamSynchronize(stream));
    harness_after_launch(_("sum_cub, 21 calls"));
    expect_cub_result(&out, (int)harness_sum_ints(h, 0, n), _("sum_cub, called 21 times, the last on all n,"));
    if (first.act.allocations > 1 || rest.act.allocations > 0) {
        char in_first[32], in_rest[32];
        harness_times(first.act.allocations, in_first, sizeof in_first);
        harness_times(rest.act.allocations, in_rest, sizeof in_rest);
        harness_fail(_("Where does the storage live between calls? Allocate it when you hold less than CUB asks "
                       "for, keep the pointer and its size, and pass the same storage to the next call."),
                     _("sum_cub allocated device memory %s in its first call and %s in the next 20 (on n = %zu and "
                       "smaller): CUB's storage belongs to the caller, to allocate once and reuse."), in_first,
                     in_rest, n);
    }
    if (rest.act.host_waits > 0) {
        char waits[32];
        harness_times(rest.act.host_waits, waits, sizeof waits);
        harness_fail(_("Which of your calls makes the host wait for the device: a cudaMemcpy of the result, a "
                       "cudaStreamSynchronize, a cudaFree? The caller synchronises when it wants the value."),
                     _("sum_cub made the host wait for the device %s in 20 calls: it should queue its work on the "
                       "stream and return at once."), waits);
    }
    CUDA_OK(cudaStreamDestroy(stream));
    dev_free(&in);
    dev_free(&out);
    free(h);
}
END_TEST

/* Counted by the emulator: a launch on the default stream would not wait for the caller's work on its own
 * stream (with cudaStreamNonBlocking), nor let it overlap with the caller's other streams. */
START_TEST(test_ex12_cub_on_stream)
{
    const size_t n = 65537;
    int *h = random_ints(n, 90);
    dev_buffer in = dev_input_ints(h, n), out = dev_output_ints(1);
    cudaStream_t stream;
    CUDA_OK(cudaStreamCreate(&stream));
    call_sum_cub(&in, &out, n, stream);   /* the storage, allocated */
    usage_begin();
    call_sum_cub(&in, &out, n, stream);
    usage u = usage_end();
    CUDA_OK(cudaStreamSynchronize(stream));
    harness_after_launch("sum_cub(n = 65537)");
    expect_cub_result(&out, (int)harness_sum_ints(h, 0, n), _("sum_cub(n = 65537)"));
    if (u.act.default_stream_launches > 0)
        harness_fail(_("cub::DeviceReduce::Sum takes the stream as its last argument, after n: is it passed to both "
                       "calls?"),
                     _("sum_cub(n = %zu) launched %" PRIu64 " of its %" PRIu64 " kernels on the default stream, not "
                       "on the stream it was given."), n, u.act.default_stream_launches, u.act.launches);
    CUDA_OK(cudaStreamDestroy(stream));
    dev_free(&in);
    dev_free(&out);
    free(h);
}
END_TEST

int main(int argc, char **argv)
{
    const harness_test tests[] = {
        {N_("core: sum_thrust of 1000 random ints"), test_ex12_sum_thrust, NEEDS_DEVICE},
        {N_("core: max_thrust of 1000 random floats"), test_ex12_max_thrust, NEEDS_DEVICE},
        {N_("core: norm_thrust of 1000 random floats, within the rounding bound"), test_ex12_norm_thrust, NEEDS_DEVICE},
        {N_("core: minmax_thrust of 1000 random floats"), test_ex12_minmax_thrust, NEEDS_DEVICE},
        {N_("core: sum_cub of 1000 random ints, on a stream"), test_ex12_sum_cub, NEEDS_DEVICE},
        {N_("edges: n = 0 gives 0, -inf, 0, {+inf, -inf} and 0"), test_ex12_empty_input, NEEDS_DEVICE},
        {N_("edges: n = 1"), test_ex12_one_element, NEEDS_DEVICE},
        {N_("edges: max of negatives is negative, of -inf only -inf (the identity)"), test_ex12_max_identity, NEEDS_DEVICE},
        {N_("edges: minmax_thrust ignores NaN wherever it is"), test_ex12_minmax_nan, NEEDS_DEVICE},
        {N_("edges: a second sum_cub call into the same d_out gives the same sum"), test_ex12_cub_second_call, NEEDS_DEVICE},
        {N_("edges: sum_thrust and sum_cub keep every bit of large ints"), test_ex12_int_range, NEEDS_DEVICE},
        {N_("sizes: n at -1, 0, +1 of the warp, block, CUB's tile and two, any values, d_in off 16 bytes"),
         test_ex12_sizes, NEEDS_DEVICE},
        {N_("concept: Thrust runs on the device, on d_in where it is (no copy)"), test_ex12_thrust_on_device, NEEDS_EMULATOR},
        {N_("concept: norm and minmax read d_in once and write no temporary"), test_ex12_one_pass, NEEDS_EMULATOR},
        {N_("concept: sum_cub allocates its storage once and never waits"), test_ex12_cub_storage_once, NEEDS_EMULATOR},
        {N_("concept: sum_cub launches on the stream it is given"), test_ex12_cub_on_stream, NEEDS_EMULATOR},
        {0},
    };
    const harness_exercise ex = {"12", N_("Use the library: Thrust and CUB, and when each is worth its cost"),
                                 "exercises/12-library/lesson.md", tests, &SPACE};
    return harness_run(&ex, argc, argv);
}
