/* emu_ptx_decode.c - turns one PTX instruction's tokens into an emu_insn (opcode, types, operand slots). */
#define _POSIX_C_SOURCE 200809L   /* strdup, clock_gettime */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu_ptx_parse.h"

#define NONE_P 0xffff

typedef struct span { int s, e; } span;   /* tokens [s, e) of one operand */

typedef struct dctx {
    emu_parser *p;
    emu_func *f;
    const char **tok;
    const int *tl;
    int ntok;
    span ops[16];
    int nops;
    int unsupported;      /* set when an operand is valid PTX we do not run */
} dctx;

static int teq(dctx *c, int i, const char *w)
{
    return i >= 0 && i < c->ntok && c->tl[i] == (int)strlen(w) && !memcmp(c->tok[i], w, (size_t)c->tl[i]);
}

static int peq(const char *s, int n, const char *w) { return n == (int)strlen(w) && !memcmp(s, w, (size_t)n); }

static int part_type(const char *s, int n)
{
    static const struct { const char *w; int t; } tab[] = {
        {"b8", EMU_T_B8}, {"b16", EMU_T_B16}, {"b32", EMU_T_B32}, {"b64", EMU_T_B64}, {"b128", EMU_T_B128},
        {"u8", EMU_T_U8}, {"u16", EMU_T_U16}, {"u32", EMU_T_U32}, {"u64", EMU_T_U64},
        {"s8", EMU_T_S8}, {"s16", EMU_T_S16}, {"s32", EMU_T_S32}, {"s64", EMU_T_S64},
        {"f16", EMU_T_F16}, {"f32", EMU_T_F32}, {"f64", EMU_T_F64}, {"pred", EMU_T_PRED},
        {"bf16", EMU_T_BF16},
    };
    for (size_t i = 0; i < sizeof tab / sizeof *tab; i++) if (peq(s, n, tab[i].w)) return tab[i].t;
    return -1;
}

static int part_cmp(const char *s, int n)
{
    static const char *w[] = { "eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan" };
    for (int i = 0; i < 14; i++) if (peq(s, n, w[i])) return i;
    if (peq(s, n, "lo")) return EMU_CMP_LT;
    if (peq(s, n, "ls")) return EMU_CMP_LE;
    if (peq(s, n, "hi")) return EMU_CMP_GT;
    if (peq(s, n, "hs")) return EMU_CMP_GE;
    return -1;
}

static int part_rnd(const char *s, int n)
{
    static const char *w[] = { "rn", "rz", "rm", "rp", "rni", "rzi", "rmi", "rpi" };
    for (int i = 0; i < 8; i++) if (peq(s, n, w[i])) return i + 1;
    return 0;
}

static int part_atom(const char *s, int n)
{
    static const char *w[] = { "add", "min", "max", "and", "or", "xor", "exch", "cas", "inc", "dec", "popc" };
    for (int i = 0; i < 11; i++) if (peq(s, n, w[i])) return i;
    return -1;
}

/* Whether the opcode's dot-separated parts include w. */
static int has_part(const char *const *parts, const int *plen, int np, const char *w)
{
    for (int k = 1; k < np; k++) if (peq(parts[k], plen[k], w)) return 1;
    return 0;
}

/* ---- Operands ------------------------------------------------------------------------------------------ */

/* name, its length, the register: the length first, so that a register operand (%r1) costs one compare
 * per entry. */
#define SR(name, sr) { name, sizeof name - 1, sr }
static const struct { const char *name; int len, sr; } sregs[] = {
    SR("%tid.x", EMU_SR_TID_X), SR("%tid.y", EMU_SR_TID_Y), SR("%tid.z", EMU_SR_TID_Z),
    SR("%ntid.x", EMU_SR_NTID_X), SR("%ntid.y", EMU_SR_NTID_Y), SR("%ntid.z", EMU_SR_NTID_Z),
    SR("%ctaid.x", EMU_SR_CTAID_X), SR("%ctaid.y", EMU_SR_CTAID_Y), SR("%ctaid.z", EMU_SR_CTAID_Z),
    SR("%nctaid.x", EMU_SR_NCTAID_X), SR("%nctaid.y", EMU_SR_NCTAID_Y), SR("%nctaid.z", EMU_SR_NCTAID_Z),
    SR("%laneid", EMU_SR_LANEID), SR("%warpid", EMU_SR_WARPID), SR("%nwarpid", EMU_SR_NWARPID),
    SR("%smid", EMU_SR_SMID), SR("%nsmid", EMU_SR_NSMID), SR("%gridid", EMU_SR_GRIDID),
    SR("%lanemask_eq", EMU_SR_LANEMASK_EQ), SR("%lanemask_lt", EMU_SR_LANEMASK_LT), SR("%lanemask_le", EMU_SR_LANEMASK_LE),
    SR("%lanemask_gt", EMU_SR_LANEMASK_GT), SR("%lanemask_ge", EMU_SR_LANEMASK_GE),
    SR("%dynamic_smem_size", EMU_SR_DYN_SMEM), SR("%total_smem_size", EMU_SR_TOTAL_SMEM),
    SR("%cluster_ctarank", EMU_SR_CLUSTER_CTARANK), SR("%cluster_nctarank", EMU_SR_CLUSTER_NCTARANK),
    SR("%clusterid.x", EMU_SR_CLUSTERID_X), SR("%clusterid.y", EMU_SR_CLUSTERID_Y), SR("%clusterid.z", EMU_SR_CLUSTERID_Z),
    SR("%nclusterid.x", EMU_SR_NCLUSTERID_X), SR("%nclusterid.y", EMU_SR_NCLUSTERID_Y),
    SR("%nclusterid.z", EMU_SR_NCLUSTERID_Z), SR("%cluster_ctaid.x", EMU_SR_CLUSTER_CTAID_X),
    SR("%cluster_ctaid.y", EMU_SR_CLUSTER_CTAID_Y), SR("%cluster_ctaid.z", EMU_SR_CLUSTER_CTAID_Z),
    SR("%cluster_nctaid.x", EMU_SR_CLUSTER_NCTAID_X), SR("%cluster_nctaid.y", EMU_SR_CLUSTER_NCTAID_Y),
    SR("%cluster_nctaid.z", EMU_SR_CLUSTER_NCTAID_Z), SR("%is_explicit_cluster", EMU_SR_IS_EXPLICIT_CLUSTER),
};
#undef SR

/* %envreg0 to %envreg31 (what the driver passes a kernel: cooperative groups read the grid workspace's
 * address from 1 and 2): its number, or -1. */
static int envreg(const char *s, int n)
{
    if (n < 8 || n > 9 || memcmp(s, "%envreg", 7) != 0) return -1;
    int k = 0;
    for (int i = 7; i < n; i++) {
        if (!isdigit((unsigned char)s[i])) return -1;
        k = k * 10 + (s[i] - '0');
    }
    return k < 32 ? k : -1;
}

static int dyn_sreg(const char *s, int n)
{
    if (peq(s, n, "%clock")) return EMU_DYN_CLOCK;
    if (peq(s, n, "%clock64")) return EMU_DYN_CLOCK64;
    if (peq(s, n, "%globaltimer") || peq(s, n, "%globaltimer_lo")) return EMU_DYN_GLOBALTIMER;
    return -1;
}

