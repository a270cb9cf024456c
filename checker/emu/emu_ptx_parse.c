/* emu_ptx_parse.c - reads PTX text: directives, declarations, scopes and line info; hands instructions to the decoder. */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu_ptx_parse.h"

typedef struct bind { const char *name; int len; int count; emu_sym sym; } bind;
typedef struct fixup { const char *name; int len; int idx; emu_func *f; } fixup;

struct emu_parser {
    const char *cur, *end;
    int line;
    emu_module *m;
    char *err; size_t errlen; int failed;
    const char **tok; int *toklen; int ntok, captok;
    int label;                       /* the statement is "name:" */
    emu_func *f;                     /* function being read */
    bind *binds; int nbinds, capbinds;
    int marks[256]; int nmarks;      /* scope starts in binds */
    fixup *labels; int nlabels, caplabels;
    fixup *brefs; int nbrefs, capbrefs;
    fixup *crefs; int ncrefs, capcrefs;
    uint32_t loc;
    /* Recent .loc lines, to link an inlined_at to its parent location. */
    struct { int file, line, col, idx; } recent[64]; int nrecent;
};

#define GROW(arr, n, cap) do { if ((n) >= (cap)) { (cap) = (cap) ? 2 * (cap) : 16; \
    void *_np = realloc((arr), (size_t)(cap) * sizeof *(arr)); if (!_np) abort(); (arr) = _np; } } while (0)

int emu_ptx_fail(emu_parser *p, const char *fmt, ...)
{
    if (p->failed) return 0;
    p->failed = 1;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, emu_text(fmt), ap);
    va_end(ap);
    if (p->err && p->errlen) snprintf(p->err, p->errlen, emu_text("PTX line %d: %s"), p->line, msg);
    return 0;
}

/* ---- Lexer ----------------------------------------------------------------------------------------- */

static int is_id0(int c) { return isalpha(c) || c == '_' || c == '.' || c == '%' || c == '$'; }
static int is_id(int c) { return isalnum(c) || c == '_' || c == '.' || c == '%' || c == '$'; }

/* Skip blanks and comments; stop at a newline when stop_nl. */
static void skip_ws(emu_parser *p, int stop_nl)
{
    while (p->cur < p->end) {
        char c = *p->cur;
        if (c == '\n') { if (stop_nl) return; p->line++; p->cur++; }
        else if (isspace((unsigned char)c)) p->cur++;
        else if (c == '/' && p->cur + 1 < p->end && p->cur[1] == '/') {
            while (p->cur < p->end && *p->cur != '\n') p->cur++;
        } else if (c == '/' && p->cur + 1 < p->end && p->cur[1] == '*') {
            p->cur += 2;
            while (p->cur + 1 < p->end && !(p->cur[0] == '*' && p->cur[1] == '/')) { if (*p->cur == '\n') p->line++; p->cur++; }
            p->cur = p->cur + 2 <= p->end ? p->cur + 2 : p->end;
        } else return;
    }
}

/* Read one token at cur (after skip_ws); returns its length, 0 at the end. */
static int lex(emu_parser *p, const char **s)
{
    const char *c = p->cur;
    *s = c;
    if (c >= p->end) return 0;
    if (is_id0((unsigned char)*c)) { while (c < p->end && is_id((unsigned char)*c)) c++; }
    else if (isdigit((unsigned char)*c)) { while (c < p->end && (isalnum((unsigned char)*c) || *c == '.')) c++; }
    else if (*c == '"') { c++; while (c < p->end && *c != '"' && *c != '\n') c++; if (c < p->end && *c == '"') c++; }
    else c++;
    /* "::" inside names such as shared::cta or L1::no_allocate */
    while (c + 2 < p->end && c[0] == ':' && c[1] == ':' && is_id((unsigned char)c[2])) {
        c += 2;
        while (c < p->end && is_id((unsigned char)*c)) c++;
    }
    p->cur = c;
    return (int)(c - *s);
}

static void push_tok(emu_parser *p, const char *s, int n)
{
    if (p->ntok >= p->captok) {
        p->captok = p->captok ? 2 * p->captok : 64;
        p->tok = realloc(p->tok, (size_t)p->captok * sizeof *p->tok);
        p->toklen = realloc(p->toklen, (size_t)p->captok * sizeof *p->toklen);
        if (!p->tok || !p->toklen) abort();
    }
    p->tok[p->ntok] = s;
    p->toklen[p->ntok++] = n;
}

static int tok_is(emu_parser *p, int i, const char *w)
{
    return i < p->ntok && p->toklen[i] == (int)strlen(w) && !memcmp(p->tok[i], w, (size_t)p->toklen[i]);
}

static int word_is(const char *s, int n, const char *w) { return n == (int)strlen(w) && !memcmp(s, w, (size_t)n); }

/* The function names of .debug_str ("$L__info_string0:" then ".b8 95,90,...,0"), which .loc lines name as
 * function_name: each demangled into m->fnames at its number. Only names are wanted: other strings of the
 * section are stored too, and never asked for. */
static void debug_strings(emu_module *m, const char *s, const char *end)
{
    static const char label[] = "$L__info_string";
    for (const char *at = s; at + sizeof label < end; at++) {
        if (memcmp(at, label, sizeof label - 1)) continue;
        char *e;
        long k = strtol(at + sizeof label - 1, &e, 10);
        at = e - 1;
        if (k < 0 || k >= 100000 || *e != ':') continue;
        char name[512];
        size_t n = 0;
        /* the bytes: numbers after .b8, up to the terminating 0 */
        for (const char *c = e + 1; c < end && *c != '$' && n + 1 < sizeof name;) {
            if (*c == '.') { while (c < end && !isspace((unsigned char)*c)) c++; continue; }   /* .b8 */
            if (!isdigit((unsigned char)*c)) { c++; continue; }
            long b = strtol(c, &e, 10);
            c = e;
            if (b == 0) break;
            name[n++] = (char)b;
        }
        name[n] = 0;
        if (k >= m->nfnames) {
            char **grown = realloc(m->fnames, (size_t)(k + 1) * sizeof *m->fnames);
            if (!grown) abort();
            for (long j = m->nfnames; j <= k; j++) grown[j] = NULL;
            m->fnames = grown;
            m->nfnames = (int)k + 1;
        }
        free(m->fnames[k]);
        m->fnames[k] = emu_demangle(name);
    }
}

