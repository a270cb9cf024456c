/* course_text.c - the scripts' side of the course's language: what a bash script prints goes through here,
 * so that it is translated by the same catalog as the harness and wrapped by the same rules.
 *
 *   course-text say FORMAT [ARG...]   FORMAT in the learner's language, each %s (or %2$s, the second
 *                                     ARG) filled in, wrapped to 100 columns, and a newline
 *   course-text text FORMAT [ARG...]  the same, not wrapped, without the newline (for "$(...)")
 *   course-text tr MSGID              MSGID in the learner's language, as it is (no directives filled)
 *   course-text wrap [WIDTH [HANG]]   each line of stdin wrapped to WIDTH columns (default 100), its later
 *                                     lines indented as its first one is (or by HANG columns)
 *   course-text cols WIDTH...         each line of stdin, fields separated by tabs, as columns: WIDTH n
 *                                     right-aligns its field in n columns, -n left-aligns it, 0 leaves it
 *                                     as it is; one space between columns (escape sequences take none)
 *   course-text width TEXT            the columns TEXT takes
 *   course-text phrase TEXT           TEXT in context "phrase" (hint.sh's symptoms, see i18n.h's P_)
 *   course-text lang                  zh_CN, or en (English also when the catalog is not compiled)
 *   course-text wanted                the language the environment asks for, compiled catalog or not
 * A FORMAT's directives are %s, %d (the same: every argument is text) and %%; a translation may number
 * them (%1$s) to put the arguments in another order. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE   /* open_memstream, getline */
#endif
#include "i18n.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LINE_WIDTH 100

/* FORMAT with its directives filled from args, written to out (a stream). */
static void fill(FILE *out, const char *fmt, int argc, char **args)
{
    int next = 0;
    for (const char *p = fmt; *p; p++) {
        if (*p != '%') { fputc(*p, out); continue; }
        if (p[1] == '%') { fputc('%', out); p++; continue; }
        const char *q = p + 1;
        int index = -1;
        if (*q >= '1' && *q <= '9') {
            char *end;
            long k = strtol(q, &end, 10);
            if (*end == '$') index = (int)k - 1, q = end + 1;
        }
        if (*q != 's' && *q != 'd') { fputc(*p, out); continue; }
        if (index < 0) index = next++;
        if (index < argc) fputs(args[index], out);
        p = q;
    }
}

/* One line (len bytes, no newline), wrapped to width columns: the later lines are indented by hang columns,
 * or as the first one is when hang < 0. */
static void wrap_line(const char *text, size_t len, int width, int hang)
{
    char *tidy = text_tidy_copy(text, &len);
    const char *s = tidy ? tidy : text;
    size_t indent = 0;
    while (indent < len && s[indent] == ' ') indent++;
    int later = hang >= 0 ? hang : (int)indent;
    int room = width - (int)indent > 20 ? width - (int)indent : 20;
    printf("%.*s", (int)indent, s);
    s += indent, len -= indent;
    do {
        size_t next, n = text_fit(s, len, room, &next);
        printf("%.*s\n", (int)n, s);
        if (next == 0) next = len;   /* text_fit always moves on; this only makes sure nothing loops */
        s += next, len -= next;
        if (len > 0) printf("%*s", later, "");
        room = width - later > 20 ? width - later : 20;
    } while (len > 0);
    free(tidy);
}

/* One line of tab-separated fields (len bytes) in columns of the given widths (see the usage above). */
static void columns(const char *s, size_t len, int count, char **widths)
{
    for (int k = 0; len > 0 || k == 0; k++) {
        const char *tab = memchr(s, '\t', len);
        size_t field = tab ? (size_t)(tab - s) : len;
        int want = k < count ? atoi(widths[k]) : 0, used = text_width(s, field);
        int pad = (want < 0 ? -want : want) - used;
        if (k) putchar(' ');
        if (k && want > 0 && pad < 1) putchar(' ');   /* a cell wider than its column: still two spaces before it */
        if (want > 0 && pad > 0) printf("%*s", pad, "");
        printf("%.*s", (int)field, s);
        if (want < 0 && pad > 0 && tab) printf("%*s", pad, "");
        if (!tab) break;
        s += field + 1, len -= field + 1;
    }
    putchar('\n');
}

static void wrap_text(const char *text, int width)
{
    for (const char *line = text; *line;) {
        size_t len = strcspn(line, "\n");
        if (len) wrap_line(line, len, width, -1);
        else putchar('\n');
        line += len + (line[len] == '\n');
    }
    if (!*text) printf("\n");
}

static int usage(void)
{
    fprintf(stderr, "usage: course-text say|text FORMAT [ARG...] | tr MSGID | phrase TEXT | wrap [WIDTH [HANG]] | "
                    "cols WIDTH... | width TEXT | lang | wanted\n");
    return 2;
}

int main(int argc, char **argv)
{
    if (argc < 2) return usage();
    const char *cmd = argv[1];
    if (!strcmp(cmd, "lang") || !strcmp(cmd, "wanted")) {
        const char *lang = !strcmp(cmd, "lang") ? course_i18n_init() : course_language_wanted();
        puts(lang ? lang : "en");
        return 0;
    }
    if ((!strcmp(cmd, "say") || !strcmp(cmd, "text")) && argc >= 3) {
        char *buf = NULL;
        size_t size = 0;
        FILE *out = open_memstream(&buf, &size);
        if (!out) return 1;
        fill(out, _(argv[2]), argc - 3, argv + 3);
        fclose(out);
        if (!strcmp(cmd, "say")) wrap_text(buf, LINE_WIDTH);
        else fputs(buf, stdout);
        free(buf);
        return 0;
    }
    if (!strcmp(cmd, "tr") && argc == 3) {
        fputs(_(argv[2]), stdout);
        return 0;
    }
    if (!strcmp(cmd, "wrap") || !strcmp(cmd, "cols")) {
        int width = !strcmp(cmd, "wrap") && argc >= 3 ? atoi(argv[2]) : LINE_WIDTH;
        int hang = !strcmp(cmd, "wrap") && argc >= 4 ? atoi(argv[3]) : -1;
        char *line = NULL;
        size_t cap = 0;
        ssize_t got;
        while ((got = getline(&line, &cap, stdin)) > 0) {
            if (line[got - 1] == '\n') line[--got] = '\0';
            if (!strcmp(cmd, "cols")) columns(line, (size_t)got, argc - 2, argv + 2);
            else if (got == 0) putchar('\n');
            else wrap_line(line, (size_t)got, width > 20 ? width : 20, hang);
        }
        free(line);
        return 0;
    }
    if (!strcmp(cmd, "phrase") && argc == 3) {
        puts(P_(argv[2]));
        return 0;
    }
    if (!strcmp(cmd, "width") && argc == 3) {
        printf("%d\n", text_width(argv[2], strlen(argv[2])));
        return 0;
    }
    return usage();
}