static int parse_num(const char *s, int n, int type, uint64_t *v)
{
    char buf[64];
    if (n <= 0 || n >= 63) return 0;
    memcpy(buf, s, (size_t)n); buf[n] = 0;
    char *e;
    if (n > 2 && buf[0] == '0' && (buf[1] == 'f' || buf[1] == 'F')) {
        uint32_t bits = (uint32_t)strtoull(buf + 2, &e, 16);
        if (type == EMU_T_F64) { float x; memcpy(&x, &bits, 4); double y = x; memcpy(v, &y, 8); }
        else *v = bits;
    } else if (n > 2 && buf[0] == '0' && (buf[1] == 'd' || buf[1] == 'D')) {
        uint64_t bits = strtoull(buf + 2, &e, 16);
        if (type == EMU_T_F32) { double x; memcpy(&x, &bits, 8); float y = (float)x; uint32_t b; memcpy(&b, &y, 4); *v = b; }
        else *v = bits;
    } else if (n > 2 && buf[0] == '0' && (buf[1] == 'x' || buf[1] == 'X')) {
        *v = strtoull(buf + 2, &e, 16);
    } else if (strchr(buf, '.') || ((type == EMU_T_F32 || type == EMU_T_F64) && 0)) {
        double x = strtod(buf, &e);
        if (type == EMU_T_F32) { float y = (float)x; uint32_t b; memcpy(&b, &y, 4); *v = b; } else memcpy(v, &x, 8);
    } else {
        *v = strtoull(buf, &e, 10);
    }
    if (*e == 'U' || *e == 'u') e++;
    return *e == 0;
}

static uint32_t sym_slot(dctx *c, const emu_sym *s)
{
    switch (s->kind) {
    case EMU_SYM_GLOBAL: return emu_ptx_const(c->p, c->f, EMU_CI_IMM, s->value);
    case EMU_SYM_SHARED:
        emu_ptx_shared_used(c->f, (uint32_t)(s->value >> EMU_SHARED_TAG_SHIFT));
        return emu_ptx_const(c->p, c->f, EMU_CI_IMM, s->value);
    case EMU_SYM_FRAME: return emu_ptx_const(c->p, c->f, EMU_CI_LOCAL, s->value);
    default: c->unsupported = 1; return emu_ptx_const(c->p, c->f, EMU_CI_IMM, 0);
    }
}

/* A value operand: register, immediate, special register or symbol address, as a slot*32. */
static int value(dctx *c, span o, int type, uint32_t *slot)
{
    int i = o.s;
    int neg = 0;
    if (teq(c, i, "-")) { neg = 1; i++; }
    if (i >= o.e) return emu_ptx_fail(c->p, "an empty operand");
    const char *s = c->tok[i]; int n = c->tl[i];
    if (isdigit((unsigned char)*s)) {
        uint64_t v;
        if (!parse_num(s, n, type, &v)) return emu_ptx_fail(c->p, "bad number %.*s", n, s);
        if (neg) {
            if (type == EMU_T_F32) v ^= 0x80000000u;
            else if (type == EMU_T_F64) v ^= 0x8000000000000000ull;
            else v = (uint64_t)-(int64_t)v;
        }
        *slot = emu_ptx_const(c->p, c->f, EMU_CI_IMM, v);
        return 1;
    }
    for (size_t k = 0; k < sizeof sregs / sizeof *sregs; k++)
        if (n == sregs[k].len && !memcmp(s, sregs[k].name, (size_t)n)) {
            *slot = emu_ptx_const(c->p, c->f, EMU_CI_SREG, (uint64_t)sregs[k].sr);
            return 1;
        }
    int ev = envreg(s, n);
    if (ev >= 0) {
        c->f->mod->reads_envreg = 1;
        *slot = emu_ptx_const(c->p, c->f, EMU_CI_SREG, (uint64_t)(EMU_SR_ENVREG0 + ev));
        return 1;
    }
    /* warpSize in CUDA C: PTX's constant WARP_SZ, 32 on every GPU the course targets. */
    if (peq(s, n, "WARP_SZ")) { *slot = emu_ptx_const(c->p, c->f, EMU_CI_IMM, 32); return 1; }
    emu_sym sym;
    if (!emu_ptx_lookup(c->p, s, n, &sym)) return emu_ptx_fail(c->p, "unknown name %.*s", n, s);
    if (sym.kind == EMU_SYM_REG) { *slot = (uint32_t)sym.value; return 1; }
    if (sym.kind == EMU_SYM_PRED) return emu_ptx_fail(c->p, "the predicate %.*s where a value is expected", n, s);
    /* A kernel parameter's address (mov.b64 %rd, k_param_9, as CUB's select does): its offset in the
     * launch's argument bytes, which ld.param [%rd+off] then reads. */
    if (sym.kind == EMU_SYM_KPARAM) { *slot = emu_ptx_const(c->p, c->f, EMU_CI_IMM, sym.value); return 1; }
    uint32_t base = sym_slot(c, &sym);
    if (i + 1 < o.e && teq(c, i + 1, "+")) { c->unsupported = 1; }
    *slot = base;
    return 1;
}

static int pred(dctx *c, span o, uint16_t *idx, int *negated)
{
    int i = o.s;
    if (negated) *negated = 0;
    if (teq(c, i, "!")) { if (negated) *negated = 1; i++; }
    if (i >= o.e) return emu_ptx_fail(c->p, "an empty predicate operand");
    emu_sym sym;
    if (!emu_ptx_lookup(c->p, c->tok[i], c->tl[i], &sym) || sym.kind != EMU_SYM_PRED)
        return emu_ptx_fail(c->p, "%.*s is not a predicate register", c->tl[i], c->tok[i]);
    *idx = (uint16_t)sym.value;
    return 1;
}

/* Address operand "[base]", "[base+imm]", "[base+-imm]", "[imm]". Sets in->a, in->imm and, for
 * symbols, what kind of symbol the base is (*kind = EMU_SYM_*; -1 for a register). */
static int address(dctx *c, span o, emu_insn *in, int *kind, uint64_t *symval)
{
    if (!teq(c, o.s, "[") || !teq(c, o.e - 1, "]")) return emu_ptx_fail(c->p, "an address must be in brackets");
    int i = o.s + 1, e = o.e - 1;
    *kind = -1;
    in->imm = 0;
    if (i >= e) return emu_ptx_fail(c->p, "an empty address");
    const char *s = c->tok[i]; int n = c->tl[i];
    if (isdigit((unsigned char)*s)) {
        uint64_t v;
        if (!parse_num(s, n, EMU_T_U64, &v)) return emu_ptx_fail(c->p, "bad address %.*s", n, s);
        in->a = emu_ptx_const(c->p, c->f, EMU_CI_IMM, v);
        i++;
    } else {
        emu_sym sym;
        if (!emu_ptx_lookup(c->p, s, n, &sym)) return emu_ptx_fail(c->p, "unknown name %.*s", n, s);
        if (sym.kind == EMU_SYM_REG) in->a = (uint32_t)sym.value;
        else if (sym.kind == EMU_SYM_KPARAM) { *kind = EMU_SYM_KPARAM; *symval = sym.value; in->a = 0; }
        else if (sym.kind == EMU_SYM_PRED || sym.kind == EMU_SYM_FUNC) return emu_ptx_fail(c->p, "%.*s is not an address", n, s);
        else { *kind = sym.kind; *symval = sym.value; in->a = sym_slot(c, &sym); }
        i++;
    }
    if (i < e && teq(c, i, "+")) {
        i++;
        int neg = 0;
        if (teq(c, i, "-")) { neg = 1; i++; }
        uint64_t v;
        if (i >= e || !parse_num(c->tok[i], c->tl[i], EMU_T_S64, &v)) return emu_ptx_fail(c->p, "bad address offset");
        in->imm = neg ? -(int64_t)v : (int64_t)v;
        i++;
    } else if (i < e && teq(c, i, "-")) {
        i++;
        uint64_t v;
        if (i >= e || !parse_num(c->tok[i], c->tl[i], EMU_T_S64, &v)) return emu_ptx_fail(c->p, "bad address offset");
        in->imm = -(int64_t)v;
        i++;
    }
    if (i != e) return emu_ptx_fail(c->p, "an address this emulator does not understand");
    return 1;
}

