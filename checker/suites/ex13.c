/* ex13.c - hidden tests of exercise 13: a block all-reduce, rows of fp16 and bf16 accumulated in float,
 * and ALL/ANY verdicts by warp votes and block barriers. */
#include "../harness/harness.h"
#include "../contracts/ex13.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HARNESS_SPACE_FILE "../spaces/ex13.def"
#include "../harness/harness_space_table.h"

static const char *BUTTERFLY_HINT = N_("After a tree of __shfl_down_sync, which lanes hold the warp's sum? With "
                                       "__shfl_xor_sync(mask, v, offset) every lane adds the lane whose index "
                                       "differs in one bit: after 16, 8, 4, 2, 1, which lanes hold the sum?");
static const char *BROADCAST_HINT = N_("Once warp 0 has added the warps' sums, how do the other warps learn the "
                                       "result? Can every warp read all the sums in shared memory and add them "
                                       "itself?");
static const char *WARPS_HINT = N_("How many warp sums are there when blockDim.x is 96 or 160? Does the second "
                                   "step add exactly blockDim.x / 32 of them, with 0 in the other lanes?");
static const char *ALLREDUCE_HINT = N_("Does every thread end with the same value, the sum over the block: each "
                                       "warp's butterfly first, then every warp adding all the warps' sums?");
static const char *ACCUMULATE_HINT = N_("Are the values converted to float before they are added "
                                        "(__half22float2, __bfloat1622float2)? An fp16 sum keeps 11 bits, a bf16 "
                                        "sum 8: 2048 + 1 is 2048 in fp16, and 256 + 1 is 256 in bf16.");
static const char *ROW_HINT = N_("Does each block read exactly its row, d_in + row * cols, with the head before "
                                 "the first 16-byte boundary, whole vectors, then the tail? Does every element "
                                 "reach the sum once?");
static const char *VOTE_HINT = N_("Is each lane's verdict over its own elements combined over the warp "
                                  "(__all_sync for ALL, __any_sync for ANY)? Is |x| <= limit false for a NaN?");
static const char *EMPTY_HINT = N_("What must d_out hold for an empty tensor (n = 0): ALL of nothing and ANY of "
                                  "nothing? Does the function write both before anything can return early?");
static const char *BLOCK_VOTE_HINT = N_("Does every thread of the block reach __syncthreads_and and "
                                        "__syncthreads_or, and does the flag that starts at {1, 0} change only "
                                        "through atomicAnd and atomicOr?");

/* ---- The all-reduce itself -------------------------------------------------------------------------- */

/* Runs allreduce_probe on `blocks` blocks of `block` threads and checks every thread's value; hint is for a
 * failure that matches no known pattern. */
static void expect_allreduce(int blocks, int block, uint64_t salt, const char *hint)
{
    size_t n = (size_t)blocks * (size_t)block;
    float *h = harness_alloc(n * sizeof *h), *got = harness_alloc(n * sizeof *got);
    int *ints = harness_alloc(n * sizeof *ints);
    harness_random_ints(ints, n, -1000, 1000, salt);
    for (size_t i = 0; i < n; i++) h[i] = (float)ints[i];
    char what[256];
    snprintf(what, sizeof what, "allreduce_probe(blocks = %d, block = %d)", blocks, block);
    dev_buffer in = dev_input_floats(h, n, HARNESS_GUARD_FLOAT), out = dev_output_floats(n);
    allreduce_probe(dev_ptr(&in), dev_ptr(&out), blocks, block);
    harness_after_launch(what);
    dev_fetch(&out, got);
    for (int b = 0; b < blocks; b++) {
        const float *row = got + (size_t)b * block;
        double sum = 0;
        for (int t = 0; t < block; t++) sum += h[(size_t)b * block + t];
        int wrong = 0, first = -1, lanes0_right = 1, warp0_right = 1;
        for (int t = 0; t < block; t++) {
            int right = (double)row[t] == sum;
            if (!right) { wrong++; if (first < 0) first = t; }
            if (t % 32 == 0 && !right) lanes0_right = 0;
            if (t < 32 && !right) warp0_right = 0;
        }
        if (!wrong) continue;
        char have[48];
        harness_describe_float(row[first], have, sizeof have);
        const char *own = row[first] == h[(size_t)b * block + first] ? _(" (its own value: nothing was added "
                                                                         "to it)") : "";
        if (harness_is_poison_float(row[first])) {
            harness_evidence("poison", "thread=%d block=%d", first, b);
            harness_fail(_("Does every thread write its value, d_out[blockIdx.x * blockDim.x + threadIdx.x]?"),
                         _("%s: thread %d of block %d wrote nothing (its output still holds the poison NaN); "
                           "every thread must write its block's sum, %.0f."), what, first, b, sum);
        }
        /* Which threads are right says which step is missing: lane 0 of each warp (a tree of shuffles, not a
         * butterfly), or warp 0 (the warps' sums added by warp 0 alone). */
        if (lanes0_right) {
            harness_evidence("bug-model", "name=lane-0-only hint=1");
            harness_fail(_(BUTTERFLY_HINT), _("%s: lane 0 of every warp holds block %d's sum, %.0f, but %d other "
                           "threads do not: thread %d holds %s. Every thread must end with the sum."), what, b,
                         sum, wrong, first, have);
        }
        if (warp0_right && block > 32) {
            harness_evidence("bug-model", "name=warp-0-only hint=3");
            harness_fail(_(BROADCAST_HINT), _("%s: the threads of warp 0 hold block %d's sum, %.0f, but thread %d "
                           "(warp %d) holds %s: the other warps never got the result."), what, b, sum, first,
                         first / 32, have);
        }
        harness_evidence("wrong", "thread=%d block=%d count=%d of=%d", first, b, wrong, block);
        harness_fail(_(block == 32 ? BUTTERFLY_HINT : hint), _("%s: thread %d of block %d holds %s%s instead of the "
                       "block's sum, %.0f (%d of its %d threads are wrong)."), what, first, b, have, own, sum,
                     wrong, block);
    }
    dev_expect_guards_intact(&out, what);
    dev_expect_unchanged(&in, what);
    dev_free(&in);
    dev_free(&out);
    free(h);
    free(got);
    free(ints);
}

