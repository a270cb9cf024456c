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
static const float EPS = 1e-5f;   /* PyTorch's default, where a test does not say another */

static const char CANCEL_HINT[] = N_("Is the variance computed from x - mean, or as E[x^2] - E[x]^2? For values "
                                    "1000 +- 1, E[x^2] is about a million, and float keeps 24 bits of it.");
static const char RMS_HINT[] = N_("Is the sum of squares of the whole row added in float, divided by cols, and "
                                 "is eps added before the square root?");
static const char ROW_HINT[] = N_("Does each block handle exactly its row, d_in + row * cols, and does every "
                                 "thread write each entry it read, with the gamma and beta of its column?");
static const char EPS_ARG_HINT[] = N_("Is eps the function's argument, added to the variance (for RMSNorm, to the "
                                     "mean of the squares) before the square root: rsqrtf(var + eps)?");
static const char EPS_HINT[] = N_("A row whose values are all equal has variance 0: what keeps 1 / sqrt(var) "
                                 "finite? And can a variance computed in float come out negative?");

/* ---- The bound --------------------------------------------------------------------------------------------
 * harness_rows.c derives it: with u = 2^-24 and L = ceil(cols / 32) + 12 additions per value (exercise 13),
 * the mean errs by (L + 2) u mean|x|, the variance by (L + 8) u var plus Welford's running-mean term, and the
 * output by the rounding of its 16-bit type. E[x^2] - E[x]^2 errs by up to L u E[x^2] instead: its last sums
 * are near cols * 10^6 for values 1000 +- 1, rounded to spacings of 64 and more, about 0.06 of a variance of
 * 0.33 for rows of 1024. */

static harness_moments stats_of(const float *x, int cols)
{
    harness_moments s;
    harness_row_moments(x, cols, &s);
    return s;
}

/* LayerNorm writes fp16, RMSNorm bf16. */
static harness_half_kind out_kind(enum variant v) { return v == RMSNORM ? HARNESS_BF16 : HARNESS_F16; }

/* ---- Known mistakes: the outputs each gives on the test's input (harness_diagnose) ------------------------- */

typedef struct norm_case {
    enum variant v;
    const float *x, *gamma, *beta;
    int rows, cols;
    const double *got;   /* what came back (the cancellation reads the variance the outputs imply) */
    double eps;
} norm_case;

/* The outputs as the output's format holds them: fp16 for LayerNorm, bf16 for RMSNorm (an output of 1e30
 * is inf there, as the kernel's is). */
static int stored(const norm_case *nc, double *out)
{
    harness_half_kind kind = out_kind(nc->v);
    for (size_t i = 0; i < (size_t)nc->rows * nc->cols; i++)
        if (!isnan(out[i])) out[i] = harness_half_to_float(kind, harness_float_to_half(kind, (float)out[i]));
    return 1;
}

/* One row normalised with the statistics given: LayerNorm's (x - mean) * rstd * gamma + beta, or RMSNorm's
 * x * rstd * gamma, rstd being 1 / sqrt(var + eps) (var the mean of squares for RMSNorm); gamma and beta of
 * the column, or of the row (by_row: the guard, 1e30, past the last column). */
static void normalise_row_by(const norm_case *nc, int r, double mean, double rstd, int by_row, double *out)
{
    const float *x = nc->x + (size_t)r * nc->cols;
    int k = by_row ? r : 0;
    for (int c = 0; c < nc->cols; c++) {
        if (!by_row) k = c;
        double g = k < nc->cols ? nc->gamma[k] : HARNESS_GUARD_FLOAT, b = k < nc->cols ? nc->beta[k] : HARNESS_GUARD_FLOAT;
        out[(size_t)r * nc->cols + c] = nc->v == RMSNORM ? x[c] * rstd * g : (x[c] - mean) * rstd * g + b;
    }
}

static void normalise_row(const norm_case *nc, int r, double mean, double var, double eps, int by_row, double *out)
{
    normalise_row_by(nc, r, mean, 1 / sqrt(var + eps), by_row, out);
}

/* Each row's own statistics: LayerNorm's mean and variance, RMSNorm's 0 and mean of squares. */
static void row_moments(const norm_case *nc, int r, double *mean, double *var)
{
    harness_moments s = stats_of(nc->x + (size_t)r * nc->cols, nc->cols);
    *mean = nc->v == RMSNORM ? 0 : s.mean;
    *var = nc->v == RMSNORM ? s.ms : s.var;
}

/* param: how the variance goes wrong: 1 divided by cols - 1, 2 not divided, 3 eps left out, 4 gamma and
 * beta of the row, 5 the beta left out, 6 the gamma left out, 7 eps 1e-5 whatever the argument says, 8 eps
 * added after the square root, 1 / (sqrt(var) + eps), 9 |gamma| in place of gamma, 10 beta added before
 * gamma multiplies, (z + beta) * gamma. */
