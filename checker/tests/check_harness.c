/* check_harness.c - the harness's own tests: the pieces that need no device. */
#include "../harness/harness.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

START_TEST(test_harness_explain_names_the_poison)
{
    char why[256];
    harness_explain_int(42, HARNESS_POISON_INT, why, sizeof why);
    ck_assert_msg(strstr(why, "poison") != NULL, "poison not named: %s", why);
}
END_TEST

START_TEST(test_harness_explain_counts_guard_reads)
{
    char why[256];
    harness_explain_int(42, 42 + 3 * HARNESS_GUARD_INT, why, sizeof why);
    ck_assert_msg(strstr(why, "3 elements outside") != NULL, "guard reads not counted: %s", why);
    harness_explain_int(42, 42 - HARNESS_GUARD_INT, why, sizeof why);
    ck_assert_msg(strstr(why, "1 element outside") != NULL, "a negative guard count: %s", why);
}
END_TEST

START_TEST(test_harness_explain_spots_an_accumulator_not_zeroed)
{
    char why[256];
    harness_explain_int(-17, (int)((unsigned)-17 + (unsigned)HARNESS_POISON_INT), why, sizeof why);
    ck_assert_msg(strstr(why, "set to 0") != NULL, "not recognised: %s", why);
}
END_TEST

START_TEST(test_harness_explain_gives_a_plain_difference)
{
    char why[256];
    harness_explain_int(100, 93, why, sizeof why);
    ck_assert_msg(strcmp(why, "it is off by -7") == 0, "unexpected: %s", why);
}
END_TEST

START_TEST(test_harness_sizes_are_ascending_and_end_at_the_limit)
{
    size_t sizes[64];
    int count = harness_sizes(5000, sizes);
    ck_assert_int_gt(count, 10);
    ck_assert_uint_eq(sizes[0], 1);
    for (int i = 1; i < count; i++) ck_assert_uint_gt(sizes[i], sizes[i - 1]);
    ck_assert_uint_eq(sizes[count - 1], 5000);
    const size_t must[] = {31, 32, 33, 255, 256, 257, 4099};
    for (size_t k = 0; k < sizeof must / sizeof must[0]; k++) {
        int found = 0;
        for (int i = 0; i < count; i++) found |= sizes[i] == must[k];
        ck_assert_msg(found, "size %zu missing", must[k]);
    }
}
END_TEST

START_TEST(test_harness_safe_range_cannot_overflow)
{
    const size_t ns[] = {1, 1000, 1u << 20, 1u << 24, (size_t)INT_MAX};
    for (size_t k = 0; k < sizeof ns / sizeof ns[0]; k++) {
        long long r = harness_safe_int_range(ns[k]);
        ck_assert_msg(r >= 1 && r * (long long)ns[k] <= INT_MAX, "n = %zu, range %lld", ns[k], r);
    }
}
END_TEST

START_TEST(test_harness_random_ints_replay_and_stay_in_range)
{
    int a[1000], b[1000];
    harness_random_ints(a, 1000, -5, 5, 7);
    harness_random_ints(b, 1000, -5, 5, 7);
    ck_assert_mem_eq(a, b, sizeof a);
    int seen_lo = 0, seen_hi = 0;
    for (int i = 0; i < 1000; i++) {
        ck_assert_int_ge(a[i], -5);
        ck_assert_int_le(a[i], 5);
        seen_lo |= a[i] == -5;
        seen_hi |= a[i] == 5;
    }
    ck_assert_msg(seen_lo && seen_hi, "the ends of the range are never drawn");
    harness_random_ints(b, 1000, -5, 5, 8);
    ck_assert_msg(memcmp(a, b, sizeof a) != 0, "another salt gives the same data");
}
END_TEST

/* Tidies a copy of text and compares it with want. */
static void expect_tidy(const char *text, const char *want)
{
    char buf[256];
    size_t len = strlen(text);
    memcpy(buf, text, len);
    len = text_tidy(buf, len);
    buf[len] = '\0';
    ck_assert_str_eq(buf, want);
}

START_TEST(test_text_tidy_joins_chinese_and_keeps_columns)
{
    expect_tidy("第二次调用时， 应当", "第二次调用时，应当");   /* fragments joined by one space */
    expect_tidy("线程块 256 个", "线程块 256 个");            /* Chinese beside a number keeps its space */
    expect_tidy("one two", "one two");
    expect_tidy("（v6）     你的     参考", "（v6）     你的     参考");   /* a table's columns */
}
END_TEST


/* ---- Evidence (harness_evidence.c) ---- */

/* 1 when the evidence lines hold line (a whole line). */
static int has_evidence(const char *line)
{
    char want[256];
    snprintf(want, sizeof want, "%s%s\n", HARNESS_EVIDENCE_PREFIX, line);
    return strstr(harness_evidence_lines(), want) != NULL;
}

