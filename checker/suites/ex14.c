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

static const char SHIFT_HINT[] = N_("Is the row's max subtracted before exp? exp(100) is beyond float's 3.4e38, "
                                   "and exp(-200) is 0.");
static const char SUM_HINT[] = N_("Is every exp(x - max) of the row added once to the sum that every thread "
                                 "divides by, and does every thread get the whole row's sum?");
static const char ROW_HINT[] = N_("Does each block handle exactly its row, d_in + row * cols, and does every "
                                 "thread write each entry it read, d_out + row * cols + c?");

/* ---- The bound ------------------------------------------------------------------------------------------
 * Relative to each output, ((3.5 (|x_i - m| + R) + 6 L + 16) u + out) plus what flushing may lose near zero
 * (harness_rows.c derives it): R is the row's range, L = ceil(cols / 32) + 12 additions per value, u = 2^-24,
 * out the output's own rounding. A sum without the max overflows to inf (or underflows to 0); a sum that is
 * not rescaled is off by factors of e^(R). */

static void run_softmax(enum variant v, const float *x, const uint16_t *h16, int rows, int cols, size_t offset,
                        double *got, unsigned char *unwritten, uint16_t *got16);
static void softmax_reference(enum variant v, const float *x, int rows, int cols, double *want, double *tol);

/* ---- Known mistakes: the outputs each gives on the test's input (harness_diagnose) -------------------------
 * Computed in float, as the kernels compute, so that an exp that overflows or underflows does so here too. */

typedef struct softmax_case {
    enum variant v;
    const float *x;
    int rows, cols;
} softmax_case;

/* The softmax of one row with the shift m: exp(x - m) / sum exp(x - m), in float. */
static void shifted_softmax(const float *row, int cols, float m, double *out)
{
    float s = 0;
    for (int c = 0; c < cols; c++) s += expf(row[c] - m);
    for (int c = 0; c < cols; c++) out[c] = expf(row[c] - m) / s;
}

static float row_max(const float *row, int cols)
{
    float m = -INFINITY;
    for (int c = 0; c < cols; c++) m = fmaxf(m, row[c]);
    return m;
}

/* The max as an integer atomicMax of the floats' bits finds it: over the entries (block 0) or over each
 * thread's own max (threads t, t + block, ...), on int or unsigned, starting from the bits of `start`. */
static float bits_max(const float *row, int cols, int block, int as_unsigned, float start)
{
    float best = start;
    for (int t = 0; t < (block ? block : cols); t++) {
        float v = block ? -INFINITY : row[t];
        for (int c = t; block && c < cols; c += block) v = fmaxf(v, row[c]);
        if (block && t >= cols) continue;
        int32_t a, b;
        memcpy(&a, &v, 4);
        memcpy(&b, &best, 4);
        if (as_unsigned ? (uint32_t)a > (uint32_t)b : a > b) best = v;
    }
    return best;
}

/* The shift each row's softmax takes: 0 the max left out, 1 the max started at 0, 2 to 5 the max of
 * bits_max (2: int from -inf, 3: int over the entries, 4: unsigned over the entries, 5: int over the
 * threads' maxes, 6: unsigned over them; block for the last two). */
static void softmax_shifted_by(const softmax_case *sc, int shift, int block, double *out)
{
    static const float lowest_int = -0.0f;   /* its bits, 0x80000000, are INT_MIN */
    for (int r = 0; r < sc->rows; r++) {
        const float *row = sc->x + (size_t)r * sc->cols;
        float m = shift == 0 ? 0.0f
                : shift == 1 ? fmaxf(0.0f, row_max(row, sc->cols))
                : shift == 2 ? bits_max(row, sc->cols, 0, 0, -INFINITY)
                : bits_max(row, sc->cols, shift >= 5 ? block : 0, shift == 4 || shift == 6,
                           shift == 4 || shift == 6 ? 0.0f : lowest_int);
        shifted_softmax(row, sc->cols, m, out + (size_t)r * sc->cols);
    }
}

static int model_no_max(const void *ctx, int param, double *out)
{
    (void)param;
    softmax_shifted_by(ctx, 0, 0, out);
    return 1;
}

static int model_max_from_zero(const void *ctx, int param, double *out)
{
    (void)param;
    softmax_shifted_by(ctx, 1, 0, out);
    return 1;
}

/* param: the shift (2 to 4) of softmax_shifted_by. */
static int model_bits_max(const void *ctx, int shift, double *out)
{
    softmax_shifted_by(ctx, shift, 0, out);
    return 1;
}

static int model_bits_max_threads(const void *ctx, int block, double *out)
{
    softmax_shifted_by(ctx, 5, block, out);
    return 1;
}

static int model_bits_max_threads_unsigned(const void *ctx, int block, double *out)
{
    softmax_shifted_by(ctx, 6, block, out);
    return 1;
}

/* Thread t of a block of `block` threads takes the entries t, t + block, ...: each thread's (max, sum). */
typedef struct pair { float m, d; } pair;

