/* ex16.c - hidden tests of exercise 16: who reduces a row. Softmax, LayerNorm, RMSNorm and row statistics on
 * each path (a warp per row, a block, a cluster, a block that re-reads) and through the dispatch, against the
 * references and bounds of exercises 13 to 15 in double (harness_rows.c). */
#include "../harness/harness.h"
#include "../contracts/ex16.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- The operations and the paths -------------------------------------------------------------------------------- */

enum op { SOFTMAX, SOFTMAX_F16, LAYERNORM, RMSNORM, STATS_F16, STATS_BF16, OPS };
static const struct op_info {
    const char *name;
    int half;                  /* 16-bit input (and output, but for row statistics) */
    harness_half_kind kind;    /* which */
    int weights;               /* gamma (1), and beta (2) */
} OP[OPS] = {
    {"softmax_rows", 0, HARNESS_F16, 0},       {"softmax_rows_f16", 1, HARNESS_F16, 0},
    {"layernorm_rows_f16", 1, HARNESS_F16, 2}, {"rmsnorm_rows_bf16", 1, HARNESS_BF16, 1},
    {"row_stats_rows_f16", 1, HARNESS_F16, 0}, {"row_stats_rows_bf16", 1, HARNESS_BF16, 0},
};
static int is_stats(enum op op) { return op == STATS_F16 || op == STATS_BF16; }
static int is_softmax(enum op op) { return op == SOFTMAX || op == SOFTMAX_F16; }
static size_t in_size(enum op op) { return OP[op].half ? 2 : 4; }

enum { AUTO, WARP, BLOCK, CLUSTER, REREAD };
static const char *const PATH[] = {N_("the dispatch's choice"), N_("a warp per row"), N_("a block per row"),
                                   N_("a cluster per row"), N_("a block that reads the row again")};

static const char *WARP_HINT = N_("Does lane l of a row's W lanes load and store packs l, l + W, ... of its own row, "
                                  "only where the row exists and the column is inside it?");
static const char *BUTTERFLY_HINT = N_("Does the butterfly stay within the W lanes of a row (width W, offsets W / 2 "
                                       "down to 1)?");
static const char *BLOCK_HINT = N_("Does each thread read this row's stage (it & 1) and only the slots it copied "
                                   "there itself, after __pipeline_wait_prior(1) says that its copies of this row "
                                   "have landed?");
static const char *CLUSTER_HINT = N_("Does each block put its partial result in its slot, wait at the cluster "
                                     "barrier, read the K partials in rank order (the same order in every block), "
                                     "and wait at the barrier again before it may leave?");
static const char *DISPATCH_HINT = N_("Does the dispatch give each row to a path that takes it: a warp for up to 1024 "
                                      "values on a 16-byte boundary, else a block, a cluster, or the re-read?");
static const char *DECLINE_HINT = N_("When a forced path cannot take a shape (the warp path past 1024 values, a "
                                     "block or a cluster whose shared memory would not hold the row), does the "
                                     "function return 0 before it launches anything?");
static const char *MASK_HINT = N_("What does a thread, a warp or a block whose values are all -inf contribute to "
                                  "(max, sum)? exp(-inf - (-inf)) is NaN: does combine() give the other part back "
                                  "unchanged when one part is empty?");
static const char *EPS_HINT = N_("Is eps the function's argument, added to the variance (or to the mean of the "
                                 "squares) before the square root?");
static const char *ALIGN_HINT = N_("A 16-byte access needs a 16-byte aligned address. Where is this row's first "
                                   "16-byte boundary, and who reads the values before it and after the last "
                                   "whole pack? Does the output start on the same boundary as the input?");
static const char *ROWS_HINT = N_("With W lanes a row, which row does a lane belong to, and what does a lane "
                                  "whose row is past the last one do? Which rows does a block take after its "
                                  "first one?");
static const char *READS_HINT = N_("Does each path keep what it read (in registers, or in shared memory) for the "
                                   "second pass, instead of reading the row from global memory again?");
static const char *SCATTER_HINT = N_("Do the lanes of a warp read neighbouring 16-byte packs of one row, so that a "
                                     "warp's load covers whole sectors?");

/* ---- One run of an operation on a path --------------------------------------------------------------------------- */

enum expect { EITHER, RUNS, DECLINES };   /* what a forced path must do with the shape */

typedef struct job {
    enum op op;
    int rows, cols, path;
    size_t in_off, out_off;   /* bytes past a 16-byte boundary where d_in and d_out start */
    float eps;
    enum expect expect;
    const float *given;       /* rows x cols values exact in the input's type, or NULL: random in [lo, hi) */
    float lo, hi;
    const char *input;        /* what the values are (when given) */
    const char *hint;
    uint64_t salt;
    void *keep;               /* when not NULL: the outputs are copied there (as d_out holds them) */
} job;

