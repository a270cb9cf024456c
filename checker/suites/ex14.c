/* ex14.c - hidden tests of exercise 14: softmax over rows, with two reductions and online, in float and
 * in fp16, against a softmax in double with a derived bound. */
#include "../harness/harness.h"
#include "../contracts/ex14.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum variant { TWO_PASS, ONLINE, ONLINE_F16 };
static const char *const NAME[] = {"softmax_two_pass", "softmax_online", "softmax_online_f16"};

static const char *SHIFT_HINT = N_("Is the row's max subtracted before exp? exp(100) is beyond float's 3.4e38 and "
                                   "exp(-200) is 0. And which value can never win a max (exercise 09)?");
static const char *SUM_HINT = N_("Is every exp(x - max) of the row added once to the sum that every thread "
                                 "divides by, and does every thread get the whole row's sum?");
static const char *ONLINE_HINT = N_("When a new x is larger than the running max, the sum so far was a sum of "
                                    "exp(x - old max): what must it be multiplied by? When two pairs are "
                                    "combined, to which max is each sum rescaled, and what does a thread that "
                                    "saw no finite entry (m = -inf) contribute?");
static const char *ROW_HINT = N_("Does each block handle exactly its row, d_in + row * cols, and does every "
                                 "thread write each entry it read, d_out + row * cols + c?");

/* ---- The bound ------------------------------------------------------------------------------------------
 * Relative to each output, ((3.5 (|x_i - m| + R) + 6 L + 16) u + out) plus what flushing may lose near zero
 * (harness_rows.c derives it): R is the row's range, L = ceil(cols / 32) + 12 additions per value, u = 2^-24,
 * out the output's own rounding. A sum without the max overflows to inf (or underflows to 0); a sum that is
 * not rescaled is off by factors of e^(R). */

/* ---- Running one softmax ----------------------------------------------------------------------------------- */

/* Runs the variant on rows x cols values x (float; for fp16 their bits are h16), and checks each output
 * against the softmax in double. input describes the values for messages. */
