/* harness_capture.c - keeps the report readable when a kernel prints: each test shows at most the first
 * lines of what its kernels printed, then says how much more there was. A printf in a loop of a million
 * threads would otherwise bury the report under its output (and fill a terminal's scrollback). */
#include "harness.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CAPTURE_LINES 20      /* lines of a test's output shown */
#define CAPTURE_BYTES 4096    /* and at most this many bytes of them (a flood may have no newline) */

static int capture_real_stdout = -1, capture_read_end = -1;
static pthread_t capture_reader;
static unsigned long long capture_dropped_lines, capture_dropped_bytes;
static const char *capture_test = "";
static const harness_test *capture_tests; /* to name the test in the sentence: Check knows its function */

void harness_capture_names(const harness_test *tests) { capture_tests = tests; }

/* Forwards the first lines of the pipe to the real stdout and counts the rest; ends when the pipe closes. */
static void *capture_forward(void *unused)
{
    (void)unused;
    char buf[4096];
    unsigned lines = 0, bytes = 0;
    ssize_t got;
    while ((got = read(capture_read_end, buf, sizeof buf)) > 0) {
        for (ssize_t i = 0; i < got; i++) {
            if (lines < CAPTURE_LINES && bytes < CAPTURE_BYTES) {
                ssize_t ignored = write(capture_real_stdout, &buf[i], 1);
                (void)ignored;
                bytes++;
                if (buf[i] == '\n') lines++;
            } else {
                capture_dropped_bytes++;
                if (buf[i] == '\n') capture_dropped_lines++;
            }
        }
    }
    return NULL;
}

/* At the test process's exit (a pass or a failure alike): closes the pipe, waits for the reader and says
 * what was left out. */
static void capture_finish(void)
{
    fflush(stdout);
    dup2(capture_real_stdout, STDOUT_FILENO); /* closes the pipe's last write end: the reader sees its end */
    pthread_join(capture_reader, NULL);
    const char *name = tcase_name();
    capture_test = name ? name : "";
    for (const harness_test *t = capture_tests; t && t->name && name; t++)
        if (t->fn && t->fn->name && strcmp(t->fn->name, name) == 0) capture_test = _(t->name);
    if (capture_dropped_bytes > 0) {
        printf(_n("      [... your kernel printed %llu more line (%llu bytes) in the test \"%s\"; only the "
                  "first %d lines are shown]\n",
                  "      [... your kernel printed %llu more lines (%llu bytes) in the test \"%s\"; only the "
                  "first %d lines are shown]\n", (unsigned long)capture_dropped_lines),
               capture_dropped_lines, capture_dropped_bytes, capture_test, CAPTURE_LINES);
        fflush(stdout);
    }
}

void harness_capture_output(void)
{
    harness_catch_abort();
    harness_catch_faults();
    int fds[2];
    fflush(stdout);
    if (pipe(fds) != 0) return;
    capture_real_stdout = dup(STDOUT_FILENO);
    if (capture_real_stdout < 0 || dup2(fds[1], STDOUT_FILENO) < 0) {
        close(fds[0]);
        close(fds[1]);
        return;
    }
    close(fds[1]);
    capture_read_end = fds[0];
    if (pthread_create(&capture_reader, NULL, capture_forward, NULL) != 0) {
        dup2(capture_real_stdout, STDOUT_FILENO);
        return;
    }
    atexit(capture_finish);
}