/* The declared block sizes (checker/spaces/ex13.def) whose warp count is (odd_warps 0) or is not (1) a power of
 * two, each on blocks blocks. */
static void every_block(int odd_warps, int blocks, uint64_t salt, const char *hint)
{
    harness_cover cover;
    harness_cover_build(&SPACE, &cover);
    int d = harness_cover_dim(&cover, "block");
    for (int a = 0; a < cover.counts[d]; a++) {
        int block = atoi(cover.labels[d][a]), warps = block / 32;
        if (((warps & (warps - 1)) != 0) == odd_warps) expect_allreduce(blocks, block, salt + a, hint);
    }
    harness_cover_free(&cover);
}

START_TEST(test_ex13_allreduce_every_thread) { every_block(0, 3, 10, ALLREDUCE_HINT); }
END_TEST

START_TEST(test_ex13_allreduce_odd_warps) { every_block(1, 2, 30, WARPS_HINT); }
END_TEST

/* ---- Row means and norms -------------------------------------------------------------------------------- */

/* The bound every row's mean and norm must meet (harness_rows.c): with L = ceil(cols / 32) + 12 additions per
 * value (a lane's own values, 5 shuffles in its warp, 5 across warps, the pair and vector sums), a float sum
 * errs by at most L u sum|x|, with u = 2^-24. An fp16 accumulator errs by 2^-11 of its running sum per
 * addition, a bf16 one by 2^-8: thousands of times more. */
typedef struct row_input {
    harness_half_kind kind;
    const char *describe;   /* "fp16 values in [-2, 2)" */
    float lo, hi;
} row_input;

static void explain_stat(double expected, float got, char *why, size_t len)
{
    if (isinf(got) && !isinf(expected))
        snprintf(why, len, "%s", _("an infinity, where the result is finite: did a square or a sum overflow in "
                                   "a 16-bit format (fp16's largest value is 65504, so x * x overflows for "
                                   "|x| >= 256)?"));
    else
        harness_explain_float(expected, got, 0, why, len);
}

/* ---- Known mistakes of the row statistics: each row's (mean, norm) they give --------------------------------- */

typedef struct stats_case {
    const float *x;
    int rows, cols;
    harness_half_kind kind;
    const double *got, *tol;   /* what came back, and each output's bound */
} stats_case;

/* The sum of the row's squares, each rounded to the 16-bit kind before it is added (x * x in __half). */
static double squares_in_16_bits(const float *row, int cols, harness_half_kind kind)
{
    double sum = 0;
    for (int c = 0; c < cols; c++) sum += harness_half_to_float(kind, harness_float_to_half(kind, row[c] * row[c]));
    return sum;
}

/* param 0: the sum where the mean belongs; 1: the sum of squares where the norm belongs; 2: the root of the
 * mean of squares (an RMS) where the norm belongs; 3: the squares rounded to the 16-bit format before they are
 * added; blocks 32 to 1024 (param >= 32): the sum divided by blockDim.x where cols belongs. */
static int model_stats(const void *ctx, int how, double *out)
{
    const stats_case *sc = ctx;
    int differs = 0;
    for (int r = 0; r < sc->rows; r++) {
        const float *row = sc->x + (size_t)r * sc->cols;
        double sum = harness_sum_floats(row, (size_t)sc->cols, NULL), squares = harness_dot_floats(row, row, (size_t)sc->cols, NULL);
        out[2 * r] = how == 0 ? sum : how >= 32 ? sum / how : sum / sc->cols;
        /* squares in 16 bits leave the means right: wrong means are another mistake's (on short rows of small
         * values the squares' roundings are within the models' slack, and would claim them) */
        if (how == 3 && fabs(sc->got[2 * r] - out[2 * r]) > sc->tol[2 * r]) return 0;
        if (how == 3) {
            double rounded = squares_in_16_bits(row, sc->cols, sc->kind);
            differs |= rounded != squares;
            squares = rounded;
        }
        out[2 * r + 1] = how == 1 ? squares : how == 2 ? sqrt(squares / sc->cols) : sqrt(squares);
    }
    return how == 3 ? differs : how < 32 || how != sc->cols;
}

