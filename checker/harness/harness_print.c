/* harness_print.c - one test's lines in the learner's report: its ✓ or ✗ (on a GPU machine, with which
 * backend showed it: harness_merge.c), what failed wrapped to 100 columns, each finding of the emulator in
 * full the first time the grade shows it and in one line after that, and only the first failure's hint.
 * A grade with one bug then fits one screen, whatever number of tests it fails, and no later test's hint
 * points away from what the first failure said.
 *
 * A finding reaches the report inside the failed test's message as a record, one line of
 * emu_record_encode's; its kind and place say which finding it is, and the report makes its words here
 * (emu_record_words), in the learner's language. */
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REPORT_WIDTH 100   /* the terminal the report is written for */
#define REPORT_INDENT 6    /* a test's details sit under its name */

static int colour;
static const char *paint(const char *code) { return colour ? code : ""; }
#define BOLD paint("\033[1m")
#define DIM paint("\033[2m")
#define RESET paint("\033[0m")

/* What the grade has shown so far: findings (their tags) and hints. */
#define REPORT_SEEN_MAX 256
static char *seen[REPORT_SEEN_MAX];
static int nseen;

/* How many failed tests the report has shown so far. */
static int failures_shown;

/* What the report has printed of its tests, for keeping a grade to one screen: lines so far, and tests
 * reported of those the runner said would come. */
static int lines_used, tests_reported, tests_expected;

void report_begin(int use_colour)
{
    colour = use_colour;
    failures_shown = 0;
    lines_used = tests_reported = tests_expected = 0;
    for (int i = 0; i < nseen; i++) free(seen[i]);
    nseen = 0;
}

/* 1 if key (of len bytes, with a one-letter class in front: f finding, h hint) was shown before. */
static int was_shown(char class, const char *key, size_t len)
{
    for (int i = 0; i < nseen; i++)
        if (seen[i][0] == class && strlen(seen[i] + 1) == len && !strncmp(seen[i] + 1, key, len)) return 1;
    return 0;
}

/* was_shown, and a key not shown before is remembered. */
static int shown_before(char class, const char *key, size_t len)
{
    if (was_shown(class, key, len)) return 1;
    if (nseen < REPORT_SEEN_MAX && (seen[nseen] = malloc(len + 2)) != NULL) {
        seen[nseen][0] = class;
        memcpy(seen[nseen] + 1, key, len);
        seen[nseen++][len + 1] = '\0';
    }
    return 0;
}

/* The tests' part of a grade's report fits this many lines when it can: the 40 lines of one screen less the
 * runner's header and verdict, grade.sh's lines around them, and a line to spare (another seed's numbers
 * may wrap one line further). */
#define REPORT_TEST_LINES 31

/* text (len bytes) indented under the test, broken so that no line passes 100 columns: between words, or
 * between two Chinese characters (text_fit). A label ("Hint:") starts the first line, in bold, then a space
 * (none after a full-width mark: "提示："); the lines after it are indented past it. Printed when print;
 * returns the number of lines either way. */
static int wrap(const char *label, const char *text, int len, int print)
{
    size_t label_len = label ? strlen(label) : 0;
    const char *space = label_len && (unsigned char)label[label_len - 1] < 0x80 ? " " : "";
    int indent = label ? text_width(label, label_len) + (int)strlen(space) : 0;
    int width = REPORT_WIDTH - REPORT_INDENT - indent, lines = 0;
    size_t left = len > 0 ? (size_t)len : 0;
    char *tidy = text_tidy_copy(text, &left);
    if (tidy) text = tidy;
    while (left > 0) {
        size_t next, cut = text_fit(text, left, width, &next);
        if (print && ++lines == 1 && label)
            printf("%*s%s%s%s%s%.*s\n", REPORT_INDENT, "", BOLD, label, RESET, space, (int)cut, text);
        else if (print)
            printf("%*s%*s%.*s\n", REPORT_INDENT, "", indent, "", (int)cut, text);
        else
            lines++;   /* only counted */
        text += next;
        left -= next;
    }
    free(tidy);
    return lines;
}

/* A test's tag that did not fit beside its name ("(fails on the GPU too)"): it starts the next line of the
 * test's message instead of taking a line of its own. */
static char pending_tag[512];