static pair thread_pair(const float *row, int cols, int t, int block, int rescale)
{
    pair p = {-INFINITY, 0.0f};
    for (int c = t; c < cols; c += block) {
        float v = row[c];
        if (v > p.m) {
            p.d = rescale ? p.d * expf(p.m - v) + 1.0f : p.d + 1.0f;
            p.m = v;
        } else if (v != -INFINITY) {
            p.d += expf(v - p.m);
        }
    }
    return p;
}

/* The row's softmax from the threads' pairs, combined with (how 0) or without (1) rescaling each sum to the
 * larger max, after each thread's own loop rescaled (rescale 1) or did not (0). */
static void softmax_of_pairs(const softmax_case *sc, int block, int rescale, int combine_rescales, double *out)
{
    for (int r = 0; r < sc->rows; r++) {
        const float *row = sc->x + (size_t)r * sc->cols;
        float m = row_max(row, sc->cols), d = 0;
        for (int t = 0; t < block; t++) {
            pair p = thread_pair(row, sc->cols, t, block, rescale);
            if (p.m != -INFINITY) d += combine_rescales ? p.d * expf(p.m - m) : p.d;
        }
        for (int c = 0; c < sc->cols; c++) out[(size_t)r * sc->cols + c] = expf(row[c] - m) / d;
    }
}

static int model_online_no_rescale(const void *ctx, int block, double *out)
{
    const softmax_case *sc = ctx;
    if (sc->v == TWO_PASS) return 0;
    softmax_of_pairs(sc, block, 0, 1, out);
    return 1;
}

static int model_combine_no_rescale(const void *ctx, int block, double *out)
{
    const softmax_case *sc = ctx;
    if (sc->v == TWO_PASS) return 0;
    softmax_of_pairs(sc, block, 1, 0, out);
    return 1;
}

/* A combine with no case for a part that saw no finite entry: exp(-inf - (-inf)) is a NaN, and the
 * all-reduce hands it to the whole row. */
static int model_combine_empty(const void *ctx, int block, double *out)
{
    const softmax_case *sc = ctx;
    if (sc->v == TWO_PASS) return 0;
    for (int r = 0; r < sc->rows; r++) {
        const float *row = sc->x + (size_t)r * sc->cols;
        int empty = 0;
        for (int t = 0; t < block && !empty; t++) empty = thread_pair(row, sc->cols, t, block, 1).m == -INFINITY;
        if (!empty) shifted_softmax(row, sc->cols, row_max(row, sc->cols), out + (size_t)r * sc->cols);
        else for (int c = 0; c < sc->cols; c++) out[(size_t)r * sc->cols + c] = NAN;
    }
    return 1;
}

/* The same combine in an all-reduce that fills the lanes past the block's last warp with the identity, as the
 * reference's does: with fewer than 32 warps, (-inf, 0) meets (-inf, 0) in every row. (With 32 warps there
 * are no such lanes: model_combine_empty says it.) */
static int model_combine_empty_padded(const void *ctx, int block, double *out)
{
    const softmax_case *sc = ctx;
    if (sc->v == TWO_PASS || block >= 1024) return 0;
    for (size_t i = 0; i < (size_t)sc->rows * sc->cols; i++) out[i] = NAN;
    return 1;
}

/* An online update that takes the new max first, m = max(m, x), then rescales by exp(old m - m) and adds
 * exp(x - m): for a -inf that comes before the thread's first finite entry both are exp(-inf - (-inf)), a NaN,
 * which stays in the thread's sum, and the all-reduce hands it to the whole row. (A thread whose entries are
 * all -inf keeps a NaN beside m = -inf, which combine() passes over, so masks at the end of a row hide it.) */
static int model_inf_first(const void *ctx, int block, double *out)
{
    const softmax_case *sc = ctx;
    if (sc->v == TWO_PASS) return 0;
    for (int r = 0; r < sc->rows; r++) {
        const float *row = sc->x + (size_t)r * sc->cols;
        int nan = 0;
        for (int t = 0; t < block && !nan; t++) {
            int seen_inf = 0;
            for (int c = t; c < sc->cols && !nan; c += block) {
                nan = seen_inf && row[c] != -INFINITY;
                seen_inf |= row[c] == -INFINITY;
            }
        }
        if (!nan) shifted_softmax(row, sc->cols, row_max(row, sc->cols), out + (size_t)r * sc->cols);
        else for (int c = 0; c < sc->cols; c++) out[(size_t)r * sc->cols + c] = NAN;
    }
    return 1;
}

/* A max that starts at a finite "very negative" value, -param (an attention mask's -10000), instead of -inf: on
 * a row below it the shift is that value, not the max. */
static int model_max_from_finite(const void *ctx, int param, double *out)
{
    const softmax_case *sc = ctx;
    for (int r = 0; r < sc->rows; r++) {
        const float *row = sc->x + (size_t)r * sc->cols;
        shifted_softmax(row, sc->cols, fmaxf(-(float)param, row_max(row, sc->cols)), out + (size_t)r * sc->cols);
    }
    return 1;
}