static void expect_softmax(enum variant v, const float *x, const uint16_t *h16, int rows, int cols,
                           const char *input, const char *hint)
{
    size_t n = (size_t)rows * (size_t)cols;
    float *got = harness_alloc(n * sizeof *got);
    uint16_t *got16 = v == ONLINE_F16 ? harness_alloc(n * sizeof *got16) : NULL;
    char what[256];
    snprintf(what, sizeof what, "%s(rows = %d, cols = %d)", NAME[v], rows, cols);
    dev_buffer din, dout;
    if (v == ONLINE_F16) {
        din = dev_input_halves(h16, n, harness_float_to_half(HARNESS_F16, 60000.0f), 0);
        dout = dev_output_halves(n);
        softmax_online_f16(dev_ptr(&din), dev_ptr(&dout), rows, cols);
    } else {
        din = dev_input_floats(x, n, HARNESS_GUARD_FLOAT);
        dout = dev_output_floats(n);
        if (v == TWO_PASS) softmax_two_pass(dev_ptr(&din), dev_ptr(&dout), rows, cols);
        else softmax_online(dev_ptr(&din), dev_ptr(&dout), rows, cols);
    }
    harness_after_launch(what);
    if (v == ONLINE_F16) {
        dev_fetch(&dout, got16);
        for (size_t i = 0; i < n; i++) got[i] = harness_half_to_float(HARNESS_F16, got16[i]);
    } else {
        dev_fetch(&dout, got);
    }
    double tiny = v == ONLINE_F16 ? ldexp(1.0, -25) : ldexp(1.0, -126);
    for (int r = 0; r < rows; r++) {
        const float *row = x + (size_t)r * cols;
        const float *out = got + (size_t)r * cols;
        double m = -INFINITY, lo = INFINITY, s = 0, total = 0;
        for (int c = 0; c < cols; c++) {
            if (row[c] > m) m = row[c];
            if (isfinite(row[c]) && row[c] < lo) lo = row[c];
        }
        for (int c = 0; c < cols; c++) s += exp((double)row[c] - m);
        for (int c = 0; c < cols; c++) total += out[c];
        for (int c = 0; c < cols; c++) {
            double want = exp((double)row[c] - m) / s, err = fabs((double)out[c] - want);
            double shift = m - row[c] == INFINITY ? 0 : m - row[c];
            double tol = harness_softmax_tolerance(shift, m - lo, 0, cols, v == ONLINE_F16) * want + tiny;
            if (err <= tol) continue;
            char have[64], seen[600];
            if (v == ONLINE_F16) harness_describe_half(HARNESS_F16, got16[(size_t)r * cols + c], have, sizeof have);
            else harness_describe_float(out[c], have, sizeof have);
            const char *h = hint;
            if ((v == ONLINE_F16 && got16[(size_t)r * cols + c] == HARNESS_POISON_HALF_BITS) ||
                (v != ONLINE_F16 && harness_is_poison_float(out[c]))) {
                snprintf(seen, sizeof seen, "%s", _("nothing was written there (it still holds the poison NaN)"));
                h = ROW_HINT;
            } else if ((isnan(out[c]) || isinf(out[c])) && (m > 80 || m < -80)) {
                /* Here exp(x) overflows or underflows unless the max is subtracted first. */
                snprintf(seen, sizeof seen, "%s", _("every output of a softmax lies between 0 and 1; here an exp "
                                                   "overflowed, or the sum was 0"));
                h = SHIFT_HINT;
            } else if (isnan(out[c]) || isinf(out[c])) {
                /* Here exp(x) alone is safe: the sum itself must have been 0, infinite or NaN. */
                snprintf(seen, sizeof seen, "%s", _("every output of a softmax lies between 0 and 1, so the sum it "
                                                   "was divided by was 0, infinite or NaN"));
            } else {
                snprintf(seen, sizeof seen, _("off by %.3g, %.3g times the bound; the row's outputs add up to %.9g"),
                         (double)out[c] - want, err / tol, total);
            }
            harness_fail(_(h), _("%s of %s: d_out[%d][%d] should be %.9g within %.3g, but it is %s: %s."), what,
                         input, r, c, want, tol, have, seen);
        }
    }
    dev_expect_guards_intact(&dout, what);
    dev_expect_unchanged(&din, what);
    dev_free(&din);
    dev_free(&dout);
    free(got);
    free(got16);
}

/* Random rows of values in [lo, hi): float for the float variants, fp16 (and their exact float values)
 * for softmax_online_f16. */
static void expect_random(enum variant v, int rows, int cols, float lo, float hi, uint64_t salt, const char *hint)
{
    size_t n = (size_t)rows * (size_t)cols;
    float *x = harness_alloc(n * sizeof *x);
    uint16_t *h16 = NULL;
    if (v == ONLINE_F16) {
        h16 = harness_alloc(n * sizeof *h16);
        harness_random_halves(HARNESS_F16, h16, n, lo, hi, salt);
        for (size_t i = 0; i < n; i++) x[i] = harness_half_to_float(HARNESS_F16, h16[i]);
    } else {
        harness_random_floats(x, n, lo, hi, salt);
    }
    char input[400];
    snprintf(input, sizeof input, _("%s values in [%g, %g)"), v == ONLINE_F16 ? "fp16" : "float", (double)lo, (double)hi);
    expect_softmax(v, x, h16, rows, cols, input, hint);
    free(x);
    free(h16);
}

