/* harness_space_run.c - running a suite's covering set (harness_space.c) on int inputs: the cases a test
 * checks, a case's size written against the design's multiples ("2b+1": one element past two blocks), and
 * the range its values are drawn from. */
#include "harness.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void harness_cover_run(const harness_space *s, harness_case_filter wanted, harness_case_run run, uint64_t salt,
                       const void *ctx)
{
    harness_cover c;
    harness_cover_build(s, &c);
    size_t ran = 0;
    for (size_t k = 0; k < c.cases; k++)
        if (!wanted || wanted(&c, k, ctx)) run(&c, k, salt + 16 * k, ctx), ran++;
    harness_cover_free(&c);
    /* A test that tries nothing would pass whatever the kernel does: the space and the filter disagree. */
    if (!ran) ck_abort_msg("checker: this test's filter accepts no case of the suite's covering set");
}

/* The suite's own error in a declared size: it aborts, as harness_case_number does. */
static void bad_size(const char *label, const char *dim, const char *why)
{
    fprintf(stderr, "checker: the size \"%s\" of dimension \"%s\" %s\n", label, dim, why);
    abort();
}

size_t harness_case_size(const harness_cover *c, size_t k, const char *dim, const char *units, const size_t *of)
{
    const char *label = harness_case_label(c, k, dim), *p = label;
    if (!strcmp(label, "large")) return harness_large_n();
    /* K u + C: K defaults to 1 when a unit follows, C to 0; a plain number has no unit. */
    long long times = 1, plus = 0;
    size_t unit = 1;
    if (isdigit((unsigned char)*p)) times = strtoll(p, (char **)&p, 10);
    if (isalpha((unsigned char)*p)) {
        const char *at = strchr(units, *p);
        if (!at) bad_size(label, dim, "names a unit the suite does not give");
        unit = of[at - units];
        p++;
        if (*p == '+' || *p == '-') plus = strtoll(p, (char **)&p, 10);
    }
    if (*p) bad_size(label, dim, "is not K, K u or K u + C");
    long long n = times * (long long)unit + plus;
    if (n < 0) bad_size(label, dim, "is negative for this unit");
    return (size_t)n;
}

void harness_value_range(const char *label, size_t n, int *lo, int *hi)
{
    int r = harness_safe_int_range(n);
    if (!strcmp(label, "mixed")) *lo = -r, *hi = r;
    else if (!strcmp(label, "negative")) *lo = -r, *hi = -1;
    else if (!strcmp(label, "largest")) {
        /* n values in [m - m/2, m], m = INT_MAX / n: every partial sum of them still fits in an int, and the total
         * is about INT_MAX / 2 or more. One sign: with both, the total of n values is a random walk near m sqrt(n),
         * inside a float's 24 bits for most n, and a float accumulator then often kept every digit. */
        int m = n ? (int)(INT_MAX / n) : INT_MAX;
        *lo = m - m / 2, *hi = m;
    } else {
        fprintf(stderr, "checker: no value range is called \"%s\" (mixed, negative, largest)\n", label);
        abort();
    }
}

int harness_values_are_default(size_t n, int lo, int hi)
{
    int r = harness_safe_int_range(n);
    return lo == -r && hi == r;
}

const char *harness_explain_rounding(long long expected, long long got, size_t n, int lo, int hi, char *why, size_t len)
{
    if (harness_values_are_default(n, lo, hi)) return NULL;   /* there every partial sum is exact in a float */
    double m = hi > -(double)lo ? hi : -(double)lo, diff = got > expected ? got - expected : expected - got;
    /* A float keeps 24 bits: each of n additions of partial sums up to n m may lose 2^-24 of them. Off by less
     * than one value, and inside that, the elements were all added and only low digits went. */
    if (diff == 0 || diff >= m || diff > (double)n * (double)n * m / 16777216.0) return NULL;
    harness_evidence("rounding", "off=%.0f largest=%.0f", diff, m);
    size_t used = strlen(why);
    snprintf(why + used, len - used, _("; that is less than one value, and within what a float, which keeps 24 "
                                       "bits, loses when it adds values as large as %.0f"), m);
    return _("These values need all 31 bits of an int: does any sum pass through a float, or a type narrower "
             "than int, on its way to d_out?");
}

/* ---- v1-v5: one partial per block, over the cases of "block", "n" and "values" ------------------------------ */

int partials_case_block(const harness_cover *c, size_t k) { return (int)harness_case_number(c, k, "block"); }

size_t partials_case_n(const harness_cover *c, size_t k)
{
    const size_t b = (size_t)partials_case_block(c, k);
    return harness_case_size(c, k, "n", "b", &b);
}

void partials_case_run(const harness_cover *c, size_t k, uint64_t salt, const void *spec)
{
    size_t n = partials_case_n(c, k);
    int lo, hi;
    harness_value_range(harness_case_label(c, k, "values"), n, &lo, &hi);
    expect_block_partials_in(spec, n, partials_case_block(c, k), lo, hi, salt);
}

/* The elements one block covers in case k: blockDim.x, or twice that from v3 on. */
static size_t per_block(const harness_cover *c, size_t k, const void *spec)
{
    return (size_t)partials_case_block(c, k) * (size_t)((const partials_spec *)spec)->elems_per_thread;
}

int partials_case_fewer(const harness_cover *c, size_t k, const void *spec)
{
    return partials_case_n(c, k) < per_block(c, k, spec);
}

int partials_case_not_a_multiple(const harness_cover *c, size_t k, const void *spec)
{
    size_t n = partials_case_n(c, k), b = per_block(c, k, spec);
    return n > b && n % b;
}

int partials_case_whole_blocks(const harness_cover *c, size_t k, const void *spec)
{
    return partials_case_n(c, k) % per_block(c, k, spec) == 0;
}