static int model_stats(const void *ctx, int how, double *out)
{
    const norm_case *nc = ctx;
    if (nc->v == RMSNORM && (how == 1 || how == 5 || how == 10)) return 0;
    if (how == 7 && nc->eps == EPS) return 0;
    for (int r = 0; r < nc->rows; r++) {
        double mean, var;
        row_moments(nc, r, &mean, &var);
        if (how == 1) var = nc->cols > 1 ? var * nc->cols / (nc->cols - 1) : NAN;   /* one value: 0 / 0 */
        if (how == 2) var *= nc->cols;
        if (how == 8) normalise_row_by(nc, r, mean, 1 / (sqrt(var) + nc->eps), 0, out);
        else normalise_row(nc, r, mean, var, how == 3 ? 0 : how == 7 ? EPS : nc->eps, how == 4, out);
        for (int c = 0; c < nc->cols && (how == 5 || how == 6); c++) {
            size_t i = (size_t)r * nc->cols + c;
            out[i] = how == 5 ? out[i] - nc->beta[c] : (out[i] - nc->beta[c]) / nc->gamma[c] + nc->beta[c];
        }
        for (int c = 0; c < nc->cols && how == 10; c++) {   /* (z + b) g = (z g + b) + b (g - 1) */
            size_t i = (size_t)r * nc->cols + c;
            out[i] += nc->beta[c] * (nc->gamma[c] - 1);
        }
        for (int c = 0; c < nc->cols && how == 9; c++) {
            size_t i = (size_t)r * nc->cols + c;
            if (nc->gamma[c] < 0) out[i] = 2 * nc->beta[c] - out[i];   /* z * |g| + b = -(z g + b) + 2 b */
        }
    }
    return stored(nc, out);
}

/* A thread's (n, mean, m2) over its entries c = t, t + block, ... (update 0: Welford's; 1: m2 gains the square
 * of the distance to the old mean; 2: to the new one). */
typedef struct welford { double n, mean, m2; } welford;

static welford thread_welford(const float *x, int cols, int t, int block, int update)
{
    welford w = {0, 0, 0};
    for (int c = t; c < cols; c += block) {
        double v = x[c], delta = v - w.mean;
        w.n += 1;
        w.mean += delta / w.n;
        w.m2 += update == 1 ? delta * delta : update == 2 ? (v - w.mean) * (v - w.mean) : delta * (v - w.mean);
    }
    return w;
}

/* The threads' triples combined: with the distance between the means (Chan et al.) or without. */
static welford combined(const float *x, int cols, int block, int update, int with_distance)
{
    welford a = {0, 0, 0};
    for (int t = 0; t < block; t++) {
        welford b = thread_welford(x, cols, t, block, update);
        if (b.n == 0) continue;
        double n = a.n + b.n, delta = b.mean - a.mean;
        a.m2 += b.m2 + (with_distance ? delta * delta * a.n * b.n / n : 0);
        a.mean += delta * b.n / n;
        a.n = n;
    }
    return a;
}

static int welford_rows(const void *ctx, int block, int update, int with_distance, double *out)
{
    const norm_case *nc = ctx;
    if (nc->v != WELFORD) return 0;
    for (int r = 0; r < nc->rows; r++) {
        welford w = combined(nc->x + (size_t)r * nc->cols, nc->cols, block, update, with_distance);
        normalise_row(nc, r, w.mean, w.m2 / w.n, nc->eps, 0, out);
    }
    return stored(nc, out);
}

static int model_update_old(const void *ctx, int block, double *out) { return welford_rows(ctx, block, 1, 1, out); }
static int model_update_new(const void *ctx, int block, double *out) { return welford_rows(ctx, block, 2, 1, out); }
static int model_no_distance(const void *ctx, int block, double *out) { return welford_rows(ctx, block, 0, 0, out); }

/* A combine with no case for an empty part: rows shorter than the block make 0 / 0. */
static int model_combine_empty(const void *ctx, int block, double *out)
{
    const norm_case *nc = ctx;
    if (nc->v != WELFORD) return 0;
    model_stats(ctx, 0, out);
    for (size_t i = 0; nc->cols < block && i < (size_t)nc->rows * nc->cols; i++) out[i] = NAN;
    return stored(nc, out);
}

/* The same combine in an all-reduce that fills the lanes past the block's last warp with the identity, (0, 0, 0),
 * as the reference's does: with fewer than 32 warps every row meets an empty part, whatever its length. (With 32
 * warps there are no such lanes: model_combine_empty says it.) */
