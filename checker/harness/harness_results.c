/* harness_results.c - the grade as files for tools: TAP (version 13, the message as a YAML block) and
 * Check's XML schema, for teachers and CI (`make check FORMAT=tap`) and for .state/exNN.<backend>.tap.
 * The runner runs one test at a time (so that its report streams), so the files are written here, once,
 * from every test's result. */
#include "harness.h"

#include <stdio.h>
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
        /* The message, then its evidence lines (harness_evidence.c) each as a key of the block. */
        fprintf(f, "  ---\n  message: |\n");
        for (int pass = 0; pass < 2; pass++)
            for (const char *line = r[i].message; *line;) {
                const char *end = strchr(line, '\n');
                int len = end ? (int)(end - line) : (int)strlen(line);
                int evidence = !strncmp(line, HARNESS_EVIDENCE_PREFIX, strlen(HARNESS_EVIDENCE_PREFIX));
                if (evidence == pass) fprintf(f, pass ? "  %.*s\n" : "    %.*s\n", len, line);
                line = end ? end + 1 : line + len;
            }
        fprintf(f, "  ...\n");
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
        xml_text(f, r[i].outcome == HARNESS_PASSED ? "Passed" : r[i].message);
        fprintf(f, "</message>\n    </test>\n");
    }
    fprintf(f, "  </suite>\n  <duration>%f</duration>\n</testsuites>\n", seconds);
    fclose(f);
}