/* exp(x - m) computed as exp2(x log2(e) - m log2(e)), one FMA, with m log2(e) rounded to float: the exponent is
 * then off by up to half of float's spacing at m log2(e) (1/128 at a max of 10^5), where x - m is exact near the
 * max. param: which of the sum (bit 0) and the outputs (bit 1) take their exp so; the others take exp(x - m). */
static int model_exp2_from_zero(const void *ctx, int param, double *out)
{
    const softmax_case *sc = ctx;
    const float log2e = 1.4426950408889634f;
    for (int r = 0; r < sc->rows; r++) {
        const float *row = sc->x + (size_t)r * sc->cols;
        float m = row_max(row, sc->cols), mlog = m * log2e, s = 0;
        for (int c = 0; c < sc->cols; c++) s += param & 1 ? exp2f(fmaf(row[c], log2e, -mlog)) : expf(row[c] - m);
        for (int c = 0; c < sc->cols; c++)
            out[(size_t)r * sc->cols + c] = (param & 2 ? exp2f(fmaf(row[c], log2e, -mlog)) : expf(row[c] - m)) / s;
    }
    return 1;
}

/* A block all-reduce whose result is not kept: each thread of `block` goes on with its own entries' value,
 * own: 1 its max, 2 its sum, 3 both. */
static void softmax_own(const softmax_case *sc, int block, int own, double *out)
{
    pair *p = harness_alloc((size_t)block * sizeof *p);
    for (int r = 0; r < sc->rows; r++) {
        const float *row = sc->x + (size_t)r * sc->cols;
        float row_m = row_max(row, sc->cols), total = 0;
        for (int t = 0; t < block; t++) p[t] = thread_pair(row, sc->cols, t, block, 1);
        for (int c = 0; c < sc->cols; c++) total += expf(row[c] - (own & 1 ? p[c % block].m : row_m));
        for (int t = 0; t < block && t < sc->cols; t++) {
            float m = own & 1 ? p[t].m : row_m, s = 0;
            for (int c = t; c < sc->cols; c += block) s += expf(row[c] - m);
            for (int c = t; c < sc->cols; c += block)
                out[(size_t)r * sc->cols + c] = expf(row[c] - m) / (own & 2 ? s : total);
        }
    }
    free(p);
}

static int model_own_pair(const void *ctx, int block, double *out) { softmax_own(ctx, block, 3, out); return 1; }
static int model_own_sum(const void *ctx, int block, double *out) { softmax_own(ctx, block, 2, out); return 1; }
static int model_own_max(const void *ctx, int block, double *out) { softmax_own(ctx, block, 1, out); return 1; }

/* Every block reads row 0: the row's offset is missing from the input pointer. */
static int model_row_zero(const void *ctx, int param, double *out)
{
    const softmax_case *sc = ctx;
    (void)param;
    for (int r = 0; r < sc->rows; r++) shifted_softmax(sc->x, sc->cols, row_max(sc->x, sc->cols), out + (size_t)r * sc->cols);
    return sc->rows > 1;
}

static const char NO_MAX[] = N_("they are what a softmax without the max gives: exp(x) itself overflows to inf for x "
                               "above 88.7 (and underflows to 0 below -104), and so does the sum");
static const char MAX_FROM_ZERO[] = N_("they are what a softmax gives whose max starts at 0: on a row of negative "
                                      "values the shift stays 0, every exp(x) underflows to 0, and so does the sum "
                                      "(0 / 0 is NaN)");
static const char MAX_FROM_ZERO_HINT[] = N_("Where does each thread's max start? What is the max of a row of values "
                                           "around -250 if it starts at 0, and what is exp(-250) in float?");
static const char OWN[] = N_("they are what each thread computes from its own entries alone: a block_allreduce's "
                            "result was not kept, so a thread went on with its own max or sum, not the row's");
static const char OWN_HINT[] = N_("block_allreduce returns the row's value in every thread: does every thread use "
                                 "what it returns (p = block_allreduce(p, ...)), for the max and for the sum?");

static const char BITS_MAX[] = N_("they are what a softmax gives whose max compares the floats' bits as integers "
                                  "(an atomicMax on __float_as_int): that order is backwards for negative floats "
                                  "(and -inf's bits beat them all), so on a row of negative values the shift was "
                                  "not the max, and exp(x - shift) overflowed");
static const char BITS_MAX_HINT[] = N_("Which is larger, -1.0f or -2.0f, and which of their bit patterns is the "
                                       "larger int? Can an integer atomicMax find the max of negative floats, or "
                                       "does the max need fmaxf in a reduction?");

static const char EXP2[] = N_("they are what exp(x - max) gives computed as exp2(x * log2(e) - max * log2(e)): the "
                              "exponent comes from numbers the size of max * log2(e), rounded to float's spacing "
                              "there (1/64 near 10^5 * log2(e)), where x - max, taken first, is exact near the max");