static int model_combine_empty_padded(const void *ctx, int block, double *out)
{
    const norm_case *nc = ctx;
    if (nc->v != WELFORD || block >= 1024) return 0;
    for (size_t i = 0; i < (size_t)nc->rows * nc->cols; i++) out[i] = NAN;
    return 1;
}

/* Each thread with its own entries' statistics: the all-reduce's result not kept. */
static int model_own(const void *ctx, int block, double *out)
{
    const norm_case *nc = ctx;
    for (int r = 0; r < nc->rows; r++) {
        const float *x = nc->x + (size_t)r * nc->cols;
        for (int t = 0; t < block && t < nc->cols; t++) {
            welford w = thread_welford(x, nc->cols, t, block, 0);
            double squares = 0;
            for (int c = t; c < nc->cols; c += block) squares += (double)x[c] * x[c];
            double mean = nc->v == RMSNORM ? 0 : w.mean, var = nc->v == RMSNORM ? squares / nc->cols : w.m2 / w.n;
            for (int c = t; c < nc->cols; c += block) {
                double g = nc->gamma[c], b = nc->v == RMSNORM ? 0 : nc->beta[c];
                out[(size_t)r * nc->cols + c] = (x[c] - mean) / sqrt(var + nc->eps) * g + b;
            }
        }
    }
    return stored(nc, out);
}

/* RMSNorm's squares added in bf16 by each thread (__hfma), then in float. */
static int model_bf16_squares(const void *ctx, int block, double *out)
{
    const norm_case *nc = ctx;
    if (nc->v != RMSNORM) return 0;
    for (int r = 0; r < nc->rows; r++) {
        const float *x = nc->x + (size_t)r * nc->cols;
        double total = 0;
        for (int t = 0; t < block; t++) {
            float acc = 0;
            for (int c = t; c < nc->cols; c += block)
                acc = harness_half_to_float(HARNESS_BF16, harness_float_to_half(HARNESS_BF16, (float)((double)x[c] * x[c] + acc)));
            total += acc;
        }
        normalise_row(nc, r, 0, total / nc->cols, nc->eps, 0, out);
    }
    return stored(nc, out);
}

/* E[x^2] - E[x]^2: its float rounding depends on the order of the additions, so this model asks whether the
 * outputs are those of a normalisation with the right mean and a variance that is off by no more than that
 * rounding, 4 L u E[x^2] (NaN where it may have come out negative). */
static int model_cancellation(const void *ctx, int param, double *out)
{
    const norm_case *nc = ctx;
    (void)param;
    if (nc->v == RMSNORM) return 0;
    const double u = HARNESS_FLOAT_UNIT, adds = ceil(nc->cols / 32.0) + 12;
    for (int r = 0; r < nc->rows; r++) {
        const float *x = nc->x + (size_t)r * nc->cols;
        const double *y = nc->got + (size_t)r * nc->cols;
        harness_moments s = stats_of(x, nc->cols);
        double slack = 4 * adds * u * s.ms, sx = 0, sz = 0, sxx = 0, sxz = 0;
        int nan = 0;
        for (int c = 0; c < nc->cols; c++) {
            double z = (y[c] - nc->beta[c]) / nc->gamma[c];
            nan |= isnan(z);
            sx += x[c], sz += z, sxx += (double)x[c] * x[c], sxz += x[c] * z;
        }
        double var = s.var;
        if (nan && s.var - slack + nc->eps < 0) {
            for (int c = 0; c < nc->cols; c++) out[(size_t)r * nc->cols + c] = NAN;
            continue;
        }
        double spread = sxx - sx * sx / nc->cols, slope = spread > 0 ? (sxz - sx * sz / nc->cols) / spread : 0;
        if (spread > 0 && slope > 0 && isfinite(slope)) {
            double implied = 1 / (slope * slope) - nc->eps;
            if (fabs(implied - s.var) <= slack) var = implied;
        }
        normalise_row(nc, r, s.mean, var, nc->eps, 0, out);
    }
    return stored(nc, out);
}

/* Every block reads row 0. */
static int model_row_zero(const void *ctx, int param, double *out)
{
    const norm_case *nc = ctx;
    (void)param;
    norm_case first = *nc;
    first.rows = 1;
    for (int r = 0; r < nc->rows; r++) {
        double mean, var;
        row_moments(&first, 0, &mean, &var);
        const float *x0 = nc->x;
        for (int c = 0; c < nc->cols; c++) {
            double b = nc->v == RMSNORM ? 0 : nc->beta[c];
            out[(size_t)r * nc->cols + c] = (x0[c] - mean) / sqrt(var + nc->eps) * nc->gamma[c] + b;
        }
    }
    return nc->rows > 1 && stored(nc, out);
}

static const char UPDATE[] = N_("they are what Welford's update gives when m2 gains the square of one distance, "
                                "(x - old mean)^2 or (x - new mean)^2, instead of their product");
