/* ex15.c - hidden tests of exercise 15: LayerNorm (two passes, and Welford's one pass) of fp16 rows, and
 * RMSNorm of bf16 rows, against the same normalisations in double with a derived bound. */
#include "../harness/harness.h"
#include "../contracts/ex15.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum variant { TWO_PASS, WELFORD, RMSNORM };
static const char *const NAME[] = {"layernorm_two_pass", "layernorm_welford", "rmsnorm_bf16"};
static const float EPS = 1e-5f;

static const char *CANCEL_HINT = N_("Is the variance computed from x - mean, or as E[x^2] - E[x]^2? For values "
                                    "1000 +- 1, E[x^2] is about a million, and float keeps 24 bits of it.");
static const char *TWO_PASS_HINT = N_("Is the mean the whole row's sum over cols, in every thread, before the "
                                      "second pass adds (x - mean)^2 over the whole row?");
static const char *WELFORD_HINT = N_("After n values, does the mean move by (x - mean) / n, and does m2 gain "
                                     "(x - old mean) * (x - new mean)? When two parts combine, what does the "
                                     "distance between their means add to m2, and what does an empty part add?");
static const char *RMS_HINT = N_("Is the sum of squares of the whole row added in float, divided by cols, and "
                                 "is eps added before the square root?");
static const char *ROW_HINT = N_("Does each block handle exactly its row, d_in + row * cols, and does every "
                                 "thread write each entry it read, with the gamma and beta of its column?");
static const char *EPS_HINT = N_("A row whose values are all equal has variance 0: what keeps 1 / sqrt(var) "
                                 "finite? And can a variance computed in float come out negative?");

/* ---- The bound --------------------------------------------------------------------------------------------
 * harness_rows.c derives it: with u = 2^-24 and L = ceil(cols / 32) + 12 additions per value (exercise 13),
 * the mean errs by (L + 2) u mean|x|, the variance by (L + 8) u var plus Welford's running-mean term, and the
 * output by the rounding of its 16-bit type. E[x^2] - E[x]^2 errs by up to L u E[x^2] instead: its last sums
 * are near cols * 10^6 for values 1000 +- 1, rounded to spacings of 64 and more, about 0.06 of a variance of
 * 0.33 for rows of 1024. */

/* ---- Running one normalisation ------------------------------------------------------------------------------ */

/* Runs the variant on rows x cols 16-bit values h (fp16 for LayerNorm, bf16 for RMSNorm) with gamma and
 * beta, and checks every output. */
static void expect_norm(enum variant v, const uint16_t *h, const float *gamma, const float *beta, int rows,
                        int cols, const char *input, const char *hint)
{
    harness_half_kind kind = v == RMSNORM ? HARNESS_BF16 : HARNESS_F16;
    size_t n = (size_t)rows * (size_t)cols;
    float *x = harness_halves_to_floats(kind, h, n);
    uint16_t *got = harness_alloc(n * sizeof *got);
    char what[256];
    snprintf(what, sizeof what, "%s(rows = %d, cols = %d, eps = 1e-5)", NAME[v], rows, cols);
    uint16_t guard = harness_float_to_half(kind, kind == HARNESS_BF16 ? 1e30f : 60000.0f);
    dev_buffer din = dev_input_halves(h, n, guard, 0), dout = dev_output_halves(n);
    dev_buffer dg = dev_input_floats(gamma, (size_t)cols, HARNESS_GUARD_FLOAT);
    dev_buffer db = dev_input_floats(beta, (size_t)cols, HARNESS_GUARD_FLOAT);
    dev_name(&dg, "d_gamma");
    dev_name(&db, "d_beta");
    if (v == RMSNORM) rmsnorm_bf16(dev_ptr(&din), dev_ptr(&dg), dev_ptr(&dout), rows, cols, EPS);
    else if (v == TWO_PASS) layernorm_two_pass(dev_ptr(&din), dev_ptr(&dg), dev_ptr(&db), dev_ptr(&dout), rows, cols, EPS);
    else layernorm_welford(dev_ptr(&din), dev_ptr(&dg), dev_ptr(&db), dev_ptr(&dout), rows, cols, EPS);
    harness_after_launch(what);
    dev_fetch(&dout, got);
    for (int r = 0; r < rows; r++) {
        const float *row = x + (size_t)r * cols;
        harness_moments s;
        harness_row_moments(row, cols, &s);
        for (int c = 0; c < cols; c++) {
            double want, tol;
            harness_norm_expected(v == RMSNORM, &s, row[c], gamma[c], beta[c], cols, EPS, kind, &want, &tol);
            uint16_t bits = got[(size_t)r * cols + c];
            double g = harness_half_to_float(kind, bits), err = fabs(g - want);
            if (err <= tol) continue;
            char have[64], seen[600];
            harness_describe_half(kind, bits, have, sizeof have);
            const char *h = hint;
            if (bits == HARNESS_POISON_HALF_BITS) {
                snprintf(seen, sizeof seen, "%s", _("nothing was written there (it still holds the poison NaN)"));
                h = ROW_HINT;
            } else if (isnan(g) && (s.var == 0 || fabs(s.mean) > 100 * sqrt(s.var))) {
                /* A constant row, or one whose variance is tiny beside its mean: 0 * (1 / sqrt(0)), or
                 * 1 / sqrt of a negative number, are NaN. */
                snprintf(seen, sizeof seen, _("the normalised values of a row of finite values are finite; this "
                                              "row's variance is %.3g, so the variance plus eps must have been 0, "
                                              "negative or NaN"),
                         s.var);
                h = EPS_HINT;
            } else if (isnan(g) || isinf(g)) {
                snprintf(seen, sizeof seen, _("the normalised values of a row of finite values are finite: a "
                                              "statistic overflowed, or a value outside d_in, d_gamma or d_beta was "
                                              "read (the checker surrounds them with %g and 1e30)"),
                         v == RMSNORM ? 1e30 : 60000.0);
            } else {
                snprintf(seen, sizeof seen, _("off by %.3g, %.3g times the bound (the row's mean is %.6g, its "
                                              "variance %.6g)"),
                         g - want, err / tol, s.mean, s.var);
            }
            harness_fail(_(h), _("%s of %s: d_out[%d][%d] should be %.6g within %.3g, but it is %s: %s."), what,
                         input, r, c, want, tol, have, seen);
        }
    }
    dev_expect_guards_intact(&dout, what);
    dev_expect_unchanged(&din, what);
    dev_expect_unchanged(&dg, what);
    dev_expect_unchanged(&db, what);
    dev_free(&din);
    dev_free(&dout);
    dev_free(&dg);
    dev_free(&db);
    free(x);
    free(got);
}