static const harness_bug_model STATS_MODELS[] = {
    {"sum-for-mean", model_stats, 0, N_("the means are the rows' sums: they were not divided by cols"),
     N_("The mean is the sum over cols: is the all-reduced sum divided by cols?"), 0},
    {"squares-for-norm", model_stats, 1, N_("the norms are the rows' sums of squares: the square root was not "
                                            "taken"), N_("The L2 norm is the square root of the sum of squares: is "
                                                         "sqrtf applied?"), 0},
    {"rms-for-norm", model_stats, 2, N_("the norms are the roots of the mean of squares (an RMS), not of their "
                                        "sum"), N_("Is the sum of squares divided by cols before the square root? "
                                                   "The L2 norm divides by nothing."), 0},
    {"squares-in-16-bits", model_stats, 3, N_("the norms are what squares rounded to the 16-bit format give: each "
                                              "x * x was computed in fp16 or bf16 (__hmul2) before it was added, "
                                              "keeping 11 bits of it in fp16 (8 in bf16), and in fp16 a square "
                                              "past 65504 is inf"),
     N_("Are the values converted to float before they are squared (__half22float2, then x * x in float)?"), 5},
    HARNESS_EACH_BLOCK("mean-over-block", model_stats,
                       N_("the means are the rows' sums divided by the block's size, blockDim.x, where cols belongs"),
                       N_("How many values does a row hold, and which count divides its sum: cols or "
                          "blockDim.x?"), 0),
    {0},
};

/* Runs row_stats of the kind on rows x cols values h (bits) starting offset_bytes past an aligned address,
 * and checks each row's mean and norm against the bound. */
static void expect_row_stats(const row_input *in, const uint16_t *h, int rows, int cols, size_t offset_bytes)
{
    size_t n = (size_t)rows * (size_t)cols;
    float *x = harness_halves_to_floats(in->kind, h, n), *got = harness_alloc(2 * (size_t)rows * sizeof *got);
    const char *name = in->kind == HARNESS_BF16 ? "row_stats_bf16" : "row_stats_f16";
    char what[400];
    snprintf(what, sizeof what, "%s(rows = %d, cols = %d)", name, rows, cols);
    uint16_t guard = harness_float_to_half(in->kind, in->kind == HARNESS_BF16 ? 1e30f : 60000.0f);
    dev_buffer din = dev_input_halves(h, n, guard, offset_bytes), dout = dev_output_floats(2 * (size_t)rows);
    if (in->kind == HARNESS_BF16) row_stats_bf16(dev_ptr(&din), dev_ptr(&dout), rows, cols);
    else row_stats_f16(dev_ptr(&din), dev_ptr(&dout), rows, cols);
    harness_after_launch(what);
    dev_fetch(&dout, got);
    /* All the rows' statistics against the known mistakes first: a match names the cause. */
    double *want_all = harness_alloc(2 * (size_t)rows * sizeof *want_all), *have = harness_alloc(2 * (size_t)rows * sizeof *have);
    double *tol_all = harness_alloc(2 * (size_t)rows * sizeof *tol_all);
    unsigned char *unwritten = harness_alloc(2 * (size_t)rows);
    for (int r = 0; r < rows; r++)
        harness_row_stats_expected(x + (size_t)r * cols, cols, want_all + 2 * r, tol_all + 2 * r);
    size_t wrong = 0;
    for (int i = 0; i < 2 * rows; i++) {
        have[i] = got[i], unwritten[i] = harness_is_poison_float(got[i]);
        wrong += !(fabs(have[i] - want_all[i]) <= tol_all[i]);
    }
    if (wrong) {
        stats_case sc = {x, rows, cols, in->kind, have, tol_all};
        harness_output o = {(size_t)rows, 2, want_all, have, unwritten, tol_all, 0, 1e-4};
        harness_diagnosis d;
        harness_diagnose(&o, STATS_MODELS, &sc, &d);
        if (d.seen == SEEN_MODEL) harness_fail(d.hint, _("%s of %s: %s."), what, _(in->describe), d.words);
    }
    free(have), free(unwritten);
    for (int r = 0; r < rows; r++) {
        const char *which[2] = {_("mean"), _("L2 norm")};
        const double *want = want_all + 2 * r, *tol = tol_all + 2 * r;
        for (int k = 0; k < 2; k++) {
            float g = got[2 * r + k];
            double err = fabs((double)g - want[k]);
            if (err <= tol[k]) continue;
            char have[48], why[600];
            harness_describe_float(g, have, sizeof have);
            explain_stat(want[k], g, why, sizeof why);
            /* What the error is like: nothing written; a small relative error or an infinity, as from a
             * 16-bit accumulator or square; anything else, the wrong elements. */
            int rounding = isfinite(g) && err < 0.05 * fabs(want[k]) + 1e-3;
            const char *hint = harness_is_poison_float(g) ? ROW_HINT : rounding || isinf(g) ? ACCUMULATE_HINT : ROW_HINT;
            if (harness_is_poison_float(g)) harness_evidence("poison", "row=%d", r);
            else if (rounding) harness_evidence("rounding", "ratio=%.3g", err / tol[k]);
            else if (isinf(g)) harness_evidence("inf", "row=%d", r);
            else harness_evidence("wrong", "row=%d stat=%s", r, k ? "norm" : "mean");
            harness_fail(_(hint), _("%s of %s: row %d's %s (d_out[%d]) should be %.9g within %.3g (float "
                           "accumulation), but it is %s: %s."), what, _(in->describe), r, which[k], 2 * r + k,
                         want[k], tol[k], have, why);
        }
    }
    free(want_all), free(tol_all);
    dev_expect_guards_intact(&dout, what);
    dev_expect_unchanged(&din, what);
    dev_free(&din);
    dev_free(&dout);
    free(x);
    free(got);
}