static void describe(const job *j, int ran, char *what, size_t len)
{
    char where[200] = "";
    if (j->in_off && j->out_off)
        snprintf(where, sizeof where, _(", d_in and d_out %zu bytes past a 16-byte boundary"), j->in_off);
    else if (j->in_off)
        snprintf(where, sizeof where, _(", d_in %zu bytes past a 16-byte boundary"), j->in_off);
    else if (j->out_off)
        snprintf(where, sizeof where, _(", d_out %zu bytes past a 16-byte boundary"), j->out_off);
    int n = snprintf(what, len, "%s(rows = %d, cols = %d%s, path = %d%s)", OP[j->op].name, j->rows, j->cols,
                     OP[j->op].weights ? (j->eps == 1e-5f ? ", eps = 1e-5" : j->eps == 1e-3f ? ", eps = 1e-3"
                                                                                              : ", eps = 0.1")
                                       : "",
                     j->path, where);
    if (ran >= 1 && ran <= 4 && j->path == AUTO && n > 0 && (size_t)n < len)
        snprintf(what + n, len - (size_t)n, _(", which ran path %d (%s)"), ran, _(PATH[ran]));
}

/* The reference for column c of a row (softmax, LayerNorm, RMSNorm) and its bound; sum: softmax's sum of
 * exp(x - max) over the row. */
static void expected(const job *j, const float *row, const harness_moments *s, double sum, const float *gamma,
                     const float *beta, int c, double *want, double *tol)
{
    if (is_softmax(j->op)) {
        *want = exp((double)row[c] - s->max) / sum;
        double shift = isinf(row[c]) ? 0 : s->max - row[c];
        *tol = harness_softmax_tolerance(shift, s->max - s->min_finite, fabs(s->max), j->cols, j->op == SOFTMAX_F16) *
                   *want + (j->op == SOFTMAX_F16 ? ldexp(1.0, -25) : ldexp(1.0, -126));
        return;
    }
    harness_norm_expected(j->op == RMSNORM, s, row[c], gamma[c], j->op == LAYERNORM ? beta[c] : 0, j->cols, j->eps,
                          OP[j->op].kind, want, tol);
}

/* What an output that is off its bound shows, for the message; the hint, by what was seen and the path that ran
 * (ran). */
static const char *explain(const job *j, int ran, double got, int poison, double err, double tol, char *seen,
                           size_t len)
{
    if (poison) {
        snprintf(seen, len, "%s", _("nothing was written there"));
        return ran == WARP ? WARP_HINT : ran == CLUSTER ? CLUSTER_HINT : BLOCK_HINT;
    }
    if (isnan(got) || isinf(got)) {
        snprintf(seen, len, "%s", _("the outputs of a row of finite values are finite: a statistic overflowed, was "
                                    "divided by 0, or combined -inf with -inf"));
        return is_softmax(j->op) ? MASK_HINT : j->hint;
    }
    snprintf(seen, len, _("off by %.3g, %.3g times the bound"), err, err / tol);
    return j->hint == WARP_HINT || (ran == WARP && j->hint == DISPATCH_HINT) ? BUTTERFLY_HINT : j->hint;
}

/* Checks every output of a run that returned `ran`. */
static void check_outputs(const job *j, int ran, const float *x, const float *gamma, const float *beta,
                          const void *out, const char *input, const char *what)
{
    for (int r = 0; r < j->rows; r++) {
        const float *row = x + (size_t)r * j->cols;
        double want[2], tol[2];
        if (is_stats(j->op)) {
            harness_row_stats_expected(row, j->cols, want, tol);
            for (int k = 0; k < 2; k++) {
                float g = ((const float *)out)[2 * r + k];
                double err = fabs((double)g - want[k]);
                if (err <= tol[k]) continue;
                char have[64], seen[300];
                harness_describe_float(g, have, sizeof have);
                const char *h = explain(j, ran, g, harness_is_poison_float(g), err, tol[k], seen, sizeof seen);
                harness_fail(_(h), _("%s of %s: row %d's %s (d_out[%d]) should be %.9g within %.3g, but it is %s: "
                                     "%s."),
                             what, input, r, k ? _("L2 norm") : _("mean"), 2 * r + k, want[k], tol[k], have, seen);
            }
            continue;
        }
        harness_moments s;
        harness_row_moments(row, j->cols, &s);
        double sum = 0;
        for (int c = 0; is_softmax(j->op) && c < j->cols; c++) sum += exp((double)row[c] - s.max);
        for (int c = 0; c < j->cols; c++) {
            size_t i = (size_t)r * j->cols + c;
            uint16_t bits = OP[j->op].half ? ((const uint16_t *)out)[i] : 0;
            float g = OP[j->op].half ? harness_half_to_float(OP[j->op].kind, bits) : ((const float *)out)[i];
            int poison = OP[j->op].half ? bits == HARNESS_POISON_HALF_BITS : harness_is_poison_float(g);
            expected(j, row, &s, sum, gamma, beta, c, &want[0], &tol[0]);
            double err = fabs((double)g - want[0]);
            if (err <= tol[0] && !poison) continue;
            char have[64], seen[300];
            if (OP[j->op].half) harness_describe_half(OP[j->op].kind, bits, have, sizeof have);
            else harness_describe_float(g, have, sizeof have);
            const char *h = explain(j, ran, g, poison, err, tol[0], seen, sizeof seen);
            harness_fail(_(h), _("%s of %s: d_out[%d][%d] should be %.9g within %.3g, but it is %s: %s."), what, input,
                         r, c, want[0], tol[0], have, seen);
        }
    }
}