/* Read the next statement into tok[]: up to ';' (excluded), a label "x:", a lone brace, a line
 * directive (.loc .file .version ...), or a declaration up to the '{' that opens its body. */
static int read_statement(emu_parser *p)
{
    p->ntok = 0;
    p->label = 0;
    int depth = 0, saw_eq = 0;
    for (;;) {
        skip_ws(p, 0);
        const char *s;
        const char *before = p->cur;
        int n = lex(p, &s);
        if (n == 0) return p->ntok > 0;
        if (p->ntok == 0) {
            if (*s == '{' || *s == '}') { push_tok(p, s, 1); return 1; }
            if (word_is(s, n, ".section")) {   /* debug sections: skip the whole braced block */
                skip_ws(p, 1);
                const char *name;
                int names = lex(p, &name) && word_is(name, (int)(p->cur - name), ".debug_str");
                const char *open = p->cur;
                int d = 0;
                while (p->cur < p->end) {
                    char c = *p->cur++;
                    if (c == '\n') p->line++;
                    else if (c == '{') { if (!d) open = p->cur; d++; }
                    else if (c == '}' && --d <= 0) break;
                }
                if (names) debug_strings(p->m, open, p->cur);
                continue;
            }
            if (word_is(s, n, ".loc") || word_is(s, n, ".file") || word_is(s, n, ".version") ||
                word_is(s, n, ".target") || word_is(s, n, ".address_size")) {
                push_tok(p, s, n);
                for (;;) {
                    skip_ws(p, 1);
                    if (p->cur >= p->end || *p->cur == '\n') return 1;
                    n = lex(p, &s);
                    if (!n) return 1;
                    push_tok(p, s, n);
                }
            }
        }
        if (*s == ';' && n == 1 && depth == 0) return 1;
        if (*s == ':' && n == 1 && p->ntok == 1) { p->label = 1; return 1; }
        if (*s == '=' && n == 1) saw_eq = 1;
        if (*s == '(') depth++;
        if (*s == ')') depth--;
        if (*s == '{' && n == 1 && p->ntok > 0 && p->tok[0][0] == '.' && !saw_eq && depth == 0) {
            p->cur = before;   /* the body's brace is the next statement */
            return 1;
        }
        push_tok(p, s, n);
    }
}

/* ---- Numbers ---------------------------------------------------------------------------------------- */

static int parse_uint(const char *s, int n, uint64_t *v)
{
    char buf[64];
    if (n <= 0 || n >= (int)sizeof buf) return 0;
    memcpy(buf, s, (size_t)n);
    buf[n] = 0;
    char *e;
    if (n > 2 && buf[0] == '0' && (buf[1] == 'f' || buf[1] == 'F' || buf[1] == 'd' || buf[1] == 'D')) {
        *v = strtoull(buf + 2, &e, 16);
    } else if (n > 2 && buf[0] == '0' && (buf[1] == 'x' || buf[1] == 'X')) {
        *v = strtoull(buf + 2, &e, 16);
    } else {
        *v = strtoull(buf, &e, 10);
    }
    if (*e == 'U' || *e == 'u') e++;
    return *e == 0;
}

/* ---- Scopes and symbols --------------------------------------------------------------------------- */

static void bind_name(emu_parser *p, const char *name, int len, int count, emu_sym sym)
{
    GROW(p->binds, p->nbinds, p->capbinds);
    p->binds[p->nbinds++] = (bind){ name, len, count, sym };
}

int emu_ptx_lookup(emu_parser *p, const char *name, int len, emu_sym *out)
{
    for (int i = p->nbinds - 1; i >= 0; i--) {
        bind *b = &p->binds[i];
        if (b->count < 0) {
            if (b->len == len && !memcmp(b->name, name, (size_t)len)) { *out = b->sym; return 1; }
        } else if (len > b->len && !memcmp(b->name, name, (size_t)b->len)) {
            uint64_t k = 0;
            int ok = 1;
            for (int j = b->len; j < len; j++) {
                if (!isdigit((unsigned char)name[j])) { ok = 0; break; }
                k = k * 10 + (uint64_t)(name[j] - '0');
            }
            if (ok && (b->len + 1 == len || name[b->len] != '0') && k < (uint64_t)b->count) {
                *out = b->sym;
                if (out->kind == EMU_SYM_REG) out->value += k * 32;
                else out->value += k;
                return 1;
            }
        }
    }
    emu_module *m = p->m;
    for (int i = 0; i < m->ngvars; i++)
        if (word_is(name, len, m->gvars[i].name)) {
            emu_gvar *g = &m->gvars[i];
            out->size = (uint32_t)g->size;
            if (g->space == EMU_SP_SHARED) {
                out->kind = EMU_SYM_SHARED;
                out->value = g->mem ? (uint64_t)(uintptr_t)g->mem : EMU_SHARED_TAG_ADDR(EMU_SHARED_DYN_TAG);
            } else { out->kind = EMU_SYM_GLOBAL; out->value = (uint64_t)(uintptr_t)g->mem; }
            return 1;
        }
    for (int i = 0; i < m->nfuncs; i++)
        if (word_is(name, len, m->funcs[i]->name)) { out->kind = EMU_SYM_FUNC; out->value = (uint64_t)i; out->size = 0; return 1; }
    return 0;
}

