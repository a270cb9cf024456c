/* emu_diag.c - findings: source locations, kernel names, and one message per kind of problem per launch. */
#define _POSIX_C_SOURCE 200809L   /* strdup, getcwd */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "emu_exec.h"

static unsigned long counts[EMU_FD_COUNT];
static char first_where[EMU_FD_COUNT][512];   /* the place of each kind's first finding in this launch */
static int first_kind = -1;                   /* the kind of this launch's first finding */

/* What each kind of finding is, as a short noun: the harness says "the same <noun> at file:line" when a
 * later test shows it again, so it must read well there and stay the same from launch to launch. */
static const char *const kind_text[EMU_FD_COUNT] = {
    [EMU_FD_OOB_GLOBAL] = "out-of-bounds access",
    [EMU_FD_OOB_SHARED] = "out-of-bounds shared memory access",
    [EMU_FD_OOB_LOCAL] = "out-of-bounds local memory access",
    [EMU_FD_MISALIGNED] = "misaligned access",
    [EMU_FD_UNINIT_GLOBAL] = "read of never-written memory",
    [EMU_FD_UNINIT_SHARED] = "read of never-written shared memory",
    [EMU_FD_RACE] = "race between warps",
    [EMU_FD_WARP_RACE] = "race inside a warp",
    [EMU_FD_BAR_DIVERGENT] = "barrier in divergent code",
    [EMU_FD_BAR_EXITED] = "barrier after an early return",
    [EMU_FD_MEMBERS] = "warp instruction with inactive members",
    [EMU_FD_UNSUPPORTED] = "unsupported instruction",
    [EMU_FD_BUDGET] = "kernel that never finished",
    [EMU_FD_STACK] = "call stack overflow",
    [EMU_FD_TRAP] = "trap",
    [EMU_FD_ASSERT] = "failed assertion",
    [EMU_FD_LAUNCH] = "bad launch",
    [EMU_FD_GUARD_READ] = EMU_KIND_GUARD_READ,
    [EMU_FD_GUARD_WRITE] = EMU_KIND_GUARD_WRITE,
};

static const char *kind_noun(int kind)
{
    return kind >= 0 && kind < EMU_FD_COUNT && kind_text[kind] ? kind_text[kind] : "problem";
}

void emu_diag_begin(void)
{
    memset(counts, 0, sizeof counts);
    memset(first_where, 0, sizeof first_where);
    first_kind = -1;
}

int emu_diag_first(int kind)
{
    if (kind < 0 || kind >= EMU_FD_COUNT) return 0;
    return ++counts[kind] == 1;
}

/* Every finding of the engine starts with emu_where's text, "file:line: in kernel ...": the place is
 * what comes before ": in kernel ". */
static const char *split_where(const char *text, char *where, size_t len)
{
    const char *cut = strstr(text, ": in kernel ");
    if (!cut || (size_t)(cut - text) >= len) { where[0] = '\0'; return text; }
    memcpy(where, text, (size_t)(cut - text));
    where[cut - text] = '\0';
    return cut + 2;
}