/* Fails unless the whole output still holds the poison (a path that declined must launch nothing). */
static void expect_untouched(const job *j, const void *out, size_t count, const char *what)
{
    for (size_t i = 0; i < count; i++) {
        int poison = OP[j->op].half && !is_stats(j->op) ? ((const uint16_t *)out)[i] == HARNESS_POISON_HALF_BITS
                                                         : harness_is_poison_float(((const float *)out)[i]);
        if (!poison)
            harness_fail(_(DECLINE_HINT), _("%s returned 0 (the path cannot take this shape), but it wrote d_out[%zu]: "
                                            "a path that declines launches nothing."),
                         what, i);
    }
}

/* Runs the job and checks it; returns the path that ran (0: declined). */
static int run(const job *j)
{
    const enum op op = j->op;
    const size_t n = (size_t)j->rows * (size_t)j->cols, count = is_stats(op) ? 2 * (size_t)j->rows : n;
    float *x = harness_alloc(n * sizeof *x), *gamma = NULL, *beta = NULL;
    uint16_t *h = OP[op].half ? harness_alloc(n * sizeof *h) : NULL;
    char input[300];
    if (j->given) {
        memcpy(x, j->given, n * sizeof *x);
        snprintf(input, sizeof input, "%s", j->input);
    } else {
        harness_random_floats(x, n, j->lo, j->hi, j->salt);
        snprintf(input, sizeof input, _("%s values in [%g, %g)"),
                 OP[op].half ? harness_half_name(OP[op].kind) : "float", (double)j->lo, (double)j->hi);
    }
    for (size_t i = 0; h && i < n; i++) {
        h[i] = harness_float_to_half(OP[op].kind, x[i]);
        x[i] = harness_half_to_float(OP[op].kind, h[i]);
    }
    uint16_t *wbits[2] = {NULL, NULL};
    dev_buffer dw[2] = {{0}};
    for (int k = 0; k < OP[op].weights; k++) {   /* gamma in [0.5, 1.5), beta in [-1, 1), in the input's type */
        float **w = k ? &beta : &gamma;
        *w = harness_alloc((size_t)j->cols * sizeof **w);
        wbits[k] = harness_alloc((size_t)j->cols * sizeof *wbits[k]);
        harness_random_floats(*w, (size_t)j->cols, k ? -1.0f : 0.5f, k ? 1.0f : 1.5f, j->salt + 1000 * (k + 1));
        for (int c = 0; c < j->cols; c++) {
            wbits[k][c] = harness_float_to_half(OP[op].kind, (*w)[c]);
            (*w)[c] = harness_half_to_float(OP[op].kind, wbits[k][c]);
        }
        dw[k] = dev_input_halves(wbits[k], (size_t)j->cols, harness_float_to_half(OP[op].kind, 1e4f), 0);
        dev_name(&dw[k], k ? "d_beta" : "d_gamma");
    }
    float fguard = HARNESS_GUARD_FLOAT, fpoison = harness_poison_float();
    dev_buffer din = OP[op].half ? dev_input_halves(h, n, harness_float_to_half(OP[op].kind, 60000.0f), j->in_off)
                                 : dev_input(x, n, sizeof(float), &fguard, j->in_off);
    dev_buffer dout = OP[op].half && !is_stats(op) ? dev_output_halves_at(n, j->out_off)
                                                   : dev_output_at(count, sizeof(float), &fpoison, j->out_off);
    void *in = dev_ptr(&din), *out = dev_ptr(&dout);
    int ran;
    switch (op) {
    case SOFTMAX: ran = softmax_rows(in, out, j->rows, j->cols, j->path); break;
    case SOFTMAX_F16: ran = softmax_rows_f16(in, out, j->rows, j->cols, j->path); break;
    case LAYERNORM:
        ran = layernorm_rows_f16(in, dev_ptr(&dw[0]), dev_ptr(&dw[1]), out, j->rows, j->cols, j->eps, j->path);
        break;
    case RMSNORM: ran = rmsnorm_rows_bf16(in, dev_ptr(&dw[0]), out, j->rows, j->cols, j->eps, j->path); break;
    case STATS_F16: ran = row_stats_rows_f16(in, out, j->rows, j->cols, j->path); break;
    default: ran = row_stats_rows_bf16(in, out, j->rows, j->cols, j->path); break;
    }
    char what[400];
    describe(j, ran, what, sizeof what);
    harness_after_launch(what);
    if (j->path == AUTO && (ran < 1 || ran > 4))
        harness_fail(_(DISPATCH_HINT), _("%s returned %d: the dispatch must choose a path (1 to 4) that takes the "
                                         "shape, and return it."),
                     what, ran);
    if (j->path != AUTO && ran != 0 && ran != j->path)
        harness_fail(_(DISPATCH_HINT), _("%s returned %d: a forced path runs that path (and returns %d) or declines "
                                         "the shape (and returns 0)."),
                     what, ran, j->path);
    if (j->path != AUTO && ran == 0 && j->expect == RUNS)
        harness_fail(_(j->hint), _("%s returned 0, but %s takes this shape: it must run it."), what, _(PATH[j->path]));
    if (j->path != AUTO && ran != 0 && j->expect == DECLINES)
        harness_fail(_(DECLINE_HINT), _("%s ran (it returned %d), but %s cannot take this shape: it must return 0 "
                                        "and launch nothing."),
                     what, ran, _(PATH[j->path]));
    void *got = harness_alloc(count * (OP[op].half && !is_stats(op) ? 2 : 4));
    dev_fetch(&dout, got);
    if (j->keep) memcpy(j->keep, got, count * (OP[op].half && !is_stats(op) ? 2 : 4));
    if (ran == 0) expect_untouched(j, got, count, what);
    else check_outputs(j, ran, x, gamma, beta, got, input, what);
    dev_expect_guards_intact(&dout, what);
    dev_expect_unchanged(&din, what);
    for (int k = 0; k < OP[op].weights; k++) {
        dev_expect_unchanged(&dw[k], what);
        dev_free(&dw[k]);
        free(wbits[k]);
    }
    dev_free(&din);
    dev_free(&dout);
    free(x), free(h), free(gamma), free(beta), free(got);
    return ran;
}