static void print_wrapped(const char *label, const char *text, int len)
{
    if (pending_tag[0] && !label) {
        char *joined = malloc(strlen(pending_tag) + (size_t)len + 2);
        if (joined) {
            int n = sprintf(joined, "%s %.*s", pending_tag, len, text);
            pending_tag[0] = '\0';
            lines_used += wrap(NULL, joined, n, 1);
            free(joined);
            return;
        }
    }
    lines_used += wrap(label, text, len, 1);
}

/* ---- A message, taken apart ------------------------------------------------------------------------- */

#define REPORT_LINES_MAX 64

typedef struct message {
    /* its lines in order: a plain line (rec < 0) or a finding (rec: its index in recs) */
    struct { const char *text; int len, rec; } line[REPORT_LINES_MAX];
    int nlines, nplain;
    emu_record *recs; int nrecs;
    const char *hint; int hint_len;
    char mistake[512];   /* the known mistakes its evidence names ("bug-model name=..." lines), or "" */
} message;

static void parse_message(const char *msg, message *m)
{
    memset(m, 0, sizeof *m);
    int cap = 0;
    for (const char *line = msg; line && *line;) {
        const char *end = strchr(line, '\n');
        int len = end ? (int)(end - line) : (int)strlen(line);
        if (!strncmp(line, HARNESS_EVIDENCE_PREFIX, strlen(HARNESS_EVIDENCE_PREFIX))) {
            /* Evidence for tools (harness_evidence.c), not the learner's to read; the mistake it names
             * makes a later failure of the same mistake "the same failure". */
            size_t used = strlen(m->mistake);
            if (!strncmp(line + strlen(HARNESS_EVIDENCE_PREFIX), "bug-model ", 10) && used + (size_t)len + 1 < sizeof m->mistake)
                snprintf(m->mistake + used, sizeof m->mistake - used, "%.*s\n", len, line);
        } else if (!strncmp(line, "Hint: ", 6)) {
            m->hint = line + 6;
            m->hint_len = len - 6;
        } else if (emu_record_is_line(line, (size_t)len) && m->nlines < REPORT_LINES_MAX) {
            if (m->nrecs == cap) {
                cap = cap ? 2 * cap : 4;
                emu_record *grown = realloc(m->recs, (size_t)cap * sizeof *grown);
                if (!grown) break;
                m->recs = grown;
            }
            if (emu_record_decode(line, (size_t)len, &m->recs[m->nrecs])) {
                m->line[m->nlines].text = line, m->line[m->nlines].len = len;
                m->line[m->nlines++].rec = m->nrecs++;
            }
        } else if (len > 0 && m->nlines < REPORT_LINES_MAX) {
            m->line[m->nlines].text = line, m->line[m->nlines].len = len;
            m->line[m->nlines++].rec = -1;
            m->nplain++;
        }
        line = end ? end + 1 : NULL;
    }
}

/* Which finding r is, for "the same as above": its kind and its place. */
static int finding_key(const emu_record *r, char *buf, size_t len)
{
    char place[300];
    int n = snprintf(buf, len, "%s|%s", emu_kind_noun(r->kind), emu_place_text(&r->at, place, sizeof place));
    return n < 0 ? 0 : n >= (int)len ? (int)len - 1 : n;
}

/* Its kind and its second place (the copy a read came too early for, the other side of a race), or 0
 * when it has none: two reads of one copy too early, at two lines, are one mistake. */
static int second_key(const emu_record *r, char *buf, size_t len)
{
    if (!r->other.line) return 0;
    char place[300];
    int n = snprintf(buf, len, "%s|%s", emu_kind_noun(r->kind), emu_place_text(&r->other, place, sizeof place));
    return n < 0 ? 0 : n >= (int)len ? (int)len - 1 : n;
}

static int finding_shown(const emu_record *r, int remember)
{
    char key[400], other[400];
    int len = finding_key(r, key, sizeof key), other_len = second_key(r, other, sizeof other);
    int shown = was_shown('f', key, (size_t)len) || (other_len && was_shown('o', other, (size_t)other_len));
    if (remember) {
        shown_before('f', key, (size_t)len);
        if (other_len) shown_before('o', other, (size_t)other_len);
    }
    return shown;
}

/* "The same race inside a warp as above, at exercises/02-interleaved/v1_interleaved.cu:26." (or, for a
 * kernel that the emulator stopped at once because it never finished before, "Not run again: ..."). */