static void expect_random_rows(const row_input *in, int rows, int cols, size_t offset_bytes, uint64_t salt)
{
    size_t n = (size_t)rows * (size_t)cols;
    uint16_t *h = harness_alloc(n * sizeof *h);
    harness_random_halves(in->kind, h, n, in->lo, in->hi, salt);
    expect_row_stats(in, h, rows, cols, offset_bytes);
    free(h);
}

/* Case k of the covering set (checker/spaces/ex13.def), when its kind is `kind`: its rows of its values (fresh
 * from the seed), d_in its offset past a 16-byte boundary. */
static void expect_case_stats(harness_half_kind kind, const harness_cover *cover, size_t k, uint64_t salt)
{
    if (!harness_case_is(cover, k, "kind", harness_half_name(kind))) return;
    int rows = (int)harness_case_number(cover, k, "rows"), cols = (int)harness_case_number(cover, k, "cols");
    size_t n = (size_t)rows * (size_t)cols, offset = (size_t)harness_case_number(cover, k, "offset");
    int constant = harness_case_is(cover, k, "values", "constant");
    float lo = -2.0f, hi = 2.0f;
    if (harness_case_is(cover, k, "values", "mean-1000")) lo = 999.0f, hi = 1001.0f;
    if (harness_case_is(cover, k, "values", "negative")) lo = -2.0f, hi = -1.0f;
    if (constant) lo = -1000.0f, hi = 1000.0f;
    uint16_t *h = harness_alloc(n * sizeof *h);
    harness_random_halves(kind, h, n, lo, hi, salt);
    for (size_t i = 0; constant && i < n; i++) h[i] = h[i - i % cols];
    char describe[300];
    const char *format = constant ? _("%s rows of one value each, in [%g, %g)") : _("%s values in [%g, %g)");
    int at = snprintf(describe, sizeof describe, format, harness_half_name(kind), (double)lo, (double)hi);
    if (offset) snprintf(describe + at, sizeof describe - at, _(", d_in %zu bytes past a 16-byte boundary"), offset);
    const row_input in = {kind, describe, lo, hi};
    expect_row_stats(&in, h, rows, cols, offset);
    free(h);
}

static void every_case_stats(harness_half_kind kind, uint64_t salt)
{
    harness_cover cover;
    harness_cover_build(&SPACE, &cover);
    for (size_t k = 0; k < cover.cases; k++) expect_case_stats(kind, &cover, k, salt + 10 * k);
    harness_cover_free(&cover);
}

START_TEST(test_ex13_rows_f16) { every_case_stats(HARNESS_F16, 30); }
END_TEST

START_TEST(test_ex13_rows_bf16) { every_case_stats(HARNESS_BF16, 20000); }
END_TEST

/* 4096 fp16 values in [500, 1000) per row: each row's sum, about 3 million, and each value's square, up to
 * a million, are far beyond fp16's 65504; a float accumulator holds them with 2^-24 to spare. Then values
 * in [0, 1) with a +30000 and a -30000 in each row: next to 30000, fp16's spacing is 16, so an fp16 sum
 * that holds the giant drops every small value added to it (ex10's cancelling giants, in 16 bits). */
START_TEST(test_ex13_half_accumulator_fails)
{
    const row_input big = {HARNESS_F16, N_("fp16 values in [500, 1000)"), 500.0f, 1000.0f};
    expect_random_rows(&big, 4, 4096, 0, 90);
    const row_input giants = {HARNESS_F16, N_("fp16 values in [0, 1) with one +30000 and one -30000 per row"),
                              0.0f, 1.0f};
    const int rows = 4, cols = 4096;
    uint16_t *h = harness_alloc((size_t)rows * cols * sizeof *h);
    int at[2 * 4];
    harness_random_halves(HARNESS_F16, h, (size_t)rows * cols, 0.0f, 1.0f, 94);
    harness_random_ints(at, 2 * rows, 0, cols / 2 - 1, 95);
    for (int r = 0; r < rows; r++) {
        h[(size_t)r * cols + at[2 * r]] = harness_float_to_half(HARNESS_F16, 30000.0f);
        h[(size_t)r * cols + cols / 2 + at[2 * r + 1]] = harness_float_to_half(HARNESS_F16, -30000.0f);
    }
    expect_row_stats(&giants, h, rows, cols, 0);
    free(h);
}
END_TEST

/* 16384 bf16 values in [0, 1) per row: with 256 threads, each thread's own sum reaches about 32, where
 * bf16's spacing is 0.25, so a bf16 accumulator drops most of each new value. */