/* The job for op on a random rows x cols matrix of values in [-4, 4) (the norms' eps 1e-5), aligned. */
static job plain(enum op op, int rows, int cols, int path, enum expect expect, const char *hint, uint64_t salt)
{
    job j = {op, rows, cols, path, 0, 0, 1e-5f, expect, NULL, -4.0f, 4.0f, NULL, hint, salt, NULL};
    return j;
}
static int run_plain(enum op op, int rows, int cols, int path, enum expect expect, const char *hint, uint64_t salt)
{
    job j = plain(op, rows, cols, path, expect, hint, salt);
    return run(&j);
}

/* ---- core: each operation through the dispatch ------------------------------------------------------------------- */

static const int CORE_COLS[] = {1, 7, 32, 33, 255, 256, 1000, 1024, 4096};

static void core(enum op op, uint64_t salt)
{
    for (size_t k = 0; k < sizeof CORE_COLS / sizeof CORE_COLS[0]; k++)
        run_plain(op, 3, CORE_COLS[k], AUTO, EITHER, DISPATCH_HINT, salt + k);
}

START_TEST(test_ex16_core)
{
    for (enum op op = 0; op < OPS; op++) core(op, 10 + 10 * op);
}
END_TEST

/* ---- paths: each one forced, at and around its limits ------------------------------------------------------------ */

/* A warp per row takes up to 1024 values: 16-byte packs (4 floats or 8 16-bit values) from W = 4 to 32 lanes, up to
 * 8 packs a lane. Shapes that are not whole packs may go elsewhere (the path may decline them). */
START_TEST(test_ex16_warp_path)
{
    static const int cols[] = {8, 16, 64, 128, 256, 512, 1024};
    for (enum op op = 0; op < OPS; op++) {
        for (size_t k = 0; k < sizeof cols / sizeof cols[0]; k++)
            run_plain(op, 5, cols[k], WARP, RUNS, WARP_HINT, 100 + k);
        run_plain(op, 3, 1001, WARP, EITHER, WARP_HINT, 111);
    }
}
END_TEST

/* A block per row keeps its row in shared memory: an H100 gives a block up to 227 KB (232448 bytes), which the
 * emulator reports too, less the kernel's static shared memory. 100 KB rows fit (twice, for two stages); 240 KB
 * rows do not (test_ex16_declines); the reference keeps two stages and declines from about 28900 floats (57800
 * 16-bit values) on, where a single stage could take more. Row statistics keep nothing, so their block takes
 * any row. */
