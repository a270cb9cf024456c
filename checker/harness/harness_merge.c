/* harness_merge.c - one report on a GPU machine: the GPU's verdicts beside the emulator's, one line a test.
 *
 * grade.sh runs two suites of the learner's file side by side. The GPU's (--results FILE) writes each
 * test's verdict to FILE as the test ends; the emulator's (--gpu-results FILE) runs its own tests, waits
 * for the GPU's verdict on each before it prints that test's line, and says once what failed, what the
 * emulator found about it and which backend showed it. The GPU's tests are quick, so the wait is short; a
 * verdict that never comes (the GPU's suite crashed, was killed, or stopped writing) is waited for only
 * so long, and the report says what was seen.
 *
 * FILE is lines of tab-separated fields, each field escaped (\\ \n \t):
 *   gpu TIMEOUT LABEL                     the GPU's suite started: its timeout per test, its backend's label
 *                                         ("the GPU (NVIDIA H100 80GB HBM3)"), empty when it found no device
 *   test OUTCOME SECONDS NAME MESSAGE     a test ended: passed, failed, crashed or not-run; NAME is the test's
 *                                         sentence as the suite writes it (untranslated)
 *   end                                   the suite gave every verdict
 *   exit STATUS                           its process ended with this exit status (written by grade.sh) */
#include "harness.h"

#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *const outcome_words[] = {"passed", "failed", "crashed", "not-run"};

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---- The GPU's side: writing the verdicts ----------------------------------------------------------- */

static int results_fd = -1;

/* s with its backslashes, line breaks and tabs escaped, malloc'ed. */
static char *escaped(const char *s)
{
    size_t n = s ? strlen(s) : 0;
    char *out = malloc(2 * n + 1), *o = out;
    if (!out) return NULL;
    for (; s && *s; s++) {
        if (*s == '\\' || *s == '\n' || *s == '\t') {
            *o++ = '\\';
            *o++ = *s == '\n' ? 'n' : *s == '\t' ? 't' : '\\';
        } else {
            *o++ = *s;
        }
    }
    *o = '\0';
    return out;
}

/* One line, in one write: the reader never sees half of it unless the writer dies in the middle. */
static void put_line(const char *fmt, ...)
{
    if (results_fd < 0) return;
    va_list ap;
    va_start(ap, fmt);
    char *line = NULL;
    int len = vasprintf(&line, fmt, ap);
    va_end(ap);
    for (int done = 0, n; len > 0 && done < len; done += n)
        if ((n = (int)write(results_fd, line + done, (size_t)(len - done))) <= 0) break;
    free(line);
}

void merge_results_start(const char *path, const char *backend, double timeout)
{
    results_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
    char *label = escaped(backend ? backend : "");
    put_line("gpu\t%g\t%s\n", timeout, label ? label : "");
    free(label);
}

void merge_results_add(const char *key, const harness_result *r)
{
    /* A pass's message is empty, or "host-ub": its host code hit undefined behaviour (harness_result). */
    char *name = escaped(key),
         *message = escaped(r->outcome == HARNESS_PASSED ? (r->host_ub ? "host-ub" : "") : r->message);
    if (name && message) put_line("test\t%s\t%.3f\t%s\t%s\n", outcome_words[r->outcome], r->seconds, name, message);
    free(name);
    free(message);
}

void merge_results_end(void)
{
    put_line("end\n");
    if (results_fd >= 0) close(results_fd);
    results_fd = -1;
}

/* ---- The emulator's side: reading them ----------------------------------------------------------------- */

typedef struct verdict {
    char *key;
    harness_result r;
} verdict;

struct gpu_verdicts {
    char *path;
    int fd;                       /* -1 until the GPU's suite has made the file */
    char *partial; size_t npartial; /* bytes read that are not a whole line yet */
    verdict *v; int count, cap;
    int started;                  /* its "gpu" line came */
    char *label;                  /* its backend's label; NULL: it found no device */
    double timeout, margin;
    int complete, ended;          /* "end" came (every verdict given); "end" or "exit" came */
    int exit_status;              /* "exit"'s status (-1: none came) */
    double stalled;               /* > 0: it wrote nothing for that many seconds, and is not waited for */
    double last_news;             /* when bytes last came */
    int missing;                  /* tests whose verdict never came */
    int both_failed_said;         /* a test has been shown failing on both (merge_report_test) */
};

gpu_verdicts *gpu_verdicts_open(const char *path, double margin)
{
    gpu_verdicts *v = calloc(1, sizeof *v);
    if (!v) return NULL;
    v->path = strdup(path);
    v->fd = -1;
    v->margin = margin;
    v->exit_status = -1;
    v->last_news = now_seconds();
    return v;
}

