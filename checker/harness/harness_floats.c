/* harness_floats.c - what the float exercises (09, 10) share: guarded float buffers, a poison NaN that
 * no computation produces, references in compensated double, and comparisons that read as sentences. */
#include "harness.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

float harness_poison_float(void)
{
    uint32_t bits = HARNESS_POISON_FLOAT_BITS;
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

int harness_is_poison_float(float x)
{
    uint32_t bits;
    memcpy(&bits, &x, sizeof bits);
    return bits == HARNESS_POISON_FLOAT_BITS;
}

dev_buffer dev_input_floats(const float *h, size_t n, float guard)
{
    return dev_input(h, n, sizeof(float), &guard, 0);
}

dev_buffer dev_output_floats(size_t n)
{
    float poison = harness_poison_float();
    return dev_output(n, sizeof(float), &poison);
}

int harness_same_float(float expected, float actual)
{
    if (isnan(expected) || isnan(actual)) return isnan(expected) && isnan(actual);
    return expected == actual;
}

void harness_describe_float(float x, char *buf, size_t len)
{
    if (harness_is_poison_float(x)) snprintf(buf, len, "%s", _("the poison NaN"));
    else if (isnan(x)) snprintf(buf, len, "NaN");
    else if (isinf(x)) snprintf(buf, len, "%sinf", x < 0 ? "-" : "+");
    else snprintf(buf, len, "%.9g", (double)x);
}

void harness_explain_float(double expected, float actual, float guard, char *buf, size_t len)
{
    /* The guard is blamed only when it can have been read: on the emulator, after it saw a read outside
     * [0, n) (its finding then says where); on a GPU, when the numbers fit. */
    int guard_seen = guard != 0.0f && harness_guard_read_seen();
    if (harness_is_poison_float(actual)) {
        snprintf(buf, len, "%s", _("it still holds the poison NaN (payload 0xDEAD) that the checker put there: "
                                   "nothing was written to it"));
        return;
    }
    uint32_t bits;
    memcpy(&bits, &actual, sizeof bits);
    int written = harness_poison_bytes_written(bits, HARNESS_POISON_FLOAT_BITS, 4);
    if (written > 0) {
        harness_explain_partial_poison(bits, HARNESS_POISON_FLOAT_BITS, 4, written, buf, len);
        return;
    }
    if (guard_seen && (actual == guard || actual == -guard)) {
        snprintf(buf, len, _("it is %g, the guard value the checker keeps just outside the input: an element "
                             "outside [0, n) was read"),
                 (double)actual);
        return;
    }
    if (isinf(expected) && (actual == FLT_MAX || actual == -FLT_MAX)) {
        const char *sign = actual < 0 ? "-" : "";
        snprintf(buf, len,
                 actual < 0 ? _("it is %sFLT_MAX, the lowest finite float, where %sinf belongs: an accumulator that "
                                "starts at %sFLT_MAX keeps that value when no element replaces it (no element at "
                                "all, or only infinities or NaNs), so its start, the identity, must be %sINFINITY")
                            : _("it is %sFLT_MAX, the highest finite float, where %sinf belongs: an accumulator "
                                "that starts at %sFLT_MAX keeps that value when no element replaces it (no element "
                                "at all, or only infinities or NaNs), so its start, the identity, must be "
                                "%sINFINITY"),
                 sign, expected < 0 ? "-" : "+", sign, expected < 0 ? "-" : "");
        return;
    }
    if (isinf(expected) && !isnan(actual) && actual != expected) {
        snprintf(buf, len,
                 isinf(actual) ? _("the opposite infinity stands where %sinf belongs: the identity, or an infinity "
                                   "of the input, was lost")
                               : _("a finite value stands where %sinf belongs: the identity, or an infinity of "
                                   "the input, was lost"),
                 expected < 0 ? "-" : "+");
        return;
    }
    if (isnan(actual) && !isnan(expected)) {
        snprintf(buf, len, "%s", _("it is NaN, but no NaN was expected: a NaN comes from inf - inf, 0 * inf or "
                                   "a value that was never written"));
        return;
    }
    if (isinf(actual) && !isinf(expected)) {
        if (guard_seen)
            snprintf(buf, len, _("it is %sinf, but the result is finite: the guard %g just outside the input "
                                 "was read"),
                     actual < 0 ? "-" : "+", (double)guard);
        else
            snprintf(buf, len, _("it is %sinf, but the result is finite: a sum overflowed, or an infinity came "
                                 "from something other than the input"),
                     actual < 0 ? "-" : "+");
        return;
    }
    if (isnan(expected) && !isnan(actual)) {
        snprintf(buf, len, _("it is %g, but a NaN in the input should have made it NaN"), (double)actual);
        return;
    }
    if (guard_seen && fabs((double)actual - expected) >= 0.5 * fabs((double)guard))
        snprintf(buf, len, _("it is off by about %.3g: the guard value %g that surrounds the input was read"),
                 (double)actual - expected, (double)guard);
    else
        snprintf(buf, len, _("it is off by %.6g"), (double)actual - expected);
}

/* Neumaier's compensated sum in double: keeps the rounding error of every addition in c. */
static void add_compensated(double *sum, double *c, double x)
{
    double t = *sum + x;
    if (!isfinite(t)) { *sum = t; return; } /* inf and NaN carry no rounding error to keep */
    if (fabs(*sum) >= fabs(x)) *c += (*sum - t) + x;
    else *c += (x - t) + *sum;
    *sum = t;
}

double harness_sum_floats(const float *h, size_t n, double *abs_sum)
{
    double sum = 0, c = 0, mag = 0;
    for (size_t i = 0; i < n; i++) {
        add_compensated(&sum, &c, h[i]);
        mag += fabs(h[i]);
    }
    if (abs_sum) *abs_sum = mag;
    return isfinite(sum) ? sum + c : sum;
}

double harness_dot_floats(const float *a, const float *b, size_t n, double *abs_sum)
{
    /* A product of two floats is exact in double (24 + 24 bits < 53), so only the sum rounds. */
    double sum = 0, c = 0, mag = 0;
    for (size_t i = 0; i < n; i++) {
        double p = (double)a[i] * (double)b[i];
        add_compensated(&sum, &c, p);
        mag += fabs(p);
    }
    if (abs_sum) *abs_sum = mag;
    return isfinite(sum) ? sum + c : sum;
}

/* If no term passes through more than d additions on its way to the total, the error is at most about
 * (d + 1) * u * sum |term| (Higham, "The accuracy of floating point summation", 1993, and his book's
 * chapter 3). d + 1 = 8 * (log2(n) + 1) leaves room for a grid-stride loop of a few dozen terms per thread
 * below a tree of log2(n) levels. A sum in the wrong order of elements, or of the wrong elements, is off by
 * far more: about sqrt(n) / 3 for values in [-1, 1], against a bound of about n / 2^21 here. */
double harness_tree_sum_tolerance(size_t n, double abs_sum)
{
    double levels = ceil(log2((double)n + 1)) + 1;
    return 8 * levels * HARNESS_FLOAT_UNIT * abs_sum;
}