START_TEST(test_ex16_block_path)
{
    static const int cols[] = {1, 300, 1024, 4097};
    for (enum op op = 0; op < OPS; op++)
        for (size_t k = 0; k < sizeof cols / sizeof cols[0]; k++)
            run_plain(op, 3, cols[k], BLOCK, RUNS, BLOCK_HINT, 120 + k);
    run_plain(SOFTMAX, 2, 25600, BLOCK, RUNS, BLOCK_HINT, 130);
    run_plain(SOFTMAX, 2, 28900, BLOCK, EITHER, BLOCK_HINT, 131);
    run_plain(SOFTMAX, 2, 28925, BLOCK, EITHER, BLOCK_HINT, 132);
    run_plain(SOFTMAX_F16, 2, 57849, BLOCK, EITHER, BLOCK_HINT, 133);
    run_plain(LAYERNORM, 2, 51200, BLOCK, RUNS, BLOCK_HINT, 134);
    run_plain(RMSNORM, 2, 100000, BLOCK, EITHER, BLOCK_HINT, 136);
    run_plain(STATS_F16, 2, 120000, BLOCK, RUNS, BLOCK_HINT, 137);
    /* the block that reads its row again (path 4) takes any row */
    static const int again[] = {1, 33, 1024, 5000};
    for (enum op op = 0; op < OPS; op++)
        for (size_t k = 0; k < sizeof again / sizeof again[0]; k++)
            run_plain(op, 3, again[k], REREAD, RUNS, BLOCK_HINT, 160 + k);
    run_plain(LAYERNORM, 1, 100003, REREAD, RUNS, BLOCK_HINT, 170);
}
END_TEST

/* A cluster of K blocks per row (K = 2 to 16; the reference takes the smallest whose slices fit in 100 KB each):
 * a row of 1000, and rows whose slices need K = 2, 4, 8 and 16 (K = 16 for softmax: test_ex16_declines). */
START_TEST(test_ex16_cluster_path)
{
    for (enum op op = 0; op < OPS; op++) run_plain(op, 3, 1000, CLUSTER, RUNS, CLUSTER_HINT, 140 + op);
    run_plain(SOFTMAX, 2, 25601, CLUSTER, RUNS, CLUSTER_HINT, 150);
    run_plain(SOFTMAX_F16, 2, 50257, CLUSTER, RUNS, CLUSTER_HINT, 151);
    run_plain(LAYERNORM, 2, 102401, CLUSTER, RUNS, CLUSTER_HINT, 152);
    run_plain(RMSNORM, 1, 409601, CLUSTER, RUNS, CLUSTER_HINT, 153);
    run_plain(STATS_BF16, 2, 100003, CLUSTER, RUNS, CLUSTER_HINT, 155);
}
END_TEST

/* Rows of up to 1024 values that start on 16-byte boundaries go to a warp (or part of one); 1025 cannot. */
START_TEST(test_ex16_dispatch)
{
    static const int cols[] = {16, 256, 1024};
    for (enum op op = 0; op < OPS; op++) {
        if (is_stats(op)) continue;   /* a row of statistics needs its values once: any path reads it once */
        for (size_t k = 0; k < sizeof cols / sizeof cols[0]; k++) {
            int ran = run_plain(op, 4, cols[k], AUTO, EITHER, DISPATCH_HINT, 180 + k);
            if (ran != WARP)
                harness_fail(_(DISPATCH_HINT), _("%s(rows = 4, cols = %d, path = 0) ran path %d (%s): rows of up to "
                                                 "1024 values that start on 16-byte boundaries go to a warp, which "
                                                 "holds them in registers."),
                             OP[op].name, cols[k], ran, _(PATH[ran]));
        }
        run_plain(op, 3, 1025, AUTO, EITHER, DISPATCH_HINT, 185);
        run_plain(op, 3, 1032, AUTO, EITHER, DISPATCH_HINT, 186);
    }
}
END_TEST

/* ---- sizes ------------------------------------------------------------------------------------------------------- */

/* 1 to 33 rows against 8 rows per warp (4 lanes a row), 4 (8 lanes) and 2 (16 lanes), and 32, 16 and 8 rows per
 * block of 128 threads; then one row more than the blocks that stay resident. */
START_TEST(test_ex16_row_counts)
{
    for (int rows = 1; rows <= 33; rows++) {
        run_plain(SOFTMAX, rows, 16, AUTO, EITHER, ROWS_HINT, 200 + rows);
        run_plain(SOFTMAX_F16, rows, 64, AUTO, EITHER, ROWS_HINT, 240 + rows);
        run_plain(RMSNORM, rows, 128, WARP, RUNS, ROWS_HINT, 280 + rows);
    }
    run_plain(LAYERNORM, 257, 1032, BLOCK, RUNS, ROWS_HINT, 320);
    run_plain(SOFTMAX, 65, 2000, BLOCK, RUNS, ROWS_HINT, 321);
}
END_TEST

