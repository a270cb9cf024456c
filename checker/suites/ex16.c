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
static const char *BLOCK_HINT = N_("Does each thread read only the slots of the stage that it copied there "
                                   "itself, and only after __pipeline_wait_prior(0) says that its copies of this "
                                   "row have landed?");
static const char *CLUSTER_HINT = N_("Does each block put its partial result in its slot, wait at the cluster "
                                     "barrier, read the K partials in rank order (the same order in every block), "
                                     "and wait at the barrier again before it may leave?");
static const char *SLICE_HINT = N_("Which columns does block k of a cluster of K take? For a row that K does not "
                                  "divide, or a row shorter than K packs, do the K slices together reach its last "
                                  "column, and does each block write all of its own?");
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

/* Where softmax's rows hold -inf (checker/spaces/ex16.def's mask), and what the values are (its values). */
enum mask { NO_MASK, LEADING, TRAILING, INSIDE, ALL_BUT_ONE, PACK_FIRST, ALTERNATE };
enum values { UNIFORM, LARGE_MAX, MEAN_1000, CONSTANT, NEGATIVE, TINY };
enum weights { RANDOM_WEIGHTS, ONES_ZEROS, SIGNED_WEIGHTS, SHIFTED_WEIGHTS };   /* as ex16.def lists them */

typedef struct job {
    enum op op;
    int rows, cols, path;
    size_t in_off, out_off;   /* bytes past a 16-byte boundary where d_in and d_out start */
    float eps;
    enum expect expect;
    const float *given;       /* rows x cols values exact in the input's type, or NULL: drawn as `values` says */
    float lo, hi;             /* UNIFORM's range */
    const char *input;        /* what the values are (when given) */
    const char *hint;
    uint64_t salt;
    void *keep;               /* when not NULL: the outputs are copied there (as d_out holds them) */
    enum mask mask;           /* softmax only */
    enum values values;
    enum weights weights;     /* LayerNorm and RMSNorm */
} job;

static void describe(const job *j, int ran, char *what, size_t len)
{
    char where[200] = "";
    if (j->in_off && j->out_off && j->in_off != j->out_off)
        snprintf(where, sizeof where, _(", d_in %zu and d_out %zu bytes past a 16-byte boundary"), j->in_off,
                 j->out_off);
    else if (j->in_off && j->out_off)
        snprintf(where, sizeof where, _(", d_in and d_out %zu bytes past a 16-byte boundary"), j->in_off);
    else if (j->in_off)
        snprintf(where, sizeof where, _(", d_in %zu bytes past a 16-byte boundary"), j->in_off);
    else if (j->out_off)
        snprintf(where, sizeof where, _(", d_out %zu bytes past a 16-byte boundary"), j->out_off);
    if (OP[j->op].weights && j->weights == SHIFTED_WEIGHTS)
        snprintf(where + strlen(where), sizeof where - strlen(where), "%s",
                 _(", d_gamma 2 bytes and d_beta 6 bytes past a 16-byte boundary"));
    char eps[40] = "";
    if (OP[j->op].weights) snprintf(eps, sizeof eps, ", eps = %g", (double)j->eps);
    int n = snprintf(what, len, "%s(rows = %d, cols = %d%s, path = %d%s)", OP[j->op].name, j->rows, j->cols, eps,
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
        /* scale |max|: the allowance for FlashAttention's one FFMA, 2^(x log2 e - m log2 e), whose error grows with
         * |max| (lesson 16, make softmax-shift); the reference takes x - m first and passes without it. */
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
        return ran == WARP ? WARP_HINT : ran == CLUSTER ? SLICE_HINT : BLOCK_HINT;
    }
    if (isnan(got) || isinf(got)) {
        snprintf(seen, len, "%s", _("the outputs of a row of finite values are finite: a statistic overflowed, was "
                                    "divided by 0, or combined -inf with -inf"));
        return is_softmax(j->op) ? MASK_HINT : j->hint;
    }
    snprintf(seen, len, _("off by %.3g, %.3g times the bound"), err, err / tol);
    return j->hint == WARP_HINT || (ran == WARP && j->hint == DISPATCH_HINT) ? BUTTERFLY_HINT : j->hint;
}

