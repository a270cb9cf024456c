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
static emu_place first_at[EMU_FD_COUNT];   /* the place of each kind's first finding in this launch */
static int first_kind = -1;                /* the kind of this launch's first finding */

void emu_diag_begin(void)
{
    memset(counts, 0, sizeof counts);
    memset(first_at, 0, sizeof first_at);
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

void emu_diag_report(emu_record *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->text, sizeof r->text, emu_text(fmt), ap);
    va_end(ap);
    int kind = r->kind;
    if (kind >= 0 && kind < EMU_FD_COUNT && !first_at[kind].line) first_at[kind] = r->at;
    if (first_kind < 0) first_kind = kind;
    emu_finding_record(r);
}

void emu_diag_end(const char *kernel)
{
    (void)kernel;
    for (int k = 0; k < EMU_FD_COUNT; k++)
        if (counts[k] > 1) emu_finding_count(k, &first_at[k], counts[k]);
}

/* ---- Kernels that never finish: said once per run of the harness, not once per test ---------------------
 * The harness runs each test in its own process and names a file in EMU_ENDLESS_FILE. A kernel that spent
 * its instruction budget is written there (its name, the test's place in the suite, EMU_TEST_ORDER, and the
 * kind and place of its first finding); a launch of it in a later test, in any process, stops at once with
 * the same finding, instead of spending the budget again. (Tests run ahead side by side: one found by a
 * later test does not stop an earlier one, which finds it itself.) */

static int test_order(void)
{
    const char *order = getenv("EMU_TEST_ORDER");
    return order && *order ? atoi(order) : -1;
}

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
    fprintf(f, "%s\t%d\t%d\t%d\t%s\n", kernel, test_order(), kind, first_at[kind].line, first_at[kind].file);
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
        emu_record r;
        int kind = 0, at_line = 0, used = 0, found_by = -1, here = test_order();
        if (sscanf(tab + 1, "%d\t%d\t%d\t%n", &found_by, &kind, &at_line, &used) < 3) continue;
        if (here >= 0 && found_by > here) continue;   /* found by a later test, run ahead of this one */
        emu_record_init(&r, kind);
        r.at.line = at_line;
        snprintf(r.at.file, sizeof r.at.file, "%s", tab + 1 + used);
        snprintf(r.kernel, sizeof r.kernel, "%s", pretty);
        r.not_run = 1;
        snprintf(r.text, sizeof r.text, "%s", emu_text("not run again: it did not finish in an earlier test, so the "
                                                       "emulator stops it at once (cudaErrorLaunchTimeout)."));
        emu_finding_record(&r);
        found = 1;
    }
    fclose(f);
    return found;
}