/* The same rows, given as floats that fp16 holds exactly (masks and sorted rows). */
static void expect_given(enum variant v, const float *x, int rows, int cols, const char *input, const char *hint)
{
    size_t n = (size_t)rows * (size_t)cols;
    uint16_t *h16 = NULL;
    if (v == ONLINE_F16) {
        h16 = harness_alloc(n * sizeof *h16);
        for (size_t i = 0; i < n; i++) h16[i] = harness_float_to_half(HARNESS_F16, x[i]);
    }
    expect_softmax(v, x, h16, rows, cols, input, hint);
    free(h16);
}

static const int COLS[] = {1, 2, 31, 32, 33, 255, 256, 257, 1000, 4096};

static void every_cols(enum variant v, uint64_t salt, const char *hint)
{
    for (size_t k = 0; k < sizeof COLS / sizeof COLS[0]; k++)
        expect_random(v, 3, COLS[k], -10.0f, 10.0f, salt + k, hint);
}

START_TEST(test_ex14_two_pass) { every_cols(TWO_PASS, 10, SUM_HINT); }
END_TEST

START_TEST(test_ex14_online) { every_cols(ONLINE, 30, ONLINE_HINT); }
END_TEST

START_TEST(test_ex14_online_f16) { every_cols(ONLINE_F16, 50, ONLINE_HINT); }
END_TEST

/* exp(x) overflows float for x > 88.7, and the sum with it; exp(x - max) cannot. fp16 holds up to 65504. */
START_TEST(test_ex14_huge_values)
{
    expect_random(TWO_PASS, 3, 1000, 100.0f, 200.0f, 70, SHIFT_HINT);
    expect_random(ONLINE, 3, 1000, 100.0f, 200.0f, 71, SHIFT_HINT);
    expect_random(ONLINE_F16, 3, 1000, 1000.0f, 2000.0f, 72, SHIFT_HINT);
}
END_TEST

/* exp(x) underflows to 0 for x below about -103: a sum of them is 0, and 0 / 0 is NaN. */
START_TEST(test_ex14_very_negative)
{
    expect_random(TWO_PASS, 3, 1000, -300.0f, -200.0f, 73, SHIFT_HINT);
    expect_random(ONLINE, 3, 1000, -300.0f, -200.0f, 74, SHIFT_HINT);
    expect_random(ONLINE_F16, 3, 1000, -300.0f, -200.0f, 75, SHIFT_HINT);
}
END_TEST

/* A causal mask: row r of a square block keeps its first r + 1 values and has -inf after them, so the
 * first row holds one finite value (its output is 1, the rest 0), and the outputs of -inf are exactly 0. */
START_TEST(test_ex14_masked)
{
    const int rows = 40, cols = 40;
    float *x = harness_alloc((size_t)rows * cols * sizeof *x);
    harness_random_floats(x, (size_t)rows * cols, -4.0f, 4.0f, 76);
    for (int r = 0; r < rows; r++)
        for (int c = r + 1; c < cols; c++) x[(size_t)r * cols + c] = -INFINITY;
    for (int i = 0; i < rows * cols; i++)
        if (isfinite(x[i])) x[i] = harness_half_to_float(HARNESS_F16, harness_float_to_half(HARNESS_F16, x[i]));
    const char *input = _("a causal mask: row r holds r + 1 values in [-4, 4), then -inf");
    expect_given(TWO_PASS, x, rows, cols, input, SHIFT_HINT);
    expect_given(ONLINE, x, rows, cols, input, SHIFT_HINT);
    expect_given(ONLINE_F16, x, rows, cols, input, SHIFT_HINT);
    free(x);
}
END_TEST

/* Rows sorted up (each value a new max: the online sum is rescaled at every step) and down (never). */
START_TEST(test_ex14_sorted_rows)
{
    const int rows = 2, cols = 3000;
    float *x = harness_alloc((size_t)rows * cols * sizeof *x);
    for (int c = 0; c < cols; c++) {
        x[c] = harness_half_to_float(HARNESS_F16, harness_float_to_half(HARNESS_F16, -8.0f + 16.0f * c / cols));
        x[cols + c] = x[cols - 1 - c];
    }
    const char *input = _("a row rising from -8 to 8, then the same row falling");
    expect_given(ONLINE, x, rows, cols, input, ONLINE_HINT);
    expect_given(ONLINE_F16, x, rows, cols, input, ONLINE_HINT);
    expect_given(TWO_PASS, x, rows, cols, input, SUM_HINT);
    free(x);
}
END_TEST