/* Whether got is the output that eps = 1e-5 would give (a bug model: eps hard-coded, not the argument). */
static int eps_ignored(const job *j, const harness_moments *s, double x, double gamma, double beta, float got)
{
    double want, tol;
    harness_norm_expected(j->op == RMSNORM, s, x, gamma, j->op == LAYERNORM ? beta : 0, j->cols, 1e-5, OP[j->op].kind,
                          &want, &tol);
    return fabs((double)got - want) <= tol;
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
            if (OP[j->op].weights && j->eps != 1e-5f && !poison && eps_ignored(j, &s, row[c], gamma[c], beta ? beta[c] : 0, g)) {
                snprintf(seen, sizeof seen, _("what eps = 1e-5 gives, not eps = %g"), (double)j->eps);
                h = EPS_HINT;
            }
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

/* The job's values as j->values says, and in input what they are. */
static void draw_values(const job *j, float *x, char *input, size_t len)
{
    const size_t n = (size_t)j->rows * j->cols;
    const char *type = OP[j->op].half ? harness_half_name(OP[j->op].kind) : "float";
    static const float range[][2] = {{0, 0}, {9992, 10008}, {999, 1001}, {-4, 4}, {-100, -90}, {-0.01f, 0.01f}};
    float lo = j->values == UNIFORM ? j->lo : range[j->values][0], hi = j->values == UNIFORM ? j->hi : range[j->values][1];
    if (j->values == CONSTANT) {   /* row r's one value first drawn into x[r], then spread from the last row down */
        harness_random_floats(x, (size_t)j->rows, lo, hi, j->salt);
        for (int r = j->rows - 1; r >= 0; r--)
            for (int c = j->cols - 1; c >= 0; c--) x[(size_t)r * j->cols + c] = x[r];
        snprintf(input, len, _("rows of one %s value each, repeated"), type);
        return;
    }
    harness_random_floats(x, n, lo, hi, j->salt);
    snprintf(input, len, _("%s values in [%g, %g)"), type, (double)lo, (double)hi);
}

/* Softmax's -inf where j->mask says (a row keeps its last value when the mask would take every one), and what
 * it did, after input. */
static void apply_mask(const job *j, float *x, char *input, size_t len)
{
    static const char *const said[] = {
        "", N_("-inf in the first half of each row"), N_("-inf in the last half of each row"),
        N_("-inf in the middle half of each row"), N_("-inf everywhere but one value a row"),
        N_("-inf at the first value of each 16-byte pack"), N_("-inf at every other value, before each finite one"),
    };
    const size_t pack = 16 / in_size(j->op), first = j->in_off / in_size(j->op);
    for (int r = 0; r < j->rows; r++) {
        float *row = x + (size_t)r * j->cols, last = row[j->cols - 1];
        int finite = 0, cols = j->cols;
        for (int c = 0; c < cols; c++) {
            int m = 0;
            switch (j->mask) {
            case LEADING: m = c < cols / 2; break;
            case TRAILING: m = c >= (cols + 1) / 2; break;
            case INSIDE: m = c >= cols / 4 && c < cols - cols / 4 && cols > 2; break;
            case ALL_BUT_ONE: m = c != (int)((r * 7919u + 13) % (unsigned)cols); break;
            case PACK_FIRST: m = (first + (size_t)r * cols + c) % pack == 0; break;
            case ALTERNATE: m = c % 2 == 0; break;
            default: break;
            }
            if (m) row[c] = -INFINITY;
            else finite = 1;
        }
        if (!finite) row[cols - 1] = last;
    }
    size_t used = strlen(input);
    snprintf(input + used, len - used, ", %s", _(said[j->mask]));
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
        draw_values(j, x, input, sizeof input);
    }
    for (size_t i = 0; h && i < n; i++) {
        h[i] = harness_float_to_half(OP[op].kind, x[i]);
        x[i] = harness_half_to_float(OP[op].kind, h[i]);
    }
    if (!j->given && is_softmax(op) && j->mask != NO_MASK) {
        apply_mask(j, x, input, sizeof input);
        for (size_t i = 0; h && i < n; i++) h[i] = harness_float_to_half(OP[op].kind, x[i]);
    }
    uint16_t *wbits[2] = {NULL, NULL};
    dev_buffer dw[2] = {{0}};
    for (int k = 0; k < OP[op].weights; k++) {   /* gamma and beta, as j->weights says, in the input's type */
        float **w = k ? &beta : &gamma;
        *w = harness_alloc((size_t)j->cols * sizeof **w);
        wbits[k] = harness_alloc((size_t)j->cols * sizeof *wbits[k]);
        static const float range[][2][2] = {
            {{0.5f, 1.5f}, {-1.0f, 1.0f}}, {{1, 1}, {0, 0}}, {{-2, 2}, {-4, 4}}, {{0.5f, 1.5f}, {-1.0f, 1.0f}}};
        const float *lh = range[j->weights][k];
        if (lh[0] == lh[1]) for (int c = 0; c < j->cols; c++) (*w)[c] = lh[0];
        else harness_random_floats(*w, (size_t)j->cols, lh[0], lh[1], j->salt + 1000 * (k + 1));
        for (int c = 0; c < j->cols; c++) {
            wbits[k][c] = harness_float_to_half(OP[op].kind, (*w)[c]);
            (*w)[c] = harness_half_to_float(OP[op].kind, wbits[k][c]);
        }
        /* shifted: gamma 2 bytes and beta 6 bytes past a 16-byte boundary (the contract allows any alignment) */
        const size_t w_off = j->weights == SHIFTED_WEIGHTS ? (k ? 6 : 2) : 0;
        dw[k] = dev_input_halves(wbits[k], (size_t)j->cols, harness_float_to_half(OP[op].kind, 1e4f), w_off);
        dev_name(&dw[k], k ? "d_beta" : "d_gamma");
    }
    if (OP[op].weights && (j->weights == ONES_ZEROS || j->weights == SIGNED_WEIGHTS)) {
        size_t used = strlen(input);
        snprintf(input + used, sizeof input - used, "%s",
                 j->weights == ONES_ZEROS ? _(", gamma 1 and beta 0") : _(", gamma in [-2, 2) and beta in [-4, 4)"));
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
    job j = {op, rows, cols, path, 0, 0, 1e-5f, expect, NULL, -4.0f, 4.0f, NULL, hint, salt, NULL,
             NO_MASK, UNIFORM, RANDOM_WEIGHTS};
    return j;
}
static int run_plain(enum op op, int rows, int cols, int path, enum expect expect, const char *hint, uint64_t salt)
{
    job j = plain(op, rows, cols, path, expect, hint, salt);
    return run(&j);
}

/* ---- The declared input space (checker/spaces/ex16.def): each case of its covering set is one run ---------------- */

#define HARNESS_SPACE_FILE "../spaces/ex16.def"
#include "../harness/harness_space_table.h"

/* What the device holds: SMs, threads and blocks per SM, the shared memory a block may opt in to, and an SM's. */
typedef struct device { int sms, threads, blocks, optin, smem_per_sm; } device;
static device device_limits(void)
{
    device d = {0, 0, 0, 0, 0};
    int dev = 0;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&d.sms, cudaDevAttrMultiProcessorCount, dev);
    cudaDeviceGetAttribute(&d.threads, cudaDevAttrMaxThreadsPerMultiProcessor, dev);
    cudaDeviceGetAttribute(&d.blocks, cudaDevAttrMaxBlocksPerMultiprocessor, dev);
    cudaDeviceGetAttribute(&d.optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev);
    cudaDeviceGetAttribute(&d.smem_per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, dev);
    return d;
}

