/* harness_print.c - one test's lines in the learner's report: its ✓ or ✗, what failed wrapped to 100
 * columns, each finding of the emulator in full the first time the grade shows it and in one line after
 * that, and each hint once. A grade with one bug then fits one screen, whatever number of tests it fails.
 *
 * A finding reaches the report inside the failed test's message as one line "[KIND at FILE:LINE] TEXT"
 * (emu_finding_tagged); KIND and FILE:LINE together say which finding it is. Its later lines with the same
 * tag (how many times it happened) belong to it. */
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REPORT_WIDTH 100   /* the terminal the report is written for */
#define REPORT_INDENT 6    /* a test's details sit under its name */

static int colour;
static const char *paint(const char *code) { return colour ? code : ""; }
#define BOLD paint("\033[1m")
#define RESET paint("\033[0m")

/* What the grade has shown so far: findings (their tags) and hints. */
#define REPORT_SEEN_MAX 256
static char *seen[REPORT_SEEN_MAX];
static int nseen;

void report_begin(int use_colour)
{
    colour = use_colour;
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

/* Prints text (len bytes) indented under the test, broken so that no line passes 100 columns: between
 * words, or between two Chinese characters (text_fit). A label ("Hint:") starts the first line, in bold,
 * then a space (none after a full-width mark: "提示："); the lines after it are indented past it. */
static void print_wrapped(const char *label, const char *text, int len)
{
    size_t label_len = label ? strlen(label) : 0;
    const char *space = label_len && (unsigned char)label[label_len - 1] < 0x80 ? " " : "";
    int indent = label ? text_width(label, label_len) + (int)strlen(space) : 0;
    int width = REPORT_WIDTH - REPORT_INDENT - indent;
    int first = 1;
    size_t left = len > 0 ? (size_t)len : 0;
    char *tidy = text_tidy_copy(text, &left);
    if (tidy) text = tidy;
    while (left > 0) {
        size_t next, cut = text_fit(text, left, width, &next);
        if (first && label) printf("%*s%s%s%s%s%.*s\n", REPORT_INDENT, "", BOLD, label, RESET, space, (int)cut, text);
        else printf("%*s%*s%.*s\n", REPORT_INDENT, "", indent, "", (int)cut, text);
        first = 0;
        text += next;
        left -= next;
    }
    free(tidy);
}

static void print_sentence(const char *fmt, const char *a, const char *b)
{
    char line[1400];
    snprintf(line, sizeof line, fmt, a, b);
    print_wrapped(NULL, line, (int)strlen(line));
}

/* ---- A message, taken apart ------------------------------------------------------------------------- */

#define REPORT_LINES_MAX 64

typedef struct finding {
    const char *tag; int tag_len;     /* "race inside a warp at exercises/...:26" */
    const char *body; int body_len;   /* "in kernel ..., block ..., thread ...: reads ..." */
    const char *more; int more_len;   /* a later line of the same tag: "It happened 39 times..." */
} finding;

typedef struct message {
    const char *plain[REPORT_LINES_MAX]; int plain_len[REPORT_LINES_MAX]; int nplain;
    finding found[REPORT_LINES_MAX]; int nfound;
    const char *hint; int hint_len;
} message;

/* The tag of a finding line ("[kind at where] text"), or NULL when line is not one. */
static const char *tag_of(const char *line, int len, int *tag_len)
{
    if (len < 3 || line[0] != '[') return NULL;
    const char *close = memchr(line, ']', (size_t)len);
    if (!close || close + 1 >= line + len || close[1] != ' ' || memchr(line + 1, '[', (size_t)(close - line - 1)))
        return NULL;
    *tag_len = (int)(close - line - 1);
    return line + 1;
}

static void parse_message(const char *msg, message *m)
{
    memset(m, 0, sizeof *m);
    for (const char *line = msg; line && *line;) {
        const char *end = strchr(line, '\n');
        int len = end ? (int)(end - line) : (int)strlen(line), tag_len = 0;
        const char *tag = tag_of(line, len, &tag_len);
        if (!strncmp(line, "Hint: ", 6)) {
            m->hint = line + 6;
            m->hint_len = len - 6;
        } else if (tag) {
            int i = 0;
            while (i < m->nfound && !(m->found[i].tag_len == tag_len && !strncmp(m->found[i].tag, tag, (size_t)tag_len)))
                i++;
            const char *body = tag + tag_len + 2;
            int body_len = len - tag_len - 3;
            if (i < m->nfound) {
                if (!m->found[i].more) m->found[i].more = body, m->found[i].more_len = body_len;
            } else if (m->nfound < REPORT_LINES_MAX) {
                m->found[m->nfound++] = (finding){tag, tag_len, body, body_len, NULL, 0};
            }
        } else if (len > 0 && m->nplain < REPORT_LINES_MAX) {
            m->plain[m->nplain] = line;
            m->plain_len[m->nplain++] = len;
        }
        line = end ? end + 1 : NULL;
    }
}

/* The place part of a tag ("exercises/...:26"), or "" when it has none. */
static const char *tag_place(const finding *f, int *len)
{
    for (int i = f->tag_len - 4; i >= 0; i--)
        if (!strncmp(f->tag + i, " at ", 4)) {
            *len = f->tag_len - i - 4;
            return f->tag + i + 4;
        }
    *len = 0;
    return "";
}

/* The kind part of a tag ("race inside a warp"), len bytes. */
static int tag_noun_len(const finding *f)
{
    int place_len;
    tag_place(f, &place_len);
    return place_len ? f->tag_len - place_len - 4 : f->tag_len;
}

/* "The same race inside a warp as above, at exercises/02-interleaved/v1_interleaved.cu:26." (or, for a
 * kernel that the emulator stopped at once because it never finished before, "Not run again: ..."). */
static void print_same(const finding *f)
{
    char noun[600], place[700] = "";
    int place_len;
    const char *p = tag_place(f, &place_len);
    snprintf(noun, sizeof noun, "%.*s", tag_noun_len(f), f->tag);
    snprintf(place, sizeof place, "%.*s", place_len, p);
    char body[1400];
    snprintf(body, sizeof body, "%.*s", f->body_len, f->body);
    int not_run = strstr(body, "not run again") || strstr(body, P_("not run again"));
    if (not_run && place_len) print_sentence(_("Not run again: the same %s, at %s."), _(noun), place);
    else if (not_run) print_sentence(_("Not run again: the same %s."), _(noun), "");
    else if (place_len) print_sentence(_("The same %s as above, at %s."), _(noun), place);
    else print_sentence(_("The same %s as above."), _(noun), "");
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

    /* Every finding was shown by an earlier test: one line says so, and what else the message says follows
     * from it; only a hint not given yet (a test of the concept asks the question that matters) is added. */
    int repeated = m.nfound > 0;
    for (int i = 0; i < m.nfound && repeated; i++) repeated = was_shown('f', m.found[i].tag, (size_t)m.found[i].tag_len);
    if (repeated) {
        print_same(&m.found[0]);
        if (m.hint && !shown_before('h', m.hint, (size_t)m.hint_len)) print_wrapped(_("Hint:"), m.hint, m.hint_len);
        return;
    }

    /* The same words as an earlier failure, only other numbers (another n, another block) or another call
     * (the message's first words, up to its first ')': exercise 16 runs six functions alike): one line (a
     * message of one line already is simply shown). */
    if (m.nfound == 0 && m.nplain > 0 && (m.nplain > 1 || m.plain_len[0] > REPORT_WIDTH - REPORT_INDENT)) {
        char shape[4096];
        size_t len = 0;
        const char *call_end = memchr(m.plain[0], ')', (size_t)m.plain_len[0]);
        for (int i = 0; i < m.nplain && len < sizeof shape - 1; i++)
            for (const char *c = i == 0 && call_end ? call_end + 1 : m.plain[i];
                 c < m.plain[i] + m.plain_len[i] && len < sizeof shape - 1; c++)
                if (!((*c >= '0' && *c <= '9') || (*c == '-' && c[1] >= '0' && c[1] <= '9')) ||
                    !len || shape[len - 1] != '#')
                    shape[len++] = (*c >= '0' && *c <= '9') || *c == '-' ? '#' : *c;
        if (shown_before('s', shape, len)) {
            const char *close = memchr(m.plain[0], ')', (size_t)m.plain_len[0]);
            int what = close ? (int)(close - m.plain[0] + 1) : 0;
            char line[1400];
            if (what) snprintf(line, sizeof line, _("The same failure as above, for %.*s."), what, m.plain[0]);
            else snprintf(line, sizeof line, "%s", _("The same failure as above."));
            print_wrapped(NULL, line, (int)strlen(line));
            if (m.hint && !shown_before('h', m.hint, (size_t)m.hint_len)) print_wrapped(_("Hint:"), m.hint, m.hint_len);
            return;
        }
    }
    for (int i = 0; i < m.nplain; i++) print_wrapped(NULL, m.plain[i], m.plain_len[i]);
    for (int i = 0; i < m.nfound; i++) {
        const finding *f = &m.found[i];
        if (shown_before('f', f->tag, (size_t)f->tag_len)) {
            print_same(f);
            continue;
        }
        /* "file:line: Race inside a warp: in kernel ..., block ..., thread ...: what happened." (the noun in
         * the learner's language; the tag keeps it in English, as the emulator filed it). */
        int place_len;
        const char *place = tag_place(f, &place_len);
        char noun[600], body[6000], text[8000];
        snprintf(noun, sizeof noun, "%.*s", tag_noun_len(f), f->tag);
        /* The count after the text, with a space after an English sentence (none after a Chinese one). */
        int wide_end = f->body_len > 0 && (unsigned char)f->body[f->body_len - 1] >= 0x80;
        snprintf(body, sizeof body, "%.*s%s%.*s", f->body_len, f->body, f->more && !wide_end ? " " : "",
                 f->more_len, f->more ? f->more : "");
        /* TRANSLATORS: a finding: its kind ("race inside a warp"), then what happened. */
        int n = snprintf(text, sizeof text, "%.*s%s", place_len, place, place_len ? ": " : "");
        if (n > 0 && (size_t)n < sizeof text) snprintf(text + n, sizeof text - (size_t)n, _("%s: %s"), _(noun), body);
        size_t noun_at = place_len ? (size_t)place_len + 2 : 0;
        if (n > 0 && noun_at < sizeof text && text[noun_at] >= 'a' && text[noun_at] <= 'z') text[noun_at] -= 'a' - 'A';
        print_wrapped(NULL, text, (int)strlen(text));
    }
    if (m.hint) {
        const char *same = _("the same question as above.");
        if (shown_before('h', m.hint, (size_t)m.hint_len)) print_wrapped(_("Hint:"), same, (int)strlen(same));
        else print_wrapped(_("Hint:"), m.hint, m.hint_len);
    }
}

void report_test(const char *name, int outcome, const char *msg, double timeout, const char *green,
                 const char *red, const char *reset)
{
    if (outcome == HARNESS_PASSED) {
        printf("  %s✓%s %s\n", green, reset, name);
        return;
    }
    printf("  %s✗ %s%s\n", red, name, reset);
    if (outcome == HARNESS_CRASHED) print_error(msg, timeout);
    else print_failure(msg);
}