/* The input 2 bytes past a 16-byte boundary (4 for float), the output, and both, on every path; then rows of odd
 * lengths, up to a vocabulary of 50257. */
START_TEST(test_ex16_unaligned)
{
    static const int cols[] = {8, 1000, 1024, 4096};
    static const size_t offs[][2] = {{2, 0}, {0, 2}, {2, 2}};
    for (size_t k = 0; k < sizeof cols / sizeof cols[0]; k++)
        for (size_t o = 0; o < 3; o++)
            for (int path = AUTO; path <= REREAD; path++) {
                enum op op = (k + o + path) % 2 ? SOFTMAX_F16 : LAYERNORM;
                job j = plain(op, 3, cols[k], path, path == WARP ? EITHER : RUNS, ALIGN_HINT, 350 + 10 * k + o);
                j.in_off = offs[o][0], j.out_off = offs[o][1];
                run(&j);
            }
    job f = plain(SOFTMAX, 3, 1000, AUTO, EITHER, ALIGN_HINT, 390);
    f.in_off = 4;
    run(&f);
    job s = plain(STATS_F16, 3, 1000, AUTO, EITHER, ALIGN_HINT, 391);
    s.in_off = 2;
    run(&s);
    /* odd lengths: every row after the first starts off a boundary */
    static const int odd[] = {3, 5, 1023, 1027};
    for (size_t k = 0; k < sizeof odd / sizeof odd[0]; k++) {
        run_plain(SOFTMAX_F16, 3, odd[k], AUTO, EITHER, ALIGN_HINT, 330 + k);
        run_plain(LAYERNORM, 3, odd[k], AUTO, EITHER, ALIGN_HINT, 335 + k);
        run_plain(STATS_BF16, 3, odd[k], AUTO, EITHER, ALIGN_HINT, 340 + k);
    }
    run_plain(SOFTMAX, 2, 50257, AUTO, EITHER, ALIGN_HINT, 345);
    run_plain(SOFTMAX_F16, 2, 50257, AUTO, EITHER, ALIGN_HINT, 346);
    run_plain(RMSNORM, 2, 50257, AUTO, EITHER, ALIGN_HINT, 347);
}
END_TEST

/* ---- edges ------------------------------------------------------------------------------------------------------- */

/* Masked rows, given as values fp16 holds exactly: -inf leading (all but the last), trailing (all but the first),
 * and at every fourth value (the first of each float pack, and of every thread's first pack). */
static void masked(enum op op, int rows, int cols, int path, uint64_t salt)
{
    size_t n = (size_t)rows * cols;
    float *x = harness_alloc(n * sizeof *x);
    harness_random_floats(x, n, -4.0f, 4.0f, salt);
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++) {
            float *v = &x[(size_t)r * cols + c];
            *v = harness_half_to_float(HARNESS_F16, harness_float_to_half(HARNESS_F16, *v));
            if ((r % 3 == 0 && c < cols - 1) || (r % 3 == 1 && c > 0) || (r % 3 == 2 && c % 4 == 0 && c > 0))
                *v = -INFINITY;
        }
    job j = plain(op, rows, cols, path, path == WARP ? EITHER : RUNS, MASK_HINT, salt);
    j.given = x;
    j.input = _("masked rows: -inf everywhere but the last value, everywhere but the first, and at every "
                "fourth value but the first");
    run(&j);
    free(x);
}

START_TEST(test_ex16_masks)
{
    static const int cols[] = {32, 1024, 3000};
    for (size_t k = 0; k < sizeof cols / sizeof cols[0]; k++)
        for (int path = AUTO; path <= REREAD; path++) {
            if (path == WARP && cols[k] > 1024) continue;
            masked(SOFTMAX, 3, cols[k], path, 400 + k);
            masked(SOFTMAX_F16, 3, cols[k], path, 410 + k);
        }
}
END_TEST

/* Rows of small values (variance about 3e-5) where eps decides the result: 1e-3 and 0.1 against 1e-5. */
START_TEST(test_ex16_eps)
{
    static const float eps[] = {1e-3f, 0.1f};
    static const int cols[] = {256, 2000};
    for (size_t e = 0; e < 2; e++)
        for (size_t k = 0; k < 2; k++)
            for (int path = AUTO; path <= REREAD; path++) {
                if (path == WARP && cols[k] > 1024) continue;
                for (enum op op = LAYERNORM; op <= RMSNORM; op++) {
                    job j = plain(op, 2, cols[k], path, path == WARP ? EITHER : RUNS, EPS_HINT, 420 + e + k);
                    j.eps = eps[e], j.lo = -0.01f, j.hi = 0.01f;
                    run(&j);
                }
            }
}
END_TEST