/* The length a cols value names for op: "pN+d" is N packs and d values; the limits (ex16.def) in bytes. */
static int cols_of(const char *label, enum op op, const device *d)
{
    const int size = (int)in_size(op), pack = 16 / size;
    if (label[0] == 'p' && label[1] >= '0' && label[1] <= '9') {   /* "pN+d": N packs and d values; "+h": half a pack */
        const char *delta = strpbrk(label + 1, "+-");
        return atoi(label + 1) * pack + (!delta ? 0 : !strcmp(delta, "+h") ? pack / 2 : atoi(delta));
    }
    if (!strcmp(label, "block_last")) return 102400 / size;
    if (!strcmp(label, "cluster_first")) return 102400 / size + 1;
    if (!strcmp(label, "past_block")) return d->optin / size + 1;
    if (!strcmp(label, "cluster_16")) return 8 * 102400 / size + 1;
    if (!strcmp(label, "past_cluster")) return 16 * (d->optin / size) + 1;
    return atoi(label);
}

/* The reference's lanes per row on the warp path: a power of two from 4 to 32, at least the row's packs. */
static int lanes_of(int cols, enum op op)
{
    int packs = (cols + 16 / (int)in_size(op) - 1) / (16 / (int)in_size(op)), w = 4;
    while (w < 32 && w < packs) w *= 2;
    return w;
}