static const char EXP2_HINT[] = N_("Is x - max taken first, and only then multiplied by log2(e) (or passed to exp)? "
                                   "What is float's spacing near 144270, and what does an exponent off by half of "
                                   "it do to exp?");

static const harness_bug_model MODELS[] = {
    {"no-max", model_no_max, 0, NO_MAX, SHIFT_HINT, 1},
    {"max-from-zero", model_max_from_zero, 0, MAX_FROM_ZERO, MAX_FROM_ZERO_HINT, 2},
    {"max-by-int-bits", model_bits_max, 2, BITS_MAX, BITS_MAX_HINT, 2},
    {"max-by-int-bits", model_bits_max, 3, BITS_MAX, BITS_MAX_HINT, 2},
    {"max-by-int-bits", model_bits_max, 4, BITS_MAX, BITS_MAX_HINT, 2},
    HARNESS_EACH_BLOCK("max-by-int-bits", model_bits_max_threads, BITS_MAX, BITS_MAX_HINT, 2),
    HARNESS_EACH_BLOCK("max-by-int-bits", model_bits_max_threads_unsigned, BITS_MAX, BITS_MAX_HINT, 2),
    HARNESS_EACH_BLOCK("online-no-rescale", model_online_no_rescale,
                       N_("they are what an online loop gives that takes a new max without multiplying the sum "
                          "so far by exp(old max - new max)"),
                       N_("When a new x is larger than the running max, the sum so far was a sum of exp(x - old "
                          "max): what must it be multiplied by?"), 3),
    HARNESS_EACH_BLOCK("combine-no-rescale", model_combine_no_rescale,
                       N_("they are what a combine gives that adds the two sums without rescaling each one to the "
                          "larger max: the sums were taken against different maxes"),
                       N_("When two pairs are combined, to which max is each sum rescaled, and by what factor?"), 3),
    HARNESS_EACH_BLOCK("combine-empty-nan", model_combine_empty,
                       N_("they are what a combine gives that has no case for a part with no entry: rows with a "
                          "thread that saw none (shorter than the block, or masked) combine (-inf, 0) with "
                          "(-inf, 0), and exp(-inf - (-inf)) is a NaN"),
                       N_("What does a thread that saw no finite entry (m = -inf) contribute, and what does "
                          "combine() compute when one side, or both, is (-inf, 0)?"), 4),
    HARNESS_EACH_BLOCK("combine-empty-nan", model_combine_empty_padded,
                       N_("they are what a combine gives that has no case for a part with no entry: the block's "
                          "all-reduce fills the lanes past its last warp with (-inf, 0), and exp(-inf - (-inf)) "
                          "is a NaN, in every row"),
                       N_("What does a thread that saw no finite entry (m = -inf) contribute, and what does "
                          "combine() compute when one side, or both, is (-inf, 0)?"), 4),
    HARNESS_EACH_BLOCK("online-inf-first", model_inf_first,
                       N_("they are what an online update gives that meets a -inf before a thread's first finite "
                          "entry: with the running max still -inf, exp(-inf - (-inf)) is a NaN, it stays in the "
                          "thread's sum, and the all-reduce hands it to the whole row"),
                       N_("A thread's first entry is -inf (a masked position) and a finite one comes later: what "
                          "does your update compute for the -inf while the running max is still -inf?"), 8),
    {"max-from-finite", model_max_from_finite, 10000,
     N_("they are what a softmax gives whose max starts at -10000 instead of -inf: on a row of values below it "
        "the shift stays -10000, every exp(x + 10000) underflows to 0, and so does the sum (0 / 0 is NaN)"),
     N_("Where does each thread's max start? A row may hold values far below -10000: which start is below every "
        "float a row can hold?"), 2},
    {"exp2-from-zero", model_exp2_from_zero, 3, EXP2, EXP2_HINT, 1},
    {"exp2-from-zero", model_exp2_from_zero, 2, EXP2, EXP2_HINT, 1},
    {"exp2-from-zero", model_exp2_from_zero, 1, EXP2, EXP2_HINT, 1},
    HARNESS_EACH_BLOCK("not-all-reduced", model_own_pair, OWN, OWN_HINT, 7),
    HARNESS_EACH_BLOCK("not-all-reduced", model_own_sum, OWN, OWN_HINT, 7),
    HARNESS_EACH_BLOCK("not-all-reduced", model_own_max, OWN, OWN_HINT, 7),
    {"row-zero-everywhere", model_row_zero, 0,
     N_("every row holds the softmax of row 0: each block read row 0, so the row's offset, row * cols, is missing "
        "from the input pointer"), N_("Which row does block b read: is d_in moved on by blockIdx.x * cols?"), 0},
    {0},
};

/* Outputs that several mistakes give alike (a row of negative values is NaN without the max, with a max
 * from 0 and with a max of the floats' bits alike) are told apart on five more rows: values in [100, 200)
 * (x 10 in fp16), [-20, -10), [-300, -200), [-5, 5) with -inf in its first 76 (a -inf before a finite entry
 * in the first thread's part, and no thread's part all -inf, for blocks of 32 to 1024), and far below -10000
 * (in fp16, [-60000, -50000)). */