START_TEST(test_ex13_bf16_accumulator_fails)
{
    const row_input in = {HARNESS_BF16, N_("bf16 values in [0, 1)"), 0.0f, 1.0f};
    expect_random_rows(&in, 4, 16384, 0, 91);
}
END_TEST

START_TEST(test_ex13_row_shapes)
{
    const row_input in = {HARNESS_F16, N_("fp16 values in [-2, 2)"), -2.0f, 2.0f};
    size_t large = harness_large_n();
    expect_random_rows(&in, 1029, 3, 0, 92);   /* more rows than the GPU holds at once: 1024 warps, 128 blocks */
    expect_random_rows(&in, 2, (int)(large / 2) + 5, 0, 93);          /* two long ones */
}
END_TEST

/* The rows are read once, in 16-byte loads: counted on the emulator, in 32-byte sectors and in load
 * requests (a warp's 16-byte loads make one request per 512 bytes, 2-byte loads one per 64). A row of 1001
 * values is not a whole number of vectors, and 64 of them start anywhere: each may add a few requests and
 * sectors for its head and tail. */
START_TEST(test_ex13_rows_read_once_in_vectors)
{
    const int rows = 64, cols = 1001;
    size_t n = (size_t)rows * cols;
    uint16_t *h = harness_alloc(n * sizeof *h);
    harness_random_halves(HARNESS_F16, h, n, -2.0f, 2.0f, 96);
    const row_input in = {HARNESS_F16, N_("fp16 values in [-2, 2)"), -2.0f, 2.0f};
    emu_metrics m;
    backend_take_metrics(&m);   /* forget what came before */
    expect_row_stats(&in, h, rows, cols, 0);
    backend_take_metrics(&m);
    uint64_t bytes = n * sizeof *h, requests = bytes / 512;
    if (m.global_load_requests > requests * 5 / 4 + 8 * (uint64_t)rows)
        harness_fail(_("Are the rows read as 16-byte vectors (uint4, 8 values per load), from the first 16-byte "
                       "boundary of each row?"),
                     _("row_stats_f16(rows = %d, cols = %d) made %llu load requests; 16-byte loads need about %llu "
                       "(one per 512 bytes of a warp), 2-byte loads %llu."), rows, cols,
                     (unsigned long long)m.global_load_requests, (unsigned long long)requests,
                     (unsigned long long)(bytes / 64));
    char what[100];
    snprintf(what, sizeof what, "row_stats_f16(rows = %d, cols = %d)", rows, cols);
    harness_expect_reads(&m, bytes, 1, 0, what,
                         N_("Does each thread read only its own elements of the row, each once: the head, its share "
                            "of the vectors, the tail?"),
                         N_("Do the lanes of a warp read neighbouring 16-byte vectors of the row, so that a warp's "
                            "load covers whole sectors?"));
    free(h);
}
END_TEST

/* ---- ALL and ANY ------------------------------------------------------------------------------------------ */

typedef struct verdicts { int all_small, any_nonfinite; } verdicts;

/* How many of n values are not small (|x| <= limit fails, a NaN too) and how many are not finite. */
typedef struct tallies { size_t not_small, nonfinite; } tallies;

/* One value counted in (sign 1) or taken out (sign -1). */
static void tally(tallies *t, uint16_t h, float limit, int sign)
{
    float x = harness_half_to_float(HARNESS_F16, h);
    size_t not_small = !(fabsf(x) <= limit), nonfinite = !isfinite(x);
    if (sign > 0) t->not_small += not_small, t->nonfinite += nonfinite;
    else t->not_small -= not_small, t->nonfinite -= nonfinite;
}

static tallies tallies_of(const uint16_t *h, size_t n, float limit)
{
    tallies t = {0, 0};
    for (size_t i = 0; i < n; i++) tally(&t, h[i], limit, 1);
    return t;
}

static verdicts verdicts_from(tallies t) { return (verdicts){t.not_small == 0, t.nonfinite > 0}; }

static verdicts verdicts_of(const uint16_t *h, size_t n, float limit)
{
    return verdicts_from(tallies_of(h, n, limit));
}

/* ---- Known mistakes of the verdicts: what each gives on the test's rows -------------------------------------- */

typedef struct checks_case { const uint16_t *h; size_t rows, cols; float limit; } checks_case;

/* The verdicts when ALL is computed some other way: 0 as !(|x| > limit), which a NaN passes; 1 with a vote
 * of ANY (one small lane makes the row small); 2 starting from 0 (every ALL false); 3 as |x| < limit, which a
 * value equal to the limit fails; ANY stays right. */
static int model_all(const void *ctx, int how, double *out)
{
    const checks_case *cc = ctx;
    for (size_t r = 0; r < cc->rows; r++) {
        const uint16_t *row = cc->h + r * cc->cols;
        verdicts v = verdicts_of(row, cc->cols, cc->limit);
        int all = 1, any_small = 0, strict = 1;
        for (size_t c = 0; c < cc->cols; c++) {
            float x = harness_half_to_float(HARNESS_F16, row[c]);
            all &= !(fabsf(x) > cc->limit);
            any_small |= fabsf(x) <= cc->limit;
            strict &= fabsf(x) < cc->limit;
        }
        out[2 * r] = how == 0 ? all : how == 1 ? any_small : how == 3 ? strict : 0;
        out[2 * r + 1] = v.any_nonfinite;
    }
    return 1;
}