/* Case k as a job. The rows value is a count against what the shape groups (g rows a warp, b a block of 128
 * threads: 1 each off the warp path) or against the rows resident at once (res, on the path's shortest row). */
static job case_job(const harness_cover *cv, size_t k, const device *d)
{
    const enum op op = (enum op)harness_case_index(cv, k, "op");   /* ex16.def lists them as the enums */
    const int path = (int)harness_case_number(cv, k, "path"), pack = 16 / (int)in_size(op);
    job j = plain(op, 1, cols_of(harness_case_label(cv, k, "cols"), op, d), path, EITHER, DISPATCH_HINT, 2000 + k);
    const size_t out_size = is_stats(op) ? 4 : in_size(op);
    j.in_off = (size_t)harness_case_number(cv, k, "in_shift") % (size_t)pack * in_size(op);
    j.out_off = (size_t)harness_case_number(cv, k, "out_shift") % (16 / out_size) * out_size;
    j.mask = (enum mask)harness_case_index(cv, k, "mask");
    j.values = (enum values)harness_case_index(cv, k, "values");
    j.weights = (enum weights)harness_case_index(cv, k, "weights");
    j.eps = (float)harness_case_number(cv, k, "eps");

    const char *rows = harness_case_label(cv, k, "rows");
    int per_sm = d->threads / 128 < d->blocks ? d->threads / 128 : d->blocks;   /* blocks of 128 threads */
    const int twice = !strncmp(rows, "2res", 4);   /* twice the rows resident, and two packs a lane */
    if (!strncmp(rows + twice, "res", 3)) {
        int res;
        switch (path) {
        case WARP:   /* 4 lanes a row */
            j.cols = (twice ? 8 : 1) * pack, j.in_off = j.out_off = 0, res = d->sms * (d->threads / 4);
            break;
        case CLUSTER: j.cols = 1, res = d->sms * per_sm / 2; break;                                  /* of 2 */
        case AUTO: j.cols = pack + 1, res = d->sms * per_sm; break;   /* off the pack: a block, or the re-read */
        default: j.cols = 1, res = d->sms * per_sm; break;
        }
        j.rows = (twice ? 2 : 1) * res + atoi(rows + twice + 3);
    } else {
        int warp = (path == WARP || path == AUTO) && j.cols <= 1024 && j.cols % pack == 0 && !j.in_off &&
                   (!j.out_off || is_stats(op));
        int w = lanes_of(j.cols, op), g = warp ? 32 / w : 1, b = warp ? 128 / w : 1;
        int n = rows[0] == 'g' ? g : rows[0] == 'b' ? b : rows[1] == 'g' ? 2 * g : 0;
        j.rows = n ? n + atoi(rows + (rows[1] == 'g' ? 2 : 1)) : atoi(rows);
        if (j.rows < 1) j.rows = 1;
        if (j.cols > 65536) j.rows = 1;
        else if (j.cols > 8192 && j.rows > 3) j.rows = 2 + j.rows % 2;
    }

    const long bytes = (long)j.cols * (long)in_size(op);
    switch (path) {
    case WARP:
        j.expect = j.cols > 1024 ? DECLINES : EITHER, j.hint = WARP_HINT;
        if (j.cols % pack == 0 && !j.in_off && !j.out_off && j.cols <= 1024) j.expect = RUNS;
        break;
    case BLOCK:
        j.expect = is_stats(op) || bytes <= 102400 ? RUNS : bytes > d->optin ? DECLINES : EITHER, j.hint = BLOCK_HINT;
        break;
    case CLUSTER:
        j.expect = is_stats(op) || bytes <= 16 * 102400 ? RUNS : bytes > 16L * d->optin ? DECLINES : EITHER;
        j.hint = CLUSTER_HINT;
        break;
    case REREAD: j.expect = RUNS, j.hint = BLOCK_HINT; break;
    default: break;
    }
    if (j.in_off || j.out_off) j.hint = ALIGN_HINT;   /* eps and masks: by what came back (check_outputs) */
    return j;
}