static const char UPDATE_HINT[] = N_("After a new value x, m2 gains (x - old mean) * (x - new mean): why the product "
                                     "of the two distances, not the square of either?");
static const char DISTANCE[] = N_("they are what a combine gives that adds the two parts' m2 but not what the "
                                  "distance between their means adds, delta^2 * na * nb / n: the variance is "
                                  "too small");
static const char DISTANCE_HINT[] = N_("Two parts with the same spread but means far apart: is the variance of "
                                       "their union only the sum of their m2? What does the distance between "
                                       "their means add?");
static const char EMPTY[] = N_("they are what a combine gives that has no case for an empty part: a thread with no "
                               "value (a row shorter than the block) makes 0 / 0, and the all-reduce hands the NaN "
                               "to the whole row");
static const char EMPTY_PADDED[] = N_("they are what a combine gives that has no case for an empty part: the "
                                      "block's all-reduce fills the lanes past its last warp with (0, 0, 0), which "
                                      "makes 0 / 0, in every row");
static const char EMPTY_HINT[] = N_("What does a thread with no value contribute, (0, 0, 0), and what does combine() "
                                    "compute when one side has n = 0?");
static const char OWN[] = N_("they are what each thread computes from its own entries alone: a block_allreduce's "
                             "result was not kept, so a thread normalised with its own statistics, not the row's");
static const char OWN_HINT[] = N_("block_allreduce returns the row's value in every thread: does every thread use "
                                  "what it returns, w = block_allreduce(w, ...)?");

static const harness_bug_model MODELS[] = {
    {"cancellation", model_cancellation, 0,
     N_("the mean is right, and the variance is off by no more than what float loses when E[x^2] - E[x]^2 "
        "subtracts two numbers near the mean's square: the cancellation, where a large mean leaves few of "
        "float's 24 bits for the variance"), CANCEL_HINT, 1},
    {"divided-by-cols-minus-1", model_stats, 1,
     N_("they are what a variance divided by cols - 1 gives (the unbiased estimate of a sample's variance): "
        "LayerNorm divides the sum of squared distances by cols"),
     N_("Which count divides the sum of (x - mean)^2: cols, or cols - 1? LayerNorm normalises by the row's own "
        "variance, not an estimate of a larger population's."), 0},
    {"variance-not-divided", model_stats, 2,
     N_("they are what a variance that was never divided by cols gives: the sum of squared distances (or, "
        "for RMSNorm, of squares) stood where their mean belongs"),
     N_("The variance is the mean of (x - mean)^2: is the sum divided by cols (m2 by n) before the square "
        "root?"), 0},
    {"no-eps", model_stats, 3,
     N_("they are what a normalisation without eps gives: a row whose values are all equal has variance 0, "
        "and 0 * (1 / sqrt(0)) is NaN"), EPS_HINT, 5},
    {"eps-fixed", model_stats, 7,
     N_("they are what a normalisation gives whose eps is 1e-5 whatever the eps argument says: eps was written "
        "into the kernel"), EPS_ARG_HINT, 9},
    {"eps-after-sqrt", model_stats, 8,
     N_("they are what 1 / (sqrt(var) + eps) gives, eps added after the square root: on a row whose variance is "
        "near eps, or with a large eps, that is far from 1 / sqrt(var + eps)"), EPS_ARG_HINT, 9},
    {"gamma-sign-lost", model_stats, 9,
     N_("they are what |gamma| gives in place of gamma: where gamma is negative the outputs are mirrored around "
        "beta, as from a square root of gamma^2"),
     N_("gamma may be negative: does each output take gamma[c] with its sign, or its magnitude (a square root of "
        "gamma * gamma, fabsf)?"), 0},
    {"beta-before-gamma", model_stats, 10,
     N_("they are what (z + beta) * gamma gives, beta added before gamma multiplies: each output is off by "
        "beta * (gamma - 1), nothing where gamma is 1 or beta 0"),
     N_("y = (x - mean) * rstd * gamma + beta: is beta added after the product with gamma, or before it?"), 0},
    {"gamma-by-row", model_stats, 4,
     N_("they are what gamma and beta indexed by the row give: each row takes gamma[row] and beta[row] (past "
        "the last column, the guard the checker keeps there) instead of gamma[c] and beta[c]"),
     N_("gamma and beta hold one value per column: which index picks the one for entry c of a row?"), 7},
    {"beta-left-out", model_stats, 5,
     N_("they are the normalised values times gamma, without beta added"),
     N_("y = (x - mean) * rstd * gamma + beta: is beta[c] added to every output?"), 0},
    {"gamma-left-out", model_stats, 6,
     N_("they are the normalised values plus beta, without the multiplication by gamma"),
     N_("y = (x - mean) * rstd * gamma + beta: is every output multiplied by gamma[c]?"), 0},
    HARNESS_EACH_BLOCK("welford-update", model_update_old, UPDATE, UPDATE_HINT, 2),
    HARNESS_EACH_BLOCK("welford-update", model_update_new, UPDATE, UPDATE_HINT, 2),
    HARNESS_EACH_BLOCK("combine-no-distance", model_no_distance, DISTANCE, DISTANCE_HINT, 3),
    HARNESS_EACH_BLOCK("combine-empty-nan", model_combine_empty, EMPTY, EMPTY_HINT, 4),
    HARNESS_EACH_BLOCK("combine-empty-nan", model_combine_empty_padded, EMPTY_PADDED, EMPTY_HINT, 4),
    HARNESS_EACH_BLOCK("not-all-reduced", model_own, OWN, OWN_HINT, 8),
    HARNESS_EACH_BLOCK("bf16-squares", model_bf16_squares,
                       N_("they are what squares added in bf16 give: once a thread's sum passes a few units, "
                          "bf16's 8 bits drop most of each new square, and the mean of squares comes out too "
                          "small"),
                       RMS_HINT, 6),
    {"row-zero-everywhere", model_row_zero, 0,
     N_("every row holds the normalisation of row 0: each block read row 0, so the row's offset, row * cols, "
        "is missing from the input pointer"), N_("Which row does block b read: is d_in moved on by blockIdx.x * "
                                                 "cols?"), 0},
    {0},
};