static void settle(enum variant v, harness_diagnosis *d)
{
    if (d->ncandidates < 2) return;
    enum { ROWS = 5, COLS = 1100 };
    const float far = v == ONLINE_F16 ? 50000.0f : 100000.0f;
    const float lo[ROWS] = {100, -20, -300, -5, -far - 10000}, hi[ROWS] = {200, -10, -200, 5, -far};
    float *x = harness_alloc(ROWS * COLS * sizeof *x);
    uint16_t *h16 = harness_alloc(ROWS * COLS * sizeof *h16);
    for (int r = 0; r < ROWS; r++) harness_random_floats(x + r * COLS, COLS, lo[r], hi[r], 900 + r);
    for (int c = 0; c < COLS - 1024; c++) x[3 * COLS + c] = -INFINITY;   /* no thread of 1024 or fewer left empty */
    for (int i = 0; i < ROWS * COLS; i++) {
        h16[i] = harness_float_to_half(HARNESS_F16, v == ONLINE_F16 && i < COLS ? x[i] * 10 : x[i]);
        if (v == ONLINE_F16) x[i] = harness_half_to_float(HARNESS_F16, h16[i]);
    }
    double *want = harness_alloc(ROWS * COLS * sizeof *want), *have = harness_alloc(ROWS * COLS * sizeof *have);
    double *tol = harness_alloc(ROWS * COLS * sizeof *tol);
    unsigned char *unwritten = harness_alloc(ROWS * COLS);
    run_softmax(v, x, h16, ROWS, COLS, 0, have, unwritten, NULL);
    harness_forget_findings();   /* this run is the checker's question, not a test */
    softmax_reference(v, x, ROWS, COLS, want, tol);
    softmax_case sc = {v, x, ROWS, COLS};
    harness_output o = {ROWS, COLS, want, have, unwritten, tol, 0, 1e-3};
    harness_narrow(&o, &sc, d);
    free(x), free(h16), free(want), free(have), free(tol), free(unwritten);
}

/* ---- Running one softmax ----------------------------------------------------------------------------------- */

/* Runs the variant on rows x cols values x (float; for fp16 their bits are h16), with d_in and d_out `offset`
 * bytes past a 16-byte boundary: what came back as doubles, and where the poison was left; the fp16 bits too
 * (got16, when not NULL). */
static void run_softmax(enum variant v, const float *x, const uint16_t *h16, int rows, int cols, size_t offset,
                        double *got, unsigned char *unwritten, uint16_t *got16)
{
    size_t n = (size_t)rows * (size_t)cols;
    dev_buffer din, dout;
    if (v == ONLINE_F16) {
        din = dev_input_halves(h16, n, harness_float_to_half(HARNESS_F16, 60000.0f), offset);
        dout = dev_output_halves_at(n, offset);
        softmax_online_f16(dev_ptr(&din), dev_ptr(&dout), rows, cols);
    } else {
        float guard = HARNESS_GUARD_FLOAT, poison = harness_poison_float();
        din = dev_input(x, n, sizeof *x, &guard, offset);
        dout = dev_output_at(n, sizeof *x, &poison, offset);
        if (v == TWO_PASS) softmax_two_pass(dev_ptr(&din), dev_ptr(&dout), rows, cols);
        else softmax_online(dev_ptr(&din), dev_ptr(&dout), rows, cols);
    }
    char what[256];
    snprintf(what, sizeof what, "%s(rows = %d, cols = %d)", NAME[v], rows, cols);
    harness_after_launch(what);
    void *raw = harness_alloc(n * (v == ONLINE_F16 ? 2 : 4));
    dev_fetch(&dout, raw);
    for (size_t i = 0; i < n; i++) {
        uint16_t bits = v == ONLINE_F16 ? ((uint16_t *)raw)[i] : 0;
        float f = v == ONLINE_F16 ? harness_half_to_float(HARNESS_F16, bits) : ((float *)raw)[i];
        got[i] = f;
        unwritten[i] = v == ONLINE_F16 ? bits == HARNESS_POISON_HALF_BITS : harness_is_poison_float(f);
        if (got16) got16[i] = bits;
    }
    free(raw);
    dev_expect_guards_intact(&dout, what);
    dev_expect_unchanged(&din, what);
    dev_free(&din);
    dev_free(&dout);
}

/* The softmax of each row in double, and the bound of each output. */
static void softmax_reference(enum variant v, const float *x, int rows, int cols, double *want, double *tol)
{
    double tiny = v == ONLINE_F16 ? ldexp(1.0, -25) : ldexp(1.0, -126);
    for (int r = 0; r < rows; r++) {
        const float *row = x + (size_t)r * cols;
        double m = -INFINITY, lo = INFINITY, s = 0;
        for (int c = 0; c < cols; c++) {
            if (row[c] > m) m = row[c];
            if (isfinite(row[c]) && row[c] < lo) lo = row[c];
        }
        for (int c = 0; c < cols; c++) s += exp((double)row[c] - m);
        for (int c = 0; c < cols; c++) {
            size_t i = (size_t)r * cols + c;
            want[i] = exp((double)row[c] - m) / s;
            double shift = m - row[c] == INFINITY ? 0 : m - row[c];
            tol[i] = harness_softmax_tolerance(shift, m - lo, 0, cols, v == ONLINE_F16) * want[i] + tiny;
        }
    }
}