/* Each forced path on the last shape it takes and on one it cannot: a warp 1024 and 1025 values, a block rows of
 * 100 KB and 240 KB (of 227 KB), a cluster of 16 rows of 1.6 MB and 4 MB (of 16 x 227 KB). */
START_TEST(test_ex16_declines)
{
    for (enum op op = 0; op < OPS; op++) {
        run_plain(op, 2, 1024, WARP, RUNS, WARP_HINT, 440 + op);
        run_plain(op, 2, 1025, WARP, DECLINES, DECLINE_HINT, 440 + op);
    }
    run_plain(SOFTMAX, 2, 25600, BLOCK, RUNS, BLOCK_HINT, 450);
    run_plain(SOFTMAX, 2, 60000, BLOCK, DECLINES, DECLINE_HINT, 451);
    run_plain(LAYERNORM, 2, 120000, BLOCK, DECLINES, DECLINE_HINT, 452);
    run_plain(SOFTMAX, 1, 409600, CLUSTER, RUNS, CLUSTER_HINT, 453);
    run_plain(SOFTMAX, 1, 1000000, CLUSTER, DECLINES, DECLINE_HINT, 454);
    run_plain(SOFTMAX_F16, 1, 2000000, CLUSTER, DECLINES, DECLINE_HINT, 455);
}
END_TEST

/* ---- concept ----------------------------------------------------------------------------------------------------- */

/* One read of each row from global memory, on the warp, block and cluster paths and through the dispatch: the
 * bytes asked for are the matrix's (softmax) or the matrix's and each row's gamma (RMSNorm). */
START_TEST(test_ex16_reads_once)
{
    static const struct { enum op op; int rows, cols, path; } runs[] = {
        {SOFTMAX, 64, 1024, WARP},     {RMSNORM, 64, 512, WARP},     {SOFTMAX_F16, 8, 8192, BLOCK},
        {RMSNORM, 8, 8192, BLOCK},     {SOFTMAX, 2, 51200, CLUSTER}, {SOFTMAX_F16, 2, 65536, AUTO},
        {SOFTMAX, 128, 64, AUTO},
    };
    for (size_t k = 0; k < sizeof runs / sizeof runs[0]; k++) {
        emu_metrics m;
        backend_take_metrics(&m);   /* forget what came before */
        job j = plain(runs[k].op, runs[k].rows, runs[k].cols, runs[k].path, RUNS, READS_HINT, 500 + k);
        int ran = run(&j);
        backend_take_metrics(&m);
        uint64_t bytes = (uint64_t)j.rows * j.cols * in_size(j.op);
        char what[400];
        describe(&j, ran, what, sizeof what);
        harness_expect_reads(&m, bytes, 1, j.op == RMSNORM ? bytes : 0, what, READS_HINT, SCATTER_HINT);
    }
}
END_TEST

/* The warp path's two points. Rows of 16 floats (64 bytes) need no more than a warp each: a block of 128 threads
 * per row leaves 124 of them idle, and a warp per row 28 of 32 lanes. And a warp holds its rows in registers and
 * combines them with shuffles: no shared memory, no barrier. */
START_TEST(test_ex16_warp_concept)
{
    const int rows = 256, cols = 16;
    emu_metrics m;
    backend_take_metrics(&m);
    job j = plain(SOFTMAX, rows, cols, AUTO, EITHER, ROWS_HINT, 520);
    int ran = run(&j);
    backend_take_metrics(&m);
    uint64_t warps = m.blocks * ((m.threads_per_block + 31) / 32);
    char what[400];
    describe(&j, ran, what, sizeof what);
    if (warps > (uint64_t)rows)
        harness_fail(_("How many lanes does a row of 16 floats need, 16 bytes a lane? Can several rows share a "
                       "warp, each with its own W lanes?"),
                     _("%s launched %llu warps (%llu blocks of %llu threads) for %d rows of %d values: %.1f warps a "
                       "row, most of whose lanes hold nothing."),
                     what, (unsigned long long)warps, (unsigned long long)m.blocks,
                     (unsigned long long)m.threads_per_block, rows, cols, (double)warps / rows);
    for (enum op op = SOFTMAX; op <= RMSNORM; op++) {
        backend_take_metrics(&m);
        job k = plain(op, 16, 1024, WARP, RUNS, WARP_HINT, 530 + op);
        run(&k);
        backend_take_metrics(&m);
        describe(&k, WARP, what, sizeof what);
        if (m.shared_load_instructions + m.shared_store_instructions + m.barriers)
            harness_fail(_("A warp's lanes hold its row in registers and combine their partial results with "
                           "__shfl_xor_sync: what is left for shared memory or __syncthreads() to do?"),
                         _("%s made %llu shared memory loads, %llu stores and %llu barriers (counted per warp); the "
                           "warp path needs none."),
                         what, (unsigned long long)m.shared_load_instructions,
                         (unsigned long long)m.shared_store_instructions, (unsigned long long)m.barriers);
    }
}
END_TEST