START_TEST(test_evidence_lines_are_said_once_and_can_be_dropped)
{
    harness_evidence("poison", "rows=1");
    harness_evidence("poison", "rows=1");
    harness_evidence("factor", "k=%d", 2);
    ck_assert_str_eq(harness_evidence_lines(), "evidence: poison rows=1\nevidence: factor k=2\n");
    harness_evidence_drop("poison");
    ck_assert_str_eq(harness_evidence_lines(), "evidence: factor k=2\n");
}
END_TEST

START_TEST(test_evidence_poison_in_every_other_row)
{
    enum { ROWS = 6, COLS = 4 };
    double want[ROWS * COLS], got[ROWS * COLS];
    unsigned char unwritten[ROWS * COLS] = {0};
    for (int i = 0; i < ROWS * COLS; i++) {
        want[i] = got[i] = i;
        if ((i / COLS) % 2) unwritten[i] = 1, got[i] = NAN;
    }
    harness_output o = {ROWS, COLS, want, got, unwritten, NULL, 1e-6, 0};
    harness_diagnosis d;
    harness_diagnose(&o, NULL, NULL, &d);
    ck_assert_int_eq(d.seen, SEEN_UNWRITTEN);
    ck_assert_msg(has_evidence("poison rows=every-other-odd count=12 of=24"), "%s", harness_evidence_lines());
    ck_assert_msg(strstr(d.words, "every other row (1, 3, 5, ...)") != NULL, "%s", d.words);
}
END_TEST

START_TEST(test_evidence_the_columns_past_a_multiple_of_the_block)
{
    enum { ROWS = 3, COLS = 300 };
    static double want[ROWS * COLS], got[ROWS * COLS];
    static unsigned char unwritten[ROWS * COLS];
    for (int i = 0; i < ROWS * COLS; i++) want[i] = got[i] = 1, unwritten[i] = i % COLS >= 256;
    harness_output o = {ROWS, COLS, want, got, unwritten, NULL, 0, 0};
    harness_diagnosis d;
    harness_diagnose(&o, NULL, NULL, &d);
    ck_assert_msg(has_evidence("poison cols=256- rows=all count=132 of=900"), "%s", harness_evidence_lines());
    ck_assert_msg(strstr(d.words, "the columns from 256 on (256 is a multiple of 256)") != NULL, "%s", d.words);
}
END_TEST

START_TEST(test_evidence_a_factor_and_a_row_factor)
{
    double want[6] = {1, 2, 3, 4, 5, 6}, got[6] = {2, 4, 6, 8, 10, 12};
    harness_output o = {2, 3, want, got, NULL, NULL, 1e-9, 0};
    harness_diagnosis d;
    harness_diagnose(&o, NULL, NULL, &d);
    ck_assert_int_eq(d.seen, SEEN_FACTOR);
    ck_assert_msg(has_evidence("factor k=2"), "%s", harness_evidence_lines());
    double rows[6] = {0.5, 1, 1.5, 12, 15, 18};
    o.got = rows;
    harness_diagnose(&o, NULL, NULL, &d);
    ck_assert_int_eq(d.seen, SEEN_ROW_FACTOR);
    ck_assert_msg(d.factor == 0.5 && d.offset == 3, "factors %g and %g", d.factor, d.offset);
}
END_TEST

START_TEST(test_evidence_just_past_the_bound_is_not_a_wrong_algorithm)
{
    double want[4] = {1, 1, 1, 1}, got[4] = {1.003, 1, 0.998, 1};
    harness_output o = {1, 4, want, got, NULL, NULL, 0.001, 0};
    harness_diagnosis d;
    harness_diagnose(&o, NULL, NULL, &d);
    ck_assert_int_eq(d.seen, SEEN_NEAR_BOUND);
    ck_assert_msg(d.ratio > 2.9 && d.ratio < 3.1, "ratio %g", d.ratio);
}
END_TEST

/* Two models for the test below: the values doubled (param 2) or negated (param -1). */
static int model_times(const void *ctx, int k, double *out)
{
    const double *in = ctx;
    for (int i = 0; i < 3; i++) out[i] = k * in[i];
    return 1;
}

static const harness_bug_model TIMES[] = {
    {"negated", model_times, -1, "negated", "hint -", 4},
    {"doubled", model_times, 2, "doubled", "hint 2", 5},
    {"zero", model_times, 0, "zero", "hint 0", 0},
    {0},
};

