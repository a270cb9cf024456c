/* harness_results.c - the grade as files for tools: TAP (version 13, the message as a YAML block) and
 * Check's XML schema, for teachers and CI (`make check FORMAT=tap`) and for .state/exNN.<backend>.tap. A
 * failed test's message is in words, then one "finding: ..." line per finding of the emulator
 * (checker/README.md, "Findings for tools").
 * The runner runs one test at a time (so that its report streams), so the files are written here, once,
 * from every test's result. */
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *tap_status(int outcome) { return outcome == HARNESS_PASSED ? "ok" : "not ok"; }

void harness_write_tap(const char *path, const harness_result *r, int count)
{
    FILE *f = fopen(path, "w");
    if (!f) return;
    fprintf(f, "TAP version 13\n1..%d\n", count);
    for (int i = 0; i < count; i++) {
        if (r[i].outcome == HARNESS_NOT_RUN) {
            fprintf(f, "ok %d - %s # SKIP %s\n", i + 1, r[i].name, r[i].message ? r[i].message : "not run here");
            continue;
        }
        fprintf(f, "%s %d - %s\n", tap_status(r[i].outcome), i + 1, r[i].name);
        if (r[i].outcome == HARNESS_PASSED || !r[i].message) continue;
        char *tools = NULL, *text = report_plain(r[i].message, &tools);
        fprintf(f, "  ---\n  message: |\n");
        for (const char *line = text ? text : r[i].message; *line;) {
            const char *end = strchr(line, '\n');
            int len = end ? (int)(end - line) : (int)strlen(line);
            fprintf(f, "    %.*s\n", len, line);
            line = end ? end + 1 : line + len;
        }
        /* one line per finding, for tools (the hint chooser): "finding: kind=... at=FILE:LINE ..." */
        for (const char *line = tools ? tools : ""; *line;) {
            const char *end = strchr(line, '\n');
            int len = end ? (int)(end - line) : (int)strlen(line);
            fprintf(f, "  %.*s\n", len, line);
            line = end ? end + 1 : line + len;
        }
        fprintf(f, "  ...\n");
        free(text);
        free(tools);
    }
    fclose(f);
}

static void xml_text(FILE *f, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        default: fputc(*s, f);
        }
    }
}

void harness_write_xml(const char *path, const char *suite, const harness_result *r, int count, double seconds)
{
    FILE *f = fopen(path, "w");
    if (!f) return;
    char stamp[32];
    time_t now = time(NULL);
    strftime(stamp, sizeof stamp, "%Y-%m-%d %H:%M:%S", localtime(&now));
    fprintf(f, "<?xml version=\"1.0\"?>\n<testsuites xmlns=\"http://check.sourceforge.net/ns\">\n"
               "  <datetime>%s</datetime>\n  <suite>\n    <title>", stamp);
    xml_text(f, suite);
    fprintf(f, "</title>\n");
    for (int i = 0; i < count; i++) {
        if (r[i].outcome == HARNESS_NOT_RUN) continue;
        static const char *const result[] = {"success", "failure", "error"};
        fprintf(f, "    <test result=\"%s\">\n      <path>.</path>\n      <fn>%s:%d</fn>\n      <id>", result[r[i].outcome],
                r[i].file ? r[i].file : "", r[i].line);
        xml_text(f, r[i].name);
        fprintf(f, "</id>\n      <iteration>0</iteration>\n      <duration>%f</duration>\n      <description>",
                r[i].seconds);
        xml_text(f, r[i].name);
        fprintf(f, "</description>\n      <message>");
        if (r[i].outcome == HARNESS_PASSED || !r[i].message) {
            xml_text(f, r[i].outcome == HARNESS_PASSED ? "Passed" : "");
        } else {
            /* the words, then one "finding: ..." line per finding for tools */
            char *tools = NULL, *text = report_plain(r[i].message, &tools);
            xml_text(f, text ? text : r[i].message);
            if (tools && *tools) { xml_text(f, "\n"); xml_text(f, tools); }
            free(text);
            free(tools);
        }
        fprintf(f, "</message>\n    </test>\n");
    }
    fprintf(f, "  </suite>\n  <duration>%f</duration>\n</testsuites>\n", seconds);
    fclose(f);
}