uint32_t emu_ptx_const(emu_parser *p, emu_func *f, uint32_t kind, uint64_t value)
{
    (void)p;
    for (int i = 0; i < f->ncinit; i++)
        if (f->cinit[i].kind == kind && f->cinit[i].value == value) return f->cinit[i].slot * 32;
    GROW(f->cinit, f->ncinit, f->capcinit);
    uint32_t slot = f->nslots++;
    f->cinit[f->ncinit++] = (emu_cinit){ slot, kind, value };
    return slot * 32;
}

void emu_ptx_label_ref(emu_parser *p, const char *name, int len, int idx)
{
    GROW(p->brefs, p->nbrefs, p->capbrefs);
    p->brefs[p->nbrefs++] = (fixup){ name, len, idx, p->f };
}

void emu_ptx_call_ref(emu_parser *p, const char *name, int len, int idx)
{
    GROW(p->crefs, p->ncrefs, p->capcrefs);
    p->crefs[p->ncrefs++] = (fixup){ name, len, idx, p->f };
}

uint32_t *emu_ptx_args(emu_parser *p, int n)
{
    (void)p;
    uint32_t *a = calloc((size_t)(n > 0 ? n : 1), sizeof *a);
    if (!a) abort();
    return a;
}

/* ---- Declarations ------------------------------------------------------------------------------------ */

static int type_of(const char *s, int n)
{
    static const struct { const char *w; int t; } tab[] = {
        {".b8", EMU_T_B8}, {".b16", EMU_T_B16}, {".b32", EMU_T_B32}, {".b64", EMU_T_B64}, {".b128", EMU_T_B128},
        {".u8", EMU_T_U8}, {".u16", EMU_T_U16}, {".u32", EMU_T_U32}, {".u64", EMU_T_U64},
        {".s8", EMU_T_S8}, {".s16", EMU_T_S16}, {".s32", EMU_T_S32}, {".s64", EMU_T_S64},
        {".f16", EMU_T_F16}, {".f32", EMU_T_F32}, {".f64", EMU_T_F64}, {".pred", EMU_T_PRED},
        {".bf16", EMU_T_B16}, {".f16x2", EMU_T_B32}, {".bf16x2", EMU_T_B32},
    };
    for (size_t i = 0; i < sizeof tab / sizeof *tab; i++) if (word_is(s, n, tab[i].w)) return tab[i].t;
    return -1;
}

/* A variable declaration: [.visible|.extern|.weak] .space [.align N] [.vN] .type name[dims...] [= init].
 * Fills name, element type, total size and alignment; *init_at is the token index after '=' or -1. */
typedef struct decl { int space; int align; int type; const char *name; int namelen; uint64_t size; int init_at; int ext; int unsized; } decl;

static int parse_decl(emu_parser *p, int i, decl *d)
{
    memset(d, 0, sizeof *d);
    d->init_at = -1;
    d->type = -1;
    int vec = 1;
    for (; i < p->ntok; i++) {
        const char *s = p->tok[i]; int n = p->toklen[i];
        if (word_is(s, n, ".visible") || word_is(s, n, ".weak") || word_is(s, n, ".common")) continue;
        if (word_is(s, n, ".extern")) { d->ext = 1; continue; }
        if (word_is(s, n, ".global")) { d->space = EMU_SP_GLOBAL; continue; }
        if (word_is(s, n, ".shared")) { d->space = EMU_SP_SHARED; continue; }
        if (word_is(s, n, ".const")) { d->space = EMU_SP_CONST; continue; }
        if (word_is(s, n, ".local")) { d->space = EMU_SP_LOCAL; continue; }
        if (word_is(s, n, ".param")) { d->space = EMU_SP_PARAM; continue; }
        if (word_is(s, n, ".ptr")) continue;
        if (word_is(s, n, ".align") && i + 1 < p->ntok) {
            uint64_t a;
            if (!parse_uint(p->tok[i + 1], p->toklen[i + 1], &a)) return emu_ptx_fail(p, "bad .align");
            d->align = (int)a; i++; continue;
        }
        if (word_is(s, n, ".v2")) { vec = 2; continue; }
        if (word_is(s, n, ".v4")) { vec = 4; continue; }
        int t = type_of(s, n);
        if (t >= 0) { d->type = t; continue; }
        break;
    }
    if (i >= p->ntok || d->type < 0) return emu_ptx_fail(p, "a declaration without a type or a name");
    d->name = p->tok[i]; d->namelen = p->toklen[i];
    uint64_t count = 1;
    i++;
    while (i < p->ntok && p->tok[i][0] == '[') {
        if (i + 1 < p->ntok && p->tok[i + 1][0] == ']') { d->unsized = 1; count = 0; i += 2; continue; }
        uint64_t k;
        if (i + 2 >= p->ntok || !parse_uint(p->tok[i + 1], p->toklen[i + 1], &k) || p->tok[i + 2][0] != ']')
            return emu_ptx_fail(p, "bad array size in the declaration of %.*s", d->namelen, d->name);
        count *= k; i += 3;
    }
    d->size = count * EMU_TSIZE(d->type == EMU_T_PRED ? EMU_T_B8 : d->type) * (uint64_t)vec;
    if (!d->align) d->align = (int)(EMU_TSIZE(d->type == EMU_T_PRED ? EMU_T_B8 : d->type) * (unsigned)vec);
    if (i < p->ntok && p->tok[i][0] == '=') d->init_at = i + 1;
    if (d->size > (1ull << 32)) return emu_ptx_fail(p, "%.*s is too large", d->namelen, d->name);
    return 1;
}

