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
    [EMU_FD_OOB_GLOBAL] = N_("out-of-bounds access"),
    [EMU_FD_OOB_SHARED] = N_("out-of-bounds shared memory access"),
    [EMU_FD_OOB_LOCAL] = N_("out-of-bounds local memory access"),
    [EMU_FD_MISALIGNED] = N_("misaligned access"),
    [EMU_FD_UNINIT_GLOBAL] = N_("read of never-written memory"),
    [EMU_FD_UNINIT_SHARED] = N_("read of never-written shared memory"),
    [EMU_FD_RACE] = N_("race between warps"),
    [EMU_FD_WARP_RACE] = N_("race inside a warp"),
    [EMU_FD_GLOBAL_RACE] = N_("race on global memory"),
    [EMU_FD_BAR_DIVERGENT] = N_("barrier in divergent code"),
    [EMU_FD_BAR_EXITED] = N_("barrier after an early return"),
    [EMU_FD_MEMBERS] = N_("warp instruction with inactive members"),
    [EMU_FD_SHFL_ABSENT] = N_("shuffle from a lane that does not take part"),
    [EMU_FD_UNSUPPORTED] = N_("unsupported instruction"),
    [EMU_FD_BUDGET] = N_("kernel that never finished"),
    [EMU_FD_ENDLESS] = N_("loop that never ends"),
    [EMU_FD_STACK] = N_("call stack overflow"),
    [EMU_FD_TRAP] = N_("trap"),
    [EMU_FD_ASSERT] = N_("failed assertion"),
    [EMU_FD_LAUNCH] = N_("bad launch"),
    [EMU_FD_GUARD_READ] = N_(EMU_KIND_GUARD_READ),
    [EMU_FD_GUARD_WRITE] = N_(EMU_KIND_GUARD_WRITE),
    [EMU_FD_OOB_PARAM] = N_("read outside the kernel's parameters"),
    [EMU_FD_PRINTF_FORMAT] = N_("printf format that a GPU does not print"),
    [EMU_FD_CLUSTER_BAR] = N_("cluster barrier that not every thread reaches"),
    [EMU_FD_GRID_SYNC] = N_("grid-wide barrier that not every block reaches"),
    [EMU_FD_OOB_DSMEM] = N_("out-of-bounds access of another block's shared memory"),
    [EMU_FD_DSMEM_RACE] = N_("race on another block's shared memory"),
    [EMU_FD_DSMEM_EXITED] = N_("access of an exited block's shared memory"),
    [EMU_FD_CP_ASYNC] = N_("read of a cp.async copy before its wait"),
};
/* xgettext sees literals only: the two guard kinds of emu.h, for the catalog. */
static const char *const guard_kinds[] __attribute__((unused)) = { N_("read outside the input"),
                                                                    N_("write outside the output") };

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
    return emu_diag_add(kind, 1);
}

int emu_diag_add(int kind, unsigned long times)
{
    if (kind < 0 || kind >= EMU_FD_COUNT || !times) return 0;
    int first = counts[kind] == 0;
    counts[kind] += times;
    return first;
}

/* Every finding of the engine starts with emu_where's text, "file:line" EMU_WHERE_SEP "in kernel ...": the
 * place is what comes before the separator (whatever language the rest is in). */
static const char *split_where(const char *text, char *where, size_t len)
{
    const char *cut = strstr(text, EMU_WHERE_SEP);
    if (!cut || (size_t)(cut - text) >= len) { where[0] = '\0'; return text; }
    memcpy(where, text, (size_t)(cut - text));
    where[cut - text] = '\0';
    return cut + strlen(EMU_WHERE_SEP);
}

void emu_diag_report(int kind, const char *fmt, ...)
{
    char buf[4096], where[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, emu_text(fmt), ap);
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
                               emu_ntext("It happened %lu time in this launch; only the first is described.",
                                         "It happened %lu times in this launch; only the first is described.",
                                         counts[k]),
                               counts[k]);
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

/* The location in the learner's code of location loc: itself, or where the toolkit header it is in was
 * inlined (following inlined_at). */
static const emu_loc *learner_loc(const emu_module *m, uint32_t loc)
{
    const emu_loc *l = &m->locs[loc];
    for (int guard = 0; guard < 64; guard++) {
        const char *path = (l->file >= 0 && l->file < m->nfiles) ? m->files[l->file] : NULL;
        if (!is_system_file(path) || l->parent < 0 || l->parent >= m->nlocs) break;
        l = &m->locs[l->parent];
    }
    return l;
}

/* "file:line" of the innermost location in the learner's code (following inlined_at out of the
 * toolkit's headers), with the innermost header location added when there is one. */
const char *emu_loc_text(const emu_module *m, uint32_t loc, char *buf, size_t len)
{
    if (!m || loc == 0 || (int)loc >= m->nlocs) {
        snprintf(buf, len, "%s", emu_text("an unknown line (compile with -lineinfo)"));
        return buf;
    }
    const emu_loc *inner = &m->locs[loc];
    const emu_loc *l = learner_loc(m, loc);
    const char *path = (l->file >= 0 && l->file < m->nfiles && m->files[l->file]) ? relative_path(m->files[l->file]) : "?";
    if (l != inner) {
        const char *ip = (inner->file >= 0 && inner->file < m->nfiles && m->files[inner->file]) ? m->files[inner->file] : "?";
        snprintf(buf, len, "%s:%d (in %s:%d)", path, l->line, base_name(ip), inner->line);
    } else
        snprintf(buf, len, "%s:%d", path, l->line);
    return buf;
}

