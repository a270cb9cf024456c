/* harness_total.c - the check shared by the launchers that leave one total in d_out[0] (ex01, ex08, ex11). */
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What a call describes itself as in messages: the name, n, where d_in starts, the values' range when it is
 * not the usual one, which call it was. */
static void describe_call(const total_spec *spec, size_t n, const dev_buffer *in, int lo, int hi, int call,
                          char *buf, size_t len)
{
    char where[160] = "", values[96] = "";
    size_t past = (size_t)((uintptr_t)dev_ptr(in) % 16);
    if (in->offset_bytes)
        snprintf(where, sizeof where, _(", d_in %zu bytes past a 16-byte boundary"), past);
    if (!harness_values_are_default(n, lo, hi))
        /* TRANSLATORS: after a call of the learner's launcher: the range its input was drawn from. */
        snprintf(values, sizeof values, _(" on values from %d to %d"), lo, hi);
    snprintf(buf, len, "%s(n = %zu%s)%s%s", spec->name, n, where, values,
             call > 1 ? _(", called a second time,") : "");
}

/* How many elements the launcher counts: its total on n ones (placed as the input was), or -1 when it did not
 * run. A question of the checker's, asked after a wrong total that is no known subset of the input. */
static long long count_of_ones(const total_spec *spec, size_t n, size_t offset_ints)
{
    int *ones = malloc((n ? n : 1) * sizeof *ones), guard = HARNESS_GUARD_INT, got;
    if (!ones) return -1;
    for (size_t i = 0; i < n; i++) ones[i] = 1;
    dev_buffer in = dev_input(ones, n, sizeof(int), &guard, offset_ints * sizeof(int)), out = dev_output_ints(1);
    spec->launch(dev_ptr(&in), dev_ptr(&out), (int)n);
    cudaError_t err = cudaDeviceSynchronize();
    harness_forget_findings();   /* this run is the checker's question, not a test */
    dev_fetch(&out, &got);
    dev_free(&in);
    dev_free(&out);
    free(ones);
    return err == cudaSuccess && got != HARNESS_POISON_INT ? got : -1;
}

/* After a wrong total that no subset explains: what n ones give says whether elements are counted twice,
 * missed, or counted once each but are not the input's. Appends to why; returns the hint it calls for (NULL:
 * the caller's). */
static const char *explain_by_count(const total_spec *spec, size_t n, size_t offset_ints, char *why, size_t len)
{
    long long count = n ? count_of_ones(spec, n, offset_ints) : -1;
    if (count < 0) return NULL;
    size_t used = strlen(why);
    harness_evidence("ones", "count=%lld of=%zu", count, n);
    if (count > (long long)n) {
        snprintf(why + used, len - used, _("; on %zu ones it returns %lld: each element is added %.3g times on "
                                           "average, so some are read by more than one thread"),
                 n, count, (double)count / (double)n);
        return _("Which threads read element i? Does each thread start at its own index in the grid and step by "
                 "the whole grid's width, so that no two threads read the same element?");
    }
    if (count < (long long)n)
        snprintf(why + used, len - used, _("; on %zu ones it returns %lld: %lld of the elements are never added"), n,
                 count, (long long)n - count);
    else
        snprintf(why + used, len - used, _("; on %zu ones it returns %zu, each element once: so the elements it adds "
                                           "are not the input's own (an index off, or another array)"), n, n);
    return NULL;
}

void expect_int_total(const total_spec *spec, size_t n, size_t offset_ints, int calls, uint64_t salt,
                      const char *wrong_hint)
{
    int range = harness_safe_int_range(n);
    expect_int_total_in(spec, n, offset_ints, calls, -range, range, salt, wrong_hint);
}

void expect_int_total_in(const total_spec *spec, size_t n, size_t offset_ints, int calls, int lo, int hi,
                         uint64_t salt, const char *wrong_hint)
{
    int *h_in = malloc((n ? n : 1) * sizeof *h_in);
    ck_assert_msg(h_in != NULL, _("The checker ran out of host memory."));
    harness_random_ints(h_in, n, lo, hi, salt);
    int expected = (int)harness_sum_ints(h_in, 0, n);

    int guard = HARNESS_GUARD_INT;
    dev_buffer in = dev_input(h_in, n, sizeof(int), &guard, offset_ints * sizeof(int));
    dev_buffer out = dev_output_ints(1);
    for (int call = 1; call <= calls; call++) {
        char what[320];
        describe_call(spec, n, &in, lo, hi, call, what, sizeof what);
        spec->launch(dev_ptr(&in), dev_ptr(&out), (int)n);
        harness_after_launch(what);
        int got;
        dev_fetch(&out, &got);
        if (got != expected) {
            char why[1024];
            int explained = harness_explain_total(h_in, n, expected, got, why, sizeof why);
            /* Not zeroed: the poison plus the sum, or on a second call twice the sum. (The poison alone is
             * "nothing written", even when the sum is 0.) */
            int not_zeroed = got != HARNESS_POISON_INT &&
                             ((unsigned)got - (unsigned)expected == (unsigned)HARNESS_POISON_INT ||
                              (call > 1 && (unsigned)got == 2u * (unsigned)expected && expected != 0));
            if (not_zeroed) harness_evidence("not-zeroed", NULL);
            if (not_zeroed && call > 1 && (unsigned)got == 2u * (unsigned)expected)
                snprintf(why, sizeof why, "%s", _("it is twice the sum: d_out[0] still held the first call's total, "
                                                  "and this call added to it"));
            const char *hint = not_zeroed                 ? spec->zero_hint
                               : wrong_hint                 ? wrong_hint
                               : got == HARNESS_POISON_INT ? spec->nothing_hint
                                                            : spec->wrong_hint;
            /* Every element added, low digits lost: values too large for a float on the way; else count them. */
            const char *rounded = !explained && !not_zeroed
                                      ? harness_explain_rounding(expected, got, n, lo, hi, why, sizeof why) : NULL;
            const char *counted = !explained && !not_zeroed && !rounded
                                      ? explain_by_count(spec, n, offset_ints, why, sizeof why) : NULL;
            harness_fail(rounded ? rounded : counted ? counted : _(hint), _("%s should leave %d in d_out[0], but it left %d: %s."), what,
                         expected, got, why);
        }
        dev_expect_guards_intact(&out, what);
    }
    dev_expect_unchanged(&in, spec->name);
    dev_free(&in);
    dev_free(&out);
    free(h_in);
}