/* "{a, b, c, d}" into in->v[]; returns the count. */
static int vector(dctx *c, span o, emu_insn *in, int type)
{
    if (!teq(c, o.s, "{")) return 0;
    int k = 0, i = o.s + 1;
    while (i < o.e - 1 && k < 4) {
        int j = i;
        while (j < o.e - 1 && !teq(c, j, ",")) j++;
        span sub = { i, j };
        if (j > i && teq(c, i, "_")) in->v[k++] = emu_ptx_const(c->p, c->f, EMU_CI_IMM, 0);   /* sink */
        else if (!value(c, sub, type, &in->v[k++])) return -1;
        i = j + 1;
    }
    return k;
}

static void split_operands(dctx *c, int from)
{
    c->nops = 0;
    int depth = 0, s = from;
    for (int i = from; i < c->ntok; i++) {
        char ch = c->tok[i][0];
        if (c->tl[i] == 1 && (ch == '[' || ch == '{' || ch == '(')) depth++;
        if (c->tl[i] == 1 && (ch == ']' || ch == '}' || ch == ')')) depth--;
        if (c->tl[i] == 1 && ch == ',' && depth == 0) {
            if (c->nops < 16) c->ops[c->nops++] = (span){ s, i };
            s = i + 1;
        }
    }
    if (s < c->ntok && c->nops < 16) c->ops[c->nops++] = (span){ s, c->ntok };
}

/* "%r|%p": value destination with a predicate second destination. */
static int dest_pair(dctx *c, span o, int type, uint32_t *d, uint16_t *pd)
{
    *pd = NONE_P;
    for (int i = o.s; i < o.e; i++)
        if (teq(c, i, "|")) {
            span a = { o.s, i }, b = { i + 1, o.e };
            if (!value(c, a, type, d)) return 0;
            return pred(c, b, pd, NULL);
        }
    return value(c, o, type, d);
}

/* ---- Instructions ----------------------------------------------------------------------------------- */

static int emit(emu_func *f, const emu_insn *in)
{
    if (f->ncode >= f->capcode) {
        f->capcode = f->capcode ? 2 * f->capcode : 64;
        f->code = realloc(f->code, (size_t)f->capcode * sizeof *f->code);
        if (!f->code) abort();
    }
    f->code[f->ncode++] = *in;
    return 1;
}

static int unsupported(dctx *c, emu_insn *in, int from)
{
    char buf[200];
    size_t n = 0;
    for (int i = from; i < c->ntok && n + 2 < sizeof buf; i++) {
        int w = snprintf(buf + n, sizeof buf - n, "%s%.*s", (i > from && c->tok[i][0] != ',') ? " " : "", c->tl[i], c->tok[i]);
        if (w < 0) break;
        n += (size_t)w;
        if (n >= sizeof buf) { n = sizeof buf - 1; break; }
    }
    buf[n] = 0;
    emu_func *f = c->f;
    f->texts = realloc(f->texts, (size_t)(f->ntexts + 1) * sizeof *f->texts);
    if (!f->texts) abort();
    f->texts[f->ntexts] = strdup(buf);
    in->text = (uint16_t)(f->ntexts < 65535 ? f->ntexts : 65535);
    f->ntexts++;
    in->op = EMU_OP_UNSUPPORTED;
    return emit(f, in);
}

static int fast_int(int op, int t)
{
    int sz = (int)EMU_TSIZE(t), k = EMU_TKIND(t);
    if (k == EMU_K_F || k == EMU_K_PRED) return -1;
    switch (op) {
    case EMU_OP_ADD: return sz == 4 ? EMU_OP_ADD_I32 : sz == 8 ? EMU_OP_ADD_I64 : -1;
    case EMU_OP_SUB: return sz == 4 ? EMU_OP_SUB_I32 : sz == 8 ? EMU_OP_SUB_I64 : -1;
    case EMU_OP_SHL: return sz == 4 ? EMU_OP_SHL_B32 : sz == 8 ? EMU_OP_SHL_B64 : -1;
    case EMU_OP_SHR:
        if (sz == 4) return k == EMU_K_S ? EMU_OP_SHR_S32 : EMU_OP_SHR_U32;
        if (sz == 8) return k == EMU_K_S ? EMU_OP_SHR_S64 : EMU_OP_SHR_U64;
        return -1;
    }
    return -1;
}