static void print_same(const emu_record *r)
{
    char place[300], line[1400];
    const char *noun = _(emu_kind_noun(r->kind));
    const char *fmt = r->kind == EMU_FD_RUNTIME ? _("The same finding as above.")
                      : r->not_run ? (r->at.line ? _("Not run again: the same %s, at %s.") : _("Not run again: the same %s."))
                      : r->at.line ? _("The same %s as above, at %s.") : _("The same %s as above.");
    emu_place_text(&r->at, place, sizeof place);
    snprintf(line, sizeof line, fmt, noun, place);
    /* One line: the file's own name where its path makes it longer (the finding above gave the path). */
    const char *slash = strrchr(place, '/');
    if (slash && text_width(line, strlen(line)) > REPORT_WIDTH - REPORT_INDENT) snprintf(line, sizeof line, fmt, noun, slash + 1);
    print_wrapped(NULL, line, (int)strlen(line));
}

/* Another kind of race at a line whose race the report gave in full: the same mistake seen another way (a
 * missing barrier races inside a warp and between warps), so one line. (Other kinds at one line may each
 * say something the other does not: a barrier in divergent code, after an early return.) */
static void print_also(const emu_record *r, const char *place)
{
    char line[1400];
    const char *slash = strrchr(place, '/');
    snprintf(line, sizeof line, _("Also at this line: %s (%s)."), _(emu_kind_noun(r->kind)), slash ? slash + 1 : place);
    print_wrapped(NULL, line, (int)strlen(line));
}

/* A finding in full: its place, kind, thread and what happened, then its second place. */
static void print_finding(const emu_record *r)
{
    char *head = malloc(8192), *second = malloc(1024);
    if (head && second) {
        emu_record_words(r, 1, head, 8192, second, 1024);
        print_wrapped(NULL, head, (int)strlen(head));
        if (second[0]) print_wrapped(NULL, second, (int)strlen(second));
    }
    free(head);
    free(second);
}

/* The lines of a plain message that says the same as an earlier one with other numbers (another n,
 * another block) or another call (its first words, up to the first ')': exercise 16 runs six functions
 * through the same checks), numbers made '#' and the call left out: shape receives them; returns its
 * length. */
static size_t message_shape(const message *m, char *shape, size_t cap)
{
    size_t len = 0;
    const char *call_end = m->nlines ? memchr(m->line[0].text, ')', (size_t)m->line[0].len) : NULL;
    for (int i = 0; i < m->nlines && len < cap - 1; i++)
        for (const char *c = i == 0 && call_end ? call_end + 1 : m->line[i].text;
             c < m->line[i].text + m->line[i].len && len < cap - 1; c++)
            if (!((*c >= '0' && *c <= '9') || (*c == '-' && c[1] >= '0' && c[1] <= '9')) ||
                !len || shape[len - 1] != '#')
                shape[len++] = (*c >= '0' && *c <= '9') || *c == '-' ? '#' : *c;
    return len;
}

/* A later failure's message said in at most max_lines lines, and still a sentence: cut after the last clause
 * that fits (before ", ", ": ", "; ", " (" or their full-width twins), with a full stop, never in the middle
 * with an ellipsis. A message whose first clause alone needs more lines is said up to that clause. */
static void print_cut(const char *text, int len, int max_lines)
{
    static const char *const breaks[] = {", ", ": ", "; ", " (", ". ", "，", "：", "；", "（", "。"};
    int best = -1, first = -1;
    for (int at = 1; at < len; at++)
        for (size_t b = 0; b < sizeof breaks / sizeof *breaks; b++) {
            size_t blen = strlen(breaks[b]);
            if ((size_t)(len - at) < blen || memcmp(text + at, breaks[b], blen)) continue;
            /* The clause up to here, with its full stop: "。" after a Chinese character. */
            int wide = (unsigned char)text[at - 1] >= 0x80;
            char *clause = malloc((size_t)at + 4);
            if (!clause) return;
            int n = sprintf(clause, "%.*s%s", at, text, wide ? "。" : ".");
            if (first < 0) first = at;
            if (wrap(NULL, clause, n, 0) <= max_lines) best = at;
            free(clause);
            break;
        }
    int at = best >= 0 ? best : first;
    if (at < 0) {
        print_wrapped(NULL, text, len);
        return;
    }
    char *clause = malloc((size_t)at + 4);
    if (!clause) return;
    int n = sprintf(clause, "%.*s%s", at, text, (unsigned char)text[at - 1] >= 0x80 ? "。" : ".");
    print_wrapped(NULL, clause, n);
    free(clause);
}

