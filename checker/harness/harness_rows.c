/* harness_rows.c - what Part III's row operations share (exercises 13 to 16): the references of one row in
 * double, the bounds a float kernel meets, and the concept tests' reading of how often the rows were read. */
#include "harness.h"

#include <math.h>
#include <stdio.h>

/* L, the additions a value meets on its way to a row's total (exercise 13): ceil(cols / 32) in its lane, then
 * the shuffles and the combines of warps and blocks. */
static double adds_per_value(int cols) { return ceil(cols / 32.0) + 12; }

void harness_row_moments(const float *x, int cols, harness_moments *s)
{
    s->mean = s->var = s->abs_mean = s->ms = 0;
    s->max = -INFINITY;
    s->min_finite = INFINITY;
    for (int c = 0; c < cols; c++) {
        s->mean += x[c], s->abs_mean += fabs(x[c]), s->ms += (double)x[c] * x[c];
        if (x[c] > s->max) s->max = x[c];
        if (isfinite(x[c]) && x[c] < s->min_finite) s->min_finite = x[c];
    }
    s->mean /= cols, s->abs_mean /= cols, s->ms /= cols;
    for (int c = 0; c < cols; c++) s->var += ((double)x[c] - s->mean) * ((double)x[c] - s->mean);
    s->var /= cols;
}

/* Softmax (exercise 14): y_i = e^(x_i - m) / S, S = sum_j e^(x_j - m), m the row's max. In float, with u = 2^-24:
 * x_i - m rounds (an error of |x_i - m| u in the exponent, so a relative error of |x_i - m| u in its exp); the
 * exp itself errs by at most 2 + 1.2 |x_i - m| ulps for __expf (2 ulps for expf), an ulp being at most 2u; the
 * online form rescales sums by exp(m_old - m_new) and multiplies, at most once per value and combine, with the
 * same kind of errors, whose exponents add up to at most R, the row's range (max - min over its finite values);
 * the sum of S's positive terms errs by at most L u relative; the division (or the reciprocal and the product)
 * rounds twice. A kernel that computes exp(x - m) as 2^(x log2(e) - m log2(e)) rounds m log2(e) too: an error
 * of up to |m| u in every exponent, and twice that where a partial result is rescaled (`scale`, |m|). So,
 * relative to y_i:
 *     |result - y_i| <= ((3.5 (|x_i - m| + R + scale) + 6 L + 16) u + out) y_i + tiny
 * where out is the output's own rounding (u for float, 2^-11 for fp16), and tiny is what a result near zero may
 * lose to flushing or to fp16's subnormals: 2^-126 for float, 2^-25 for fp16 (the caller adds it). A sum
 * without the max overflows to inf (or underflows to 0); a sum that is not rescaled is off by factors of
 * e^(R). */
double harness_softmax_tolerance(double shift, double range, double scale, int cols, int f16_out)
{
    double u = HARNESS_FLOAT_UNIT, computed = (3.5 * (shift + range + scale) + 6 * adds_per_value(cols) + 16) * u;
    double out = f16_out ? 1.0 / 2048 : u;
    return computed + out * (1 + computed);   /* the output rounds the float result, not the exact one */
}

/* LayerNorm and RMSNorm (exercise 15). With L additions per value, for a row of mean mu, variance var and
 * mean magnitude a = mean |x|, the float statistics err by at most
 *     mean:      e_mu  = (L + 2) u a
 *     variance:  e_var = (L + 8) u var + 2 (k + 4) u |mu| sqrt(var) + e_mu^2,   k = ceil(cols / 32)
 * The two-pass form's sum of squares of x - mean errs by L u var, and a mean off by e_mu adds e_mu^2 (the
 * cross term sums to zero). Welford's running mean is off by up to j u |mu| after j of a lane's k values, and
 * each update multiplies that by a distance of about sqrt(var): k u |mu| sqrt(var) in the variance, and the
 * combines add as much again. The normalised value z = (x - mu) / sqrt(var + eps) is then off by at most
 * e_mu r + |z| (e_var / (2 (var + eps)) + 6u), with r = 1 / sqrt(var + eps) (6u: rsqrtf's 2 ulps and the
 * roundings of the subtraction and the products), and y = z gamma + beta by |gamma| times that, plus u |y| for
 * the last product and sum, plus the output's own rounding of the float result: 2^-11 of it plus 2^-25 for
 * fp16, 2^-8 plus 2^-134 for bf16. E[x^2] - E[x]^2 errs by up to L u E[x^2] instead: its last sums are near
 * cols * 10^6 for values 1000 +- 1, rounded to spacings of 64 and more, about 0.06 of a variance of 0.33 for
 * rows of 1024. RMSNorm: the mean of squares errs by (L + 2) u, relatively, so z = x * r by (L / 2 + 8) u |z|. */