static const harness_bug_model CHECKS_MODELS[] = {
    {"limit-strict", model_all, 3,
     N_("the verdicts are what ALL gives when small is |x| < limit, strictly: a value equal to the limit makes "
        "its row not small, where the contract says at most the limit"),
     N_("Is a value equal to the limit small? Which comparison says 'at most': < or <=?"), 0},
    {"nan-counts-as-small", model_all, 0,
     N_("the verdicts are what ALL gives when it is written as 'not larger than the limit', !(|x| > limit), "
        "which a NaN passes: every comparison with a NaN is false"),
     N_("Is fabsf(x) <= limit true for a NaN? And !(fabsf(x) > limit)?"), 7},
    {"any-for-all", model_all, 1,
     N_("the verdicts are what ALL gives when the warp votes with __any_sync: one lane whose values are all "
        "small makes the whole row small"),
     N_("Which vote is true only when every lane's verdict is: __all_sync or __any_sync?"), 0},
    {"all-from-zero", model_all, 2,
     N_("every ALL verdict is 0: ALL starts false, and only an AND can lower it, never raise it"),
     N_("ALL is an AND over the row: which value must it start from so that a row where every value passes "
        "keeps it?"), 0},
    {0},
};

static void explain_flag(int expected, int got, const char *flag, const char *where, const char *what,
                         const char *input, const char *hint)
{
    if (got == expected) return;
    if (got == HARNESS_POISON_INT) {
        harness_evidence("poison", "flag=%s", where);
        harness_fail(_(hint), _("%s on %s: %s (%s) was never written: it still holds the poison value."), what,
                     input, flag, where);
    }
    harness_evidence("wrong", "flag=%s want=%d got=%d", where, expected, got);
    harness_fail(_(hint), _("%s on %s: %s (%s) should be %d, but it is %d."), what, input, flag, where, expected, got);
}

/* The values that break a row's verdicts (the space's `breaker`, after "none"), and how the report says them;
 * the last is exactly the limit, which breaks nothing: small is |x| <= limit. */
static const struct breaker {
    const char *name, *words;
    uint16_t bits;
} BREAKERS[] = {
    {"large", "1.5", 0x3e00},        {"nan", N_("a NaN"), 0x7fff}, {"inf", "+inf", 0x7c00},
    {"minus-inf", "-inf", 0xfc00},   {"just-over", "-1.0009765625", 0xbc01 /* one fp16 spacing past -1 */},
    {"at-limit", N_("-1, exactly the limit"), 0xbc00},
};

/* Runs row_checks_f16 on rows x cols fp16 values h with a limit of 1, d_in offset bytes past a 16-byte boundary,
 * and checks that it wrote nothing else and left d_in as it was: the verdicts in got. */
static void run_row_checks(const uint16_t *h, int rows, int cols, size_t offset, const char *what, int *got)
{
    dev_buffer din = dev_input_halves(h, (size_t)rows * (size_t)cols, 0x7c00 /* +inf: a read past the end breaks
                                                                                both verdicts */, offset);
    dev_buffer dout = dev_output_ints(2 * (size_t)rows);
    row_checks_f16(dev_ptr(&din), dev_ptr(&dout), rows, cols, 1.0f);
    harness_after_launch(what);
    dev_fetch(&dout, got);
    dev_expect_guards_intact(&dout, what);
    dev_expect_unchanged(&din, what);
    dev_free(&din);
    dev_free(&dout);
}

/* Every row's verdicts as doubles, for harness_diagnose: want (and have, from got) of rows x 2. */
static void verdict_outputs(const checks_case *cc, const int *got, double *want, double *have, unsigned char *unwritten)
{
    for (size_t r = 0; r < cc->rows; r++) {
        verdicts v = verdicts_of(cc->h + r * cc->cols, cc->cols, cc->limit);
        want[2 * r] = v.all_small, want[2 * r + 1] = v.any_nonfinite;
    }
    for (size_t i = 0; i < 2 * cc->rows; i++) have[i] = got[i], unwritten[i] = got[i] == HARNESS_POISON_INT;
}

/* Verdicts that several mistakes give alike (a row of one value at the limit: ALL false, as from a strict
 * comparison and from ALL started at 0) are told apart on four more rows of 40 values in [-0.5, 0.5): one with
 * 1.0, the limit, and one with a NaN. */
static void settle_checks(harness_diagnosis *d)
{
    if (d->ncandidates < 2) return;
    enum { ROWS = 4, COLS = 40 };
    uint16_t h[ROWS * COLS];
    int got[2 * ROWS];
    double want[2 * ROWS], have[2 * ROWS];
    unsigned char unwritten[2 * ROWS];
    harness_random_halves(HARNESS_F16, h, ROWS * COLS, -0.5f, 0.5f, 980);
    h[COLS + 3] = 0x3c00, h[2 * COLS + 5] = 0x7fff;
    run_row_checks(h, ROWS, COLS, 0, "row_checks_f16(rows = 4, cols = 40, limit = 1)", got);
    harness_forget_findings();   /* this run is the checker's question, not a test */
    checks_case cc = {h, ROWS, COLS, 1.0f};
    verdict_outputs(&cc, got, want, have, unwritten);
    harness_output o = {ROWS, 2, want, have, unwritten, NULL, 0, 0};
    harness_narrow(&o, &cc, d);
}