/* Undoes escaped() in place. */
static void unescape(char *s)
{
    char *o = s;
    for (; *s; s++) {
        if (*s == '\\' && s[1]) {
            s++;
            *o++ = *s == 'n' ? '\n' : *s == 't' ? '\t' : *s;
        } else {
            *o++ = *s;
        }
    }
    *o = '\0';
}

/* Splits line at its tabs into at most max fields (the last one keeps the rest), each unescaped. */
static int fields(char *line, char **field, int max)
{
    int n = 0;
    for (char *p = line; n < max; n++) {
        field[n] = p;
        char *tab = n + 1 < max ? strchr(p, '\t') : NULL;
        if (!tab) { n++; break; }
        *tab = '\0';
        p = tab + 1;
    }
    for (int i = 0; i < n; i++) unescape(field[i]);
    return n;
}

static void take_line(gpu_verdicts *v, char *line)
{
    char *f[5];
    int n = fields(line, f, 5);
    if (!strcmp(f[0], "gpu") && n == 3) {
        v->started = 1;
        v->timeout = atof(f[1]);
        free(v->label);
        v->label = f[2][0] ? strdup(f[2]) : NULL;
    } else if (!strcmp(f[0], "test") && n == 5) {
        if (v->count == v->cap) {
            int cap = v->cap ? 2 * v->cap : 16;
            verdict *grown = realloc(v->v, (size_t)cap * sizeof *grown);
            if (!grown) return;
            v->v = grown, v->cap = cap;
        }
        verdict *d = &v->v[v->count++];
        d->key = strdup(f[3]);
        d->r = (harness_result){.name = d->key, .outcome = HARNESS_FAILED, .message = strdup(f[4]),
                                .seconds = atof(f[2])};
        for (int o = 0; o < 4; o++)
            if (!strcmp(f[1], outcome_words[o])) d->r.outcome = o;
        d->r.host_ub = d->r.outcome == HARNESS_PASSED && !strcmp(f[4], "host-ub");
    } else if (!strcmp(f[0], "end")) {
        v->complete = v->ended = 1;
    } else if (!strcmp(f[0], "exit") && n >= 2) {
        v->ended = 1;
        v->exit_status = atoi(f[1]);
    }
}

/* Reads what the GPU's suite has written since the last call; 1 when something came. */
static int read_news(gpu_verdicts *v)
{
    if (v->fd < 0 && (v->fd = open(v->path, O_RDONLY | O_CLOEXEC)) < 0) return 0;
    int news = 0;
    char chunk[65536];
    ssize_t got;
    while ((got = read(v->fd, chunk, sizeof chunk)) > 0) {
        char *grown = realloc(v->partial, v->npartial + (size_t)got + 1);
        if (!grown) break;
        v->partial = grown;
        memcpy(v->partial + v->npartial, chunk, (size_t)got);
        v->npartial += (size_t)got;
        news = 1;
    }
    if (!news) return 0;
    v->last_news = now_seconds();
    v->partial[v->npartial] = '\0';
    char *line = v->partial, *end;
    while ((end = strchr(line, '\n')) != NULL) {
        *end = '\0';
        take_line(v, line);
        line = end + 1;
    }
    v->npartial -= (size_t)(line - v->partial);
    memmove(v->partial, line, v->npartial);
    return 1;
}

static const harness_result *find(const gpu_verdicts *v, const char *key)
{
    for (int i = 0; i < v->count; i++)
        if (!strcmp(v->v[i].key, key)) return &v->v[i].r;
    return NULL;
}

/* What a wait is for: the "gpu" line, a test's verdict, or the end of the GPU's run. */
enum wanted { WANT_START, WANT_VERDICT, WANT_END };

/* Waits until what is wanted came (1), or no more can come (0): the GPU's suite ended, or it wrote nothing
 * for longer than one of its tests may take (its timeout) and the margin; it is not waited for after that. */
static int wait_for(gpu_verdicts *v, enum wanted what, const char *key)
{
    for (;;) {
        read_news(v);
        if (what == WANT_START ? v->started : what == WANT_VERDICT ? find(v, key) != NULL : v->ended) return 1;
        if (v->ended || v->stalled > 0) return 0;
        double silent = now_seconds() - v->last_news;
        if (silent > v->timeout + v->margin) {
            v->stalled = silent;
            return 0;
        }
        nanosleep(&(struct timespec){.tv_nsec = 20 * 1000 * 1000}, NULL);
    }
}