/* Runs the covering set's cases whose path is one of the two given. */
static void run_cases(int path_a, int path_b)
{
    const device d = device_limits();
    harness_cover cv;
    harness_cover_build(&SPACE, &cv);
    for (size_t k = 0; k < cv.cases; k++) {
        int path = (int)harness_case_number(&cv, k, "path");
        if (path != path_a && path != path_b) continue;
        job j = case_job(&cv, k, &d);
        run(&j);
    }
    harness_cover_free(&cv);
}

/* ---- core: each operation through the dispatch ------------------------------------------------------------------- */

START_TEST(test_ex16_core)
{
    run_cases(AUTO, AUTO);
}
END_TEST

/* ---- paths: each one forced, over the declared shapes ------------------------------------------------------------- */

/* A warp per row takes up to 1024 values in 16-byte packs, from W = 4 to 32 lanes a row; rows that are not whole
 * packs, or start off a boundary, may go elsewhere (the path may decline them); longer rows it declines. */
START_TEST(test_ex16_warp_path)
{
    run_cases(WARP, WARP);
}
END_TEST

/* A block per row keeps its row in shared memory: an H100 gives a block up to 227 KB (232448 bytes), which the
 * emulator reports too, less the kernel's static shared memory. Rows of 100 KB must run (even a design of two
 * stages fits them); rows past 227 KB must be declined; between, either. Row statistics keep nothing, so their block
 * takes any row; the block that reads its row again (path 4) takes any row too. */
START_TEST(test_ex16_block_path)
{
    run_cases(BLOCK, REREAD);
}
END_TEST

/* A cluster of K blocks per row (K = 2 to 16): rows up to 16 x 100 KB must run, rows past 16 x 227 KB must be
 * declined. */
START_TEST(test_ex16_cluster_path)
{
    run_cases(CLUSTER, CLUSTER);
}
END_TEST

/* A block strides over the rows by the blocks resident at once: the SMs times the blocks an SM holds. On the
 * emulator's usual 16 SMs that stride is a multiple of 8 rows for every block size, so every row a block takes
 * starts at the same offset from a 16-byte boundary, whatever the row's length; on a GPU of 132 SMs holding 3 blocks
 * each it is not. Here the emulator reports 3 SMs: rows of 60 KB and one value (3 blocks an SM at most), enough of
 * them that a block takes two or more, and each of its rows starts at another offset, so a thread's partial packs
 * move from row to row. The emulator grades it on a GPU machine too: it is a race that only the emulator names, and on
 * an H200's 132 SMs the same test is some 400 rows a kernel, 2.5 s of checks on the host. */
START_TEST(test_ex16_rows_at_other_offsets)
{
    backend_emulate_sms(3);
    const device d = device_limits();
    const int held = d.smem_per_sm / (61440 + 1024);   /* the most blocks of such a stage an SM holds */
    static const enum op ops[] = {SOFTMAX, SOFTMAX_F16, LAYERNORM, RMSNORM};
    for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++) {
        const int cols = 61440 / (int)in_size(ops[k]) + 1;
        run_plain(ops[k], d.sms * (held > 0 ? held : 1) + 2, cols, BLOCK, RUNS, BLOCK_HINT, 190 + k);
    }
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

/* The cluster path's two points, judged by what happened, not by how. Its blocks combine their partial results on
 * chip: something crosses distributed shared memory, whichever way (a block reads the others' partials, or pushes
 * its own into theirs), and global memory gives nothing but the rows (no partial read back, no atomic). And every
 * block combines the same partials in the same order: a value that stands in every slice of a row (1.0 at every
 * 97th column, random values between) gives the same output in every slice, to the bit, since its output depends on
 * it and on the row's statistics only. Blocks that combine in different orders round those statistics
 * differently. */