/* Rows of values in [lo, hi) with gamma in [0.5, 1.5) and beta in [-1, 1) (beta 0 for RMSNorm, which has
 * none). */
static void expect_random(enum variant v, int rows, int cols, float lo, float hi, uint64_t salt, const char *hint)
{
    size_t n = (size_t)rows * (size_t)cols;
    uint16_t *h = harness_alloc(n * sizeof *h);
    float *gamma = harness_alloc((size_t)cols * sizeof *gamma), *beta = harness_alloc((size_t)cols * sizeof *beta);
    harness_random_halves(v == RMSNORM ? HARNESS_BF16 : HARNESS_F16, h, n, lo, hi, salt);
    harness_random_floats(gamma, (size_t)cols, 0.5f, 1.5f, salt + 1000);
    harness_random_floats(beta, (size_t)cols, -1.0f, 1.0f, salt + 2000);
    if (v == RMSNORM) memset(beta, 0, (size_t)cols * sizeof *beta);
    char input[400];
    snprintf(input, sizeof input, _("%s values in [%g, %g)"), v == RMSNORM ? "bf16" : "fp16", (double)lo, (double)hi);
    expect_norm(v, h, gamma, beta, rows, cols, input, hint);
    free(h);
    free(gamma);
    free(beta);
}

static const int COLS[] = {1, 2, 31, 32, 33, 255, 256, 257, 1000, 4096};

static void every_cols(enum variant v, uint64_t salt, const char *hint)
{
    for (size_t k = 0; k < sizeof COLS / sizeof COLS[0]; k++) expect_random(v, 3, COLS[k], -2.0f, 2.0f, salt + k, hint);
}

START_TEST(test_ex15_two_pass) { every_cols(TWO_PASS, 10, TWO_PASS_HINT); }
END_TEST

START_TEST(test_ex15_welford) { every_cols(WELFORD, 30, WELFORD_HINT); }
END_TEST

START_TEST(test_ex15_rmsnorm) { every_cols(RMSNORM, 50, RMS_HINT); }
END_TEST

/* Values 1000 +- 1 (fp16 holds them in steps of 1/2): E[x^2] - E[x]^2 subtracts two numbers near a million
 * to find one near 0.3. */
START_TEST(test_ex15_large_mean)
{
    expect_random(TWO_PASS, 4, 1024, 999.0f, 1001.0f, 70, CANCEL_HINT);
    expect_random(WELFORD, 4, 1024, 999.0f, 1001.0f, 71, CANCEL_HINT);
    expect_random(TWO_PASS, 4, 257, -1001.0f, -999.0f, 72, CANCEL_HINT);
    expect_random(WELFORD, 4, 257, -1001.0f, -999.0f, 73, CANCEL_HINT);
}
END_TEST

/* Rows whose values are all equal: variance 0, so the output is beta, and only eps keeps 1 / sqrt finite;
 * RMSNorm's row of zeros likewise. */