/* Initialiser of a .global/.const: "{1, 2, 3}" or one value; integers and 0f/0d floats. */
static void parse_init(emu_parser *p, decl *d, unsigned char *mem)
{
    unsigned es = EMU_TSIZE(d->type);
    uint64_t off = 0;
    for (int i = d->init_at; i < p->ntok && off + es <= d->size; i++) {
        const char *s = p->tok[i]; int n = p->toklen[i];
        if (*s == '{' || *s == '}' || *s == ',') continue;
        int neg = 0;
        if (*s == '-' && i + 1 < p->ntok) { neg = 1; i++; s = p->tok[i]; n = p->toklen[i]; }
        uint64_t v;
        if (!parse_uint(s, n, &v)) {
            if (n > 0 && isdigit((unsigned char)*s) && EMU_TKIND(d->type) == EMU_K_F) {
                char buf[64]; int k = n < 63 ? n : 63; memcpy(buf, s, (size_t)k); buf[k] = 0;
                double x = strtod(buf, NULL);
                if (neg) x = -x;
                if (d->type == EMU_T_F32) { float y = (float)x; uint32_t b; memcpy(&b, &y, 4); v = b; }
                else memcpy(&v, &x, 8);
                neg = 0;
            } else { emu_ptx_fail(p, "an initialiser of %.*s that is not a number", d->namelen, d->name); return; }
        }
        if (neg) v = (uint64_t)-(int64_t)v;
        memcpy(mem + off, &v, es);   /* little-endian: the low bytes */
        off += es;
    }
}

static emu_func *find_func(emu_module *m, const char *name, int len)
{
    for (int i = 0; i < m->nfuncs; i++) if (word_is(name, len, m->funcs[i]->name)) return m->funcs[i];
    return NULL;
}

static char *dupn(const char *s, int n)
{
    char *d = malloc((size_t)n + 1);
    if (!d) abort();
    memcpy(d, s, (size_t)n);
    d[n] = 0;
    return d;
}

static uint32_t align_up(uint32_t x, uint32_t a) { return a ? (x + a - 1) / a * a : x; }

/* Records a .shared variable and returns its address (see emu_svar), or 0 after a parse error. */
static uint32_t add_svar(emu_parser *p, emu_svar **arr, int *n, int *cap, const decl *d, uint32_t off)
{
    emu_module *m = p->m;
    if (m->shared_tags >= EMU_SHARED_TAG_MAX) {
        emu_ptx_fail(p, "more than %u .shared variables in one module", EMU_SHARED_TAG_MAX - 1);
        return 0;
    }
    uint32_t tag = ++m->shared_tags;
    GROW(*arr, *n, *cap);
    (*arr)[(*n)++] = (emu_svar){ dupn(d->name, d->namelen), off, (uint32_t)d->size, tag, (uint32_t)d->align };
    return EMU_SHARED_TAG_ADDR(tag);
}

/* Module-scope variable: .global/.const get host storage (registered as device memory); .shared gets
 * an offset in the module's shared area (or is the dynamic shared array when .extern and unsized). */
static int module_var(emu_parser *p, int i)
{
    decl d;
    if (!parse_decl(p, i, &d)) return 0;
    emu_module *m = p->m;
    GROW(m->gvars, m->ngvars, m->capgvars);
    emu_gvar *g = &m->gvars[m->ngvars];
    g->name = dupn(d.name, d.namelen);
    g->size = d.size;
    g->space = d.space;
    g->mem = NULL;
    if (d.space == EMU_SP_SHARED) {
        if (!(d.ext && d.unsized)) {
            uint32_t off = align_up(m->mod_shared, (uint32_t)d.align);
            m->mod_shared = off + (uint32_t)d.size;
            /* its address: nonzero, which marks a static shared variable */
            g->mem = (void *)(uintptr_t)add_svar(p, &m->svars, &m->nsvars, &m->capsvars, &d, off);
            if (!g->mem) { free(g->name); return 0; }
        } else if (!m->dyn_name)
            m->dyn_name = dupn(d.name, d.namelen);
    } else if (d.space == EMU_SP_GLOBAL || d.space == EMU_SP_CONST) {
        size_t sz = d.size ? d.size : 1;
        g->mem = calloc(1, sz);
        if (!g->mem) abort();
        if (d.init_at >= 0) parse_init(p, &d, g->mem);
        emu_mem_register(g->mem, d.size, g->name, 1);
    } else {
        free(g->name);
        return emu_ptx_fail(p, "a module-scope variable in an unsupported state space");
    }
    m->ngvars++;
    return 1;
}

/* Parameter list "( .param .T a, .param .align 8 .b8 b[16] )" starting at tok[*i] == "(". */
static int param_list(emu_parser *p, int *i, emu_func *f, int is_ret)
{
    if (!tok_is(p, *i, "(")) return 1;
    (*i)++;
    while (*i < p->ntok && !tok_is(p, *i, ")")) {
        int j = *i;
        while (j < p->ntok && !tok_is(p, j, ",") && !tok_is(p, j, ")")) j++;
        int save = p->ntok;
        p->ntok = j;   /* parse_decl stops at the end of this parameter */
        decl d;
        int ok = parse_decl(p, *i, &d);
        p->ntok = save;
        if (!ok) return 0;
        uint32_t al = (uint32_t)(d.align ? d.align : 1);
        uint32_t off;
        if (f->is_entry) {
            off = align_up(f->param_bytes, al);
            f->param_bytes = off + (uint32_t)d.size;
        } else {
            off = align_up(f->local_size, al);
            f->local_size = off + (uint32_t)d.size;
        }
        emu_sym sym = { f->is_entry ? EMU_SYM_KPARAM : EMU_SYM_FRAME, off, (uint32_t)d.size };
        if (is_ret) { f->has_ret = 1; f->ret_off = off; f->ret_size = (uint32_t)d.size; }
        else {
            f->param_off = realloc(f->param_off, (size_t)(f->nparams + 1) * sizeof *f->param_off);
            f->param_size = realloc(f->param_size, (size_t)(f->nparams + 1) * sizeof *f->param_size);
            if (!f->param_off || !f->param_size) abort();
            f->param_off[f->nparams] = off;
            f->param_size[f->nparams++] = (uint32_t)d.size;
        }
        bind_name(p, d.name, d.namelen, -1, sym);
        *i = j;
        if (tok_is(p, *i, ",")) (*i)++;
    }
    if (tok_is(p, *i, ")")) (*i)++;
    return 1;
}