/* Case k of the covering set: rows of fp16 values in [-1, 1) with a limit of 1, d_in its offset past a 16-byte
 * boundary, and in every even row its breaker (when it has one) at its place: the row's first value, the first
 * value of a lane of the row's warp (columns 0 to 31), anywhere, or the last. */
static void expect_row_checks(const harness_cover *cover, size_t k, uint64_t salt)
{
    int rows = (int)harness_case_number(cover, k, "rows"), cols = (int)harness_case_number(cover, k, "cols");
    size_t n = (size_t)rows * (size_t)cols, offset = (size_t)harness_case_number(cover, k, "offset");
    const struct breaker *breaker = NULL;
    for (size_t b = 0; b < sizeof BREAKERS / sizeof BREAKERS[0]; b++)
        if (harness_case_is(cover, k, "breaker", BREAKERS[b].name)) breaker = &BREAKERS[b];
    uint16_t *h = harness_alloc(n * sizeof *h);
    int *got = harness_alloc(2 * (size_t)rows * sizeof *got), *where = harness_alloc((size_t)rows * sizeof *where);
    harness_random_halves(HARNESS_F16, h, n, -1.0f, 1.0f, salt);
    harness_random_ints(where, (size_t)rows, 0, cols - 1, salt + 1);
    for (int r = 0; r < rows; r++) {
        if (harness_case_is(cover, k, "place", "first")) where[r] = 0;
        if (harness_case_is(cover, k, "place", "last")) where[r] = cols - 1;
        if (harness_case_is(cover, k, "place", "lane-first")) where[r] %= cols < 32 ? cols : 32;
        if (breaker && r % 2 == 0) h[(size_t)r * cols + where[r]] = breaker->bits;
    }
    char what[256], off[100] = "";
    snprintf(what, sizeof what, "row_checks_f16(rows = %d, cols = %d, limit = 1)", rows, cols);
    if (offset) snprintf(off, sizeof off, _(", d_in %zu bytes past a 16-byte boundary"), offset);
    run_row_checks(h, rows, cols, offset, what, got);
    /* Every row's two verdicts against a known mistake's first: it names the cause, where the first wrong
     * verdict alone would not. */
    double *want_all = harness_alloc(2 * (size_t)rows * sizeof *want_all), *have = harness_alloc(2 * (size_t)rows * sizeof *have);
    unsigned char *unwritten = harness_alloc(2 * (size_t)rows);
    checks_case cc = {h, (size_t)rows, (size_t)cols, 1.0f};
    verdict_outputs(&cc, got, want_all, have, unwritten);
    harness_output o = {(size_t)rows, 2, want_all, have, unwritten, NULL, 0, 0};
    harness_diagnosis d;
    harness_diagnose(&o, CHECKS_MODELS, &cc, &d);
    settle_checks(&d);
    free(want_all), free(have), free(unwritten);
    for (int r = 0; r < rows; r++) {
        verdicts want = verdicts_of(h + (size_t)r * cols, (size_t)cols, 1.0f);
        char input[400], where0[32], where1[32];
        int at = !breaker || r % 2 ? snprintf(input, sizeof input, _("row %d, values in [-1, 1)"), r)
                 : snprintf(input, sizeof input, _("row %d, values in [-1, 1) and %s at column %d"), r,
                            _(breaker->words), where[r]);
        snprintf(input + at, sizeof input - at, "%s", off);
        snprintf(where0, sizeof where0, "d_out[%d]", 2 * r);
        snprintf(where1, sizeof where1, "d_out[%d]", 2 * r + 1);
        /* The first wrong verdict, with what the known mistake the verdicts match is, when there is one. */
        if (d.seen == SEEN_MODEL && (got[2 * r] != want.all_small || got[2 * r + 1] != want.any_nonfinite)) {
            int all = got[2 * r] != want.all_small;
            harness_fail(d.hint, _("%s on %s: %s (%s) should be %d, but it is %d: %s."), what, input,
                         all ? _("ALL |x| <= limit") : _("ANY infinite or NaN"), all ? where0 : where1,
                         all ? want.all_small : want.any_nonfinite, got[2 * r + !all], d.words);
        }
        explain_flag(want.all_small, got[2 * r], _("ALL |x| <= limit"), where0, what, input, VOTE_HINT);
        explain_flag(want.any_nonfinite, got[2 * r + 1], _("ANY infinite or NaN"), where1, what, input, VOTE_HINT);
    }
    free(h);
    free(got);
    free(where);
}

START_TEST(test_ex13_row_checks)
{
    harness_cover cover;
    harness_cover_build(&SPACE, &cover);
    for (size_t k = 0; k < cover.cases; k++) expect_row_checks(&cover, k, 100 + 10 * k);
    harness_cover_free(&cover);
}
END_TEST

/* One tensor of n fp16 values in [-1, 1): clean, then with one value breaking each check (or one exactly at the
 * limit, which breaks nothing) at the first place (unless from_last: the first block reads it as it does in a
 * shorter tensor), the last, and a random one. */