START_TEST(test_ex14_shapes)
{
    expect_random(ONLINE, 4099, 3, -10.0f, 10.0f, 80, ROW_HINT);
    expect_random(TWO_PASS, 4099, 3, -10.0f, 10.0f, 81, ROW_HINT);
    expect_random(ONLINE, 2, 65536, -10.0f, 10.0f, 82, ONLINE_HINT);
    expect_random(ONLINE, 2, 100003, -10.0f, 10.0f, 83, ONLINE_HINT);
    expect_random(TWO_PASS, 2, 100003, -10.0f, 10.0f, 84, SUM_HINT);
    expect_random(ONLINE_F16, 2, 100003, -10.0f, 10.0f, 85, ONLINE_HINT);
}
END_TEST

/* The online form's point: each row is read twice (once for its pair, once to write), where the two
 * reductions read it three times. Counted on the emulator in the bytes the loads ask for (a tenth to spare),
 * and told apart from loads that ask for the row twice but scatter (harness_expect_reads). */
START_TEST(test_ex14_online_reads_twice)
{
    const int rows = 64, cols = 1024;
    size_t n = (size_t)rows * cols;
    float *x = harness_alloc(n * sizeof *x);
    harness_random_floats(x, n, -10.0f, 10.0f, 90);
    emu_metrics m;
    backend_take_metrics(&m);   /* forget what came before */
    expect_softmax(ONLINE, x, NULL, rows, cols, _("float values in [-10, 10)"), ONLINE_HINT);
    backend_take_metrics(&m);
    char what[100];
    snprintf(what, sizeof what, "softmax_online(rows = %d, cols = %d)", rows, cols);
    harness_expect_reads(&m, n * sizeof(float), 2, 0, what,
                         N_("Does the online loop compute the pair (max, sum) in one read of the row, so that only "
                            "the writing loop reads it again?"),
                         N_("Do neighbouring threads of the block read neighbouring values of the row (x[c] with c "
                            "= threadIdx.x, then c += blockDim.x), so that a warp's load covers whole sectors?"));
    free(x);
}
END_TEST

int main(int argc, char **argv)
{
    const harness_test tests[] = {
        {N_("core: two reductions, rows of 1 to 4096 values in [-10, 10)"), test_ex14_two_pass, NEEDS_DEVICE},
        {N_("core: online, rows of 1 to 4096 values in [-10, 10)"), test_ex14_online, NEEDS_DEVICE},
        {N_("core: online in fp16, in and out"), test_ex14_online_f16, NEEDS_DEVICE},
        {N_("concept: values whose exp overflows without the max"), test_ex14_huge_values, NEEDS_DEVICE},
        {N_("concept: values whose exp underflows to 0 without the max"), test_ex14_very_negative, NEEDS_DEVICE},
        {N_("edges: -inf entries of a causal mask, and a row of one value"), test_ex14_masked, NEEDS_DEVICE},
        {N_("concept: a rising row, which rescales the online sum at every step"), test_ex14_sorted_rows,
         NEEDS_DEVICE},
        {N_("sizes: 4099 rows of 3, and rows of 65536 and 100003"), test_ex14_shapes, NEEDS_DEVICE},
        {N_("concept: the online form reads each row twice"), test_ex14_online_reads_twice, NEEDS_EMULATOR},
        {0},
    };
    const harness_exercise ex = {"14", N_("softmax: two reductions, then online"), "exercises/14-softmax/lesson.md",
                                 tests};
    return harness_run(&ex, argc, argv);
}