/* ---- Function bodies --------------------------------------------------------------------------------- */

static void loc_directive(emu_parser *p)
{
    /* .loc F L C [, function_name X, inlined_at F2 L2 C2] */
    uint64_t v[3] = { 0, 0, 0 };
    int k = 0;
    for (int i = 1; i < p->ntok && k < 3; i++) { if (parse_uint(p->tok[i], p->toklen[i], &v[k])) k++; else break; }
    if (k < 2) return;
    int parent = -1;
    for (int i = 1; i < p->ntok; i++) if (tok_is(p, i, "inlined_at")) {
        uint64_t w[3] = { 0, 0, 0 };
        int q = 0;
        for (int j = i + 1; j < p->ntok && q < 3; j++) if (parse_uint(p->tok[j], p->toklen[j], &w[q])) q++;
        for (int r = p->nrecent - 1; r >= 0; r--)
            if (p->recent[r].file == (int)w[0] && p->recent[r].line == (int)w[1] && p->recent[r].col == (int)w[2]) { parent = p->recent[r].idx; break; }
        if (parent < 0) {   /* the call site was never a .loc of its own: make it one */
            emu_module *m = p->m;
            GROW(m->locs, m->nlocs, m->caplocs);
            m->locs[m->nlocs] = (emu_loc){ (int)w[0], (int)w[1], -1, -1 };
            parent = m->nlocs++;
        }
        break;
    }
    /* function_name $L__info_stringN: the function an inlined location belongs to (its name is in .debug_str) */
    int func = -1;
    for (int i = 1; i + 1 < p->ntok; i++)
        if (tok_is(p, i, "function_name") && p->toklen[i + 1] > 15 && !memcmp(p->tok[i + 1], "$L__info_string", 15)) {
            uint64_t k;
            if (parse_uint(p->tok[i + 1] + 15, p->toklen[i + 1] - 15, &k) && k < 100000) func = (int)k;
            break;
        }
    emu_module *m = p->m;
    GROW(m->locs, m->nlocs, m->caplocs);
    m->locs[m->nlocs] = (emu_loc){ (int)v[0], (int)v[1], parent, func };
    p->loc = (uint32_t)m->nlocs++;
    if (p->nrecent == 64) { memmove(p->recent, p->recent + 1, 63 * sizeof p->recent[0]); p->nrecent--; }
    p->recent[p->nrecent].file = (int)v[0]; p->recent[p->nrecent].line = (int)v[1];
    p->recent[p->nrecent].col = (int)v[2]; p->recent[p->nrecent].idx = (int)p->loc;
    p->nrecent++;
}

static int body_decl(emu_parser *p)
{
    emu_func *f = p->f;
    if (tok_is(p, 0, ".reg")) {
        int t = -1, i = 1;
        for (; i < p->ntok && p->tok[i][0] == '.'; i++) { int tt = type_of(p->tok[i], p->toklen[i]); if (tt >= 0) t = tt; }
        if (t < 0) return emu_ptx_fail(p, ".reg without a type");
        while (i < p->ntok) {
            const char *name = p->tok[i]; int len = p->toklen[i];
            int count = -1;
            i++;
            if (tok_is(p, i, "<")) {
                uint64_t c;
                if (i + 2 >= p->ntok || !parse_uint(p->tok[i + 1], p->toklen[i + 1], &c) || !tok_is(p, i + 2, ">") || c > 1000000)
                    return emu_ptx_fail(p, "bad register range %.*s", len, name);
                count = (int)c; i += 3;
            }
            int n = count < 0 ? 1 : count;
            emu_sym sym;
            if (t == EMU_T_PRED) { sym.kind = EMU_SYM_PRED; sym.value = f->npreds; f->npreds += (uint32_t)n; }
            else { sym.kind = EMU_SYM_REG; sym.value = (uint64_t)f->nslots * 32; f->nslots += (uint32_t)n; }
            sym.size = EMU_TSIZE(t);
            bind_name(p, name, len, count, sym);
            if (tok_is(p, i, ",")) i++;
        }
        return 1;
    }
    decl d;
    if (!parse_decl(p, 0, &d)) return 0;
    emu_sym sym = { 0, 0, (uint32_t)d.size };
    if (d.space == EMU_SP_LOCAL || d.space == EMU_SP_PARAM) {
        uint32_t off = align_up(f->local_size, (uint32_t)d.align);
        f->local_size = off + (uint32_t)d.size;
        sym.kind = EMU_SYM_FRAME; sym.value = off;
    } else if (d.space == EMU_SP_SHARED) {
        if (f->is_entry) {
            uint32_t off = align_up(f->own_shared, (uint32_t)d.align);
            f->own_shared = off + (uint32_t)d.size;
            if ((uint32_t)d.align > f->own_shared_align) f->own_shared_align = (uint32_t)d.align;
            sym.value = add_svar(p, &f->svars, &f->nsvars, &f->capsvars, &d, off);
        } else {
            uint32_t off = align_up(p->m->mod_shared, (uint32_t)d.align);
            p->m->mod_shared = off + (uint32_t)d.size;
            sym.value = add_svar(p, &p->m->svars, &p->m->nsvars, &p->m->capsvars, &d, off);
        }
        if (!sym.value) return 0;
        sym.kind = EMU_SYM_SHARED;
    } else if (d.space == EMU_SP_GLOBAL || d.space == EMU_SP_CONST) {
        /* a function-scope static: module storage under a private name */
        emu_module *m = p->m;
        GROW(m->gvars, m->ngvars, m->capgvars);
        emu_gvar *g = &m->gvars[m->ngvars++];
        g->name = dupn(d.name, d.namelen); g->size = d.size; g->space = d.space;
        g->mem = calloc(1, d.size ? d.size : 1);
        if (!g->mem) abort();
        if (d.init_at >= 0) parse_init(p, &d, g->mem);
        emu_mem_register(g->mem, d.size, g->name, 1);
        sym.kind = EMU_SYM_GLOBAL; sym.value = (uint64_t)(uintptr_t)g->mem;
    } else return emu_ptx_fail(p, "a declaration in an unknown state space");
    bind_name(p, d.name, d.namelen, -1, sym);
    return 1;
}