/* Runs the variant on rows x cols values x (float; for fp16 their bits are h16), and checks each output
 * against the softmax in double; a failure says what the outputs are (harness_diagnose). input describes the
 * values for messages. */
static void expect_softmax(enum variant v, const float *x, const uint16_t *h16, int rows, int cols,
                           size_t offset, const char *input)
{
    size_t n = (size_t)rows * (size_t)cols;
    double *want = harness_alloc(n * sizeof *want), *have = harness_alloc(n * sizeof *have);
    double *tol = harness_alloc(n * sizeof *tol);
    unsigned char *unwritten = harness_alloc(n);
    uint16_t *got16 = harness_alloc(n * sizeof *got16);
    run_softmax(v, x, h16, rows, cols, offset, have, unwritten, got16);
    softmax_reference(v, x, rows, cols, want, tol);
    size_t bad = 0;
    while (bad < n && fabs(have[bad] - want[bad]) <= tol[bad]) bad++;
    if (bad < n) {
        softmax_case sc = {v, x, rows, cols};
        harness_output o = {(size_t)rows, (size_t)cols, want, have, unwritten, tol, 0, 1e-3};
        harness_diagnosis d;
        harness_diagnose(&o, MODELS, &sc, &d);
        settle(v, &d);
        int r = (int)(bad / cols), c = (int)(bad % cols);
        double total = 0;
        for (int k = 0; k < cols; k++) total += have[(size_t)r * cols + k];
        char what[256], value[64], sum[64];
        snprintf(what, sizeof what, "%s(rows = %d, cols = %d)", NAME[v], rows, cols);
        harness_describe_float((float)total, sum, sizeof sum);
        if (v == ONLINE_F16) harness_describe_half(HARNESS_F16, got16[bad], value, sizeof value);
        else harness_describe_float((float)have[bad], value, sizeof value);
        if (unwritten[bad]) snprintf(value, sizeof value, "%s", _("the poison NaN"));
        const char *hint = harness_diagnosis_hint(&d, ROW_HINT, SUM_HINT);
        harness_fail(hint, _("%s of %s: d_out[%d][%d] should be %.9g within %.3g, but it is %s (the row's outputs "
                             "add up to %s): %s."), what, input, r, c, want[bad], tol[bad], value, sum, d.words);
    }
    free(want);
    free(have);
    free(tol);
    free(unwritten);
    free(got16);
}

/* Random rows of values in [lo, hi): float for the float variants, fp16 (and their exact float values)
 * for softmax_online_f16. */
static void expect_random(enum variant v, int rows, int cols, float lo, float hi, uint64_t salt)
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
    expect_softmax(v, x, h16, rows, cols, 0, input);
    free(x);
    free(h16);
}

/* The same rows, given as floats that fp16 holds exactly (masks and sorted rows). */
static void expect_given(enum variant v, const float *x, int rows, int cols, const char *input)
{
    size_t n = (size_t)rows * (size_t)cols;
    uint16_t *h16 = NULL;
    if (v == ONLINE_F16) {
        h16 = harness_alloc(n * sizeof *h16);
        for (size_t i = 0; i < n; i++) h16[i] = harness_float_to_half(HARNESS_F16, x[i]);
    }
    expect_softmax(v, x, h16, rows, cols, 0, input);
    free(h16);
}

/* ---- The declared inputs (checker/spaces/ex14.def): every function on every case of the covering set ------ */

#define HARNESS_SPACE_FILE "../spaces/ex14.def"
#include "../harness/harness_space_table.h"

/* Where the -inf of a case sit in each row (its `mask`), as a learner reads it. `lead` masks the row's first
 * values: 1, the first one; -1, a random run; -2, the first half, so that every thread whose part of the row
 * goes on past it (a lane of a warp, a thread of a block, whatever the stride or the pack) takes a -inf before
 * a finite value: where an online update meets -inf first, exp(-inf - (-inf)) is a NaN. */
enum { RUN = -1, HALF = -2 };
static const struct mask_kind {
    const char *name, *words;
    int lead;
} MASKS[] = {
    {"none", NULL, 0},
    {"first", N_("-inf as each row's first value"), 1},
    {"leading", N_("a run of -inf at the start of each row"), RUN},
    {"threads-first", N_("-inf in the first half of each row (every thread whose part goes on past it meets a -inf "
                         "before a finite value)"), HALF},
    {"trailing", N_("-inf after a random number of each row's first values (a causal mask)"), 0},
    {"inside", N_("a run of -inf inside each row"), 0},
    {"one-left", N_("-inf everywhere but at one value of each row"), 0},
    {"scattered", N_("-inf at about half of each row's values, at random"), 0},
};