int emu_ptx_decode(emu_parser *p, emu_func *f, const char **tok, const int *tl, int ntok, uint32_t loc)
{
    dctx C = { p, f, tok, tl, ntok, {{0, 0}}, 0, 0 };
    dctx *c = &C;
    emu_insn in;
    memset(&in, 0, sizeof in);
    in.guard = -1;
    in.loc = loc;
    in.t = in.t2 = EMU_T_NONE;
    in.pd = in.pq = in.pc = NONE_P;
    in.nvec = 1;
    in.target = -1;
    int i = 0;
    if (teq(c, 0, "@")) {
        int neg = teq(c, 1, "!");
        span g = { 1 + neg, 2 + neg };
        uint16_t gi;
        if (!pred(c, g, &gi, NULL)) return 0;
        in.guard = (int16_t)gi;
        if (neg) in.flags |= EMU_F_NEG_GUARD;
        i = 2 + neg;
    }
    if (i >= ntok) return emu_ptx_fail(p, "a guard without an instruction");
    int opi = i;
    /* Split the opcode into parts. */
    const char *parts[16] = { 0 }; int plen[16] = { 0 }; int np = 0;
    {
        const char *s = tok[opi]; int n = tl[opi], st = 0;
        for (int k = 0; k <= n && np < 16; k++)
            if (k == n || s[k] == '.') { parts[np] = s + st; plen[np++] = k - st; st = k + 1; }
    }
    split_operands(c, opi + 1);
    const char *mn = parts[0]; int mnl = plen[0];
    int types[4], nt = 0, cmp = -1, rnd = 0, space = EMU_SP_GENERIC, atomop = -1, boolop = EMU_BOOL_NONE, mw = -1;
    int shmode = -1, vmode = -1, pair = 0, cvtmod = 0, odd = 0;
    for (int k = 1; k < np; k++) {
        const char *s = parts[k]; int n = plen[k];
        int t = part_type(s, n);
        if (t >= 0) { if (nt < 4) types[nt++] = t; continue; }
        /* a pair of 16-bit floats in one 32-bit register */
        if (peq(s, n, "f16x2")) { if (nt < 4) types[nt++] = EMU_T_F16; pair = 1; continue; }
        if (peq(s, n, "bf16x2")) { if (nt < 4) types[nt++] = EMU_T_BF16; pair = 1; continue; }
        if (peq(s, n, "relu")) { cvtmod |= EMU_CVT_RELU; continue; }
        if (peq(s, n, "satfinite")) { cvtmod |= EMU_CVT_SATFINITE; continue; }
        if (peq(s, n, "xorsign")) { odd = 1; continue; }   /* min.xorsign.abs: not run here */
        if (peq(s, n, "global")) { space = EMU_SP_GLOBAL; continue; }
        /* a shared::cluster address of the block's own shared memory is its shared::cta address; other
         * blocks' have tags of their own (emu_exec_dsmem.c), so both are shared addresses here */
        if (peq(s, n, "shared") || peq(s, n, "shared::cta") || peq(s, n, "shared::cluster")) {
            space = EMU_SP_SHARED;
            continue;
        }
        if (peq(s, n, "local")) { space = EMU_SP_LOCAL; continue; }
        if (peq(s, n, "const")) { space = EMU_SP_CONST; continue; }
        if (peq(s, n, "param")) { space = EMU_SP_PARAM; continue; }
        if (peq(s, n, "v2")) { in.nvec = 2; continue; }
        if (peq(s, n, "v4")) { in.nvec = 4; continue; }
        if (peq(s, n, "ftz")) { in.flags |= EMU_F_FTZ; continue; }
        if (peq(s, n, "sat")) { in.flags |= EMU_F_SAT; continue; }
        if (peq(s, n, "volatile")) { in.flags |= EMU_F_VOLATILE; continue; }
        if (peq(s, n, "approx") || peq(s, n, "full")) { in.flags |= EMU_F_APPROX; continue; }
        if (peq(s, n, "NaN")) { in.flags |= EMU_F_NAN; continue; }
        if (peq(s, n, "to")) { in.flags |= EMU_F_TO; continue; }
        int r = part_rnd(s, n);
        if (r) { rnd = r; continue; }
        if (peq(s, n, "wide")) { mw = EMU_MW_WIDE; continue; }
        if (peq(s, n, "up")) { shmode = EMU_SH_UP; }
        if (peq(s, n, "down")) { shmode = EMU_SH_DOWN; }
        if (peq(s, n, "bfly")) { shmode = EMU_SH_BFLY; }
        if (peq(s, n, "idx")) { shmode = EMU_SH_IDX; }
        if (peq(s, n, "all")) vmode = EMU_VO_ALL;
        if (peq(s, n, "any")) vmode = EMU_VO_ANY;
        if (peq(s, n, "uni")) vmode = EMU_VO_UNI;
        if (peq(s, n, "ballot")) vmode = EMU_VO_BALLOT;
        int mulmad = peq(mn, mnl, "mul") || peq(mn, mnl, "mad") || peq(mn, mnl, "mul24") || peq(mn, mnl, "mad24");
        if (peq(s, n, "lo") && mulmad) { mw = EMU_MW_LO; continue; }
        if (peq(s, n, "hi") && mulmad) { mw = EMU_MW_HI; continue; }
        int a = part_atom(s, n);
        if (a >= 0 && atomop < 0) atomop = a;
        if (peq(s, n, "and")) boolop = EMU_BOOL_AND;
        if (peq(s, n, "or")) boolop = EMU_BOOL_OR;
        if (peq(s, n, "xor")) boolop = EMU_BOOL_XOR;
        int cm = part_cmp(s, n);
        if (cm >= 0 && cmp < 0) cmp = cm;
        /* anything else (sync, aligned, uni, nc, relaxed, gpu, cta, L1::...) changes nothing here */
    }
    int t = nt > 0 ? types[nt - 1] : EMU_T_NONE;
    int wide_scope = has_part(parts, plen, np, "gpu") || has_part(parts, plen, np, "sys");
    in.t = (uint8_t)t;
    in.rnd = (uint8_t)rnd;
    in.space = (uint8_t)space;
    span *o = c->ops;
    int no = c->nops;
#define NEED(k) do { if (no < (k)) return emu_ptx_fail(p, "%.*s needs %d operands", tl[opi], tok[opi], (k)); } while (0)
#define V(k, ty, dst) do { if (!value(c, o[k], (ty), (dst))) return 0; } while (0)
#define M(w) peq(mn, mnl, w)
    if (pair && !(M("add") || M("sub") || M("mul") || M("fma") || M("neg") || M("abs") || M("min") || M("max") || M("cvt")))
        return unsupported(c, &in, opi);   /* setp.f16x2, ex2.approx.f16x2...: not yet */
    /* .relu and .satfinite exist on cvt to a 16-bit float only here; min.xorsign.abs not at all */
    if (odd || (cvtmod && !M("cvt"))) return unsupported(c, &in, opi);

    int sys_scope = has_part(parts, plen, np, "sys") ||
                    ((M("ld") || M("st")) && has_part(parts, plen, np, "volatile"));
    if (M("membar") || M("fence")) {
        if (sys_scope) in.flags |= EMU_F_SYS;
        /* __threadfence() and stronger order memory for other blocks; a block-scope fence or a proxy
         * fence changes nothing a sequential emulator can see */
        in.op = (wide_scope || has_part(parts, plen, np, "gl")) && !has_part(parts, plen, np, "proxy") ? EMU_OP_FENCE : EMU_OP_NOP;
        return emit(f, &in);
    }
    if (M("prefetch") || M("prefetchu") || M("nanosleep") || M("pmevent") || M("discard")) {
        in.op = EMU_OP_NOP; return emit(f, &in);
    }
    if (M("ld") || M("st") || M("atom") || M("red")) {
        if (sys_scope) in.flags |= EMU_F_SYS;
        if (has_part(parts, plen, np, "acquire") || has_part(parts, plen, np, "acq_rel")) in.flags |= EMU_F_ACQUIRE;
        if (has_part(parts, plen, np, "release") || has_part(parts, plen, np, "acq_rel")) in.flags |= EMU_F_RELEASE;
        /* strong across blocks: gpu or system scope, or cluster scope (the blocks of a cluster) */
        if ((wide_scope || has_part(parts, plen, np, "cluster")) &&
            (in.flags & (EMU_F_ACQUIRE | EMU_F_RELEASE) || has_part(parts, plen, np, "relaxed")))
            in.flags |= EMU_F_VOLATILE;
    }
    if (M("bra")) {
        NEED(1);
        in.op = EMU_OP_BRA;
        emu_ptx_label_ref(p, tok[o[0].s], tl[o[0].s], f->ncode);
        return emit(f, &in);
    }
    if (M("ret")) { in.op = f->is_entry ? EMU_OP_EXIT : EMU_OP_RET; return emit(f, &in); }
    if (M("exit")) { in.op = EMU_OP_EXIT; return emit(f, &in); }
    if (M("trap") || M("brkpt")) { in.op = EMU_OP_TRAP; return emit(f, &in); }
    if (M("call")) {
        /* call[.uni] [(ret),] name[, (args)] */
        int k = 0, has_ret = 0;
        if (no >= 2 && teq(c, o[0].s, "(")) { has_ret = 1; k = 1; }
        NEED(k + 1);
        if (o[k].e - o[k].s != 1) return unsupported(c, &in, opi);   /* indirect call */
        in.op = EMU_OP_CALL;
        int nargs = 0;
        span args = { 0, 0 };
        if (no > k + 1 && teq(c, o[k + 1].s, "(")) {
            args = (span){ o[k + 1].s + 1, o[k + 1].e - 1 };
            for (int j = args.s; j < args.e; j++) if (!teq(c, j, ",")) nargs++;
        }
        in.args = emu_ptx_args(p, nargs + 1);
        in.nargs = (uint16_t)nargs;
        emu_sym sym;
        if (has_ret) {
            int j = o[0].s + 1;
            if (!emu_ptx_lookup(p, tok[j], tl[j], &sym) || sym.kind != EMU_SYM_FRAME) { free(in.args); return unsupported(c, &in, opi); }
            in.args[0] = (uint32_t)sym.value;
            in.flags |= EMU_F_TO;   /* has a return value */
        }
        int a = 1;
        for (int j = args.s; j < args.e; j++) {
            if (teq(c, j, ",")) continue;
            if (!emu_ptx_lookup(p, tok[j], tl[j], &sym) || sym.kind != EMU_SYM_FRAME) { free(in.args); in.args = NULL; return unsupported(c, &in, opi); }
            in.args[a++] = (uint32_t)sym.value;
        }
        emu_ptx_call_ref(p, tok[o[k].s], tl[o[k].s], f->ncode);
        return emit(f, &in);
    }
    if (M("barrier") && has_part(parts, plen, np, "cluster")) {
        /* barrier.cluster.arrive / .wait, with .release, .relaxed, .acquire, .aligned: one barrier per cluster */
        in.op = has_part(parts, plen, np, "arrive") ? EMU_OP_CBAR_ARRIVE
              : has_part(parts, plen, np, "wait") ? EMU_OP_CBAR_WAIT : EMU_OP_UNSUPPORTED;
        if (in.op == EMU_OP_UNSUPPORTED) return unsupported(c, &in, opi);
        in.mod = (uint8_t)has_part(parts, plen, np, "aligned");
        return emit(f, &in);
    }
    if (M("mapa") || M("getctarank")) {
        /* mapa[.shared::cluster].T d, a, rank ; getctarank[.shared::cluster].T d, a */
        int is_mapa = M("mapa");
        NEED(is_mapa ? 3 : 2);
        if (t != EMU_T_U32 && t != EMU_T_U64 && t != EMU_T_B32 && t != EMU_T_B64) return unsupported(c, &in, opi);
        in.op = is_mapa ? EMU_OP_MAPA : EMU_OP_GETCTARANK;
        in.mod = (uint8_t)(space == EMU_SP_SHARED);
        V(0, is_mapa ? t : EMU_T_U32, &in.d); V(1, t, &in.a);
        if (is_mapa) V(2, EMU_T_U32, &in.b);
        if (c->unsupported) return unsupported(c, &in, opi);
        return emit(f, &in);
    }
    if (M("isspacep")) {
        NEED(2);
        in.op = EMU_OP_ISSPACEP;
        in.mod = (uint8_t)(has_part(parts, plen, np, "shared::cluster") ? EMU_SP_SHARED_CLUSTER : space);
        if (space == EMU_SP_GENERIC) return unsupported(c, &in, opi);
        if (!pred(c, o[0], &in.pd, NULL)) return 0;
        V(1, EMU_T_U64, &in.a);
        return emit(f, &in);
    }
    if (M("bar") || M("barrier")) {
        int k = 1;
        int is_warp = 0, is_red = 0, is_arrive = 0;
        for (; k < np; k++) {
            if (peq(parts[k], plen[k], "warp")) is_warp = 1;
            if (peq(parts[k], plen[k], "red")) is_red = 1;
            if (peq(parts[k], plen[k], "arrive")) is_arrive = 1;
        }
        if (is_warp) {
            NEED(1);
            in.op = EMU_OP_WARPSYNC;
            V(0, EMU_T_B32, &in.e);
            return emit(f, &in);
        }
        if (is_arrive) {
            /* bar.arrive a, b: b (the thread count) is required */
            NEED(2);
            if (is_red) return unsupported(c, &in, opi);
            in.op = EMU_OP_BAR_ARRIVE;
            V(0, EMU_T_U32, &in.a);
            V(1, EMU_T_U32, &in.b);
            in.nargs = 1;
            return emit(f, &in);
        }
        if (is_red) {
            /* bar.red.popc.u32 d, a{, b}, {!}c ;  bar.red.and.pred p, a{, b}, {!}c */
            NEED(3);
            in.op = EMU_OP_BAR_RED;
            in.mod = (uint8_t)(atomop == EMU_AT_POPC ? EMU_AT_POPC : atomop == EMU_AT_AND ? EMU_AT_AND : EMU_AT_OR);
            if (in.mod == EMU_AT_POPC) V(0, EMU_T_U32, &in.d);
            else if (!pred(c, o[0], &in.pd, NULL)) return 0;
            V(1, EMU_T_U32, &in.a);
            in.nargs = no > 3;
            if (no > 3) V(2, EMU_T_U32, &in.b);
            int neg;
            if (!pred(c, o[no - 1], &in.pc, &neg)) return 0;
            if (neg) in.flags |= EMU_F_NEG_C;
            return emit(f, &in);
        }
        in.op = EMU_OP_BAR;
        if (no >= 1) V(0, EMU_T_U32, &in.a); else in.a = emu_ptx_const(p, f, EMU_CI_IMM, 0);
        in.nargs = no >= 2;
        if (no >= 2) V(1, EMU_T_U32, &in.b);
        return emit(f, &in);
    }
    if (M("mov")) {
        NEED(2);
        if (t == EMU_T_PRED) {
            in.op = EMU_OP_MOV_PRED;
            if (!pred(c, o[0], &in.pd, NULL)) return 0;
            /* mov.pred %p, 0 (or 1, or -1 in CUB's kernels): nvcc emits constants for predicates that
             * start false or true; any value but 0 is true */
            int num = o[1].s + teq(c, o[1].s, "-");
            if (o[1].e == num + 1 && isdigit((unsigned char)tok[num][0])) {
                uint64_t v;
                if (!parse_num(tok[num], tl[num], EMU_T_U64, &v)) return emu_ptx_fail(p, "bad predicate constant");
                in.op = EMU_OP_PRED_CONST;
                in.imm = v != 0;
                return emit(f, &in);
            }
            if (o[1].e == o[1].s + 2 && teq(c, o[1].s, "-") && teq(c, o[1].s + 1, "1")) {   /* -1: true */
                in.op = EMU_OP_PRED_CONST;
                in.imm = 1;
                return emit(f, &in);
            }
            if (teq(c, o[1].s, "%is_explicit_cluster")) {
                /* a predicate special register: set from its slot (1 in clusters the launch named) */
                in.op = EMU_OP_SETP_U32; in.mod = EMU_CMP_NE; in.t = EMU_T_U32;
                V(1, EMU_T_U32, &in.a);
                in.b = emu_ptx_const(p, f, EMU_CI_IMM, 0);
                return emit(f, &in);
            }
            if (!pred(c, o[1], &in.pc, NULL)) return 0;
            return emit(f, &in);
        }
        int dy = dyn_sreg(tok[o[1].s], tl[o[1].s]);
        if (dy >= 0) { in.op = EMU_OP_SREG_DYN; in.mod = (uint8_t)dy; V(0, t, &in.d); return emit(f, &in); }
        if (teq(c, o[0].s, "{")) {
            int k = vector(c, o[0], &in, t);
            if (k < 0) return 0;
            in.nvec = (uint8_t)k; in.op = EMU_OP_UNPACK; V(1, t, &in.a);
            return emit(f, &in);
        }
        if (teq(c, o[1].s, "{")) {
            int k = vector(c, o[1], &in, t);
            if (k < 0) return 0;
            in.nvec = (uint8_t)k; in.op = EMU_OP_PACK; V(0, t, &in.d);
            return emit(f, &in);
        }
        in.op = EMU_OP_MOV;
        V(0, t, &in.d); V(1, t, &in.a);
        if (c->unsupported) return unsupported(c, &in, opi);
        return emit(f, &in);
    }
    if (M("cvta")) {
        NEED(2);
        V(0, t, &in.d); V(1, t, &in.a);
        if (c->unsupported) return unsupported(c, &in, opi);
        in.op = (space == EMU_SP_GLOBAL || space == EMU_SP_CONST || space == EMU_SP_GENERIC) ? EMU_OP_MOV : EMU_OP_CVTA;
        if (space == EMU_SP_PARAM) return unsupported(c, &in, opi);
        return emit(f, &in);
    }
    if (M("cp") && has_part(parts, plen, np, "async")) {
        /* cp.async.commit_group; cp.async.wait_group N; cp.async.wait_all; cp.async.{ca,cg}.shared{::cta}.global
         * [d], [s], n{, src-size}{, ignore-src}{, cache-policy} (__pipeline_memcpy_async, cuda::memcpy_async).
         * The bulk (TMA) and mbarrier forms are not run. */
        if (has_part(parts, plen, np, "bulk") || has_part(parts, plen, np, "mbarrier")) return unsupported(c, &in, opi);
        if (has_part(parts, plen, np, "commit_group")) { in.op = EMU_OP_CP_COMMIT; return emit(f, &in); }
        if (has_part(parts, plen, np, "wait_all")) { in.op = EMU_OP_CP_WAIT; in.mod = 1; return emit(f, &in); }
        uint64_t v;
        if (has_part(parts, plen, np, "wait_group")) {
            NEED(1);
            if (o[0].e != o[0].s + 1 || !parse_num(tok[o[0].s], tl[o[0].s], EMU_T_U32, &v)) return unsupported(c, &in, opi);
            in.op = EMU_OP_CP_WAIT;
            in.imm = (int64_t)v;
            return emit(f, &in);
        }
        NEED(3);
        int kind; uint64_t symval;
        emu_insn src = in;
        if (!address(c, o[1], &src, &kind, &symval)) return 0;
        if (kind == EMU_SYM_KPARAM || kind == EMU_SYM_FRAME) return unsupported(c, &in, opi);
        if (!address(c, o[0], &in, &kind, &symval)) return 0;
        if (kind == EMU_SYM_KPARAM || kind == EMU_SYM_FRAME || c->unsupported) return unsupported(c, &in, opi);
        in.b = src.a;                                                /* the source: register b, offset e */
        in.e = emu_ptx_const(p, f, EMU_CI_IMM, (uint64_t)src.imm);
        if (o[2].e != o[2].s + 1 || !parse_num(tok[o[2].s], tl[o[2].s], EMU_T_U32, &v) || (v != 4 && v != 8 && v != 16))
            return unsupported(c, &in, opi);
        in.op = EMU_OP_CP_ASYNC;
        in.mod = (uint8_t)v;
        in.space = EMU_SP_SHARED;
        in.t = EMU_T_B32;
        int hint = has_part(parts, plen, np, "L2::cache_hint");
        for (int k = 3; k < no - hint; k++) {
            emu_sym sym;
            int j = o[k].s + teq(c, o[k].s, "!");
            if (emu_ptx_lookup(p, tok[j], tl[j], &sym) && sym.kind == EMU_SYM_PRED) {
                int neg;
                if (!pred(c, o[k], &in.pc, &neg)) return 0;
                if (neg) in.flags |= EMU_F_NEG_C;
            } else {
                V(k, EMU_T_U32, &in.c);
                in.nargs = 1;   /* a src-size operand */
            }
        }
        return emit(f, &in);
    }
    if (M("ld") || M("ldu") || M("st")) {
        NEED(2);
        int is_st = M("st");
        span ao = is_st ? o[0] : o[1], vo = is_st ? o[1] : o[0];
        int kind; uint64_t symval = 0;
        if (!address(c, ao, &in, &kind, &symval)) return 0;
        if (c->unsupported) return unsupported(c, &in, opi);
        in.op = is_st ? EMU_OP_ST : EMU_OP_LD;
        if (space == EMU_SP_PARAM) {
            if (kind == EMU_SYM_KPARAM) {
                if (is_st) return unsupported(c, &in, opi);
                in.op = EMU_OP_LD_PARAM;
                in.imm += (int64_t)symval;
            } else if (kind == EMU_SYM_FRAME) in.space = EMU_SP_LOCAL;
            else if (kind == -1 && !is_st && f->is_entry) {
                /* ld.param [%rd+off] in a kernel: %rd holds a parameter's offset (see value()) */
                in.op = EMU_OP_LD_PARAM;
                in.mod = 1;
            } else if (kind == -1 && !f->is_entry) in.space = EMU_SP_LOCAL;   /* a .func's params: its frame */
            else return unsupported(c, &in, opi);
        }
        if (space == EMU_SP_CONST) in.space = EMU_SP_GLOBAL;
        if (t == EMU_T_NONE || t == EMU_T_PRED) return unsupported(c, &in, opi);
        if (teq(c, vo.s, "{")) {
            int k = vector(c, vo, &in, t);
            if (k < 0) return 0;
            in.nvec = (uint8_t)k;
        } else {
            if (in.nvec != 1) return emu_ptx_fail(p, "a vector access needs {...} operands");
            V(is_st ? 1 : 0, t, &in.v[0]);
        }
        if (t == EMU_T_B128) return unsupported(c, &in, opi);
        /* a strong load may wait for another block (a spin on a flag it sets, even in this block's shared
         * memory through distributed shared memory) */
        if (in.op == EMU_OP_LD && (in.flags & EMU_F_VOLATILE) && in.space != EMU_SP_LOCAL) in.op = EMU_OP_LD_STRONG;
        return emit(f, &in);
    }
    if (M("atom") || M("red")) {
        int is_red = M("red");
        NEED(is_red ? 2 : 3);
        int k = 0;
        if (!is_red) { V(0, t, &in.d); k = 1; }
        int kind; uint64_t symval;
        if (!address(c, o[k], &in, &kind, &symval)) return 0;
        if (c->unsupported || kind == EMU_SYM_KPARAM || kind == EMU_SYM_FRAME) return unsupported(c, &in, opi);
        if (atomop < 0 || atomop == EMU_AT_POPC) return unsupported(c, &in, opi);
        in.op = is_red ? EMU_OP_RED : EMU_OP_ATOM;
        in.mod = (uint8_t)atomop;
        if (space == EMU_SP_CONST || space == EMU_SP_LOCAL || space == EMU_SP_PARAM) return unsupported(c, &in, opi);
        V(k + 1, t, &in.b);
        if (atomop == EMU_AT_CAS) { NEED(k + 3); V(k + 2, t, &in.c); }
        if (t == EMU_T_F16 || EMU_TSIZE(t) < 4 || t == EMU_T_B128) return unsupported(c, &in, opi);
        if ((atomop == EMU_AT_INC || atomop == EMU_AT_DEC) && t != EMU_T_U32) return unsupported(c, &in, opi);
        return emit(f, &in);
    }
    if (M("shfl")) {
        if (no < 5 || shmode < 0) return unsupported(c, &in, opi);   /* the pre-Volta form without .sync */
        in.op = EMU_OP_SHFL; in.mod = (uint8_t)shmode;
        if (!dest_pair(c, o[0], EMU_T_B32, &in.d, &in.pd)) return 0;
        V(1, EMU_T_B32, &in.a); V(2, EMU_T_B32, &in.b); V(3, EMU_T_B32, &in.c); V(4, EMU_T_B32, &in.e);
        return emit(f, &in);
    }
    if (M("vote")) {
        if (vmode < 0 || no < 3) return unsupported(c, &in, opi);
        in.op = EMU_OP_VOTE; in.mod = (uint8_t)vmode;
        if (vmode == EMU_VO_BALLOT) V(0, EMU_T_B32, &in.d);
        else if (!pred(c, o[0], &in.pd, NULL)) return 0;
        int neg;
        if (!pred(c, o[1], &in.pc, &neg)) return 0;
        if (neg) in.flags |= EMU_F_NEG_C;
        V(2, EMU_T_B32, &in.e);
        return emit(f, &in);
    }
    if (M("redux")) {
        NEED(3);
        if (atomop < 0 || atomop > EMU_AT_XOR) return unsupported(c, &in, opi);
        in.op = EMU_OP_REDUX; in.mod = (uint8_t)atomop;
        V(0, t, &in.d); V(1, t, &in.a); V(2, EMU_T_B32, &in.e);
        return emit(f, &in);
    }
    if (M("activemask")) { NEED(1); in.op = EMU_OP_ACTIVEMASK; V(0, EMU_T_B32, &in.d); return emit(f, &in); }
    if (M("match")) {
        NEED(3);
        in.op = EMU_OP_MATCH; in.mod = (uint8_t)(vmode == EMU_VO_ALL ? EMU_VO_ALL : EMU_VO_ANY);
        if (!dest_pair(c, o[0], EMU_T_B32, &in.d, &in.pd)) return 0;
        V(1, t, &in.a); V(2, EMU_T_B32, &in.e);
        return emit(f, &in);
    }
    if (M("setp")) {
        NEED(3);
        if (cmp < 0 || t == EMU_T_NONE) return unsupported(c, &in, opi);
        in.mod = (uint8_t)cmp;
        /* p[|q] */
        span d0 = o[0];
        for (int j = d0.s; j < d0.e; j++) if (teq(c, j, "|")) {
            span a = { d0.s, j }, b = { j + 1, d0.e };
            if (!pred(c, b, &in.pq, NULL)) return 0;
            d0 = a;
            break;
        }
        if (!pred(c, d0, &in.pd, NULL)) return 0;
        V(1, t, &in.a); V(2, t, &in.b);
        /* ".and" etc. in the opcode also matched the compare names; only a 4th operand makes it a combine */
        if (no >= 4) {
            int neg;
            if (!pred(c, o[3], &in.pc, &neg)) return 0;
            if (neg) in.flags |= EMU_F_NEG_C;
            in.nargs = (uint16_t)boolop;
        }
        int k = EMU_TKIND(t), sz = (int)EMU_TSIZE(t);
        in.op = EMU_OP_SETP;
        if (no < 4 && in.pq == NONE_P && !(in.flags & EMU_F_FTZ)) {
            if (t == EMU_T_F32) in.op = EMU_OP_SETP_F32;
            else if (t == EMU_T_F64) in.op = EMU_OP_SETP_F64;
            else if (sz == 4) in.op = k == EMU_K_S ? EMU_OP_SETP_S32 : EMU_OP_SETP_U32;
            else if (sz == 8) in.op = k == EMU_K_S ? EMU_OP_SETP_S64 : EMU_OP_SETP_U64;
        }
        return emit(f, &in);
    }
    if (M("set")) {
        NEED(3);
        if (cmp < 0 || nt < 2) return unsupported(c, &in, opi);
        in.op = EMU_OP_SET; in.mod = (uint8_t)cmp; in.t = (uint8_t)types[0]; in.t2 = (uint8_t)types[1];
        V(0, types[0], &in.d); V(1, types[1], &in.a); V(2, types[1], &in.b);
        if (no >= 4) {
            int neg;
            if (!pred(c, o[3], &in.pc, &neg)) return 0;
            if (neg) in.flags |= EMU_F_NEG_C;
            in.nargs = (uint16_t)boolop;
        }
        return emit(f, &in);
    }
    if (M("selp")) {
        NEED(4);
        in.op = EMU_OP_SELP;
        V(0, t, &in.d); V(1, t, &in.a); V(2, t, &in.b);
        if (!pred(c, o[3], &in.pc, NULL)) return 0;
        return emit(f, &in);
    }
    if (M("slct")) {
        NEED(4);
        if (nt < 2) return unsupported(c, &in, opi);
        in.op = EMU_OP_SLCT; in.t = (uint8_t)types[0]; in.t2 = (uint8_t)types[1];
        V(0, types[0], &in.d); V(1, types[0], &in.a); V(2, types[0], &in.b); V(3, types[1], &in.c);
        return emit(f, &in);
    }
    if (M("cvt") && pair) {
        /* cvt.rnd{.relu}{.satfinite}.{f16x2,bf16x2}.f32 d, a, b */
        NEED(3);
        if (nt != 2 || types[1] != EMU_T_F32 || (rnd != EMU_RND_RN && rnd != EMU_RND_RZ)) return unsupported(c, &in, opi);
        in.op = EMU_OP_CVT_PAIR; in.t = (uint8_t)types[0]; in.t2 = EMU_T_F32; in.mod = (uint8_t)cvtmod;
        V(0, EMU_T_B32, &in.d); V(1, EMU_T_F32, &in.a); V(2, EMU_T_F32, &in.b);
        return emit(f, &in);
    }
    if (M("cvt")) {
        NEED(2);
        if (nt < 2) return unsupported(c, &in, opi);
        int to_half = types[0] == EMU_T_F16 || types[0] == EMU_T_BF16;
        if (cvtmod && !to_half) return unsupported(c, &in, opi);
        in.mod = (uint8_t)cvtmod;
        in.t = (uint8_t)types[0]; in.t2 = (uint8_t)types[1];
        if (in.t == EMU_T_PRED || in.t2 == EMU_T_PRED) return unsupported(c, &in, opi);
        V(0, types[0], &in.d); V(1, types[1], &in.a);
        in.op = EMU_OP_CVT;
        if (!(in.flags & (EMU_F_SAT | EMU_F_FTZ)) && !rnd) {
            if (in.t == EMU_T_S64 && in.t2 == EMU_T_S32) in.op = EMU_OP_CVT_S64_S32;
            if (in.t == EMU_T_U64 && in.t2 == EMU_T_U32) in.op = EMU_OP_CVT_U64_U32;
        }
        return emit(f, &in);
    }
    if (M("and") || M("or") || M("xor") || M("not")) {
        int is_not = M("not");
        NEED(is_not ? 2 : 3);
        if (t == EMU_T_PRED) {
            in.op = M("and") ? EMU_OP_PRED_AND : M("or") ? EMU_OP_PRED_OR : M("xor") ? EMU_OP_PRED_XOR : EMU_OP_PRED_NOT;
            int neg;
            if (!pred(c, o[0], &in.pd, NULL) || !pred(c, o[1], &in.pc, &neg)) return 0;
            if (neg) return unsupported(c, &in, opi);
            if (!is_not) { if (!pred(c, o[2], &in.pq, &neg)) return 0; if (neg) return unsupported(c, &in, opi); }
            return emit(f, &in);
        }
        V(0, t, &in.d); V(1, t, &in.a);
        if (is_not) { in.op = EMU_OP_NOT; return emit(f, &in); }
        V(2, t, &in.b);
        in.op = M("and") ? EMU_OP_AND_B : M("or") ? EMU_OP_OR_B : EMU_OP_XOR_B;
        return emit(f, &in);
    }
    /* ---- What the library kernels (CUB, Thrust) use beyond the course's own ---- */
    /* griddepcontrol.wait / .launch_dependents (programmatic dependent launch): launches run one after
     * another here, so the grid before has always finished and there is nothing to start early. */
    if (M("griddepcontrol")) { in.op = EMU_OP_NOP; return emit(f, &in); }
    if (M("bmsk")) {
        /* bmsk.{clamp,wrap}.b32 d, a, b: CUB's radix sort builds its digit masks with it */
        NEED(3);
        if (t != EMU_T_B32) return unsupported(c, &in, opi);
        for (int q = 1; q < np; q++) if (peq(parts[q], plen[q], "clamp")) in.mod = 1;
        in.op = EMU_OP_BMSK;
        V(0, t, &in.d); V(1, EMU_T_U32, &in.a); V(2, EMU_T_U32, &in.b);
        if (c->unsupported) return unsupported(c, &in, opi);
        return emit(f, &in);
    }

    /* Arithmetic: d, a[, b[, c]]. */
    static const struct { const char *w; int op, nsrc; } ar[] = {
        {"add", EMU_OP_ADD, 2}, {"sub", EMU_OP_SUB, 2}, {"mul", EMU_OP_MUL, 2}, {"mad", EMU_OP_MAD, 3},
        {"fma", EMU_OP_FMA, 3}, {"div", EMU_OP_DIV, 2}, {"rem", EMU_OP_REM, 2}, {"neg", EMU_OP_NEG, 1},
        {"abs", EMU_OP_ABS, 1}, {"min", EMU_OP_MIN, 2}, {"max", EMU_OP_MAX, 2}, {"cnot", EMU_OP_CNOT, 1},
        {"shl", EMU_OP_SHL, 2}, {"shr", EMU_OP_SHR, 2}, {"popc", EMU_OP_POPC, 1}, {"clz", EMU_OP_CLZ, 1},
        {"brev", EMU_OP_BREV, 1}, {"bfind", EMU_OP_BFIND, 1}, {"bfe", EMU_OP_BFE, 3}, {"bfi", EMU_OP_BFI, 4},
        {"prmt", EMU_OP_PRMT, 3}, {"sad", EMU_OP_SAD, 3}, {"copysign", EMU_OP_COPYSIGN, 2},
        {"rcp", EMU_OP_RCP, 1}, {"sqrt", EMU_OP_SQRT, 1}, {"rsqrt", EMU_OP_RSQRT, 1}, {"ex2", EMU_OP_EX2, 1},
        {"lg2", EMU_OP_LG2, 1}, {"sin", EMU_OP_SIN, 1}, {"cos", EMU_OP_COS, 1}, {"tanh", EMU_OP_TANH, 1},
        {"testp", EMU_OP_TESTP, 1}, {"mul24", EMU_OP_MUL24, 2}, {"mad24", EMU_OP_MAD24, 3},
    };
    for (size_t k = 0; k < sizeof ar / sizeof *ar; k++) {
        if (!M(ar[k].w)) continue;
        if (t == EMU_T_NONE || t == EMU_T_PRED) return unsupported(c, &in, opi);
        in.op = (uint8_t)ar[k].op;
        if (t == EMU_T_F16 || t == EMU_T_BF16) {
            /* 16-bit floats: the operations __half, __half2, __nv_bfloat16 and __nv_bfloat162 arithmetic
             * compile to, rounded to nearest */
            int ok = in.op == EMU_OP_ADD || in.op == EMU_OP_SUB || in.op == EMU_OP_MUL || in.op == EMU_OP_FMA ||
                     in.op == EMU_OP_NEG || in.op == EMU_OP_ABS || in.op == EMU_OP_MIN || in.op == EMU_OP_MAX;
            if (!ok || (rnd && rnd != EMU_RND_RN) || (t == EMU_T_BF16 && (in.flags & EMU_F_FTZ)))
                return unsupported(c, &in, opi);
            in.nvec = (uint8_t)(pair ? 2 : 1);
            t = pair ? EMU_T_B32 : EMU_T_B16;   /* the operands' registers */
        }
        if ((in.op == EMU_OP_MUL24 || in.op == EMU_OP_MAD24) && (t != EMU_T_S32 && t != EMU_T_U32))
            return unsupported(c, &in, opi);
        if (in.op == EMU_OP_TESTP) {
            /* testp.op.type p, a: the op is one of finite infinite number notanumber normal subnormal */
            static const char *tw[] = { "finite", "infinite", "number", "notanumber", "normal", "subnormal" };
            int which = -1;
            for (int q = 1; q < np; q++) for (int w = 0; w < 6; w++) if (peq(parts[q], plen[q], tw[w])) which = w;
            if (which < 0) return unsupported(c, &in, opi);
            in.mod = (uint8_t)which;
            NEED(2);
            if (!pred(c, o[0], &in.pd, NULL)) return 0;
            V(1, t, &in.a);
            return emit(f, &in);
        }
        /* bfind.shiftamt (mod 1): the left shift that moves the top set bit to the top; prmt's special
         * modes are not implemented: name them rather than guess */
        for (int q = 1; q < np; q++) {
            if (in.op == EMU_OP_BFIND && peq(parts[q], plen[q], "shiftamt")) in.mod = 1;
            else if (peq(parts[q], plen[q], "shiftamt") ||
                     (in.op == EMU_OP_PRMT && part_type(parts[q], plen[q]) < 0))
                return unsupported(c, &in, opi);
        }
        int ns = ar[k].nsrc;
        NEED(ns + 1);
        int dt = t;
        if ((in.op == EMU_OP_MUL || in.op == EMU_OP_MAD) && mw == EMU_MW_WIDE) dt = (t & 0xf0) | ((t & 0x0f) + 1);
        if (in.op == EMU_OP_POPC || in.op == EMU_OP_CLZ || in.op == EMU_OP_BFIND) dt = EMU_T_U32;
        V(0, dt, &in.d);
        int srct = t;
        V(1, srct, &in.a);
        int bt = (in.op == EMU_OP_SHL || in.op == EMU_OP_SHR) ? EMU_T_U32 : t;
        if (in.op == EMU_OP_BFE) bt = EMU_T_U32;
        if (ns >= 2) V(2, bt, &in.b);
        if (ns >= 3) {
            int ct = (in.op == EMU_OP_MAD && mw == EMU_MW_WIDE) ? dt : (in.op == EMU_OP_BFE || in.op == EMU_OP_BFI) ? EMU_T_U32 : t;
            V(3, ct, &in.c);
        }
        if (ns >= 4) V(4, EMU_T_U32, &in.e);
        if (EMU_TKIND(t) != EMU_K_F && in.t != EMU_T_F16 && in.t != EMU_T_BF16) {
            if (in.op == EMU_OP_MUL || in.op == EMU_OP_MAD || in.op == EMU_OP_MUL24 || in.op == EMU_OP_MAD24) {
                if (mw < 0 || (mw == EMU_MW_WIDE && (in.op == EMU_OP_MUL24 || in.op == EMU_OP_MAD24)))
                    return unsupported(c, &in, opi);
                in.mod = (uint8_t)mw;
            }
            if (in.op == EMU_OP_FMA) return unsupported(c, &in, opi);
        }
        if (c->unsupported) return unsupported(c, &in, opi);
        if (in.t == EMU_T_F16 || in.t == EMU_T_BF16) return emit(f, &in);   /* 16-bit floats: no fast path */
        /* div.approx is a * (1/b), with its own rule for huge b; div.full and div.rn are not */
        if (in.op == EMU_OP_DIV && t == EMU_T_F32 && (in.flags & EMU_F_APPROX)) {
            int full = 0;
            for (int q = 1; q < np; q++) if (peq(parts[q], plen[q], "full")) full = 1;
            in.mod = full ? EMU_DIV_EXACT : EMU_DIV_APPROX;
        }
        /* Fast paths. */
        int sz = (int)EMU_TSIZE(t), kind = EMU_TKIND(t);
        int plain = !(in.flags & (EMU_F_FTZ | EMU_F_SAT)) && (rnd == 0 || rnd == EMU_RND_RN);
        if (kind != EMU_K_F && !(in.flags & EMU_F_SAT)) {
            int fo = fast_int(in.op, t);
            if (fo >= 0) in.op = (uint8_t)fo;
            if (in.op == EMU_OP_MUL && mw == EMU_MW_LO && sz >= 4) in.op = sz == 4 ? EMU_OP_MUL_LO_I32 : EMU_OP_MUL_LO_I64;
            else if (in.op == EMU_OP_MUL && mw == EMU_MW_WIDE && sz == 4) in.op = kind == EMU_K_S ? EMU_OP_MUL_WIDE_S32 : EMU_OP_MUL_WIDE_U32;
            else if (in.op == EMU_OP_MAD && mw == EMU_MW_LO && sz >= 4) in.op = sz == 4 ? EMU_OP_MAD_LO_I32 : EMU_OP_MAD_LO_I64;
        } else if (t == EMU_T_F32 && plain) {
            if (in.op == EMU_OP_ADD) in.op = EMU_OP_ADD_F32;
            else if (in.op == EMU_OP_SUB) in.op = EMU_OP_SUB_F32;
            else if (in.op == EMU_OP_MUL) in.op = EMU_OP_MUL_F32;
            else if ((in.op == EMU_OP_FMA || (in.op == EMU_OP_MAD && rnd == EMU_RND_RN))) in.op = EMU_OP_FMA_F32;
            else if (in.op == EMU_OP_MIN && !(in.flags & EMU_F_NAN)) in.op = EMU_OP_MIN_F32;
            else if (in.op == EMU_OP_MAX && !(in.flags & EMU_F_NAN)) in.op = EMU_OP_MAX_F32;
        } else if (t == EMU_T_F64 && plain) {
            if (in.op == EMU_OP_ADD) in.op = EMU_OP_ADD_F64;
            else if (in.op == EMU_OP_MUL) in.op = EMU_OP_MUL_F64;
            else if (in.op == EMU_OP_FMA || in.op == EMU_OP_MAD) in.op = EMU_OP_FMA_F64;
        }
        return emit(f, &in);
    }
    if (M("lop3") || M("shf")) {
        /* lop3.b32 d, a, b, c, lut ; shf.{l,r}.{wrap,clamp}.b32 d, a, b, c: generic helpers */
        int is_lop = M("lop3");
        NEED(is_lop ? 5 : 4);
        V(0, t, &in.d); V(1, t, &in.a); V(2, t, &in.b); V(3, t, &in.c);
        if (is_lop) {
            V(4, EMU_T_U32, &in.e);
            in.op = EMU_OP_LOP3;
        } else {
            int left = 0, clampm = 0;
            for (int q = 1; q < np; q++) { if (peq(parts[q], plen[q], "l")) left = 1; if (peq(parts[q], plen[q], "clamp")) clampm = 1; }
            in.op = EMU_OP_SHF; in.mod = (uint8_t)(left | clampm << 1);
        }
        return emit(f, &in);
    }
    return unsupported(c, &in, opi);
}
