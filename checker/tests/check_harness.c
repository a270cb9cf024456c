/* check_harness.c - the harness's own tests: the pieces that need no device. */
#include "../harness/harness.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

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

static int has_evidence(const char *line);

START_TEST(test_harness_explain_spots_the_poison_partly_overwritten)
{
    char why[600];
    /* cudaMemset(d_out, 0, 1): the poison's low byte cleared, left so or with the sum added to it. */
    harness_explain_int(42, (int)0xDEADBE00u, why, sizeof why);
    ck_assert_msg(strstr(why, "0xDEADBE00") && strstr(why, "1 of the value's 4 bytes was written") &&
                  !strstr(why, "off by"), "%s", why);
    harness_explain_int(-17, (int)(0xDEAD0000u - 17u), why, sizeof why);
    ck_assert_msg(strstr(why, "right sum plus") && strstr(why, "0xDEAD0000") && strstr(why, "2 of the value's"),
                  "%s", why);
    ck_assert_msg(has_evidence("poison-partial bytes=2 of=4"), "%s", harness_evidence_lines());
    ck_assert_int_eq(harness_poison_bytes_written(0xDEADBEEFu, 0xDEADBEEFu, 4), 0);
    ck_assert_int_eq(harness_poison_bytes_written(0xDE000000u, 0xDEADBEEFu, 4), 3);   /* one memset */
    ck_assert_int_eq(harness_poison_bytes_written(0xDE12AB34u, 0xDEADBEEFu, 4), 0);   /* any value */
    ck_assert_int_eq(harness_poison_bytes_written(0x7FFFu, 0x7FDEu, 2), 0);           /* a GPU's NaN */
    ck_assert_int_eq(harness_poison_bytes_written(0x7F00u, 0x7FDEu, 2), 1);
    /* A NaN that arithmetic gives (0 / 0: no payload) may be the float poison with its low 2 bytes cleared, or
     * the bf16 poison with its low byte changed: no evidence of a short write either way. */
    ck_assert_int_eq(harness_poison_bytes_written(0x7FC00000u, HARNESS_POISON_FLOAT_BITS, 4), 0);
    ck_assert_int_eq(harness_poison_bytes_written(0xFFC00000u, HARNESS_POISON_FLOAT_BITS, 4), 0);
    ck_assert_int_eq(harness_poison_bytes_written(0x7FC0u, 0x7FDEu, 2), 0);
    /* A float output's poison NaN with its low byte written, among right outputs. */
    float partial;
    uint32_t bits = HARNESS_POISON_FLOAT_BITS & 0xFFFFFF00u;
    memcpy(&partial, &bits, sizeof partial);
    double want[4] = {1, 2, 3, 4}, got[4] = {1, 2, 3, partial};
    harness_output o = {1, 4, want, got, NULL, NULL, 1e-6, 0};
    harness_diagnosis d;
    harness_diagnose(&o, NULL, NULL, &d);
    ck_assert_int_eq(d.seen, SEEN_PARTIAL_POISON);
    ck_assert_msg(strstr(d.words, "index 3") && strstr(d.words, "0x7FC0DE00"), "%s", d.words);
    ck_assert_msg(harness_diagnosis_hint(&d, NULL, NULL) == harness_partial_poison_hint(), "the byte count's question");
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
    expect_tidy("did a sum overflow?. Hint", "did a sum overflow? Hint");   /* a question, then a full stop */
    expect_tidy("是否溢出？。", "是否溢出？");
    expect_tidy("x ? y. z", "x ? y. z");
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
    /* A second input on which the kernel is right keeps the models that are right there too (zero), and
     * only those: it need not make the mistake show to tell the candidates apart. */
    harness_diagnose(&o, TIMES, zeros, &d);
    ck_assert_int_eq(d.ncandidates, 3);
    double nothing[3] = {0, 0, 0};
    harness_output right_there = {1, 3, nothing, nothing, NULL, NULL, 0, 0};
    harness_narrow(&right_there, in, &d);
    ck_assert_msg(d.ncandidates == 1 && !strcmp(d.model->name, "zero"), "%d left", d.ncandidates);
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

/* ---- The report: findings as records ------------------------------------------------------------------ */

/* A failure's message as the harness writes it in a test's process: a record's line, then plain text. */
static void message_with_race(char *buf, size_t len, int line, const char *plain, const char *hint)
{
    emu_record r;
    emu_record_init(&r, EMU_FD_RACE);
    snprintf(r.at.file, sizeof r.at.file, "ex.cu");
    r.at.line = line;
    r.at.label = EMU_LABEL_READ;
    r.other = r.at;
    r.other.line = 15;
    r.other.label = EMU_LABEL_WRITE;
    snprintf(r.kernel, sizeof r.kernel, "k");
    snprintf(r.text, sizeof r.text, "reads sdata[1] too early.");
    size_t n = emu_record_encode(&r, EMU_ENCODE_ALL, buf, len);
    snprintf(buf + n, len - n, "\n%s%s%s", plain, hint ? "\nHint: " : "", hint ? hint : "");
}

/* What the report prints between capture_start and capture_end goes to out (len bytes) instead of stdout. */
static FILE *captured;
static int saved_stdout;

static void capture_start(int expected)
{
    fflush(stdout);
    captured = tmpfile();
    ck_assert_msg(captured != NULL, "no temporary file");
    saved_stdout = dup(fileno(stdout));
    dup2(fileno(captured), fileno(stdout));
    report_begin(0);
    report_expect_tests(expected);
}

static void capture_end(char *out, size_t len)
{
    fflush(stdout);
    dup2(saved_stdout, fileno(stdout));
    close(saved_stdout);
    rewind(captured);
    size_t got = fread(out, 1, len - 1, captured);
    out[got] = '\0';
    fclose(captured);
}

/* What report_test prints for the tests (names, messages), in order, into out, in a report that expects
 * `expected` tests (the rest run after these). */
static void capture_report_of(const char *const *names, const char *const *msgs, int count, int expected, char *out,
                              size_t len)
{
    capture_start(expected);
    for (int i = 0; i < count; i++) report_test(names[i], HARNESS_FAILED, msgs[i], 10, "", "", "");
    capture_end(out, len);
}

static void capture_report(const char *const *names, const char *const *msgs, int count, char *out, size_t len)
{
    capture_report_of(names, msgs, count, count, out, len);
}

START_TEST(test_report_says_a_finding_once_and_only_the_first_hint)
{
    char first[4096], again[4096], out[8192];
    message_with_race(first, sizeof first, 22, "k(n = 1) gave its result, but the emulator found:",
                      "Is there a barrier between the load and the tree?");
    message_with_race(again, sizeof again, 22, "k(n = 2) gave its result, but the emulator found:",
                      "Does each block read its own row?");
    const char *names[] = {"core: one", "sizes: two", "sizes: three"};
    const char *msgs[] = {first, again, "k(n = 3) should be 6, but it is 5: a sum of rows that the report "
                          "cuts after two lines because it is long, and longer still, so that it needs three "
                          "lines of the report to be said in full, which a later failure does not get.\n"
                          "Hint: Does each block read its own row?"};
    capture_report_of(names, msgs, 3, 3, out, sizeof out);
    ck_assert_msg(strstr(out, "which a later failure does not get") != NULL, "room for all of it: %s", out);
    /* fifteen more tests to come: no room for a later failure's every line */
    capture_report_of(names, msgs, 3, 18, out, sizeof out);
    ck_assert_msg(strstr(out, "ex.cu:22 (the read): Race between warps: in kernel k: reads sdata[1] too early.") != NULL,
                  "the finding in words: %s", out);
    ck_assert_msg(strstr(out, "ex.cu:15: the write it races with") != NULL, "its other access: %s", out);
    ck_assert_msg(strstr(out, "The same race between warps as above, at ex.cu:22.") != NULL, "said once: %s", out);
    ck_assert_msg(strstr(out, "Is there a barrier") != NULL, "the first hint: %s", out);
    ck_assert_msg(strstr(out, "its own row") == NULL, "a later hint points away: %s", out);
    /* cut short after a clause, as a sentence: never in the middle with an ellipsis */
    ck_assert_msg(strstr(out, "k(n = 3) should be 6, but it is 5.\n") != NULL && strstr(out, "which a later failure") == NULL &&
                  strstr(out, "…") == NULL, "a later failure cut short: %s", out);
}
END_TEST

START_TEST(test_report_says_another_kind_at_the_same_line_in_one_line)
{
    char msg[8192], out[8192];
    message_with_race(msg, sizeof msg, 33, "k(n = 1) gave its result, but the emulator found:", NULL);
    emu_record r;
    emu_record_init(&r, EMU_FD_WARP_RACE);
    snprintf(r.at.file, sizeof r.at.file, "ex.cu");
    r.at.line = 33;
    snprintf(r.text, sizeof r.text, "writes sdata[32] too early.");
    size_t n = strlen(msg);
    msg[n++] = '\n';
    emu_record_encode(&r, EMU_ENCODE_ALL, msg + n, sizeof msg - n);
    const char *names[] = {"core: one"};
    const char *msgs[] = {msg};
    capture_report(names, msgs, 1, out, sizeof out);
    ck_assert_msg(strstr(out, "Also at this line: race inside a warp (ex.cu:33).") != NULL &&
                  strstr(out, "too early.") && !strstr(out, "writes sdata[32]"), "one line for the second: %s", out);
}
END_TEST

START_TEST(test_report_finding_comes_before_the_error_it_caused)
{
    char msg[4096], out[8192];
    message_with_race(msg, sizeof msg, 30, "sum(n = 4099) returned cudaErrorIllegalAddress.", NULL);
    const char *names[] = {"sizes: every size"};
    const char *msgs[] = {msg};
    capture_report(names, msgs, 1, out, sizeof out);
    const char *finding = strstr(out, "ex.cu:30"), *error = strstr(out, "cudaErrorIllegalAddress");
    ck_assert_msg(finding && error && finding < error, "the finding, then the error: %s", out);
}
END_TEST

START_TEST(test_results_for_tools_have_one_line_per_finding)
{
    char msg[4096];
    message_with_race(msg, sizeof msg, 22, "k(n = 1) gave its result, but the emulator found:", "A question?");
    char *tools = NULL, *text = report_plain(msg, &tools);
    ck_assert_msg(text && tools, "no text");
    ck_assert_msg(strstr(text, "ex.cu:22 (the read): Race between warps") && strstr(text, "Hint: A question?") &&
                  !strstr(text, "finding:"), "the message in words: %s", text);
    ck_assert_msg(!strncmp(tools, "finding: kind=\"race between warps\" at=ex.cu:22 other=ex.cu:15 ", 61) &&
                  !strchr(tools, '\n') && !strstr(tools, "text="), "one line for tools: %s", tools);
    char path[] = "/tmp/harness-tap-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_msg(fd >= 0, "no temporary file");
    close(fd);
    harness_result r = {.name = "core: one", .outcome = HARNESS_FAILED, .message = msg};
    harness_write_tap(path, &r, 1);
    FILE *f = fopen(path, "r");
    char tap[8192];
    size_t got = f ? fread(tap, 1, sizeof tap - 1, f) : 0;
    tap[got] = '\0';
    if (f) fclose(f);
    unlink(path);
    ck_assert_msg(strstr(tap, "\n  finding: kind=\"race between warps\" at=ex.cu:22") != NULL, "the TAP line: %s", tap);
    free(text);
    free(tools);
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

START_TEST(test_text_fit_keeps_a_glossary_word_and_a_number_with_its_unit_whole)
{
    expect_first_line("数据先写进共享内存再读回来", 14, "数据先写进");             /* not 共享|内存 */
    expect_first_line("数据先写进共享内存再读回来", 18, "数据先写进共享内存");
    expect_first_line("带宽是 2954 GB/s，够了", 12, "带宽是");                     /* not 2954 | GB/s */
    expect_first_line("误差是误差界的 14 倍", 17, "误差是误差界的");                /* not 14 | 倍 */
    expect_first_line("每行长度为32字节", 12, "每行长度为");                         /* not 32|字节 */
    expect_first_line("n = 257 elements and more", 12, "n = 257");                /* a word, not a unit */
}
END_TEST

/* ---- One report on a GPU machine: the GPU's verdicts, recorded, beside the emulator's ---------------------- */

/* A recorded file of the GPU's verdicts (harness_merge.c describes its lines), written to a fresh path. */
static void record_verdicts(char *path, size_t len, const char *lines)
{
    snprintf(path, len, "%s", "/tmp/harness-verdicts-XXXXXX");
    int fd = mkstemp(path);
    ck_assert_msg(fd >= 0, "no temporary file");
    ck_assert_int_eq(write(fd, lines, strlen(lines)), (ssize_t)strlen(lines));
    close(fd);
}

/* The merged lines of count tests: the emulator's results emu[i] (keys as names), the GPU's from path. */
static int merge_report_of(const char *path, double margin, const harness_result *emu, int count, char *out,
                           size_t len)
{
    gpu_verdicts *v = gpu_verdicts_open(path, margin);
    capture_start(count);
    int started, failed = 0;
    gpu_verdicts_backend(v, &started);
    for (int i = 0; i < count; i++)
        failed += merge_report_test(v, emu[i].name, emu[i].name, &emu[i], 10, "", "", "").outcome != HARNESS_PASSED;
    int missing = merge_report_missing(v);
    capture_end(out, len);
    gpu_verdicts_close(v);
    unlink(path);
    return failed + 100 * missing;
}

START_TEST(test_merge_shows_a_pass_a_gpu_failure_and_a_verdict_that_never_came)
{
    char path[64], race[4096], out[8192];
    record_verdicts(path, sizeof path,
                    "gpu\t30\tthe GPU (Test GPU)\n"
                    "test\tpassed\t0.010\tcore: a\t\n"
                    "test\tfailed\t0.020\tcore: b\tk(n = 7) should be 7, but it is 0.\\nHint: Does the GPU ask?\n"
                    "exit\t139\n");
    message_with_race(race, sizeof race, 22, "k(n = 9) gave its result, but the emulator found:", NULL);
    harness_result emu[] = {{.name = "core: a", .outcome = HARNESS_PASSED},
                            {.name = "core: b", .outcome = HARNESS_PASSED},
                            {.name = "core: c", .outcome = HARNESS_FAILED, .message = race}};
    int got = merge_report_of(path, 30, emu, 3, out, sizeof out);
    ck_assert_msg(got == 2 + 100, "two failures, one verdict missing: %d\n%s", got, out);
    ck_assert_msg(strstr(out, "  ✓ core: a\n") != NULL, "a pass on both, no tag: %s", out);
    ck_assert_msg(strstr(out, "  ✗ core: b (fails on the GPU only)\n      k(n = 7) should be 7, but it is 0.\n"
                              "      Hint: Does the GPU ask?\n") != NULL, "the GPU's own message: %s", out);
    ck_assert_msg(strstr(out, "  ✗ core: c (no verdict from the GPU)\n") && strstr(out, "ex.cu:22 (the read)"),
                  "the emulator's finding, no verdict from the GPU: %s", out);
    ck_assert_msg(strstr(out, "The GPU's run ended (exit status 139) before its verdict on 1 test.") != NULL,
                  "what was seen: %s", out);
}
END_TEST

START_TEST(test_merge_says_a_failure_once_and_which_backend_showed_it)
{
    char path[64], race[4096], wrong[4096], out[8192];
    record_verdicts(path, sizeof path,
                    "gpu\t30\tthe GPU (Test GPU)\n"
                    "test\tfailed\t0.010\tcore: both\tk(n = 1) should be 1, but it is 5: the GPU's words.\n"
                    "test\tpassed\t0.010\tcore: hidden\t\n"
                    "test\tnot-run\t0.000\tconcept: counted\tgraded by the emulator\n"
                    "end\n");
    message_with_race(race, sizeof race, 22, "k(n = 1) gave its result, but the emulator found:", NULL);
    snprintf(wrong, sizeof wrong, "%s", "k(n = 2) made 9 bank conflicts, 0 expected.");
    harness_result emu[] = {{.name = "core: both", .outcome = HARNESS_FAILED, .message = race},
                            {.name = "core: hidden", .outcome = HARNESS_FAILED, .message = race},
                            {.name = "concept: counted", .outcome = HARNESS_FAILED, .message = wrong}};
    int got = merge_report_of(path, 30, emu, 3, out, sizeof out);
    ck_assert_msg(got == 3, "three failures, every verdict in: %d\n%s", got, out);
    ck_assert_msg(strstr(out, "  ✗ core: both (fails on the GPU too)\n") && strstr(out, "ex.cu:22 (the read)") &&
                  !strstr(out, "the GPU's words"), "the emulator's finding, said once: %s", out);
    ck_assert_msg(strstr(out, "  ✗ core: hidden (passes on the GPU)\n      The same race between warps as above"),
                  "a bug the GPU hides: %s", out);
    ck_assert_msg(strstr(out, "  ✗ concept: counted\n      k(n = 2) made 9 bank conflicts"),
                  "a test only the emulator grades has no tag: %s", out);
}
END_TEST

/* One bug that fails several tests on both: "fails on the GPU too" at the first only; a disagreement is
 * still tagged wherever it comes. */
START_TEST(test_merge_says_fails_on_both_once)
{
    char path[64], race[4096], out[8192];
    record_verdicts(path, sizeof path,
                    "gpu\t30\tthe GPU (Test GPU)\n"
                    "test\tfailed\t0.010\tcore: first\tk(n = 1) is 5.\n"
                    "test\tfailed\t0.010\tcore: second\tk(n = 2) is 5.\n"
                    "test\tpassed\t0.010\tcore: third\t\n"
                    "end\n");
    message_with_race(race, sizeof race, 22, "k(n = 1) gave its result, but the emulator found:", NULL);
    harness_result emu[] = {{.name = "core: first", .outcome = HARNESS_FAILED, .message = race},
                            {.name = "core: second", .outcome = HARNESS_FAILED, .message = race},
                            {.name = "core: third", .outcome = HARNESS_FAILED, .message = race}};
    int got = merge_report_of(path, 30, emu, 3, out, sizeof out);
    ck_assert_msg(got == 3, "three failures: %d\n%s", got, out);
    ck_assert_msg(strstr(out, "  ✗ core: first (fails on the GPU too)\n") != NULL, "the first tagged: %s", out);
    ck_assert_msg(strstr(out, "  ✗ core: second\n") != NULL, "the second agreeing failure untagged: %s", out);
    ck_assert_msg(strstr(out, "  ✗ core: third (passes on the GPU)\n") != NULL, "a disagreement tagged: %s", out);
}
END_TEST

/* A test whose name leaves no room for the tag: the tag starts its message's line, on no line of its own. */
/* A host finding of the emulator's (the learner's host code reads device memory), as its message carries it. */
static void message_with_host_read(char *buf, size_t len)
{
    emu_record r;
    emu_record_init(&r, EMU_FD_HOST_READ);
    snprintf(r.at.file, sizeof r.at.file, "ex01.cu");
    r.at.line = 32;
    snprintf(r.array, sizeof r.array, "d_out");
    snprintf(r.text, sizeof r.text, "your host code reads d_out[0], which is device memory.");
    size_t n = emu_record_encode(&r, EMU_ENCODE_ALL, buf, len);
    snprintf(buf + n, len - n, "\nThe test's program crashed in your host code.\nHint: Which pointers of your host "
             "code hold device memory?");
}

START_TEST(test_merge_keeps_the_emulators_host_findings_where_the_gpu_crashed)
{
    /* The GPU's run of host code that reads d_out[0] crashes (a segmentation fault) or fails; the emulator
     * names the line. The merged report says what the emulator's own does, once. */
    char path[64], host[4096], out[8192];
    record_verdicts(path, sizeof path,
                    "gpu\t30\tthe GPU (Test GPU)\n"
                    "test\tcrashed\t0.300\tcore: one block\tReceived signal 11 (Segmentation fault)\n"
                    "test\tfailed\t0.300\tcore: four blocks\tk(n = 1024) should leave 5 in d_out[0], but it left 7.\n"
                    "test\tcrashed\t0.300\tsizes: small\tReceived signal 11 (Segmentation fault)\n"
                    "end\n");
    message_with_host_read(host, sizeof host);
    harness_result emu[] = {{.name = "core: one block", .outcome = HARNESS_FAILED, .message = host},
                            {.name = "core: four blocks", .outcome = HARNESS_FAILED, .message = host},
                            {.name = "sizes: small", .outcome = HARNESS_FAILED, .message = host}};
    int got = merge_report_of(path, 30, emu, 3, out, sizeof out);
    ck_assert_msg(got == 3, "three failures: %d\n%s", got, out);
    const char *said = strstr(out, "your host code reads d_out[0]");
    ck_assert_msg(said && !strstr(said + 1, "your host code reads"), "the host finding, said once: %s", out);
    ck_assert_msg(strstr(out, "ex01.cu:32") && strstr(out, "Which pointers of your host code") &&
                  !strstr(out, "Received signal") && !strstr(out, "crashed (Segmentation fault)") &&
                  !strstr(out, "should leave 5"), "the emulator's words, not the GPU's: %s", out);
}
END_TEST

START_TEST(test_merge_puts_a_long_names_tag_in_its_message)
{
    char path[64], race[4096], out[8192];
    const char *name = "paths: the dispatch gives rows of up to 1024 values to a warp, and longer ones elsewhere";
    char verdicts[512];
    snprintf(verdicts, sizeof verdicts, "gpu\t30\tthe GPU (Test GPU)\ntest\tfailed\t0.010\t%s\tk(n = 1) is 5.\nend\n",
             name);
    record_verdicts(path, sizeof path, verdicts);
    message_with_race(race, sizeof race, 22, "k(n = 1) gave its result, but the emulator found:", NULL);
    harness_result emu[] = {{.name = name, .outcome = HARNESS_FAILED, .message = race}};
    merge_report_of(path, 30, emu, 1, out, sizeof out);
    char want[256];
    snprintf(want, sizeof want, "  ✗ %s\n      (fails on the GPU too) ex.cu:22 (the read)", name);
    ck_assert_msg(strstr(out, want) != NULL, "the tag at the start of the message: %s", out);
}
END_TEST

START_TEST(test_merge_waits_only_so_long_for_a_gpu_run_that_stops_writing)
{
    char path[64], out[8192];
    record_verdicts(path, sizeof path, "gpu\t0\tthe GPU (Test GPU)\ntest\tpassed\t0.010\tcore: a\t\n");
    harness_result emu[] = {{.name = "core: a", .outcome = HARNESS_PASSED},
                            {.name = "core: b", .outcome = HARNESS_PASSED}};
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int got = merge_report_of(path, 0.3, emu, 2, out, sizeof out);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double waited = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
    ck_assert_msg(got == 100 && waited < 3, "one verdict missing after %.1f s: %d\n%s", waited, got, out);
    ck_assert_msg(strstr(out, "  ✓ core: b (no verdict from the GPU)\n") &&
                  strstr(out, "The GPU's run wrote nothing for 0 seconds, so 1 test has no verdict from it."),
                  "what was seen: %s", out);
}
END_TEST

START_TEST(test_merge_leaves_the_emulator_alone_where_the_gpu_skipped)
{
    char path[64], race[4096], out[8192];
    record_verdicts(path, sizeof path,
                    "gpu\t30\t\n"
                    "test\tnot-run\t0.000\tcore: a\tskipped: no device\n"
                    "test\tnot-run\t0.000\tcore: b\tskipped: no device\n"
                    "end\nexit\t2\n");
    message_with_race(race, sizeof race, 22, "k(n = 1) gave its result, but the emulator found:", NULL);
    harness_result emu[] = {{.name = "core: a", .outcome = HARNESS_PASSED},
                            {.name = "core: b", .outcome = HARNESS_FAILED, .message = race}};
    gpu_verdicts *v = gpu_verdicts_open(path, 30);
    int started;
    ck_assert_msg(gpu_verdicts_backend(v, &started) == NULL && started, "a GPU run that found no device");
    gpu_verdicts_close(v);
    int got = merge_report_of(path, 30, emu, 2, out, sizeof out);
    ck_assert_msg(got == 1, "the emulator's one failure, nothing missing: %d\n%s", got, out);
    ck_assert_msg(strstr(out, "  ✓ core: a\n  ✗ core: b\n      ex.cu:22") != NULL && !strstr(out, "GPU"),
                  "the emulator's lines, no tags: %s", out);
}
END_TEST

START_TEST(test_merge_verdicts_cross_the_file_as_they_were)
{
    char path[64];
    record_verdicts(path, sizeof path, "");
    const char *msg = "line one\\ with a backslash\n\tand a tab\nHint: a question?";
    merge_results_start(path, "the GPU (A\tB)", 12);
    merge_results_add("core: x", &(harness_result){.outcome = HARNESS_CRASHED, .message = (char *)msg, .seconds = 1});
    merge_results_add("core: y", &(harness_result){.outcome = HARNESS_PASSED, .message = (char *)"ignored"});
    merge_results_add("core: w", &(harness_result){.outcome = HARNESS_PASSED, .message = (char *)"", .host_ub = 1});
    merge_results_end();
    gpu_verdicts *v = gpu_verdicts_open(path, 30);
    int started;
    const char *label = gpu_verdicts_backend(v, &started);
    ck_assert_msg(label && !strcmp(label, "the GPU (A\tB)"), "the label: %s", label ? label : "(none)");
    const harness_result *x = gpu_verdicts_wait(v, "core: x"), *y = gpu_verdicts_wait(v, "core: y");
    ck_assert_msg(x && x->outcome == HARNESS_CRASHED && !strcmp(x->message, msg), "the crash and its message: %s",
                  x ? x->message : "(none)");
    ck_assert_msg(y && y->outcome == HARNESS_PASSED && !strcmp(y->message, "") && !y->host_ub, "the pass");
    const harness_result *w = gpu_verdicts_wait(v, "core: w");
    ck_assert_msg(w && w->outcome == HARNESS_PASSED && w->host_ub, "a pass whose host code hit undefined behaviour");
    ck_assert_msg(gpu_verdicts_wait(v, "core: z") == NULL, "a test it never ran");
    gpu_verdicts_close(v);
    unlink(path);
}
END_TEST


/* The covering set: every value of every dimension, every pair of two that interact, and not many more cases
 * than the largest product of two interacting dimensions. */
START_TEST(test_space_covers_every_value_and_every_interacting_pair)
{
    static const harness_space_line lines[] = {
        {"dim", "cols", "1 7 8 9 31, 32 33"}, {"dim", "rows", "1 2 3 4 5"}, {"dim", "path", "auto warp block"},
        {"dim", "mask", "none leading trailing inside whole first inner last"}, {"dim", "eps", "1e-5 0.1"},
        {"interact", "", "cols, rows, path"}, {"interact", "", "path, eps"}, {0, 0, 0},
    };
    const harness_space space = {lines};
    harness_cover c;
    harness_cover_build(&space, &c);
    ck_assert_int_eq(c.dims, 5);
    ck_assert_int_eq(harness_cover_values(&c), 7 + 5 + 3 + 8 + 2);
    for (int d = 0; d < c.dims; d++)
        for (int a = 0; a < c.counts[d]; a++) {
            size_t k = 0;
            while (k < c.cases && c.at[k][d] != a) k++;
            ck_assert_msg(k < c.cases, "value %s of %s never tried", c.labels[d][a], c.names[d]);
        }
    static const int pairs[][2] = {{0, 1}, {0, 2}, {1, 2}, {2, 4}};
    for (size_t p = 0; p < 4; p++) {
        int i = pairs[p][0], j = pairs[p][1];
        for (int a = 0; a < c.counts[i]; a++)
            for (int b = 0; b < c.counts[j]; b++) {
                size_t k = 0;
                while (k < c.cases && !(c.at[k][i] == a && c.at[k][j] == b)) k++;
                ck_assert_msg(k < c.cases, "%s = %s with %s = %s never tried", c.names[i], c.labels[i][a], c.names[j],
                              c.labels[j][b]);
            }
    }
    ck_assert_msg(c.cases >= 35 && c.cases <= 45, "%zu cases for 7 x 5 pairs", c.cases);
    ck_assert_double_eq(harness_case_number(&c, 0, "eps") + harness_case_number(&c, 1, "eps") > 0, 1);
    ck_assert(harness_case_is(&c, 0, "cols", harness_case_label(&c, 0, "cols")));
    harness_cover_free(&c);
}
END_TEST

int main(int argc, char **argv)
{
    const harness_test tests[] = {
        {"explain: the poison value is named", test_harness_explain_names_the_poison, NEEDS_NOTHING},
        {"explain: reads of guard values are counted", test_harness_explain_counts_guard_reads, NEEDS_NOTHING},
        {"explain: an accumulator not zeroed is recognised", test_harness_explain_spots_an_accumulator_not_zeroed, NEEDS_NOTHING},
        {"explain: the poison partly overwritten is a memset or copy of too few bytes", test_harness_explain_spots_the_poison_partly_overwritten, NEEDS_NOTHING},
        {"explain: any other error is a plain difference", test_harness_explain_gives_a_plain_difference, NEEDS_NOTHING},
        {"sizes: ascending, with the edge sizes, ending at the limit", test_harness_sizes_are_ascending_and_end_at_the_limit, NEEDS_NOTHING},
        {"inputs: the safe range keeps every sum inside an int", test_harness_safe_range_cannot_overflow, NEEDS_NOTHING},
        {"inputs: random ints replay, stay in range and depend on the salt", test_harness_random_ints_replay_and_stay_in_range, NEEDS_NOTHING},
        {"text: one space between Chinese characters goes, a table's columns stay, no full stop after a question", test_text_tidy_joins_chinese_and_keeps_columns, NEEDS_NOTHING},
        {"evidence: a line is said once, and a tag's lines can be dropped", test_evidence_lines_are_said_once_and_can_be_dropped, NEEDS_NOTHING},
        {"evidence: the poison in every other row", test_evidence_poison_in_every_other_row, NEEDS_NOTHING},
        {"evidence: the columns past a multiple of the block", test_evidence_the_columns_past_a_multiple_of_the_block, NEEDS_NOTHING},
        {"evidence: one factor, and a factor per row", test_evidence_a_factor_and_a_row_factor, NEEDS_NOTHING},
        {"evidence: just past the bound is a rounding, not a wrong algorithm", test_evidence_just_past_the_bound_is_not_a_wrong_algorithm, NEEDS_NOTHING},
        {"evidence: a bug model is named, and two alike are told apart", test_evidence_a_bug_model_is_named_and_two_are_told_apart, NEEDS_NOTHING},
        {"evidence: which elements a wrong total holds", test_evidence_which_elements_a_total_holds, NEEDS_NOTHING},
        {"report: a finding is said once, only the first failure's hint, a later failure short when the screen is full", test_report_says_a_finding_once_and_only_the_first_hint, NEEDS_NOTHING},
        {"report: another race at the same line is said in one line", test_report_says_another_kind_at_the_same_line_in_one_line, NEEDS_NOTHING},
        {"report: the finding comes before the error code it caused", test_report_finding_comes_before_the_error_it_caused, NEEDS_NOTHING},
        {"results: one finding: line per finding for tools, the message in words", test_results_for_tools_have_one_line_per_finding, NEEDS_NOTHING},
        {"text: a command in backticks is never broken across lines", test_text_fit_keeps_a_command_whole, NEEDS_NOTHING},
        {"text: a glossary word and a number with its unit are never broken across lines",
         test_text_fit_keeps_a_glossary_word_and_a_number_with_its_unit_whole, NEEDS_NOTHING},
        {"merge: a pass, a failure on the GPU only with its message, a verdict that never came", test_merge_shows_a_pass_a_gpu_failure_and_a_verdict_that_never_came, NEEDS_NOTHING},
        {"merge: a failure said once, with the backend that showed it", test_merge_says_a_failure_once_and_which_backend_showed_it, NEEDS_NOTHING},
        {"merge: \"fails on the GPU too\" at the first failure only; a disagreement always", test_merge_says_fails_on_both_once, NEEDS_NOTHING},
        {"merge: the emulator's host findings stand where the GPU's run crashed or failed", test_merge_keeps_the_emulators_host_findings_where_the_gpu_crashed, NEEDS_NOTHING},
        {"merge: a long name's tag starts its message's line", test_merge_puts_a_long_names_tag_in_its_message, NEEDS_NOTHING},
        {"merge: a GPU run that stops writing is waited for only so long", test_merge_waits_only_so_long_for_a_gpu_run_that_stops_writing, NEEDS_NOTHING},
        {"merge: where the GPU skipped, the emulator's lines stand alone", test_merge_leaves_the_emulator_alone_where_the_gpu_skipped, NEEDS_NOTHING},
        {"merge: verdicts cross the file as they were (escapes, outcomes, undefined behaviour in a pass)", test_merge_verdicts_cross_the_file_as_they_were, NEEDS_NOTHING},
        {"space: the covering set tries every value, and every pair of values of two dimensions that interact", test_space_covers_every_value_and_every_interacting_pair, NEEDS_NOTHING},
        {0},
    };
    const harness_exercise self = {"harness", "the checker's own tests", "checker/README.md", tests, NULL};
    return harness_run(&self, argc, argv);
}