/* ---- Running one normalisation ------------------------------------------------------------------------------ */

/* Runs the variant on rows x cols 16-bit values h (fp16 for LayerNorm, bf16 for RMSNorm) with gamma, beta and
 * eps, d_in and d_out `offset` bytes past a 16-byte boundary: what came back as doubles (have), where the poison
 * was left, and the bits (got). */
static void run_norm(enum variant v, const uint16_t *h, const float *gamma, const float *beta, int rows, int cols,
                     float eps, size_t offset, double *have, unsigned char *unwritten, uint16_t *got)
{
    harness_half_kind kind = out_kind(v);
    size_t n = (size_t)rows * (size_t)cols;
    char what[256];
    snprintf(what, sizeof what, "%s(rows = %d, cols = %d, eps = %g)", NAME[v], rows, cols, (double)eps);
    uint16_t guard = harness_float_to_half(kind, kind == HARNESS_BF16 ? 1e30f : 60000.0f);
    dev_buffer din = dev_input_halves(h, n, guard, offset), dout = dev_output_halves_at(n, offset);
    dev_buffer dg = dev_input_floats(gamma, (size_t)cols, HARNESS_GUARD_FLOAT);
    dev_buffer db = dev_input_floats(beta, (size_t)cols, HARNESS_GUARD_FLOAT);
    dev_name(&dg, "d_gamma");
    dev_name(&db, "d_beta");
    if (v == RMSNORM) rmsnorm_bf16(dev_ptr(&din), dev_ptr(&dg), dev_ptr(&dout), rows, cols, eps);
    else if (v == TWO_PASS) layernorm_two_pass(dev_ptr(&din), dev_ptr(&dg), dev_ptr(&db), dev_ptr(&dout), rows, cols, eps);
    else layernorm_welford(dev_ptr(&din), dev_ptr(&dg), dev_ptr(&db), dev_ptr(&dout), rows, cols, eps);
    harness_after_launch(what);
    dev_fetch(&dout, got);
    for (size_t i = 0; i < n; i++) {
        have[i] = harness_half_to_float(kind, got[i]);
        unwritten[i] = got[i] == HARNESS_POISON_HALF_BITS;
    }
    dev_expect_guards_intact(&dout, what);
    dev_expect_unchanged(&din, what);
    dev_expect_unchanged(&dg, what);
    dev_expect_unchanged(&db, what);
    dev_free(&din);
    dev_free(&dout);
    dev_free(&dg);
    dev_free(&db);
}

/* Each output's exact value and bound. */
static void norm_reference(enum variant v, const float *x, const float *gamma, const float *beta, int rows, int cols,
                           float eps, double *want, double *tol)
{
    for (int r = 0; r < rows; r++) {
        harness_moments s = stats_of(x + (size_t)r * cols, cols);
        for (int c = 0; c < cols; c++) {
            size_t i = (size_t)r * cols + c;
            harness_norm_expected(v == RMSNORM, &s, x[i], gamma[c], beta[c], cols, eps, out_kind(v), &want[i], &tol[i]);
        }
    }
}

/* Outputs that several mistakes give alike (rows of one value are NaN without eps and with a combine that
 * forgets an empty part alike) are told apart on two more inputs: 2 rows of 40 values in [-2, 2), then a
 * row of 2000 equal values and a row of 2000 values in [-2, 2). */