static void expect_tensor_checks(size_t n, int from_last, uint64_t salt)
{
    uint16_t *h = harness_alloc(n * sizeof *h);
    harness_random_halves(HARNESS_F16, h, n, -1.0f, 1.0f, salt);
    int place[3] = {0, (int)n - 1, 0};
    if (n > 0) harness_random_ints(&place[2], 1, 0, (int)n - 1, salt + 1);
    static const uint16_t breakers[] = {0, 0x4000 /* 2.0 */, 0x7fff /* NaN */, 0xfc00 /* -inf */,
                                        0x3c00 /* 1.0: the limit itself, which breaks nothing */};
    static const char *const broken_by[] = {NULL, "2.0", N_("a NaN"), "-inf", N_("1, exactly the limit")};
    /* The clean tensor counted once: a tensor with one value changed is that count with the old value's part
     * taken out and the new one's put in (not a scan of 2^24 values for each of the nine). */
    const tallies clean = tallies_of(h, n, 1.0f);
    for (int b = 0; b < 5; b++) {
        for (int p = b == 0 || n == 0 || !from_last ? 0 : 1; p < (b == 0 || n == 0 ? 1 : 3); p++) {
            uint16_t saved = 0;
            char input[400];
            tallies counted = clean;
            if (b == 0 || n == 0) {
                snprintf(input, sizeof input, _("%zu values in [-1, 1)"), n);
            } else {
                saved = h[place[p]];
                h[place[p]] = breakers[b];
                tally(&counted, saved, 1.0f, -1), tally(&counted, breakers[b], 1.0f, 1);
                snprintf(input, sizeof input, _("%zu values in [-1, 1) and %s at index %d"), n, _(broken_by[b]),
                         place[p]);
            }
            verdicts want = verdicts_from(counted);
            char what[256];
            snprintf(what, sizeof what, "tensor_checks_f16(n = %zu, limit = 1)", n);
            dev_buffer din = dev_input_halves(h, n, 0x7c00, 0), dout = dev_output_ints(2);
            int got[2];
            tensor_checks_f16(dev_ptr(&din), dev_ptr(&dout), (int)n, 1.0f);
            harness_after_launch(what);
            dev_fetch(&dout, got);
            /* An empty tensor launches nothing to vote: what is left unwritten there, the function never set. */
            const char *hint = n == 0 ? EMPTY_HINT : BLOCK_VOTE_HINT;
            explain_flag(want.all_small, got[0], _("ALL |x| <= limit"), "d_out[0]", what, input, hint);
            explain_flag(want.any_nonfinite, got[1], _("ANY infinite or NaN"), "d_out[1]", what, input, hint);
            dev_expect_guards_intact(&dout, what);
            dev_expect_unchanged(&din, what);
            dev_free(&din);
            dev_free(&dout);
            if (b != 0 && n != 0) h[place[p]] = saved;
        }
    }
    free(h);
}

START_TEST(test_ex13_tensor_checks)
{
    static const size_t sizes[] = {0, 1, 31, 257, 65537};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) expect_tensor_checks(sizes[k], 0, 120 + 2 * k);
    expect_tensor_checks(harness_large_n(), 1, 130);   /* several passes of the grid: the last value matters */
}
END_TEST

int main(int argc, char **argv)
{
    const harness_test tests[] = {
        {N_("core: every thread of a block gets the block's sum (blocks of 32 to 1024)"),
         test_ex13_allreduce_every_thread, NEEDS_DEVICE},
        {N_("core: blocks whose warp count is not a power of two (3 to 31 warps)"),
         test_ex13_allreduce_odd_warps, NEEDS_DEVICE},
        {N_("core: row means and L2 norms of fp16 rows, on every declared row: lengths, offsets, far from 0"),
         test_ex13_rows_f16, NEEDS_DEVICE},
        {N_("core: row means and L2 norms of bf16 rows, on every declared row: lengths, offsets, far from 0"),
         test_ex13_rows_bf16, NEEDS_DEVICE},
        {N_("concept: sums and squares an fp16 accumulator cannot hold"), test_ex13_half_accumulator_fails,
         NEEDS_DEVICE},
        {N_("concept: long bf16 rows, where a bf16 accumulator stops growing"), test_ex13_bf16_accumulator_fails,
         NEEDS_DEVICE},
        {N_("sizes: 1029 rows of 3, and 2 rows of half the large size"), test_ex13_row_shapes, NEEDS_DEVICE},
        {N_("concept: each row is read once, in 16-byte loads"), test_ex13_rows_read_once_in_vectors, NEEDS_EMULATOR},
        {N_("core: ALL and ANY per row, by warp votes, a breaking value anywhere in a declared row"),
         test_ex13_row_checks, NEEDS_DEVICE},
        {N_("core: ALL and ANY over a tensor, by block barriers and atomics"), test_ex13_tensor_checks,
         NEEDS_DEVICE},
        {0},
    };
    const harness_exercise ex = {"13", N_("Block all-reduce in half precision: fp16 and bf16 added in float"), "exercises/13-half-allreduce/lesson.md",
                                 tests, &SPACE};
    return harness_run(&ex, argc, argv);
}