static int add_label(emu_parser *p, const char *name, int len)
{
    GROW(p->labels, p->nlabels, p->caplabels);
    p->labels[p->nlabels++] = (fixup){ name, len, p->f->ncode, p->f };
    return 1;
}

static int function_body(emu_parser *p)
{
    emu_func *f = p->f;
    int depth = 1;
    int base_binds = p->nbinds;
    p->nmarks = 0;
    p->nlabels = 0;
    p->nbrefs = 0;
    while (!p->failed) {
        if (!read_statement(p)) return emu_ptx_fail(p, "the body of %s does not end", f->name);
        if (tok_is(p, 0, "{")) {
            if (p->nmarks < 256) p->marks[p->nmarks++] = p->nbinds;
            depth++;
            continue;
        }
        if (tok_is(p, 0, "}")) {
            if (--depth == 0) break;
            if (p->nmarks > 0) p->nbinds = p->marks[--p->nmarks];
            continue;
        }
        if (p->label) { add_label(p, p->tok[0], p->toklen[0]); continue; }
        if (tok_is(p, 0, ".loc")) { loc_directive(p); continue; }
        if (tok_is(p, 0, ".pragma") || tok_is(p, 0, ".file") || tok_is(p, 0, ".maxnreg") ||
            tok_is(p, 0, ".maxntid") || tok_is(p, 0, ".reqntid") || tok_is(p, 0, ".minnctapersm")) continue;
        if (p->tok[0][0] == '.') { if (!body_decl(p)) return 0; continue; }
        if (!emu_ptx_decode(p, f, p->tok, p->toklen, p->ntok, p->loc)) return 0;
    }
    /* Resolve branches. */
    for (int i = 0; i < p->nbrefs; i++) {
        fixup *r = &p->brefs[i];
        int found = -1;
        for (int j = 0; j < p->nlabels; j++)
            if (p->labels[j].len == r->len && !memcmp(p->labels[j].name, r->name, (size_t)r->len)) { found = p->labels[j].idx; break; }
        if (found < 0) return emu_ptx_fail(p, "a branch to the unknown label %.*s in %s", r->len, r->name, f->name);
        f->code[r->idx].target = found;
    }
    /* A function whose end can be reached without ret: make it return. */
    if (f->ncode == 0 || (f->code[f->ncode - 1].op != EMU_OP_RET && f->code[f->ncode - 1].op != EMU_OP_EXIT)) {
        const char *t[] = { "ret" }; int tl[] = { 3 };
        if (!emu_ptx_decode(p, f, t, tl, 1, p->loc)) return 0;
    }
    p->nbinds = base_binds;
    f->defined = 1;
    emu_ptx_cfg(f);
    return 1;
}

/* The performance directives after a kernel's parameters that say how it runs in clusters:
 * .reqnctapercluster X[, Y[, Z]] (__cluster_dims__), .explicitcluster, .maxclusterrank N. */
static int cluster_directives(emu_parser *p, int i, emu_func *f)
{
    memset(f->reqnctapercluster, 0, sizeof f->reqnctapercluster);
    f->explicitcluster = 0;
    f->maxclusterrank = 0;
    for (; i < p->ntok; i++) {
        if (tok_is(p, i, ".explicitcluster")) { f->explicitcluster = 1; continue; }
        int req = tok_is(p, i, ".reqnctapercluster");
        if (!req && !tok_is(p, i, ".maxclusterrank")) continue;
        uint64_t v[3] = { 1, 1, 1 };
        int k = 0;
        for (int j = i + 1; j < p->ntok && k < (req ? 3 : 1); j++) {
            if (tok_is(p, j, ",")) continue;
            if (!parse_uint(p->tok[j], p->toklen[j], &v[k]) || v[k] == 0 || v[k] > 1024) break;
            k++;
            i = j;
        }
        if (!k) return emu_ptx_fail(p, "a %s without a number", req ? ".reqnctapercluster" : ".maxclusterrank");
        if (req) for (int d = 0; d < 3; d++) f->reqnctapercluster[d] = (uint32_t)v[d];
        else f->maxclusterrank = (uint32_t)v[0];
    }
    return 1;
}