static void settle(enum variant v, float eps, harness_diagnosis *d)
{
    harness_half_kind kind = out_kind(v);
    for (int probe = 0; probe < 2 && d->ncandidates > 1; probe++) {
        const int rows = 2, cols = probe ? 2000 : 40;
        size_t n = (size_t)rows * cols;
        uint16_t *h = harness_alloc(n * sizeof *h), *got = harness_alloc(n * sizeof *got);
        float *gamma = harness_alloc(cols * sizeof *gamma), *beta = harness_alloc(cols * sizeof *beta);
        double *want = harness_alloc(n * sizeof *want), *have = harness_alloc(n * sizeof *have);
        double *tol = harness_alloc(n * sizeof *tol);
        unsigned char *unwritten = harness_alloc(n);
        harness_random_halves(kind, h, n, -2.0f, 2.0f, 950 + probe);
        for (int c = 0; probe && c < cols; c++) h[c] = harness_float_to_half(kind, 3.0f);
        harness_random_floats(gamma, cols, 0.5f, 1.5f, 960);
        harness_random_floats(beta, cols, -1.0f, 1.0f, 961);
        if (v == RMSNORM) memset(beta, 0, cols * sizeof *beta);
        float *x = harness_halves_to_floats(kind, h, n);
        run_norm(v, h, gamma, beta, rows, cols, eps, 0, have, unwritten, got);
        harness_forget_findings();   /* this run is the checker's question, not a test */
        norm_reference(v, x, gamma, beta, rows, cols, eps, want, tol);
        norm_case nc = {v, x, gamma, beta, rows, cols, have, eps};
        harness_output o = {rows, (size_t)cols, want, have, unwritten, tol, 0, 1e-3};
        harness_narrow(&o, &nc, d);
        free(h), free(got), free(gamma), free(beta), free(want), free(have), free(tol), free(unwritten), free(x);
    }
}

/* Runs the variant on rows x cols 16-bit values h (fp16 for LayerNorm, bf16 for RMSNorm) with gamma and
 * beta, and checks every output; a failure says what the outputs are (harness_diagnose). */
static void expect_norm(enum variant v, const uint16_t *h, const float *gamma, const float *beta, int rows,
                        int cols, float eps, size_t offset, const char *input)
{
    harness_half_kind kind = out_kind(v);
    size_t n = (size_t)rows * (size_t)cols;
    float *x = harness_halves_to_floats(kind, h, n);
    uint16_t *got = harness_alloc(n * sizeof *got);
    double *want = harness_alloc(n * sizeof *want), *have = harness_alloc(n * sizeof *have);
    double *tol = harness_alloc(n * sizeof *tol);
    unsigned char *unwritten = harness_alloc(n);
    run_norm(v, h, gamma, beta, rows, cols, eps, offset, have, unwritten, got);
    norm_reference(v, x, gamma, beta, rows, cols, eps, want, tol);
    size_t bad = 0;
    while (bad < n && fabs(have[bad] - want[bad]) <= tol[bad]) bad++;
    if (bad < n) {
        norm_case nc = {v, x, gamma, beta, rows, cols, have, eps};
        harness_output o = {(size_t)rows, (size_t)cols, want, have, unwritten, tol, 0, 1e-3};
        harness_diagnosis d;
        harness_diagnose(&o, MODELS, &nc, &d);
        settle(v, eps, &d);
        int r = (int)(bad / cols), c = (int)(bad % cols);
        harness_moments s = stats_of(x + (size_t)r * cols, cols);
        char what[256], value[64];
        snprintf(what, sizeof what, "%s(rows = %d, cols = %d, eps = %g)", NAME[v], rows, cols, (double)eps);
        harness_describe_half(kind, got[bad], value, sizeof value);
        const char *hint = harness_diagnosis_hint(&d, ROW_HINT, NULL);
        harness_fail(hint, _("%s of %s: d_out[%d][%d] should be %.6g within %.3g, but it is %s (the row's mean is "
                             "%.6g, its variance %.6g): %s."), what, input, r, c, want[bad], tol[bad], value, s.mean,
                     s.var, d.words);
    }
    free(x);
    free(got);
    free(want);
    free(have);
    free(tol);
    free(unwritten);
}

/* Rows of values in [lo, hi) with gamma in [0.5, 1.5) and beta in [-1, 1) (beta 0 for RMSNorm, which has
 * none). */
static void expect_random(enum variant v, int rows, int cols, float lo, float hi, uint64_t salt)
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
    expect_norm(v, h, gamma, beta, rows, cols, EPS, 0, input);
    free(h);
    free(gamma);
    free(beta);
}