START_TEST(test_ex16_cluster_concept)
{
    static const int cols[] = {51201, 102401};   /* clusters of 4 and 8 */
    for (size_t k = 0; k < 2; k++) {
        /* Each row is a chance for two orders to round apart, and a row's chance is about two in three: with 2
         * rows of each length, blocks that each started from their own partial went unseen at 1 seed in 61
         * (105 of 100 to 160, and 996389815); with 8, at none of 300. */
        const int rows = 8, n = rows * cols[k], period = 97;
        float *x = harness_alloc((size_t)n * sizeof *x), *y = harness_alloc((size_t)n * sizeof *y);
        harness_random_floats(x, (size_t)n, -8.0f, 8.0f, 550 + k);
        /* Each row falls by 6 along its length, so that the slices' partial sums differ in size (the last
         * slice's exponentials some 400 times smaller than the first's): added in another order, they round
         * differently far more often than partials of one size do. */
        for (int i = 0; i < n; i++)
            x[i] = i % cols[k] % period == 0 ? 1.0f : x[i] - 6.0f * (float)(i % cols[k]) / (float)cols[k];
        job j = plain(SOFTMAX, rows, cols[k], CLUSTER, RUNS, CLUSTER_HINT, 550 + k);
        j.given = x, j.keep = y;
        j.input = _("rows of random values in [-8, 8), less 6 along the row, with 1.0 at every 97th column");
        emu_metrics m;
        backend_take_metrics(&m);
        run(&j);
        backend_take_metrics(&m);
        char what[400];
        describe(&j, CLUSTER, what, sizeof what);
        if (m.dsmem_load_requests + m.dsmem_store_requests == 0)
            harness_fail(_("How does a block of a cluster reach another block's shared memory? "
                           "cluster.map_shared_rank() (mapa) gives the address of the same __shared__ variable in the "
                           "block of that rank: read the others' partial results through it, or write yours into "
                           "theirs."),
                         _("%s neither read nor wrote another block's shared memory: the blocks of a cluster combine "
                           "their partial results on chip, through distributed shared memory, not through global "
                           "memory."),
                         what);
        const uint64_t bytes = (uint64_t)n * sizeof *x;
        if (m.global_read_bytes > bytes || m.global_atomics)
            harness_fail(_(CLUSTER_HINT),
                         _("%s read %llu bytes of global memory for rows of %llu and made %llu atomics there: the "
                           "partial results met in global memory, where distributed shared memory keeps them on "
                           "chip."),
                         what, (unsigned long long)m.global_read_bytes, (unsigned long long)bytes,
                         (unsigned long long)m.global_atomics);
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
        {N_("paths: a warp per row, every operation, every pack count against 4 to 32 lanes a row"),
         test_ex16_warp_path, NEEDS_DEVICE},
        {N_("paths: a block per row, in shared memory or reading it again, up to the 227 KB a block may have"),
         test_ex16_block_path, NEEDS_DEVICE},
        {N_("paths: a cluster of 2 to 16 blocks per row, every operation"), test_ex16_cluster_path, NEEDS_DEVICE},
        {N_("paths: a block's rows, each at another offset from a 16-byte boundary (the emulator as 3 SMs)"),
         test_ex16_rows_at_other_offsets, NEEDS_EMULATOR},
        {N_("paths: the dispatch gives rows of up to 1024 values to a warp, and longer ones elsewhere"),
         test_ex16_dispatch, NEEDS_DEVICE},
        {N_("core: softmax, LayerNorm, RMSNorm and row statistics through the dispatch, past a cluster too"),
         test_ex16_core, NEEDS_DEVICE},
        {N_("concept: each row is read from global memory once, on the warp, block and cluster paths"),
         test_ex16_reads_once, NEEDS_EMULATOR},
        {N_("concept: short rows share a warp, and the warp path needs no shared memory and no barrier"),
         test_ex16_warp_concept, NEEDS_EMULATOR},
        {N_("concept: a cluster's blocks combine their partials on chip, to the same bits in every slice"),
         test_ex16_cluster_concept, NEEDS_EMULATOR},
        {0},
    };
    const harness_exercise ex = {"16", N_("Who reduces a row: a warp, a block or a cluster"),
                                 "exercises/16-row-mapping/lesson.md", tests, &SPACE};
    return harness_run(&ex, argc, argv);
}