/* ---- A test ----------------------------------------------------------------------------------------- */

/* Check's words for a crash or a timeout, turned into sentences about the learner's code. */
static void print_error(const char *msg, double timeout)
{
    int sig = 0;
    char line[1400];
    if (strstr(msg, "timeout expired"))
        snprintf(line, sizeof line, _("The test did not finish within %.0f seconds: look for a loop whose "
                                      "condition never changes, or a __syncthreads() that not every thread of "
                                      "the block reaches."),
                 timeout);
    else if (sscanf(msg, "Received signal %d", &sig) == 1)
        snprintf(line, sizeof line, _("The test program crashed (%s) while running your code. Host code that "
                                      "dereferences a device pointer, or writes past a host array, does this."),
                 strchr(msg, '(') ? strchr(msg, '(') : msg);
    else if (strstr(msg, "Early exit"))
        snprintf(line, sizeof line, _("The test program exited in the middle of the test (%s). Does your code "
                                      "call exit(), or abort on an error?"),
                 msg);
    else
        snprintf(line, sizeof line, "%s", msg);
    print_wrapped(NULL, line, (int)strlen(line));
}

static void print_failure(const char *msg)
{
    message m;
    parse_message(msg, &m);
    /* Only the first failure of the grade gives its hint and its message in full: a later test's hint is
     * about its own symptom, which the first failure's cause may well explain, and it would point away. */
    int later = failures_shown++ > 0, fresh = 0;
    for (int i = 0; i < m.nrecs; i++) fresh += !finding_shown(&m.recs[i], 0);

    /* Every finding was shown by an earlier test: one line says so, and what else the message says
     * follows from it. */
    if (m.nrecs > 0 && !fresh) {
        print_same(&m.recs[0]);
        free(m.recs);
        return;
    }
    /* The same words as an earlier failure, only other numbers or another call (message_shape): one line
     * (a message of one line already is simply shown). */
    if (m.nrecs == 0 && m.nplain > 0 && (m.nplain > 1 || m.line[0].len > REPORT_WIDTH - REPORT_INDENT)) {
        char shape[4096];
        size_t len = message_shape(&m, shape, sizeof shape);
        int same_mistake = m.mistake[0] && was_shown('m', m.mistake, strlen(m.mistake));
        if (m.mistake[0]) shown_before('m', m.mistake, strlen(m.mistake));
        if (shown_before('s', shape, len) || same_mistake) {
            const char *close = memchr(m.line[0].text, ')', (size_t)m.line[0].len);
            int what = close ? (int)(close - m.line[0].text + 1) : 0;
            char line[1400];
            if (what) snprintf(line, sizeof line, _("The same failure as above, for %.*s."), what, m.line[0].text);
            else snprintf(line, sizeof line, "%s", _("The same failure as above."));
            print_wrapped(NULL, line, (int)strlen(line));
            return;
        }
    }
    /* A later failure with no finding of its own says what failed in full while the screen has room for
     * it and two lines for each test still to come, else in two lines or one. */
    int cut = 0;
    if (later && !fresh) {
        int full = 0, ahead = 2 * (tests_expected - tests_reported);
        for (int i = 0; i < m.nlines; i++) full += wrap(NULL, m.line[i].text, m.line[i].len, 0);
        int room = REPORT_TEST_LINES - lines_used - (ahead > 0 ? ahead : 0);
        cut = full <= room ? 0 : room >= 2 ? 2 : 1;
    }
    int plain_shown = 0;
    for (int i = 0; i < m.nlines; i++) {
        if (m.line[i].rec >= 0) {
            const emu_record *r = &m.recs[m.line[i].rec];
            char place[300];
            size_t place_len = strlen(emu_place_text(&r->at, place, sizeof place));
            int race = r->kind == EMU_FD_RACE || r->kind == EMU_FD_WARP_RACE || r->kind == EMU_FD_GLOBAL_RACE;
            if (finding_shown(r, 1)) print_same(r);
            else if (race && place_len && shown_before('r', place, place_len)) print_also(r, place);
            else print_finding(r);
        } else if (!cut) {
            print_wrapped(NULL, m.line[i].text, m.line[i].len);
        } else if (!plain_shown++) {
            print_cut(m.line[i].text, m.line[i].len, cut);
        }
    }
    if (m.hint && !later) {
        shown_before('h', m.hint, (size_t)m.hint_len);
        print_wrapped(_("Hint:"), m.hint, m.hint_len);
    }
    free(m.recs);
}