int gpu_verdicts_has(gpu_verdicts *v, const char *key)
{
    read_news(v);
    return find(v, key) != NULL || v->ended || v->stalled > 0;
}

const char *gpu_verdicts_backend(gpu_verdicts *v, int *started)
{
    *started = wait_for(v, WANT_START, NULL);
    return v->label;
}

const harness_result *gpu_verdicts_peek(gpu_verdicts *v, const char *key)
{
    return wait_for(v, WANT_VERDICT, key) ? find(v, key) : NULL;
}

const harness_result *gpu_verdicts_wait(gpu_verdicts *v, const char *key)
{
    const harness_result *r = gpu_verdicts_peek(v, key);
    if (!r) v->missing++;
    return r;
}

void gpu_verdicts_finish(gpu_verdicts *v)
{
    /* the GPU's own files (its TAP, which make hint may read) are written before its "end" */
    wait_for(v, WANT_END, NULL);
}

void gpu_verdicts_close(gpu_verdicts *v)
{
    if (!v) return;
    for (int i = 0; i < v->count; i++) {
        free(v->v[i].key);
        free(v->v[i].r.message);
    }
    free(v->v);
    free(v->partial);
    free(v->label);
    free(v->path);
    if (v->fd >= 0) close(v->fd);
    free(v);
}

/* ---- One line a test ------------------------------------------------------------------------------------ */

merged_test merge_decide(const harness_result *emu, const harness_result *gpu)
{
    int emu_ran = emu && emu->outcome != HARNESS_NOT_RUN, gpu_ran = gpu && gpu->outcome != HARNESS_NOT_RUN;
    int emu_failed = emu_ran && emu->outcome != HARNESS_PASSED, gpu_failed = gpu_ran && gpu->outcome != HARNESS_PASSED;
    const char *no_verdict = _("no verdict from the GPU");
    merged_test m = {.outcome = HARNESS_PASSED};
    if (emu_failed) {
        /* The emulator's message: its findings name the cause. */
        m.outcome = emu->outcome, m.message = emu->message;
        m.tag = !gpu ? no_verdict : gpu_failed ? _("fails on the GPU too") : gpu_ran ? _("passes on the GPU") : NULL;
        m.both_failed = gpu_failed;
    } else if (gpu_failed) {
        m.outcome = gpu->outcome, m.message = gpu->message;
        m.tag = emu_ran ? _("fails on the GPU only") : NULL;
    } else if (emu_ran || gpu_ran) {
        m.tag = !gpu ? no_verdict : NULL;
    } else {
        /* Neither ran it: why not, as the GPU says (the emulator does not run it, and the GPU did not). */
        m.outcome = HARNESS_NOT_RUN;
        m.tag = gpu ? gpu->message : no_verdict;
    }
    return m;
}

/* "fails on the GPU too" is said at the first failure only: a later failure the GPU agrees with carries no
 * tag, so that one bug failing every test still fits a screen. A test the two disagree on is always tagged:
 * that is the news ("passes on the GPU": the bug hides on real hardware). */
merged_test merge_report_test(gpu_verdicts *v, const char *key, const char *name, const harness_result *emu,
                              double timeout, const char *green, const char *red, const char *reset)
{
    merged_test m = merge_decide(emu, gpu_verdicts_wait(v, key));
    const char *tag = m.both_failed && v->both_failed_said ? NULL : m.tag;
    v->both_failed_said |= m.both_failed;
    report_test_tagged(name, tag, m.outcome, m.message, timeout, green, red, reset);
    return m;
}

int merge_report_missing(const gpu_verdicts *v)
{
    int n = v->missing;
    if (!n) return 0;
    char line[600];
    if (v->complete)
        snprintf(line, sizeof line, _n("The GPU's run gave no verdict on %d test.",
                                       "The GPU's run gave no verdict on %d tests.", (unsigned long)n), n);
    else if (v->stalled > 0)
        snprintf(line, sizeof line,
                 _n("The GPU's run wrote nothing for %.0f seconds, so %d test has no verdict from it.",
                    "The GPU's run wrote nothing for %.0f seconds, so %d tests have no verdict from it.",
                    (unsigned long)n),
                 v->stalled, n);
    else   /* it ended: grade.sh wrote its exit status */
        snprintf(line, sizeof line,
                 _n("The GPU's run ended (exit status %d) before its verdict on %d test.",
                    "The GPU's run ended (exit status %d) before its verdict on %d tests.", (unsigned long)n),
                 v->exit_status, n);
    printf("%s\n", line);
    return n;
}