/* .entry/.func header at tok[i]; then a body or ';'. */
static int function(emu_parser *p)
{
    int i = 0, is_entry = 0, is_extern = 0;
    for (; i < p->ntok && p->tok[i][0] == '.'; i++) {
        if (tok_is(p, i, ".entry")) { is_entry = 1; i++; break; }
        if (tok_is(p, i, ".func")) { i++; break; }
        if (tok_is(p, i, ".extern")) is_extern = 1;
    }
    int ret_at = -1;
    if (tok_is(p, i, "(")) { ret_at = i; while (i < p->ntok && !tok_is(p, i, ")")) i++; i++; }
    if (i >= p->ntok) return emu_ptx_fail(p, "a function without a name");
    const char *name = p->tok[i]; int len = p->toklen[i];
    i++;
    emu_module *m = p->m;
    emu_func *f = find_func(m, name, len);
    int fresh = 0;
    if (!f) {
        struct emu_kernel *k = calloc(1, sizeof *k);
        if (!k) abort();
        f = &k->f;
        f->static_shared = -1;
        f->mod = m;
        f->name = dupn(name, len);
        f->pretty = emu_demangle(f->name);
        f->is_entry = is_entry;
        if (word_is(name, len, "vprintf")) f->builtin = 1;
        if (word_is(name, len, "__assertfail")) f->builtin = 2;
        GROW(m->funcs, m->nfuncs, m->capfuncs);
        m->funcs[m->nfuncs++] = f;
        fresh = 1;
    }
    f->is_extern = is_extern;
    /* The body is what counts: parameters are (re)read from the header that precedes it. */
    p->f = f;
    p->nbinds = 0;
    int body = p->cur < p->end;
    if (body) { skip_ws(p, 0); body = p->cur < p->end && *p->cur == '{'; }
    if (!body && !fresh) return 1;
    if (body && f->defined) return emu_ptx_fail(p, "%s is defined twice", f->name);
    f->nparams = 0; f->local_size = 0; f->param_bytes = 0; f->has_ret = 0;
    if (ret_at >= 0) { int r = ret_at; if (!param_list(p, &r, f, 1)) return 0; }
    if (!param_list(p, &i, f, 0)) return 0;
    if (is_entry && !cluster_directives(p, i, f)) return 0;
    if (!body) return 1;
    p->cur++;   /* the '{' */
    p->loc = 0;
    return function_body(p);
}

/* ---- Module ---------------------------------------------------------------------------------------- */

void emu_module_free(emu_module *m)
{
    if (!m) return;
    for (int i = 0; i < m->nfuncs; i++) {
        emu_func *f = m->funcs[i];
        for (int j = 0; j < f->ncode; j++) free(f->code[j].args);
        for (int j = 0; j < f->ntexts; j++) free(f->texts[j]);
        free(f->texts); free(f->code); free(f->ipdom); free(f->leaving); free(f->cinit);
        free(f->param_off); free(f->param_size); free(f->name); free(f->pretty); free(f->shared_used);
        for (int j = 0; j < f->nsvars; j++) free(f->svars[j].name);
        free(f->svars);
        free((struct emu_kernel *)f);
    }
    for (int i = 0; i < m->ngvars; i++) {
        emu_gvar *g = &m->gvars[i];
        if (g->space == EMU_SP_GLOBAL || g->space == EMU_SP_CONST) { emu_mem_unregister(g->mem); free(g->mem); }
        free(g->name);
    }
    for (int i = 0; i < m->nsvars; i++) free(m->svars[i].name);
    free(m->svars); free(m->dyn_name);
    for (int i = 0; i < m->nfiles; i++) free(m->files[i]);
    for (int i = 0; i < m->nfnames; i++) free(m->fnames[i]);
    free(m->fnames);
    free(m->files); free(m->funcs); free(m->gvars); free(m->locs);
    free(m);
}

emu_module *emu_module_load(const char *ptx, size_t len, char *err, size_t errlen)
{
    if (err && errlen) err[0] = 0;
    if (!ptx) { if (err && errlen) snprintf(err, errlen, "no PTX text"); return NULL; }
    emu_parser P;
    memset(&P, 0, sizeof P);
    emu_parser *p = &P;
    p->cur = ptx; p->end = ptx + len; p->line = 1;
    p->err = err; p->errlen = errlen;
    emu_module *m = calloc(1, sizeof *m);
    if (!m) abort();
    m->shared_tags = EMU_SHARED_DYN_TAG;   /* the first variable's tag is the next one */
    p->m = m;
    /* location 0: unknown */
    GROW(m->locs, m->nlocs, m->caplocs);
    m->locs[m->nlocs++] = (emu_loc){ 0, 0, -1, -1 };
    while (!p->failed && read_statement(p)) {
        if (p->ntok == 0) continue;
        if (tok_is(p, 0, ".file")) {
            uint64_t k;
            if (p->ntok >= 3 && parse_uint(p->tok[1], p->toklen[1], &k) && k < 100000 && p->tok[2][0] == '"') {
                if ((int)k >= m->nfiles) {
                    m->files = realloc(m->files, (size_t)(k + 1) * sizeof *m->files);
                    if (!m->files) abort();
                    for (int j = m->nfiles; j <= (int)k; j++) m->files[j] = NULL;
                    m->nfiles = (int)k + 1;
                }
                free(m->files[k]);
                m->files[k] = dupn(p->tok[2] + 1, p->toklen[2] >= 2 ? p->toklen[2] - 2 : 0);
            }
            continue;
        }
        if (tok_is(p, 0, ".address_size")) {
            if (!tok_is(p, 1, "64")) emu_ptx_fail(p, "only 64-bit PTX (.address_size 64) is supported");
            continue;
        }
        if (tok_is(p, 0, ".version") || tok_is(p, 0, ".target") || tok_is(p, 0, ".loc") || tok_is(p, 0, ".pragma") ||
            tok_is(p, 0, "{") || tok_is(p, 0, "}"))
            continue;
        int is_fn = 0;
        for (int i = 0; i < p->ntok && p->tok[i][0] == '.'; i++)
            if (tok_is(p, i, ".entry") || tok_is(p, i, ".func")) { is_fn = 1; break; }
        if (is_fn) { function(p); continue; }
        if (p->tok[0][0] == '.') { module_var(p, 0); continue; }
        emu_ptx_fail(p, "unexpected '%.*s' outside a function", p->toklen[0], p->tok[0]);
    }
    /* Resolve calls. */
    for (int i = 0; i < p->ncrefs && !p->failed; i++) {
        fixup *r = &p->crefs[i];
        emu_func *callee = find_func(m, r->name, r->len);
        if (!callee) { emu_ptx_fail(p, "a call to the unknown function %.*s", r->len, r->name); break; }
        emu_insn *in = &r->f->code[r->idx];
        for (int j = 0; j < m->nfuncs; j++) if (m->funcs[j] == callee) in->target = j;
        if (callee->builtin == 1) in->op = EMU_OP_CALL_PRINTF;
        else if (callee->builtin == 2) in->op = EMU_OP_CALL_ASSERT;
        else if (!callee->defined) {   /* an extern we do not provide: fails only if called */
            in->op = EMU_OP_UNSUPPORTED;
        }
    }
    free(p->tok); free(p->toklen); free(p->binds); free(p->labels); free(p->brefs); free(p->crefs);
    if (p->failed) { emu_module_free(m); return NULL; }
    return m;
}