START_TEST(test_ex15_constant_rows)
{
    const int rows = 3, cols = 300;
    uint16_t *h = harness_alloc((size_t)rows * cols * sizeof *h);
    float *gamma = harness_alloc(cols * sizeof *gamma), *beta = harness_alloc(cols * sizeof *beta);
    harness_random_floats(gamma, cols, 0.5f, 1.5f, 74);
    harness_random_floats(beta, cols, -1.0f, 1.0f, 75);
    static const float value[] = {0.0f, 3.0f, -1234.0f};
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++) h[(size_t)r * cols + c] = harness_float_to_half(HARNESS_F16, value[r]);
    const char *input = _("rows of 300 equal values (0, 3 and -1234)");
    expect_norm(TWO_PASS, h, gamma, beta, rows, cols, input, EPS_HINT);
    expect_norm(WELFORD, h, gamma, beta, rows, cols, input, EPS_HINT);
    for (int i = 0; i < rows * cols; i++) h[i] = 0;   /* bf16 zeros */
    memset(beta, 0, cols * sizeof *beta);
    expect_norm(RMSNORM, h, gamma, beta, rows, cols, _("rows of 300 zeros"), EPS_HINT);
    free(h);
    free(gamma);
    free(beta);
}
END_TEST

/* bf16 rows of 16384 values in [0, 1): with 256 threads each thread's sum of squares reaches about 20,
 * where bf16's spacing is 1/8: a bf16 accumulator drops most of each new square. */
START_TEST(test_ex15_rmsnorm_long_rows)
{
    expect_random(RMSNORM, 2, 16384, 0.0f, 1.0f, 76, RMS_HINT);
}
END_TEST

START_TEST(test_ex15_shapes)
{
    expect_random(WELFORD, 4099, 3, -2.0f, 2.0f, 80, ROW_HINT);
    expect_random(TWO_PASS, 4099, 3, -2.0f, 2.0f, 81, ROW_HINT);
    expect_random(RMSNORM, 4099, 3, -2.0f, 2.0f, 82, ROW_HINT);
    expect_random(WELFORD, 2, 100003, -2.0f, 2.0f, 83, WELFORD_HINT);
    expect_random(TWO_PASS, 2, 100003, -2.0f, 2.0f, 84, TWO_PASS_HINT);
    expect_random(RMSNORM, 2, 100003, -2.0f, 2.0f, 85, RMS_HINT);
}
END_TEST

/* Welford's point: the row is read twice (once for the statistics, once to write), not three times.
 * Counted on the emulator in the bytes the loads ask for (harness_expect_reads). */
START_TEST(test_ex15_welford_reads_twice)
{
    const int rows = 64, cols = 1024;
    emu_metrics m;
    backend_take_metrics(&m);   /* forget what came before */
    expect_random(WELFORD, rows, cols, -2.0f, 2.0f, 90, WELFORD_HINT);
    backend_take_metrics(&m);
    /* gamma and beta are read once per row too: 8 bytes per column against the row's 2 per read */
    char what[100];
    snprintf(what, sizeof what, "layernorm_welford(rows = %d, cols = %d)", rows, cols);
    harness_expect_reads(&m, (uint64_t)rows * cols * 2, 2, (uint64_t)rows * cols * 8, what,
                         N_("Does one loop over the row compute n, mean and m2 together, so that only the writing "
                            "loop reads the row again?"),
                         N_("Do neighbouring threads of the block read neighbouring values of the row, so that a "
                            "warp's load covers whole sectors?"));
}
END_TEST

int main(int argc, char **argv)
{
    const harness_test tests[] = {
        {N_("core: LayerNorm in two passes, fp16 rows of 1 to 4096 values"), test_ex15_two_pass, NEEDS_DEVICE},
        {N_("core: LayerNorm with Welford's one pass, fp16 rows of 1 to 4096"), test_ex15_welford, NEEDS_DEVICE},
        {N_("core: RMSNorm, bf16 rows of 1 to 4096 values"), test_ex15_rmsnorm, NEEDS_DEVICE},
        {N_("concept: a large mean (1000 +- 1), where E[x^2] - E[x]^2 cancels"), test_ex15_large_mean, NEEDS_DEVICE},
        {N_("edges: rows of equal values (variance 0) and rows of zeros"), test_ex15_constant_rows, NEEDS_DEVICE},
        {N_("concept: long bf16 rows, where a bf16 sum of squares stops growing"), test_ex15_rmsnorm_long_rows,
         NEEDS_DEVICE},
        {N_("sizes: 4099 rows of 3, and rows of 100003"), test_ex15_shapes, NEEDS_DEVICE},
        {N_("concept: Welford's form reads each row twice"), test_ex15_welford_reads_twice, NEEDS_EMULATOR},
        {0},
    };
    const harness_exercise ex = {"15", N_("LayerNorm and RMSNorm: Welford's one pass"), "exercises/15-layernorm/lesson.md",
                                 tests};
    return harness_run(&ex, argc, argv);
}