void emu_diag_report(int kind, const char *fmt, ...)
{
    char buf[1024], where[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    const char *body = split_where(buf, where, sizeof where);
    if (kind >= 0 && kind < EMU_FD_COUNT && !first_where[kind][0])
        snprintf(first_where[kind], sizeof first_where[kind], "%s", where);
    if (first_kind < 0) first_kind = kind;
    emu_finding_tagged(kind_noun(kind), where, "%s", body);
}

void emu_diag_end(const char *kernel)
{
    (void)kernel;
    for (int k = 0; k < EMU_FD_COUNT; k++)
        if (counts[k] > 1)
            emu_finding_tagged(kind_noun(k), first_where[k],
                               "It happened %lu times in this launch; only the first is described.", counts[k]);
}

/* ---- Kernels that never finish: said once per run of the harness, not once per test ---------------------
 * The harness runs each test in its own process and names a file in EMU_ENDLESS_FILE. A kernel that spent
 * its instruction budget is written there (its name, and the kind and place of its first finding); a later
 * launch of it, in any process, stops at once with the same finding, instead of spending the budget again. */

static FILE *open_endless(const char *mode)
{
    const char *path = getenv("EMU_ENDLESS_FILE");
    return path && *path ? fopen(path, mode) : NULL;
}

void emu_diag_endless_record(const char *kernel)
{
    FILE *f = open_endless("a");
    if (!f) return;
    int kind = first_kind >= 0 ? first_kind : EMU_FD_BUDGET;
    fprintf(f, "%s\t%d\t%s\n", kernel, kind, first_where[kind]);
    fclose(f);
}

int emu_diag_endless_known(const char *kernel, const char *pretty)
{
    FILE *f = open_endless("r");
    if (!f) return 0;
    char line[1024];
    int found = 0;
    while (!found && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        char *tab = strchr(line, '\t');
        if (!tab) continue;
        *tab = '\0';
        if (strcmp(line, kernel) != 0) continue;
        char *where = strchr(tab + 1, '\t');
        int kind = atoi(tab + 1);
        emu_finding_tagged(kind_noun(kind), where ? where + 1 : "",
                           "in kernel %s: not run again: it did not finish in an earlier test, so the emulator "
                           "stops it at once (cudaErrorLaunchTimeout).", pretty);
        found = 1;
    }
    fclose(f);
    return found;
}

/* A toolkit header (cuda's include directory) is not where a learner's mistake is. */
static int is_system_file(const char *path)
{
    return !path || strstr(path, "/targets/") || strstr(path, "/include/crt/") || strstr(path, "/cuda/include/") ||
           strstr(path, "cooperative_groups") || strstr(path, "/usr/include/");
}

/* A path as the learner's editor and the compiler's messages show it: relative to the directory the
 * program runs in (the repository's root, under make) when it lies below it. */
static const char *relative_path(const char *path)
{
    static char cwd[4096];
    static size_t len;
    if (!cwd[0] && getcwd(cwd, sizeof cwd - 1)) {
        len = strlen(cwd);
        if (len == 0 || cwd[len - 1] != '/') cwd[len++] = '/';
        cwd[len] = '\0';
    }
    return len && path && !strncmp(path, cwd, len) ? path + len : path;
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* "file:line" of the innermost location in the learner's code (following inlined_at out of the
 * toolkit's headers), with the innermost header location added when there is one. */
const char *emu_loc_text(const emu_module *m, uint32_t loc, char *buf, size_t len)
{
    if (!m || loc == 0 || (int)loc >= m->nlocs) { snprintf(buf, len, "an unknown line (compile with -lineinfo)"); return buf; }
    const emu_loc *inner = &m->locs[loc];
    const emu_loc *l = inner;
    for (int guard = 0; guard < 64; guard++) {
        const char *path = (l->file >= 0 && l->file < m->nfiles) ? m->files[l->file] : NULL;
        if (!is_system_file(path) || l->parent < 0 || l->parent >= m->nlocs) break;
        l = &m->locs[l->parent];
    }
    const char *path = (l->file >= 0 && l->file < m->nfiles && m->files[l->file]) ? relative_path(m->files[l->file]) : "?";
    if (l != inner) {
        const char *ip = (inner->file >= 0 && inner->file < m->nfiles && m->files[inner->file]) ? m->files[inner->file] : "?";
        snprintf(buf, len, "%s:%d (in %s:%d)", path, l->line, base_name(ip), inner->line);
    } else
        snprintf(buf, len, "%s:%d", path, l->line);
    return buf;
}

/* ---- A small demangler for kernel names: _Z4nameargs, _ZN2ns4nameE..., name<I...E> templates ---- */

static const char *read_source_name(const char *s, char *out, size_t *o, size_t cap)
{
    if (!isdigit((unsigned char)*s)) return NULL;
    long n = strtol(s, (char **)&s, 10);
    if (n <= 0 || (long)strlen(s) < n) return NULL;
    for (long i = 0; i < n && *o + 1 < cap; i++) out[(*o)++] = s[i];
    return s + n;
}

static const char *template_args(const char *s, char *out, size_t *o, size_t cap)
{
    /* I ... E with literal arguments L<type><value>E; anything else becomes "..." */
    if (*s != 'I') return s;
    s++;
    if (*o + 1 < cap) out[(*o)++] = '<';
    int first = 1;
    while (*s && *s != 'E') {
        if (!first && *o + 2 < cap) { out[(*o)++] = ','; out[(*o)++] = ' '; }
        first = 0;
        if (*s == 'L') {
            s++;
            if (*s) s++;   /* the literal's type */
            if (*s == 'n' && *o + 1 < cap) { out[(*o)++] = '-'; s++; }
            while (isdigit((unsigned char)*s)) { if (*o + 1 < cap) out[(*o)++] = *s; s++; }
            if (*s == 'E') s++;
        } else {
            const char *dots = "...";
            for (int i = 0; dots[i] && *o + 1 < cap; i++) out[(*o)++] = dots[i];
            int depth = 0;   /* skip one type argument as far as we can tell */
            while (*s && !(*s == 'E' && depth == 0)) { if (*s == 'I') depth++; if (*s == 'E') depth--; s++; }
            break;
        }
    }
    if (*s == 'E') s++;
    if (*o + 1 < cap) out[(*o)++] = '>';
    return s;
}

char *emu_demangle(const char *m)
{
    char out[256];
    size_t o = 0;
    const char *s = m;
    if (!m || strncmp(m, "_Z", 2)) return strdup(m ? m : "?");
    s += 2;
    if (*s == 'N') {
        s++;
        while (*s && *s != 'E') {
            if (o && o + 2 < sizeof out) { out[o++] = ':'; out[o++] = ':'; }
            const char *n = read_source_name(s, out, &o, sizeof out);
            if (!n) return strdup(m);
            s = template_args(n, out, &o, sizeof out);
        }
    } else {
        const char *n = read_source_name(s, out, &o, sizeof out);
        if (!n) return strdup(m);
        s = template_args(n, out, &o, sizeof out);
    }
    out[o] = 0;
    return strdup(out);
}

void emu_var_name(const char *m, char *buf, size_t len)
{
    if (!m) { snprintf(buf, len, "?"); return; }
    /* A function's static is _ZZ<function>E<length><name>, perhaps with a discriminator _<n> after it. */
    if (!strncmp(m, "_ZZ", 3)) {
        for (const char *e = m + strlen(m); e-- > m + 3;) {
            if (*e != 'E' || !isdigit((unsigned char)e[1])) continue;
            char *rest;
            long n = strtol(e + 1, &rest, 10);
            size_t have = strlen(rest);
            if (n <= 0 || (size_t)n > have) continue;
            const char *tail = rest + n;
            int ok = !*tail;
            if (*tail == '_') { ok = 1; for (const char *t = tail + 1; *t; t++) if (!isdigit((unsigned char)*t)) ok = 0; }
            if (ok) { snprintf(buf, len, "%.*s", (int)n, rest); return; }
        }
    }
    snprintf(buf, len, "%s", m);
}