/* ---- Kernels --------------------------------------------------------------------------------------- */

const emu_kernel *emu_module_kernel(const emu_module *m, const char *entry)
{
    if (!m || !entry) return NULL;
    for (int i = 0; i < m->nfuncs; i++)
        if (m->funcs[i]->is_entry && m->funcs[i]->defined && !strcmp(m->funcs[i]->name, entry))
            return (const emu_kernel *)m->funcs[i];
    return NULL;
}

const char *emu_kernel_name(const emu_kernel *k) { return k ? k->f.pretty : "?"; }
int emu_kernel_param_count(const emu_kernel *k) { return k ? k->f.nparams : 0; }
size_t emu_kernel_param_size(const emu_kernel *k, int i)
{
    return (k && i >= 0 && i < k->f.nparams) ? k->f.param_size[i] : 0;
}

int emu_kernel_may_wait(const emu_kernel *k)
{
    if (!k) return 0;
    const emu_module *m = k->f.mod;
    for (int i = 0; i < m->nfuncs; i++) {
        const emu_func *f = m->funcs[i];
        if (f != &k->f && f->is_entry) continue;   /* another kernel's code never runs in this one */
        for (int pc = 0; pc < f->ncode; pc++) {
            const emu_insn *in = &f->code[pc];
            if (in->op == EMU_OP_LD_STRONG || (in->op == EMU_OP_ATOM && in->space != EMU_SP_SHARED)) return 1;
        }
    }
    return 0;
}

int emu_kernel_cluster(const emu_kernel *k, emu_dim3 *dims, int *explicit_cluster, unsigned *max_blocks)
{
    const emu_func *f = k ? &k->f : NULL;
    if (explicit_cluster) *explicit_cluster = f && f->explicitcluster;
    if (max_blocks) *max_blocks = f ? f->maxclusterrank : 0;
    if (!f || !f->reqnctapercluster[0]) return 0;
    if (dims) *dims = (emu_dim3){ f->reqnctapercluster[0], f->reqnctapercluster[1], f->reqnctapercluster[2] };
    return 1;
}

void emu_ptx_shared_used(emu_func *f, uint32_t tag)
{
    for (int i = 0; i < f->nshared_used; i++)
        if (f->shared_used[i] == tag) return;
    GROW(f->shared_used, f->nshared_used, f->capshared_used);
    f->shared_used[f->nshared_used++] = tag;
}

/* Marks in used[] (by tag) the module's .shared variables that f and the functions it calls name. */
static void shared_of(const emu_module *m, const emu_func *f, char *seen, char *used)
{
    for (int i = 0; i < m->nfuncs; i++)
        if (m->funcs[i] == f) { if (seen[i]) return; seen[i] = 1; }
    for (int i = 0; i < f->nshared_used; i++)
        if (f->shared_used[i] <= m->shared_tags) used[f->shared_used[i]] = 1;
    for (int i = 0; i < f->ncode; i++)
        if (f->code[i].op == EMU_OP_CALL && f->code[i].target >= 0 && f->code[i].target < m->nfuncs)
            shared_of(m, m->funcs[f->code[i].target], seen, used);
}

/* The kernel's own .shared bytes and those of the module's variables it (or a function it calls) names:
 * nvcc puts a kernel's static __shared__ arrays at module scope, and a GPU gives each kernel only those it
 * uses. (The emulator lays out all of them in every block: only the reported size is the GPU's.) */
size_t emu_kernel_static_shared(const emu_kernel *k)
{
    if (!k) return 0;
    emu_func *f = (emu_func *)&k->f;   /* a cache: computed at the first question */
    if (f->static_shared >= 0 && f->defined) return (size_t)f->static_shared;
    const emu_module *m = f->mod;
    char *seen = calloc((size_t)m->nfuncs + 1, 1), *used = calloc((size_t)m->shared_tags + 1, 1);
    if (!seen || !used) abort();
    shared_of(m, f, seen, used);
    uint32_t size = (f->own_shared + 15) & ~15u;
    for (int i = 0; i < m->nsvars; i++)
        if (used[m->svars[i].tag]) size = align_up(size, m->svars[i].align) + m->svars[i].size;
    free(seen);
    free(used);
    f->static_shared = size;
    return size;
}

void *emu_module_global(const emu_module *m, const char *name, size_t *size)
{
    if (!m || !name) return NULL;
    for (int i = 0; i < m->ngvars; i++)
        if ((m->gvars[i].space == EMU_SP_GLOBAL || m->gvars[i].space == EMU_SP_CONST) && !strcmp(m->gvars[i].name, name)) {
            if (size) *size = m->gvars[i].size;
            return m->gvars[i].mem;
        }
    return NULL;
}