void report_expect_tests(int count) { tests_expected = count; }

void report_test_tagged(const char *name, const char *tag, int outcome, const char *msg, double timeout,
                        const char *green, const char *red, const char *reset)
{
    /* The tag in brackets after the name, or on a line of its own rather than past the 100 columns
     * (full-width brackets, in Chinese, take no space before them). */
    char bracketed[512] = "";
    /* TRANSLATORS: why a test did not run, or which backend showed its failure, after its name; full-width
       brackets take no space before them. */
    if (tag) snprintf(bracketed, sizeof bracketed, _("(%s)"), tag);
    const char *gap = tag && (unsigned char)bracketed[0] < 0x80 ? " " : "";
    int beside = 4 + text_width(name, strlen(name)) + (int)strlen(gap) + text_width(bracketed, strlen(bracketed)) <=
                 REPORT_WIDTH;
    lines_used++;   /* the test's own line */
    if (outcome == HARNESS_NOT_RUN) printf("  %s-%s %s", DIM, RESET, name);   /* not one of the tests expected */
    else if (tests_reported++, outcome == HARNESS_PASSED) printf("  %s✓%s %s", green, reset, name);
    else printf("  %s✗ %s%s", red, name, reset);
    /* A failure's tag that does not fit beside the name starts its message's first line, so that the tag
     * costs no line of the screen. */
    int tag_in_message = tag && !beside && outcome == HARNESS_FAILED && msg && *msg;
    if (tag_in_message) snprintf(pending_tag, sizeof pending_tag, "%s", bracketed);
    if (tag && beside) printf("%s%s%s%s\n", gap, DIM, bracketed, RESET);
    else if (tag && !tag_in_message) printf("\n%*s%s%s%s\n", REPORT_INDENT, "", DIM, bracketed, RESET), lines_used++;
    else printf("\n");
    if (outcome == HARNESS_PASSED || outcome == HARNESS_NOT_RUN) return;
    if (outcome == HARNESS_CRASHED) print_error(msg, timeout), failures_shown++;
    else print_failure(msg);
    if (pending_tag[0]) print_wrapped(NULL, "", 0);   /* nothing printed: the tag alone */
}

void report_test(const char *name, int outcome, const char *msg, double timeout, const char *green,
                 const char *red, const char *reset)
{
    report_test_tagged(name, NULL, outcome, msg, timeout, green, red, reset);
}

/* ---- A message for a file (TAP, XML) ------------------------------------------------------------------ */

char *report_plain(const char *msg, char **tools)
{
    message m;
    parse_message(msg, &m);
    size_t cap = strlen(msg) * 2 + 16384, used = 0, tused = 0;
    char *text = malloc(cap), *lines = malloc(cap);
    if (!text || !lines) { free(text); free(lines); free(m.recs); *tools = NULL; return NULL; }
    text[0] = lines[0] = '\0';
    char *head = malloc(8192), second[1024];
    for (int i = 0; i < m.nlines && head; i++) {
        const char *t = m.line[i].text;
        int len = m.line[i].len;
        if (m.line[i].rec >= 0) {
            const emu_record *r = &m.recs[m.line[i].rec];
            emu_record_words(r, 1, head, 8192, second, sizeof second);
            used += (size_t)snprintf(text + used, cap - used, "%s%s%s%s", used ? "\n" : "", head,
                                     second[0] ? "\n" : "", second);
            if (used >= cap) used = cap - 1;
            if (tused && tused + 1 < cap) lines[tused++] = '\n';
            tused += emu_record_encode(r, EMU_ENCODE_TOOLS, lines + tused, cap - tused);
            if (tused >= cap) tused = cap - 1;
            continue;
        }
        used += (size_t)snprintf(text + used, cap - used, "%s%.*s", used ? "\n" : "", len, t);
        if (used >= cap) used = cap - 1;
    }
    if (m.hint) used += (size_t)snprintf(text + used, cap - used, "%s%s %.*s", used ? "\n" : "", _("Hint:"),
                                         m.hint_len, m.hint);
    free(head);
    free(m.recs);
    *tools = lines;
    return text;
}
