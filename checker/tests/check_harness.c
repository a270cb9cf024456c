/* check_harness.c - the harness's own tests: the pieces that need no device. */
#include "../harness/harness.h"

#include <limits.h>
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

/* The first line text_fit gives for width columns. */
static void expect_first_line(const char *text, int width, const char *want)
{
    size_t next, cut = text_fit(text, strlen(text), width, &next);
    ck_assert_msg(cut == strlen(want) && !strncmp(text, want, cut), "wanted \"%s\", got \"%.*s\"", want, (int)cut, text);
}

START_TEST(test_text_fit_keeps_a_command_whole)
{
    expect_first_line("Your version is kept; `make restore ex05` puts it back.", 30, "Your version is kept;");
    expect_first_line("Your version is kept; `make restore ex05` puts it back.", 45, "Your version is kept; `make restore ex05`");
    expect_first_line("an odd ` mark alone still breaks between words", 20, "an odd ` mark alone");
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
        {"text: a command in backticks is never broken across lines", test_text_fit_keeps_a_command_whole, NEEDS_NOTHING},
        {0},
    };
    const harness_exercise self = {"harness", "the checker's own tests", "checker/README.md", tests};
    return harness_run(&self, argc, argv);
}