/* ---- The declared inputs (checker/spaces/ex15.def): every function on every case of the covering set ------ */

#define HARNESS_SPACE_FILE "../spaces/ex15.def"
#include "../harness/harness_space_table.h"

/* gamma and beta of a case (its `weights`), and how a learner reads them: 1 and 0, random, negative, or a ramp
 * across the columns (each column's own, so that a column taken for another shows). RMSNorm has no beta. */
static const char *case_weights(const harness_cover *cover, size_t k, enum variant v, float *gamma, float *beta,
                                int cols, uint64_t salt)
{
    const char *words;
    if (harness_case_is(cover, k, "weights", "ones-zeros")) {
        for (int c = 0; c < cols; c++) gamma[c] = 1.0f, beta[c] = 0.0f;
        words = N_("gamma 1 and beta 0");
    } else if (harness_case_is(cover, k, "weights", "ramp")) {
        for (int c = 0; c < cols; c++) gamma[c] = 0.5f + (float)c / cols, beta[c] = -1.0f + 2.0f * c / cols;
        words = N_("gamma and beta rising across the columns");
    } else {
        int negative = harness_case_is(cover, k, "weights", "negative");
        harness_random_floats(gamma, (size_t)cols, negative ? -1.5f : 0.5f, negative ? -0.5f : 1.5f, salt + 1000);
        harness_random_floats(beta, (size_t)cols, negative ? -2.0f : -1.0f, negative ? -1.0f : 1.0f, salt + 2000);
        words = negative ? N_("negative gamma and beta") : N_("random gamma and beta");
    }
    if (v == RMSNORM) memset(beta, 0, (size_t)cols * sizeof *beta);
    return words;
}

/* Case k of the covering set on variant v: its rows of its values (fresh from the seed), weights and eps, d_in
 * and d_out its offset past a 16-byte boundary. */
static void expect_case(enum variant v, const harness_cover *cover, size_t k, uint64_t salt)
{
    harness_half_kind kind = out_kind(v);
    int rows = (int)harness_case_number(cover, k, "rows"), cols = (int)harness_case_number(cover, k, "cols");
    size_t n = (size_t)rows * (size_t)cols, offset = (size_t)harness_case_number(cover, k, "offset");
    float eps = (float)harness_case_number(cover, k, "eps");
    uint16_t *h = harness_alloc(n * sizeof *h);
    float *gamma = harness_alloc((size_t)cols * sizeof *gamma), *beta = harness_alloc((size_t)cols * sizeof *beta);
    const char *weights = case_weights(cover, k, v, gamma, beta, cols, salt);
    char input[600], *at = input, *end = input + sizeof input;
    const char *name = harness_half_name(kind);
    int constant = harness_case_is(cover, k, "values", "constant");
    float lo = -2.0f, hi = 2.0f;
    if (harness_case_is(cover, k, "values", "mean-1000")) lo = 999.0f, hi = 1001.0f;
    if (harness_case_is(cover, k, "values", "mean-minus-1000")) lo = -1001.0f, hi = -999.0f;
    if (constant) lo = -1000.0f, hi = 1000.0f;
    if (harness_case_is(cover, k, "values", "tiny-variance") && v != RMSNORM) {
        /* 1 + j / 1024, j from 0 to 3: fp16 holds them exactly, and their variance is about 1.2e-6 */
        int *j = harness_alloc(n * sizeof *j);
        harness_random_ints(j, n, 0, 3, salt);
        for (size_t i = 0; i < n; i++) h[i] = harness_float_to_half(kind, 1.0f + j[i] / 1024.0f);
        free(j);
        at += snprintf(at, end - at, "%s", _("fp16 values 1 + j / 1024, j from 0 to 3 (a variance near 1e-6)"));
    } else {
        /* RMSNorm's tiny rows: values in [-0.002, 0.002), a mean of squares near 1.3e-6 */
        if (harness_case_is(cover, k, "values", "tiny-variance")) lo = -0.002f, hi = 0.002f;
        harness_random_halves(kind, h, n, lo, hi, salt);
        for (size_t i = 0; constant && i < n; i++) h[i] = h[i - i % cols];
        const char *format = constant ? _("%s rows of one value each, in [%g, %g)") : _("%s values in [%g, %g)");
        at += snprintf(at, end - at, format, name, (double)lo, (double)hi);
    }
    at += snprintf(at, end - at, ", %s", _(weights));
    if (offset) snprintf(at, end - at, _(", d_in and d_out %zu bytes past a 16-byte boundary"), offset);
    expect_norm(v, h, gamma, beta, rows, cols, eps, offset, input);
    free(h);
    free(gamma);
    free(beta);
}

static void run_case(const harness_cover *cover, size_t k, uint64_t salt, const void *variant)
{
    expect_case(*(const enum variant *)variant, cover, k, salt);
}