/* A toolkit header (cuda's include directory, CUB and Thrust's cccl) is not where a learner's mistake is. */
static int is_system_file(const char *path)
{
    return !path || strstr(path, "/targets/") || strstr(path, "/include/crt/") || strstr(path, "/cuda/include/") ||
           strstr(path, "/include/cccl/") || strstr(path, "cooperative_groups") || strstr(path, "/usr/include/");
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

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* "file:line" of the innermost location in the learner's code (following inlined_at out of the
 * toolkit's headers), with the innermost header location added when there is one: one line of text, for
 * a trace of what a kernel did (a finding's places are emu_loc_places'). */
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

/* p's file and line from location l. */
static void set_place(const emu_module *m, const emu_loc *l, emu_place *p)
{
    const char *path = l->file >= 0 && l->file < m->nfiles && m->files[l->file] ? relative_path(m->files[l->file]) : "?";
    snprintf(p->file, sizeof p->file, "%s", path);
    p->line = l->line;
}

/* The function an inlined location belongs to, or NULL. */
static const char *loc_func(const emu_module *m, const emu_loc *l)
{
    return l->func >= 0 && l->func < m->nfnames ? m->fnames[l->func] : NULL;
}

void emu_loc_places(const emu_module *m, uint32_t loc, emu_place *at, emu_place *call)
{
    memset(at, 0, sizeof *at);
    memset(call, 0, sizeof *call);
    if (!m || loc == 0 || (int)loc >= m->nlocs) return;   /* no place: compiled without -lineinfo */
    const emu_loc *l = learner_loc(m, loc);
    if (is_system_file(l->file >= 0 && l->file < m->nfiles ? m->files[l->file] : NULL))
        return;   /* a library's kernel (CUB's): no line of the learner's is in it */
    set_place(m, l, at);
    /* A line of a __device__ function of the learner's, inlined where the learner calls it: that call too. */
    const char *func = loc_func(m, l);
    if (!func || l->parent < 0 || l->parent >= m->nlocs) return;
    const emu_loc *caller = &m->locs[l->parent];
    const char *path = caller->file >= 0 && caller->file < m->nfiles ? m->files[caller->file] : NULL;
    if (is_system_file(path)) return;
    at->label = EMU_LABEL_CALLEE;
    snprintf(at->func, sizeof at->func, "%s", func);
    set_place(m, caller, call);
    call->label = EMU_LABEL_CALL;
    snprintf(call->func, sizeof call->func, "%s", func);
}

/* The lines of function f's own body: those of its locations that were not inlined into it (a lambda
 * defined inside it is inside them too), in their file. 0 when it has none. */
static int body_lines(const emu_module *m, const emu_func *f, int *file, int *lo, int *hi)
{
    *file = -1, *lo = 0, *hi = 0;
    for (int pc = 0; f && pc < f->ncode; pc++) {
        uint32_t loc = f->code[pc].loc;
        if (loc == 0 || (int)loc >= m->nlocs || m->locs[loc].parent >= 0 || m->locs[loc].line <= 0) continue;
        const emu_loc *l = &m->locs[loc];
        if (*file < 0) *file = l->file, *lo = *hi = l->line;
        if (l->file != *file) continue;
        if (l->line < *lo) *lo = l->line;
        if (l->line > *hi) *hi = l->line;
    }
    return *file >= 0;
}

/* The innermost location of loc's chain (loc, then where it was inlined) that lies in f's body, or NULL. */
static const emu_loc *in_body(const emu_module *m, uint32_t loc, int file, int lo, int hi)
{
    const emu_loc *l = &m->locs[loc];
    for (int guard = 0; guard < 64; guard++) {
        if (l->file == file && l->line >= lo && l->line <= hi) return l;
        if (l->parent < 0 || l->parent >= m->nlocs) return NULL;
        l = &m->locs[l->parent];
    }
    return NULL;
}

void emu_places_in_body(const emu_module *m, const emu_func *f, uint32_t at_loc, uint32_t other_loc,
                        emu_place *at, emu_place *other)
{
    if (!m || at_loc == 0 || other_loc == 0 || (int)at_loc >= m->nlocs || (int)other_loc >= m->nlocs) return;
    const emu_loc *a = learner_loc(m, at_loc), *o = learner_loc(m, other_loc);
    if (a->func == o->func) return;   /* one function's two lines: that function is where the fix goes */
    int file, lo, hi;
    if (!body_lines(m, f, &file, &lo, &hi)) return;
    const emu_loc *a_body = in_body(m, (uint32_t)(a - m->locs), file, lo, hi),
                  *o_body = in_body(m, (uint32_t)(o - m->locs), file, lo, hi);
    if (!a_body || !o_body) return;
    set_place(m, a_body, at);
    set_place(m, o_body, other);
    at->func[0] = other->func[0] = '\0';
}

void emu_call_in_body(const emu_module *m, const emu_func *f, uint32_t loc, emu_place *call)
{
    if (!m || !call->line || loc == 0 || (int)loc >= m->nlocs) return;
    int file, lo, hi;
    if (!body_lines(m, f, &file, &lo, &hi)) return;
    const emu_loc *inner = learner_loc(m, loc), *l = inner;
    for (int guard = 0; guard < 64 && l->parent >= 0 && l->parent < m->nlocs; guard++) {
        const emu_loc *up = &m->locs[l->parent];
        if (up->file == file && up->line >= lo && up->line <= hi) {
            if (l == inner) return;   /* the call named already is the body's */
            set_place(m, up, call);
            const char *func = loc_func(m, l);
            snprintf(call->func, sizeof call->func, "%s", func ? func : "");
            return;
        }
        l = up;
    }
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

void emu_loop_place(const emu_module *m, const emu_func *f, int first, int last, emu_place *at)
{
    const emu_loc *top = NULL;
    memset(at, 0, sizeof *at);
    for (int pc = first; pc <= last && pc < f->ncode; pc++) {
        uint32_t loc = f->code[pc].loc;
        if (!m || loc == 0 || (int)loc >= m->nlocs) continue;
        const emu_loc *l = learner_loc(m, loc);
        if (l->line > 0 && (!top || l->line < top->line)) top = l;
    }
    if (!top || top->file < 0 || top->file >= m->nfiles || !m->files[top->file]) return;
    /* nvcc moves a condition that never changes out of the loop: its statement may be a line or two up. */
    set_place(m, top, at);
    FILE *src = fopen(m->files[top->file], "r");
    if (src) {
        char text[512];
        int line = 0, found = 0;
        while (line < top->line && fgets(text, sizeof text, src)) {
            line++;
            if (line >= top->line - 3 && starts_loop(text)) found = line;
        }
        fclose(src);
        if (found) at->line = found;
    }
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

/* The C++ ABI's demangler (libstdc++), where the program has it: the emulator's programs link libstdc++,
 * and a program that does not still gets the small demangler below. */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status) __attribute__((weak));

/* Drops what lies between open and close (nested) from s, in place: template arguments, parameter lists. */
static void drop_nested(char *s, char open, char close)
{
    char *o = s;
    int depth = 0;
    for (const char *c = s; *c; c++) {
        if (*c == open) { depth++; continue; }
        if (*c == close && depth > 0) { depth--; continue; }
        if (!depth) *o++ = *c;
    }
    *o = '\0';
}

/* A name as the learner wrote it, from the ABI demangler's full text: no template arguments, parameter
 * lists or "::operator()", and a lambda said as the lambda it is in its function: "a lambda in
 * SoftmaxOp::local" for "SoftmaxOp::local<block_rows<float, ...>::{lambda(auto:1)#1}>(...)::{lambda(float&)#1}
 * ::operator()(float&) const". NULL when there is nothing left of it. */
static char *learner_name(const char *full)
{
    char *s = strdup(full);
    if (!s) return NULL;
    /* "{lambda(float&)#1}" keeps its braces: the parameter list inside goes with the others. */
    drop_nested(s, '<', '>');
    drop_nested(s, '(', ')');
    size_t n = strlen(s);
    if (n >= 6 && !strcmp(s + n - 6, " const")) s[n -= 6] = '\0';
    if (n >= 10 && !strcmp(s + n - 10, "::operator")) s[n -= 10] = '\0';
    /* The components from the right: lambdas ({lambda#1}) counted, the first named one kept with its scope. */
    int lambda = 0;
    while (n > 0 && s[n - 1] == '}') {
        char *open = strrchr(s, '{');
        if (!open) break;
        lambda |= !strncmp(open, "{lambda", 7);
        *open = '\0';
        n = strlen(s);
        if (n >= 2 && !strcmp(s + n - 2, "::")) s[n -= 2] = '\0';
    }
    if (!n) { free(s); return NULL; }
    if (!lambda) return s;
    const char *fmt = emu_text("a lambda in %s");
    size_t len = strlen(fmt) + n + 1;
    char *said = malloc(len);
    if (said) snprintf(said, len, fmt, s);
    free(s);
    return said;
}

/* m by the ABI's demangler, as the learner wrote it, or a copy of m where that cannot be had. */
static char *abi_name(const char *m)
{
    int status = -1;
    char *full = __cxa_demangle ? __cxa_demangle(m, NULL, NULL, &status) : NULL;
    char *name = status == 0 && full ? learner_name(full) : NULL;
    free(full);
    return name ? name : strdup(m);
}

char *emu_demangle(const char *m)
{
    char out[256];
    size_t o = 0;
    const char *s = m;
    if (!m || strncmp(m, "_Z", 2)) return strdup(m ? m : "?");
    /* A local entity (_ZZ: a lambda, a function's static), and any name the small demangler below cannot
     * read: the ABI's demangler. */
    if (m[2] == 'Z') return abi_name(m);
    s += 2;
    if (*s == 'N') {
        s++;
        while (*s && *s != 'E') {
            if (o && o + 2 < sizeof out) { out[o++] = ':'; out[o++] = ':'; }
            const char *n = read_source_name(s, out, &o, sizeof out);
            if (!n) return abi_name(m);
            s = template_args(n, out, &o, sizeof out);
        }
    } else {
        const char *n = read_source_name(s, out, &o, sizeof out);
        if (!n) return abi_name(m);
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

/* For the findings about host code (emu_host_ub.c, emu_host_fault.c), which name places by the same rules. */
int emu_source_is_system(const char *path) { return is_system_file(path); }
const char *emu_source_path(const char *path) { return relative_path(path); }