static const struct mask_kind *mask_of(const harness_cover *cover, size_t k)
{
    for (size_t m = 1; m < sizeof MASKS / sizeof MASKS[0]; m++)
        if (harness_case_is(cover, k, "mask", MASKS[m].name)) return &MASKS[m];
    return &MASKS[0];
}

/* Puts the mask's -inf in each row of x, leaving at least one finite value in each (a row of -inf only has no
 * softmax). Returns 0 where the rows are too short for it (a run inside needs 3 values, the others 2). */
static int apply_mask(const struct mask_kind *mask, float *x, int rows, int cols, uint64_t salt)
{
    if (mask->name == MASKS[0].name || cols < 2 || (cols < 3 && !strcmp(mask->name, "inside"))) return 0;
    int *pick = harness_alloc(((size_t)rows * cols + 2 * (size_t)rows) * sizeof *pick);
    harness_random_ints(pick, (size_t)rows * cols + 2 * (size_t)rows, 0, 1 << 30, salt);
    for (int r = 0; r < rows; r++) {
        float *row = x + (size_t)r * cols;
        int a = pick[2 * r] % (cols - 1), b = pick[2 * r + 1] % cols, from = 0, to = 0, finite = 0;
        int lead = mask->lead == HALF ? cols / 2 : mask->lead == RUN ? 1 + a : mask->lead;
        if (lead) to = lead < cols ? lead : cols - 1;
        else if (!strcmp(mask->name, "trailing")) from = 1 + b, to = cols;
        else if (!strcmp(mask->name, "inside")) from = 1 + a / 2, to = from + 1 + b % (cols - 2 - a / 2);
        for (int c = from; c < to && c < cols; c++) row[c] = -INFINITY;
        for (int c = 0; c < cols && !strcmp(mask->name, "one-left"); c++)
            if (c != b) row[c] = -INFINITY;
        for (int c = 0; c < cols && !strcmp(mask->name, "scattered"); c++)
            if (pick[2 * (size_t)rows + (size_t)r * cols + c] & 1) row[c] = -INFINITY;
        for (int c = 0; c < cols; c++) finite += isfinite(row[c]);
        if (!finite) row[b] = 1.0f;
    }
    free(pick);
    return 1;
}

/* Case k of the covering set on variant v: its rows of its values (fresh from the seed), its mask, d_in and d_out
 * its offset past a 16-byte boundary (floats: the offset rounded down to a multiple of 4). */
static void expect_case(enum variant v, const harness_cover *cover, size_t k, uint64_t salt)
{
    int rows = (int)harness_case_number(cover, k, "rows"), cols = (int)harness_case_number(cover, k, "cols");
    size_t n = (size_t)rows * (size_t)cols, offset = (size_t)harness_case_number(cover, k, "offset");
    int half = v == ONLINE_F16;
    if (!half) offset &= ~(size_t)3;
    /* the values: a max of 10^5 or -10^5 (fp16: 30000, where its spacing is 16), far past any "very negative"
     * start a max may take instead of -inf (-10000 is a common one), or rows of one value */
    float lo = -10.0f, hi = 10.0f, far = half ? 30000.0f : 100000.0f, span = half ? 320.0f : 20.0f;
    if (harness_case_is(cover, k, "values", "large-max")) lo = far, hi = far + span;
    if (harness_case_is(cover, k, "values", "large-negative")) lo = -far - span, hi = -far;
    float *x = harness_alloc(n * sizeof *x);
    harness_random_floats(x, n, lo, hi, salt);
    int constant = harness_case_is(cover, k, "values", "constant");
    for (size_t i = 0; i < n; i++) {
        if (constant) x[i] = x[i - i % cols];
        if (half) x[i] = harness_half_to_float(HARNESS_F16, harness_float_to_half(HARNESS_F16, x[i]));
    }
    const struct mask_kind *mask = mask_of(cover, k);
    int masked = apply_mask(mask, x, rows, cols, salt + 1);
    uint16_t *h16 = NULL;
    if (half) {
        h16 = harness_alloc(n * sizeof *h16);
        for (size_t i = 0; i < n; i++) h16[i] = harness_float_to_half(HARNESS_F16, x[i]);
    }
    char input[600], *at = input, *end = input + sizeof input;
    const char *format = constant ? _("%s rows of one value each, in [%g, %g)") : _("%s values in [%g, %g)");
    at += snprintf(at, end - at, format, half ? "fp16" : "float", (double)lo, (double)hi);
    if (masked) at += snprintf(at, end - at, ", %s", _(mask->words));
    if (offset) snprintf(at, end - at, _(", d_in and d_out %zu bytes past a 16-byte boundary"), offset);
    expect_softmax(v, x, h16, rows, cols, offset, input);
    free(x);
    free(h16);
}