static void every_case(enum variant v, uint64_t salt)
{
    harness_cover_run(&SPACE, NULL, run_case, salt, &v);
}

START_TEST(test_ex15_two_pass) { every_case(TWO_PASS, 10); }
END_TEST

START_TEST(test_ex15_welford) { every_case(WELFORD, 20000); }
END_TEST

START_TEST(test_ex15_rmsnorm) { every_case(RMSNORM, 40000); }
END_TEST

/* Values 1000 +- 1 (fp16 holds them in steps of 1/2): E[x^2] - E[x]^2 subtracts two numbers near a million
 * to find one near 0.3. */
START_TEST(test_ex15_large_mean)
{
    expect_random(TWO_PASS, 4, 1024, 999.0f, 1001.0f, 70);
    expect_random(WELFORD, 4, 1024, 999.0f, 1001.0f, 71);
    expect_random(TWO_PASS, 4, 257, -1001.0f, -999.0f, 72);
    expect_random(WELFORD, 4, 257, -1001.0f, -999.0f, 73);
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
    expect_norm(TWO_PASS, h, gamma, beta, rows, cols, EPS, 0, input);
    expect_norm(WELFORD, h, gamma, beta, rows, cols, EPS, 0, input);
    for (int i = 0; i < rows * cols; i++) h[i] = 0;   /* bf16 zeros */
    memset(beta, 0, cols * sizeof *beta);
    expect_norm(RMSNORM, h, gamma, beta, rows, cols, EPS, 0, _("rows of 300 zeros"));
    free(h);
    free(gamma);
    free(beta);
}
END_TEST

/* bf16 rows of 16384 values in [0, 1): with 256 threads each thread's sum of squares reaches about 20,
 * where bf16's spacing is 1/8: a bf16 accumulator drops most of each new square. */
START_TEST(test_ex15_rmsnorm_long_rows)
{
    expect_random(RMSNORM, 2, 16384, 0.0f, 1.0f, 76);
}
END_TEST

/* More rows than the GPU holds at once (1024 warps of a row each, 128 blocks of 256 on the emulator's 16 SMs),
 * and a row of 100003 (391 values a thread); the declared rows (checker/spaces/ex15.def) try the lengths around
 * each multiple. */
START_TEST(test_ex15_shapes)
{
    expect_random(WELFORD, 1029, 3, -2.0f, 2.0f, 80);
    expect_random(TWO_PASS, 1029, 3, -2.0f, 2.0f, 81);
    expect_random(RMSNORM, 1029, 3, -2.0f, 2.0f, 82);
    expect_random(WELFORD, 1, 100003, -2.0f, 2.0f, 83);
    expect_random(TWO_PASS, 1, 100003, -2.0f, 2.0f, 84);
    expect_random(RMSNORM, 1, 100003, -2.0f, 2.0f, 85);
}
END_TEST

/* Welford's point: the row is read twice (once for the statistics, once to write), not three times.
 * Counted on the emulator in the bytes the loads ask for (harness_expect_reads). */
START_TEST(test_ex15_welford_reads_twice)
{
    const int rows = 64, cols = 1024;
    emu_metrics m;
    backend_take_metrics(&m);   /* forget what came before */
    expect_random(WELFORD, rows, cols, -2.0f, 2.0f, 90);
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
        {N_("core: LayerNorm in two passes, on every declared row: lengths, eps, weights, offsets, far from 0"),
         test_ex15_two_pass, NEEDS_DEVICE},
        {N_("core: LayerNorm with Welford's one pass, on every declared row"), test_ex15_welford, NEEDS_DEVICE},
        {N_("core: RMSNorm of bf16 rows, on every declared row"), test_ex15_rmsnorm, NEEDS_DEVICE},
        {N_("concept: a large mean (1000 +- 1), where E[x^2] - E[x]^2 cancels"), test_ex15_large_mean, NEEDS_DEVICE},
        {N_("edges: rows of equal values (variance 0) and rows of zeros"), test_ex15_constant_rows, NEEDS_DEVICE},
        {N_("concept: long bf16 rows, where a bf16 sum of squares stops growing"), test_ex15_rmsnorm_long_rows,
         NEEDS_DEVICE},
        {N_("sizes: 1029 rows of 3, and a row of 100003"), test_ex15_shapes, NEEDS_DEVICE},
        {N_("concept: Welford's form reads each row twice"), test_ex15_welford_reads_twice, NEEDS_EMULATOR},
        {0},
    };
    const harness_exercise ex = {"15", N_("LayerNorm and RMSNorm: mean and variance in one pass, with Welford"), "exercises/15-layernorm/lesson.md",
                                 tests, &SPACE};
    return harness_run(&ex, argc, argv);
}