/* The cluster path's two points. Its blocks combine their partial results through distributed shared memory, not
 * through global memory. And every block combines the same partials in the same order: a value that stands in every
 * slice of a row (1.0 at every 97th column, random values between) gives the same output in every slice, to the
 * bit, since its output depends on it and on the row's statistics only. Blocks that combine in different orders
 * round those statistics differently. */
START_TEST(test_ex16_cluster_concept)
{
    static const int cols[] = {51201, 102401};   /* clusters of 4 and 8 */
    for (size_t k = 0; k < 2; k++) {
        const int rows = 2, n = rows * cols[k], period = 97;
        float *x = harness_alloc((size_t)n * sizeof *x), *y = harness_alloc((size_t)n * sizeof *y);
        harness_random_floats(x, (size_t)n, -8.0f, 8.0f, 550 + k);
        for (int i = 0; i < n; i++)
            if (i % cols[k] % period == 0) x[i] = 1.0f;
        job j = plain(SOFTMAX, rows, cols[k], CLUSTER, RUNS, CLUSTER_HINT, 550 + k);
        j.given = x, j.keep = y;
        j.input = _("rows of random values in [-8, 8) with 1.0 at every 97th column");
        emu_metrics m;
        backend_take_metrics(&m);
        run(&j);
        backend_take_metrics(&m);
        char what[400];
        describe(&j, CLUSTER, what, sizeof what);
        if (m.dsmem_load_requests == 0)
            harness_fail(_("How does a block of a cluster read another block's partial result? "
                           "cluster.map_shared_rank() (mapa) gives the address of the same __shared__ variable in the "
                           "block of that rank."),
                         _("%s read no other block's shared memory: the blocks of a cluster combine their partial "
                           "results through distributed shared memory, not through global memory."),
                         what);
        for (int r = 0; r < rows; r++)
            for (int c = period; c < cols[k]; c += period) {
                float a = y[(size_t)r * cols[k]], b = y[(size_t)r * cols[k] + c];
                if (memcmp(&a, &b, sizeof a) == 0) continue;
                harness_fail(_(CLUSTER_HINT),
                             _("%s: d_out[%d][0] is %.9g but d_out[%d][%d] is %.9g, for the same value of the same "
                               "row: the slices of the row were normalised with different statistics. Every block of "
                               "a cluster must combine the same partial results in the same order, to the same bits."),
                             what, r, (double)a, r, c, (double)b);
            }
        free(x);
        free(y);
    }
}
END_TEST

int main(int argc, char **argv)
{
    const harness_test tests[] = {
        {N_("paths: a warp per row, every operation, rows of 8 to 1024 values"), test_ex16_warp_path, NEEDS_DEVICE},
        {N_("paths: a block per row, in shared memory or reading it again, up to the 227 KB a block may have"),
         test_ex16_block_path, NEEDS_DEVICE},
        {N_("paths: a cluster of 2 to 16 blocks per row, every operation"), test_ex16_cluster_path, NEEDS_DEVICE},
        {N_("paths: the dispatch gives rows of up to 1024 values to a warp, and longer ones elsewhere"),
         test_ex16_dispatch, NEEDS_DEVICE},
        {N_("core: softmax, LayerNorm, RMSNorm and row statistics through the dispatch, rows of 1 to 4096"),
         test_ex16_core, NEEDS_DEVICE},
        {N_("sizes: 1 to 33 rows against the rows of a warp and of a block, and more rows than blocks"),
         test_ex16_row_counts, NEEDS_DEVICE},
        {N_("sizes: rows off a 16-byte boundary (the input, the output, both), and odd lengths up to 50257"),
         test_ex16_unaligned, NEEDS_DEVICE},
        {N_("edges: -inf anywhere in a row: leading, trailing, and each thread's first value"), test_ex16_masks,
         NEEDS_DEVICE},
        {N_("edges: eps other than 1e-5"), test_ex16_eps, NEEDS_DEVICE},
        {N_("edges: each forced path takes its longest row and returns 0 for a longer one, writing nothing"),
         test_ex16_declines, NEEDS_DEVICE},
        {N_("concept: each row is read from global memory once, on every path"), test_ex16_reads_once, NEEDS_EMULATOR},
        {N_("concept: short rows share a warp, and the warp path needs no shared memory and no barrier"),
         test_ex16_warp_concept, NEEDS_EMULATOR},
        {N_("concept: a cluster's blocks combine their partials in distributed shared memory, in one order"),
         test_ex16_cluster_concept, NEEDS_EMULATOR},
        {0},
    };
    const harness_exercise ex = {"16", N_("Who reduces a row: a warp, a block or a cluster"),
                                 "exercises/16-row-mapping/lesson.md", tests, NULL};
    return harness_run(&ex, argc, argv);
}