void harness_norm_expected(int rms, const harness_moments *s, double x, double gamma, double beta, int cols,
                           double eps, harness_half_kind out, double *want, double *tol)
{
    const double u = HARNESS_FLOAT_UNIT, adds = adds_per_value(cols);
    const int out_bits = out == HARNESS_BF16 ? 8 : 11, out_tiny = out == HARNESS_BF16 ? -134 : -25;
    double computed;
    if (rms) {
        double z = x / sqrt(s->ms + eps);
        *want = z * gamma;
        computed = fabs(gamma) * (adds / 2 + 8) * u * fabs(z) + u * fabs(*want);
    } else {
        double r = 1 / sqrt(s->var + eps), z = (x - s->mean) * r;
        double e_mu = (adds + 2) * u * s->abs_mean, lane_values = ceil(cols / 32.0);
        double e_var = (adds + 8) * u * s->var + 2 * (lane_values + 4) * u * fabs(s->mean) * sqrt(s->var) + e_mu * e_mu;
        double e_z = e_mu * r + fabs(z) * (e_var / (2 * (s->var + eps)) + 6 * u);
        *want = z * gamma + beta;
        computed = fabs(gamma) * e_z + u * (fabs(z * gamma) + fabs(*want));
    }
    /* the float result is within `computed` of want; the 16-bit output rounds it by half a spacing */
    *tol = computed + ldexp(fabs(*want) + computed, -out_bits) + ldexp(1.0, out_tiny);
}

/* Row statistics (exercise 13): every 16-bit value is exact as a float, so only the additions round: a sum errs
 * by at most L u sum|x| (Higham, "The accuracy of floating point summation", 1993). The mean divides by cols
 * (one more rounding); the sum of squares has no cancellation (every term is positive), so its relative error
 * is at most L u, the square root halves that, and sqrtf adds one. */
void harness_row_stats_expected(const float *row, int cols, double want[2], double tol[2])
{
    const double u = HARNESS_FLOAT_UNIT, adds = adds_per_value(cols);
    double abs_sum, sum = harness_sum_floats(row, (size_t)cols, &abs_sum);
    double squares = harness_dot_floats(row, row, (size_t)cols, NULL);
    want[0] = sum / cols;
    want[1] = sqrt(squares);
    tol[0] = adds * u * abs_sum / cols + u * fabs(want[0]);
    tol[1] = (adds / 2 + 2) * u * want[1];
}

/* How often the rows were read, from the bytes the lanes asked for (each read of a row asks for its bytes
 * once, however the lanes share them out), and how well: the sectors that moved for them. A kernel with one
 * thread per row asks for the row once but moves a sector for every few bytes it uses; that is not a second
 * read, and the message says which of the two it saw. Rows of whole 32-byte sectors: a row that starts inside
 * a sector moves the rest of it too. */
void harness_expect_reads(const emu_metrics *m, uint64_t bytes, int reads, uint64_t extra, const char *what,
                          const char *reads_hint, const char *scatter_hint)
{
    uint64_t asked = m->global_read_bytes, moved = 32 * (m->global_load_sectors + m->global_async_sectors);
    char want[64], seen[64];
    harness_times((uint64_t)reads, want, sizeof want);
    double times = bytes ? (double)(asked > extra ? asked - extra : 0) / (double)bytes : 0;
    if (asked > extra + reads * bytes + bytes / 10) {
        harness_times((uint64_t)floor(times + 0.5), seen, sizeof seen);
        harness_fail(_(reads_hint),
                     _("%s asked global memory for %llu bytes: the rows' %llu bytes %.2f times over (besides %llu "
                       "bytes of weights and such), so each row was read about %s, where %s is enough."),
                     what, (unsigned long long)asked, (unsigned long long)bytes, times, (unsigned long long)extra,
                     seen, want);
    }
    /* rows of whole sectors (the concept tests' shapes): what moved is what was asked for, plus a half */
    if (moved > asked + asked / 2)
        harness_fail(_(scatter_hint),
                     _("%s read each row %s, as it should, but its loads moved %llu bytes (sectors of 32) for the "
                       "%llu they asked for, %.1f times as many: the lanes of a warp read addresses far apart, so "
                       "each sector serves few of them. The results are right; the kernel is slower than it needs "
                       "to be."),
                     what, want, (unsigned long long)moved, (unsigned long long)asked, (double)moved / (double)asked);
}