/* Whether a line of source starts a loop: a for or while statement, or a do. */
static int starts_loop(const char *line)
{
    static const char *const words[] = { "for", "while", "do" };
    for (const char *p = line; *p; p++) {
        if (p > line && (isalnum((unsigned char)p[-1]) || p[-1] == '_')) continue;
        for (size_t w = 0; w < sizeof words / sizeof *words; w++) {
            size_t n = strlen(words[w]);
            if (!strncmp(p, words[w], n) && !isalnum((unsigned char)p[n]) && p[n] != '_') return 1;
        }
    }
    return 0;
}

const char *emu_loop_text(const emu_module *m, const emu_func *f, int first, int last, char *buf, size_t len)
{
    const emu_loc *top = NULL;
    for (int pc = first; pc <= last && pc < f->ncode; pc++) {
        uint32_t loc = f->code[pc].loc;
        if (!m || loc == 0 || (int)loc >= m->nlocs) continue;
        const emu_loc *l = learner_loc(m, loc);
        if (l->line > 0 && (!top || l->line < top->line)) top = l;
    }
    if (!top || top->file < 0 || top->file >= m->nfiles || !m->files[top->file]) {
        snprintf(buf, len, "%s", emu_text("an unknown line (compile with -lineinfo)"));
        return buf;
    }
    /* nvcc moves a condition that never changes out of the loop: its statement may be a line or two up. */
    int line = top->line;
    FILE *src = fopen(m->files[top->file], "r");
    if (src) {
        char text[512];
        int at = 0, found = 0;
        while (at < top->line && fgets(text, sizeof text, src)) {
            at++;
            if (at >= top->line - 3 && starts_loop(text)) found = at;
        }
        fclose(src);
        if (found) line = found;
    }
    snprintf(buf, len, "%s:%d", relative_path(m->files[top->file]), line);
    return buf;
}

/* The source file of kernel f: the learner's file its first located instruction lies in. */
static const char *kernel_file(const emu_module *m, const emu_func *f)
{
    for (int pc = 0; pc < f->ncode; pc++) {
        uint32_t loc = f->code[pc].loc;
        if (loc == 0 || (int)loc >= m->nlocs) continue;
        const emu_loc *l = learner_loc(m, loc);
        if (l->file >= 0 && l->file < m->nfiles && m->files[l->file] && !is_system_file(m->files[l->file]))
            return m->files[l->file];
    }
    return NULL;
}

/* Copies the name of parameter `index` out of the parameter list at text (just after its '('): the last
 * identifier of the index-th comma-separated part. 0 when the list does not have nparams parts. */
static int param_from_list(const char *text, int index, int nparams, char *buf, size_t len)
{
    int depth = 0, part = 0;
    const char *start = text, *p = text;
    for (; *p && depth >= 0; p++) {
        if (*p == '(' || *p == '<' || *p == '[') depth++;
        else if (*p == '>' || *p == ']') depth--;
        else if (*p == ')') depth--;
        if ((*p == ',' && depth == 0) || depth < 0) {
            if (part == index) {
                const char *e = p;
                while (e > start && !(isalnum((unsigned char)e[-1]) || e[-1] == '_')) e--;
                const char *b = e;
                while (b > start && (isalnum((unsigned char)b[-1]) || b[-1] == '_')) b--;
                if (b == e || isdigit((unsigned char)*b)) return 0;
                snprintf(buf, len, "%.*s", (int)(e - b), b);
            }
            part++;
            start = p + 1;
        }
    }
    return part == nparams && buf[0];
}

int emu_param_name(const emu_module *m, const emu_func *f, int index, char *buf, size_t len)
{
    buf[0] = 0;
    const char *path = m ? kernel_file(m, f) : NULL;
    FILE *src = path ? fopen(path, "r") : NULL;
    if (!src) return 0;
    static char text[1 << 16];
    size_t got = fread(text, 1, sizeof text - 1, src);
    fclose(src);
    text[got] = 0;
    /* the kernel's name as written: its pretty name without template arguments or namespaces */
    char name[256];
    snprintf(name, sizeof name, "%s", f->pretty);
    char *lt = strchr(name, '<');
    if (lt) *lt = 0;
    const char *colon = strrchr(name, ':'), *want = colon ? colon + 1 : name;
    size_t n = strlen(want);
    for (const char *p = strstr(text, want); p && n; p = strstr(p + 1, want)) {
        if (p > text && (isalnum((unsigned char)p[-1]) || p[-1] == '_')) continue;
        const char *q = p + n;
        while (isspace((unsigned char)*q)) q++;
        if (*q != '(') continue;
        /* a definition or a declaration: __global__ appears before it on the way back to the last ';' or '}' */
        const char *b = p;
        while (b > text && b[-1] != ';' && b[-1] != '}') b--;
        if (!strstr(b, "__global__") || strstr(b, "__global__") > p) continue;
        if (param_from_list(q + 1, index, f->nparams, buf, len)) return 1;
    }
    buf[0] = 0;
    return 0;
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