static void run_case(const harness_cover *cover, size_t k, uint64_t salt, const void *variant)
{
    expect_case(*(const enum variant *)variant, cover, k, salt);
}

static void every_case(enum variant v, uint64_t salt)
{
    harness_cover_run(&SPACE, NULL, run_case, salt, &v);
}

START_TEST(test_ex14_two_pass) { every_case(TWO_PASS, 10); }
END_TEST

START_TEST(test_ex14_online) { every_case(ONLINE, 20000); }
END_TEST

START_TEST(test_ex14_online_f16) { every_case(ONLINE_F16, 40000); }
END_TEST

/* exp(x) overflows float for x > 88.7, and the sum with it; exp(x - max) cannot. fp16 holds up to 65504. */
START_TEST(test_ex14_huge_values)
{
    expect_random(TWO_PASS, 3, 1000, 100.0f, 200.0f, 70);
    expect_random(ONLINE, 3, 1000, 100.0f, 200.0f, 71);
    expect_random(ONLINE_F16, 3, 1000, 1000.0f, 2000.0f, 72);
}
END_TEST

/* expf(x) underflows to 0 for x below -103.97 (below -87.34 it is a subnormal, past -103.97 it rounds to
 * 0): a sum of them is 0, and 0 / 0 is NaN. */
START_TEST(test_ex14_very_negative)
{
    expect_random(TWO_PASS, 3, 1000, -300.0f, -200.0f, 73);
    expect_random(ONLINE, 3, 1000, -300.0f, -200.0f, 74);
    expect_random(ONLINE_F16, 3, 1000, -300.0f, -200.0f, 75);
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
    expect_given(TWO_PASS, x, rows, cols, input);
    expect_given(ONLINE, x, rows, cols, input);
    expect_given(ONLINE_F16, x, rows, cols, input);
    free(x);
}
END_TEST

/* Rows sorted up (each value a new max: the online sum is rescaled at every step) and down (never). */
START_TEST(test_ex14_sorted_rows)
{
    const int rows = 2, cols = 3000;
    float *x = harness_alloc((size_t)rows * cols * sizeof *x);
    for (int c = 0; c < cols; c++)
        x[c] = harness_half_to_float(HARNESS_F16, harness_float_to_half(HARNESS_F16, -8.0f + 16.0f * c / cols));
    for (int c = 0; c < cols; c++) x[cols + c] = x[cols - 1 - c];   /* once the rising row is all there */
    const char *input = _("a row rising from -8 to 8, then the same row falling");
    expect_given(ONLINE, x, rows, cols, input);
    expect_given(ONLINE_F16, x, rows, cols, input);
    expect_given(TWO_PASS, x, rows, cols, input);
    free(x);
}
END_TEST

/* More rows than the GPU holds at once (1024 warps of a row each, 128 blocks of 256 on the emulator's 16 SMs),
 * and the longest row the lesson promises (391 values a thread); the declared rows (checker/spaces/ex14.def)
 * try the lengths around each multiple. */
START_TEST(test_ex14_shapes)
{
    expect_random(ONLINE, 1029, 3, -10.0f, 10.0f, 80);
    expect_random(TWO_PASS, 1029, 3, -10.0f, 10.0f, 81);
    expect_random(ONLINE, 1, 100003, -10.0f, 10.0f, 83);
    expect_random(TWO_PASS, 1, 100003, -10.0f, 10.0f, 84);
    expect_random(ONLINE_F16, 1, 100003, -10.0f, 10.0f, 85);
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
    expect_softmax(ONLINE, x, NULL, rows, cols, 0, _("float values in [-10, 10)"));
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
        {N_("core: two reductions, on every declared row: lengths, -inf anywhere, offsets, far from 0"),
         test_ex14_two_pass, NEEDS_DEVICE},
        {N_("core: online, on every declared row: lengths, -inf anywhere, offsets, far from 0"), test_ex14_online,
         NEEDS_DEVICE},
        {N_("core: online in fp16, in and out, on every declared row"), test_ex14_online_f16, NEEDS_DEVICE},
        {N_("concept: values whose exp overflows without the max"), test_ex14_huge_values, NEEDS_DEVICE},
        {N_("concept: values whose exp underflows to 0 without the max"), test_ex14_very_negative, NEEDS_DEVICE},
        {N_("edges: -inf entries of a causal mask, and a row of one value"), test_ex14_masked, NEEDS_DEVICE},
        {N_("concept: a rising row, which rescales the online sum at every step"), test_ex14_sorted_rows,
         NEEDS_DEVICE},
        {N_("sizes: 1029 rows of 3, and a row of 100003"), test_ex14_shapes, NEEDS_DEVICE},
        {N_("concept: the online form reads each row twice"), test_ex14_online_reads_twice, NEEDS_EMULATOR},
        {0},
    };
    const harness_exercise ex = {"14", N_("Softmax over rows: two reductions, then online"), "exercises/14-softmax/lesson.md",
                                 tests, &SPACE};
    return harness_run(&ex, argc, argv);
}