START_TEST(test_evidence_a_bug_model_is_named_and_two_are_told_apart)
{
    double in[3] = {1, 2, 3}, want[3] = {1, 2, 3}, got[3] = {2, 4, 6};
    harness_output o = {1, 3, want, got, NULL, NULL, 0, 0};
    harness_diagnosis d;
    harness_diagnose(&o, TIMES, in, &d);
    ck_assert_msg(d.seen == SEEN_MODEL && !strcmp(d.model->name, "doubled") && !d.also, "seen %d", d.seen);
    ck_assert_msg(has_evidence("bug-model name=doubled hint=5"), "%s", harness_evidence_lines());
    ck_assert_str_eq(d.hint, "hint 2");
    /* 0 doubled and 0 negated are alike: a second input settles it. */
    double zeros[3] = {0, 0, 0}, zero_want[3] = {1, 1, 1};
    o.want = zero_want, o.got = zeros;
    harness_diagnose(&o, TIMES, zeros, &d);
    ck_assert_int_eq(d.ncandidates, 3);
    ck_assert_ptr_null(d.hint);
    harness_output again = {1, 3, want, got, NULL, NULL, 0, 0};
    harness_narrow(&again, in, &d);
    ck_assert_msg(d.ncandidates == 1 && !strcmp(d.model->name, "doubled"), "%d left", d.ncandidates);
    ck_assert_msg(!has_evidence("bug-model name=negated hint=4"), "%s", harness_evidence_lines());
}
END_TEST

START_TEST(test_evidence_which_elements_a_total_holds)
{
    int h[8] = {5, -3, 8, 1, 9, -4, 2, 7}, total = 25;
    char why[256];
    ck_assert(harness_explain_subset(h, 8, 5 - 3 + 8 + 1, why, sizeof why));
    ck_assert_msg(strstr(why, "the first 4 elements only") != NULL, "%s", why);
    ck_assert(harness_explain_subset(h, 8, total - 5, why, sizeof why));
    ck_assert_msg(strstr(why, "but the first one") != NULL, "%s", why);
    ck_assert(harness_explain_subset(h, 8, 5 + 8 + 9 + 2, why, sizeof why));
    ck_assert_msg(strstr(why, "elements 0, 2, 4, ... only, one in 2") != NULL, "%s", why);
    ck_assert(harness_explain_subset(h, 8, 32 * total, why, sizeof why));
    ck_assert_msg(strstr(why, "32 times the sum") != NULL, "%s", why);
    ck_assert(!harness_explain_subset(h, 8, 1001, why, sizeof why));
}
END_TEST

int main(int argc, char **argv)
{
    const harness_test tests[] = {
        {"explain: the poison value is named", test_harness_explain_names_the_poison, NEEDS_NOTHING},
        {"explain: reads of guard values are counted", test_harness_explain_counts_guard_reads, NEEDS_NOTHING},
        {"explain: an accumulator not zeroed is recognised", test_harness_explain_spots_an_accumulator_not_zeroed, NEEDS_NOTHING},
        {"explain: any other error is a plain difference", test_harness_explain_gives_a_plain_difference, NEEDS_NOTHING},
        {"sizes: ascending, with the edge sizes, ending at the limit", test_harness_sizes_are_ascending_and_end_at_the_limit, NEEDS_NOTHING},
        {"inputs: the safe range keeps every sum inside an int", test_harness_safe_range_cannot_overflow, NEEDS_NOTHING},
        {"inputs: random ints replay, stay in range and depend on the salt", test_harness_random_ints_replay_and_stay_in_range, NEEDS_NOTHING},
        {"text: one space between Chinese characters goes, a table's columns stay", test_text_tidy_joins_chinese_and_keeps_columns, NEEDS_NOTHING},
        {"evidence: a line is said once, and a tag's lines can be dropped", test_evidence_lines_are_said_once_and_can_be_dropped, NEEDS_NOTHING},
        {"evidence: the poison in every other row", test_evidence_poison_in_every_other_row, NEEDS_NOTHING},
        {"evidence: the columns past a multiple of the block", test_evidence_the_columns_past_a_multiple_of_the_block, NEEDS_NOTHING},
        {"evidence: one factor, and a factor per row", test_evidence_a_factor_and_a_row_factor, NEEDS_NOTHING},
        {"evidence: just past the bound is a rounding, not a wrong algorithm", test_evidence_just_past_the_bound_is_not_a_wrong_algorithm, NEEDS_NOTHING},
        {"evidence: a bug model is named, and two alike are told apart", test_evidence_a_bug_model_is_named_and_two_are_told_apart, NEEDS_NOTHING},
        {"evidence: which elements a wrong total holds", test_evidence_which_elements_a_total_holds, NEEDS_NOTHING},
        {0},
    };
    const harness_exercise self = {"harness", "the checker's own tests", "checker/README.md", tests};
    return harness_run(&self, argc, argv);
}
