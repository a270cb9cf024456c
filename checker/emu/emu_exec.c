/* emu_exec.c - runs one warp in lockstep: the instruction loop, SIMT stack, calls and barriers. */
#define _POSIX_C_SOURCE 200809L   /* strdup, clock_gettime */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "emu_exec.h"

/* Run BODY for every lane l set in M; the full-warp case is a plain loop the compiler vectorises. */
#define LANES(M, ...) do { uint32_t _m = (M); \
    if (_m == 0xffffffffu) { EMU_IVDEP for (int l = 0; l < 32; l++) { __VA_ARGS__; } } \
    else { while (_m) { int l = __builtin_ctz(_m); _m &= _m - 1; __VA_ARGS__; } } } while (0)

/* Bit l of the result is c[l] (each 0 or 1): eight lanes per multiplication. */
static inline uint32_t pack_lanes(const uint8_t c[32])
{
    uint32_t r = 0;
    for (int i = 0; i < 4; i++) {
        uint64_t v;
        memcpy(&v, c + 8 * i, 8);
        r |= (uint32_t)((v * 0x0102040810204080ull) >> 56) << (8 * i);
    }
    return r;
}

void emu_fatal(emu_ctx *x, int error)
{
    if (!x->error) x->error = error;
    x->stop = 1;
}

/* The thread of lane l of warp w, as threadIdx. */
static void thread_of(const emu_ctx *x, unsigned warp, unsigned lane, unsigned t[3])
{
    uint32_t lin = warp * 32 + lane;
    t[0] = lin % x->block.x; t[1] = lin / x->block.x % x->block.y; t[2] = lin / (x->block.x * x->block.y);
}

void emu_where_at(emu_ctx *x, emu_warp *w, int lane, const emu_place *at, int kind, emu_record *r)
{
    emu_record_init(r, kind);
    r->at = *at;
    snprintf(r->kernel, sizeof r->kernel, "%s", x->k->pretty);
    r->has_thread = 1;
    r->block[0] = x->ctaid.x, r->block[1] = x->ctaid.y, r->block[2] = x->ctaid.z;
    thread_of(x, (unsigned)w->id, (unsigned)lane, r->thread);
}

void emu_where(emu_ctx *x, emu_warp *w, int lane, uint32_t loc, int kind, emu_record *r)
{
    emu_place at, call;
    emu_loc_places(x->m, loc, &at, &call);
    emu_call_in_body(x->m, w->nframes > 0 ? w->frames[w->nframes - 1].f : x->k, loc, &call);
    /* A function of the learner's that nvcc did not inline (a call instruction): its caller's call. */
    if (!call.line && w->nframes > 1) {
        const emu_frame *callee = &w->frames[w->nframes - 1], *caller = &w->frames[w->nframes - 2];
        if (callee->call_pc >= 0 && callee->call_pc < caller->f->ncode) {
            emu_place outer;
            emu_loc_places(x->m, caller->f->code[callee->call_pc].loc, &call, &outer);
            if (call.line) {
                at.label = EMU_LABEL_CALLEE;
                snprintf(at.func, sizeof at.func, "%s", callee->f->pretty);
                call.label = EMU_LABEL_CALL;
                snprintf(call.func, sizeof call.func, "%s", callee->f->pretty);
            }
        }
    }
    emu_where_at(x, w, lane, &at, kind, r);
    if (call.line) r->other = call;
    x->where_loc = loc;
    x->where_func = w->nframes > 0 ? w->frames[w->nframes - 1].f : x->k;
}

void emu_where_other(emu_ctx *x, uint32_t loc, int at_label, int other_label, long long block_lin, unsigned warp,
                     int lane, emu_record *r)
{
    emu_place call;
    emu_loc_places(x->m, loc, &r->other, &call);
    emu_places_in_body(x->m, x->where_func, x->where_loc, loc, &r->at, &r->other);
    r->other.label = other_label;
    r->other.func[0] = '\0';
    r->at.label = at_label;
    r->at.func[0] = '\0';
    if (lane < 0 || lane >= 32) return;
    r->other.has_thread = 1;
    if (block_lin < 0) {
        r->other.block[0] = x->ctaid.x, r->other.block[1] = x->ctaid.y, r->other.block[2] = x->ctaid.z;
    } else {
        uint64_t b = (uint64_t)block_lin;
        r->other.block[0] = (unsigned)(b % x->grid.x);
        r->other.block[1] = (unsigned)(b / x->grid.x % x->grid.y);
        r->other.block[2] = (unsigned)(b / ((uint64_t)x->grid.x * x->grid.y));
    }
    thread_of(x, warp, (unsigned)lane, r->other.thread);
}

/* ---- Frames ---------------------------------------------------------------------------------------- */

static void grow_local(emu_warp *w, uint32_t need)
{
    uint32_t cap = w->local_cap ? w->local_cap : 256;
    while (cap < need) cap *= 2;
    uint8_t *n = calloc(32, cap);
    if (!n) abort();
    for (int l = 0; l < 32 && w->local; l++) memcpy(n + (size_t)l * cap, w->local + (size_t)l * w->local_cap, w->local_cap);
    free(w->local);
    w->local = n;
    w->local_cap = cap;
}

static uint64_t sreg_value(emu_ctx *x, emu_warp *w, int sr, int l)
{
    uint32_t lin = (uint32_t)w->id * 32 + (uint32_t)l;
    switch (sr) {
    case EMU_SR_TID_X: return lin % x->block.x;
    case EMU_SR_TID_Y: return lin / x->block.x % x->block.y;
    case EMU_SR_TID_Z: return lin / (x->block.x * x->block.y);
    case EMU_SR_NTID_X: return x->block.x;
    case EMU_SR_NTID_Y: return x->block.y;
    case EMU_SR_NTID_Z: return x->block.z;
    case EMU_SR_CTAID_X: return x->ctaid.x;
    case EMU_SR_CTAID_Y: return x->ctaid.y;
    case EMU_SR_CTAID_Z: return x->ctaid.z;
    case EMU_SR_NCTAID_X: return x->grid.x;
    case EMU_SR_NCTAID_Y: return x->grid.y;
    case EMU_SR_NCTAID_Z: return x->grid.z;
    case EMU_SR_LANEID: return (uint64_t)l;
    case EMU_SR_WARPID: return (uint64_t)w->id;
    case EMU_SR_NWARPID: return (uint64_t)x->nwarps;
    case EMU_SR_SMID: return 0;
    case EMU_SR_NSMID: return 1;
    case EMU_SR_GRIDID: return 1;
    case EMU_SR_LANEMASK_EQ: return 1u << l;
    case EMU_SR_LANEMASK_LT: return (1u << l) - 1;
    case EMU_SR_LANEMASK_LE: return l == 31 ? 0xffffffffu : (2u << l) - 1;
    case EMU_SR_LANEMASK_GT: return l == 31 ? 0 : ~((2u << l) - 1);
    case EMU_SR_LANEMASK_GE: return ~((1u << l) - 1);
    case EMU_SR_DYN_SMEM: return x->dyn_size;
    case EMU_SR_TOTAL_SMEM: return x->shared_size;
    case EMU_SR_CLUSTER_CTARANK: return emu_cluster_rank(x);
    case EMU_SR_CLUSTER_NCTARANK: return x->cluster_size;
    case EMU_SR_CLUSTERID_X: return x->ctaid.x / x->cluster.x;
    case EMU_SR_CLUSTERID_Y: return x->ctaid.y / x->cluster.y;
    case EMU_SR_CLUSTERID_Z: return x->ctaid.z / x->cluster.z;
    case EMU_SR_NCLUSTERID_X: return x->grid.x / x->cluster.x;
    case EMU_SR_NCLUSTERID_Y: return x->grid.y / x->cluster.y;
    case EMU_SR_NCLUSTERID_Z: return x->grid.z / x->cluster.z;
    case EMU_SR_CLUSTER_CTAID_X: return x->ctaid.x % x->cluster.x;
    case EMU_SR_CLUSTER_CTAID_Y: return x->ctaid.y % x->cluster.y;
    case EMU_SR_CLUSTER_CTAID_Z: return x->ctaid.z % x->cluster.z;
    case EMU_SR_CLUSTER_NCTAID_X: return x->cluster.x;
    case EMU_SR_CLUSTER_NCTAID_Y: return x->cluster.y;
    case EMU_SR_CLUSTER_NCTAID_Z: return x->cluster.z;
    case EMU_SR_IS_EXPLICIT_CLUSTER: return (uint64_t)x->explicit_cluster;
    case EMU_SR_ENVREG0 + 1: return x->grid_ws >> 32;          /* the grid workspace's address, high half */
    case EMU_SR_ENVREG0 + 2: return x->grid_ws & 0xffffffffu;  /* and low half */
    }
    return 0;   /* the other %envreg */
}

/* Make a register frame for f with its constants in place; may move the arenas. */
static void push_frame(emu_ctx *x, emu_warp *w, const emu_func *f, uint32_t local_base, int call_pc)
{
    size_t nregs = (size_t)(f->nslots ? f->nslots : 1) * 32;
    if (w->regtop + nregs > w->capregs) {
        size_t cap = w->capregs ? w->capregs : 1024;
        while (cap < w->regtop + nregs) cap *= 2;
        w->regs = realloc(w->regs, cap * sizeof *w->regs);
        if (!w->regs) abort();
        w->capregs = cap;
    }
    size_t np = f->npreds ? f->npreds : 1;
    if (w->predtop + np > w->cappreds) {
        size_t cap = w->cappreds ? w->cappreds : 64;
        while (cap < w->predtop + np) cap *= 2;
        w->preds = realloc(w->preds, cap * sizeof *w->preds);
        if (!w->preds) abort();
        w->cappreds = cap;
    }
    if (local_base + f->local_size > w->local_cap) grow_local(w, local_base + f->local_size);
    if (w->nframes >= w->capframes) {
        w->capframes = w->capframes ? 2 * w->capframes : 8;
        w->frames = realloc(w->frames, (size_t)w->capframes * sizeof *w->frames);
        if (!w->frames) abort();
    }
    emu_frame *fr = &w->frames[w->nframes++];
    fr->f = f;
    fr->reg_off = w->regtop;
    fr->pred_off = w->predtop;
    fr->local_base = local_base;
    fr->call_pc = call_pc;
    w->regtop += nregs;
    w->predtop += np;
    uint64_t *R = w->regs + fr->reg_off;
    /* registers are not cleared: PTX from nvcc never reads one before writing it */
    memset(w->preds + fr->pred_off, 0, np * sizeof *w->preds);
    for (int i = 0; i < f->ncinit; i++) {
        const emu_cinit *ci = &f->cinit[i];
        uint64_t *s = R + (size_t)ci->slot * 32;
        uint64_t v = ci->value;
        switch (ci->kind) {
        case EMU_CI_SREG: for (int l = 0; l < 32; l++) s[l] = sreg_value(x, w, (int)v, l); continue;
        case EMU_CI_LOCAL: v += local_base; break;
        }
        for (int l = 0; l < 32; l++) s[l] = v;
    }
}

static void push_simt(emu_warp *w, int32_t pc, int32_t rpc, uint32_t mask, int kind, int32_t from)
{
    if (kind == EMU_S_NORMAL && (pc == rpc || mask == 0)) return;   /* lanes already wait below */
    if (w->sp >= w->capstack) {
        w->capstack = w->capstack ? 2 * w->capstack : 16;
        w->stack = realloc(w->stack, (size_t)w->capstack * sizeof *w->stack);
        if (!w->stack) abort();
    }
    w->stack[w->sp++] = (emu_simt){ pc, rpc, mask, kind, from };
}

/* Pop finished entries (empty, or at their meeting point) and return from finished calls.
 * Returns 0 when the warp has no lanes left. */
static int settle(emu_warp *w)
{
    while (w->sp > 0) {
        emu_simt *t = &w->stack[w->sp - 1];
        if (t->kind == EMU_S_NORMAL) {
            if (t->mask == 0 || t->pc == t->rpc) { w->sp--; continue; }
            if (t->pc < 0 || t->pc >= w->frames[w->nframes - 1].f->ncode) { t->mask = 0; continue; }
            return 1;
        }
        /* A call marker on top: every lane of the callee returned (or exited). */
        emu_frame *callee = &w->frames[w->nframes - 1], *caller = callee - 1;
        uint32_t lanes = t->mask & w->live;
        const emu_insn *ci = &caller->f->code[callee->call_pc];
        if ((ci->flags & EMU_F_TO) && callee->f->has_ret && lanes) {
            uint32_t n = callee->f->ret_size;
            for (int l = 0; l < 32; l++)
                if (lanes >> l & 1) {
                    uint8_t *base = w->local + (size_t)l * w->local_cap;
                    memmove(base + caller->local_base + ci->args[0], base + callee->local_base + callee->f->ret_off, n);
                }
        }
        w->regtop = callee->reg_off;
        w->predtop = callee->pred_off;
        w->nframes--;
        w->sp--;
    }
    return 0;
}

static void remove_lanes(emu_warp *w, uint32_t m, int to_call)
{
    for (int i = w->sp - 1; i >= 0; i--) {
        if (to_call && w->stack[i].kind == EMU_S_CALL) break;
        w->stack[i].mask &= ~m;
    }
}

void emu_exec_enter(emu_ctx *x, emu_warp *w)
{
    push_frame(x, w, x->k, 0, -1);
    push_simt(w, 0, -1, w->exists, EMU_S_NORMAL, -1);
}

/* ---- Diagnosed stops --------------------------------------------------------------------------- */

static void unsupported(emu_ctx *x, emu_warp *w, const emu_insn *in, const emu_func *f, uint32_t m)
{
    if (emu_diag_first(EMU_FD_UNSUPPORTED)) {
        emu_record r;
        emu_where(x, w, __builtin_ctz(m), in->loc, EMU_FD_UNSUPPORTED, &r);
        const char *text = (in->text < f->ntexts && f->texts) ? f->texts[in->text] : "?";
        emu_diag_report(&r, "the emulator cannot run the PTX instruction `%s` (in %s); the launch fails with "
                        "cudaErrorIllegalInstruction. Please report it with this line.", text, f->pretty);
    }
    emu_fatal(x, 715);
}

static void describe_lanes(emu_ctx *x, emu_warp *w, uint32_t lanes, char *buf, size_t len)
{
    size_t o = 0;
    int shown = 0, total = __builtin_popcount(lanes);
    buf[0] = 0;
    for (int l = 0; l < 32 && o < len; l++) {
        if (!(lanes >> l & 1)) continue;
        if (shown == 4) { snprintf(buf + o, len - o, emu_text(" and %d more"), total - shown); break; }
        uint32_t lin = (uint32_t)w->id * 32 + (uint32_t)l;
        int n = snprintf(buf + o, len - o, "%s(%u,%u,%u)", shown ? ", " : "", lin % x->block.x,
                         lin / x->block.x % x->block.y, lin / (x->block.x * x->block.y));
        if (n < 0) break;
        o += (size_t)n;
        shown++;
    }
}

const char *emu_barrier_name(const emu_insn *in)
{
    if (in->op == EMU_OP_BAR_ARRIVE) return "bar.arrive";
    if (in->op != EMU_OP_BAR_RED)
        return in->nargs ? emu_text("the named barrier (bar.sync with a thread count)") : "__syncthreads() (bar.sync)";
    return in->mod == EMU_AT_POPC ? "__syncthreads_count() (bar.red.popc)" :
           in->mod == EMU_AT_AND ? "__syncthreads_and() (bar.red.and)" : "__syncthreads_or() (bar.red.or)";
}

static void divergent_barrier(emu_ctx *x, emu_warp *w, const emu_insn *in, uint32_t m)
{
    if (emu_diag_first(EMU_FD_BAR_DIVERGENT)) {
        char missing[400];
        emu_record r;
        emu_where(x, w, __builtin_ctz(m), in->loc, EMU_FD_BAR_DIVERGENT, &r);
        r.lanes = w->live & ~m;
        describe_lanes(x, w, w->live & ~m, missing, sizeof missing);
        emu_diag_report(&r,
            "%s is reached by only %d of the %d running threads of this warp: it sits in "
            "divergent code (inside an if or a loop that not all threads of the block take). Threads %s never "
            "arrive, so the block waits forever: a deadlock (or undefined behaviour) on a GPU. Move the barrier "
            "out of the condition so that every thread of the block reaches it.",
            emu_barrier_name(in), __builtin_popcount(m), __builtin_popcount(w->live), missing);
    }
    emu_fatal(x, 702);
}

/* A warp takes a back edge of a loop that no path leads out of (EMU_F_ENDLESS): the lanes in m go round
 * it forever, and on a GPU the kernel never ends. */
static void endless_loop(emu_ctx *x, emu_warp *w, const emu_insn *in, int pc, uint32_t m)
{
    if (emu_diag_first(EMU_FD_ENDLESS)) {
        emu_place loop;
        emu_record r;
        emu_loop_place(x->m, emu_top_frame(w)->f, in->target, pc, &loop);
        emu_where_at(x, w, __builtin_ctz(m), &loop, EMU_FD_ENDLESS, &r);
        emu_diag_report(&r, "this loop never ends: no path leads out of it, so a thread that "
                        "enters it goes round forever (on a GPU the kernel hangs). Its condition is always true, or "
                        "nothing in the loop changes what the condition tests: a step that computes a value "
                        "without assigning it (s * 2 where s *= 2 was meant), a variable the loop never updates, "
                        "or an unsigned counter compared with >= 0? The launch fails with cudaErrorLaunchTimeout.");
    }
    x->endless = 1;
    emu_fatal(x, 702);
}

/* The innermost loop around instruction pc of f, as the back edge's target and source; 0 if none. */
static int loop_around(const emu_func *f, int pc, int *first, int *last)
{
    int found = 0;
    for (int i = pc; i < f->ncode; i++) {
        const emu_insn *b = &f->code[i];
        if (b->op != EMU_OP_BRA || b->target < 0 || b->target > pc) continue;
        if (!found || i - b->target < *last - *first) { *first = b->target; *last = i; found = 1; }
    }
    return found;
}

/* Whether the code at pc only leads to the kernel's exit (following unconditional branches). */
static int leads_to_exit(const emu_func *f, int pc)
{
    for (int step = 0; step < 8 && pc >= 0 && pc < f->ncode; step++) {
        const emu_insn *in = &f->code[pc];
        if (in->guard >= 0) return 0;
        if (in->op == EMU_OP_EXIT) return 1;
        if (in->op != EMU_OP_BRA) return 0;
        pc = in->target;
    }
    return 0;
}

/* The lanes m reach a barrier while the warp's other live lanes wait elsewhere. When all of those are
 * on their way out of the kernel (an early return: they wait at its exit), they exit now, as they would
 * on a GPU, where exited threads no longer count at a barrier. Returns 1 then, 0 when some other lane
 * will go on running: the barrier is in divergent code. */
int emu_retire_exiting(emu_warp *w, uint32_t m)
{
    uint32_t others = w->live & ~m, exiting = 0;
    if (w->nframes != 1) return 0;
    const emu_func *f = emu_top_frame(w)->f;
    for (int i = w->sp - 2; i >= 0 && (others & ~exiting); i--) {
        const emu_simt *e = &w->stack[i];
        uint32_t lanes = e->mask & others & ~exiting;
        if (!lanes) continue;
        if (e->kind != EMU_S_NORMAL || !leads_to_exit(f, e->pc)) return 0;
        exiting |= lanes;
    }
    if (others & ~exiting) return 0;
    w->live &= ~exiting;
    remove_lanes(w, exiting, 0);
    return 1;
}

uint32_t emu_lanes_leaving(const emu_warp *w, uint32_t lanes)
{
    const emu_func *f = emu_top_frame(w)->f;
    const uint8_t *out = emu_ptx_leaving(f);
    uint32_t seen = 0, leaving = 0;
    /* Each lane resumes at the pc of the topmost entry below the running one that holds it. */
    for (int i = w->sp - 2; i >= 0 && (lanes & ~seen); i--) {
        const emu_simt *e = &w->stack[i];
        if (e->kind != EMU_S_NORMAL) break;   /* lanes below wait in the caller */
        uint32_t mine = e->mask & lanes & ~seen;
        seen |= mine;
        if (mine && e->pc >= 0 && e->pc < f->ncode && out[e->pc]) leaving |= mine;
    }
    return leaving;
}

static void budget_spent(emu_ctx *x, emu_warp *w, const emu_insn *in, uint32_t m)
{
    if (emu_diag_first(EMU_FD_BUDGET)) {
        emu_record r;
        const emu_func *f = emu_top_frame(w)->f;
        int first = 0, last = 0, lane = m ? __builtin_ctz(m) : 0;
        if (loop_around(f, (int)(in - f->code), &first, &last)) {
            emu_place loop;
            emu_loop_place(x->m, f, first, last, &loop);
            emu_where_at(x, w, lane, &loop, EMU_FD_BUDGET, &r);
            emu_diag_report(&r, "the kernel did not finish after %llu warp instructions: this warp "
                            "was still going round this loop when the emulator gave up. Does its condition ever "
                            "become false? A loop that waits for another block to write something never ends here, "
                            "where blocks run one after another, and can hang a GPU too (set EMU_BUDGET to allow "
                            "more instructions). The launch fails with cudaErrorLaunchTimeout.",
                            (unsigned long long)x->budget);
        } else {
            emu_where(x, w, lane, in->loc, EMU_FD_BUDGET, &r);
            emu_diag_report(&r, "the kernel did not finish after %llu warp instructions: an endless "
                            "loop? This warp was running here when the emulator gave up (set EMU_BUDGET to allow "
                            "more). The launch fails with cudaErrorLaunchTimeout.", (unsigned long long)x->budget);
        }
    }
    emu_fatal(x, 702);
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ---- The loop ------------------------------------------------------------------------------------ */

static inline float f32(uint64_t v) { float f; uint32_t u = (uint32_t)v; memcpy(&f, &u, 4); return f; }
/* A float result's bits; a NaN result is the GPU's canonical NaN, 0x7fffffff, whatever its inputs were. */
static inline uint64_t uf32(float f) { uint32_t u; memcpy(&u, &f, 4); return f != f ? 0x7fffffffu : u; }
static inline double f64(uint64_t v) { double f; memcpy(&f, &v, 8); return f; }
static inline uint64_t uf64(double f) { uint64_t u; memcpy(&u, &f, 8); return u; }

static inline float minf_ptx(float a, float b)
{
    if (a != a) return b != b ? f32(0x7fffffff) : b;
    if (b != b) return a;
    if (a == b) return (uf32(a) & 0x80000000u) ? a : b;   /* -0 < +0 */
    return a < b ? a : b;
}

static inline float maxf_ptx(float a, float b)
{
    if (a != a) return b != b ? f32(0x7fffffff) : b;
    if (b != b) return a;
    if (a == b) return (uf32(a) & 0x80000000u) ? b : a;
    return a > b ? a : b;
}

/* What set.cmp.D writes for true: 1.0 in a float destination (f32, f16, bf16), all ones in an integer. */
static inline uint64_t set_true(int t)
{
    return t == EMU_T_F32 ? 0x3f800000u : t == EMU_T_F16 ? 0x3c00u : t == EMU_T_BF16 ? 0x3f80u : 0xffffffffffffffffull;
}

/* A comparison is computed for all 32 lanes (it has no side effects, and a lane that does not run only
 * reads its own stale registers), then only the running lanes' bits are kept. */
#define CMP_ALL(EXPR) do { EMU_IVDEP for (int l = 0; l < 32; l++) c_[l] = (uint8_t)(EXPR); } while (0)
#define CMP_LOOP(TYPE, CONV) do { uint8_t c_[32]; switch (in->mod) { \
    case EMU_CMP_EQ: CMP_ALL((TYPE)CONV(ra[l]) == (TYPE)CONV(rb[l])); break; \
    case EMU_CMP_NE: CMP_ALL((TYPE)CONV(ra[l]) != (TYPE)CONV(rb[l])); break; \
    case EMU_CMP_LT: CMP_ALL((TYPE)CONV(ra[l]) < (TYPE)CONV(rb[l])); break; \
    case EMU_CMP_LE: CMP_ALL((TYPE)CONV(ra[l]) <= (TYPE)CONV(rb[l])); break; \
    case EMU_CMP_GT: CMP_ALL((TYPE)CONV(ra[l]) > (TYPE)CONV(rb[l])); break; \
    case EMU_CMP_GE: CMP_ALL((TYPE)CONV(ra[l]) >= (TYPE)CONV(rb[l])); break; \
    default: CMP_ALL(emu_compare(in->mod, in->t, ra[l], rb[l], 0)); } \
    P[in->pd] = (P[in->pd] & ~m) | (pack_lanes(c_) & m); } while (0)

#define I32(v) ((int32_t)(uint32_t)(v))
#define U32(v) ((uint32_t)(v))
#define I64(v) ((int64_t)(v))
#define U64(v) ((uint64_t)(v))
/* The same values as U32 and I32, kept 64 bits wide: lane loops then need no narrowing and widening. */
#define LO32(v) ((uint64_t)(v) & 0xffffffffull)
#define SX32(v) ((int64_t)(int32_t)(uint32_t)(v))

int emu_exec_warp(emu_ctx *x, emu_warp *w)
{
    emu_metrics *met = x->met;
    const emu_frame *fr;
    const emu_insn *code;
    uint64_t *R;
    uint32_t *P;
    emu_simt *top;
    int32_t pc, rpc;
    uint32_t mask = 0;
    uint64_t executed = x->executed;
    const uint64_t budget = x->budget;
    uint64_t threads = 0, mark = executed;   /* thread instructions: mask's lanes for each instruction since mark */
    struct emu_trace *const trace = x->trace;   /* NULL unless `make show` asked: one predictable test below */

/* Thread instructions are counted when the mask changes (and on leaving), not at every instruction. */
#define FLUSH_THREADS(UPTO) do { threads += ((UPTO) - mark) * (uint64_t)__builtin_popcount(mask); mark = (UPTO); } while (0)
#define RELOAD() do { FLUSH_THREADS(executed); \
    fr = &w->frames[w->nframes - 1]; code = fr->f->code; R = w->regs + fr->reg_off; P = w->preds + fr->pred_off; \
    top = &w->stack[w->sp - 1]; pc = top->pc; rpc = top->rpc; mask = top->mask; } while (0)
#define LEAVE(ST) do { FLUSH_THREADS(executed); x->executed = executed; met->warp_instructions += executed - start; \
    met->thread_instructions += threads; w->state = (ST); return (ST); } while (0)
#define SETTLE() do { if (!settle(w)) LEAVE(EMU_W_DONE); RELOAD(); } while (0)

    const uint64_t start = executed;
    if (!settle(w)) LEAVE(EMU_W_DONE);
    RELOAD();
    for (;;) {
        if (pc == rpc) { top->pc = pc; SETTLE(); continue; }
        const emu_insn *in = code + pc;
        if (++executed > budget) {
            FLUSH_THREADS(executed - 1);   /* this one does not run */
            mark = executed;
            x->executed = executed - 1;
            budget_spent(x, w, in, mask);
            LEAVE(EMU_W_DONE);
        }
        uint32_t m = mask;
        if (in->guard >= 0) {
            uint32_t g = P[in->guard];
            m &= (in->flags & EMU_F_NEG_GUARD) ? ~g : g;
            if (!m) {
                if (__builtin_expect(trace != NULL, 0)) emu_trace_insn(x, w, in, pc, mask, 0, R);
                pc++;
                continue;
            }
        }
        if (__builtin_expect(trace != NULL, 0)) emu_trace_insn(x, w, in, pc, mask, m, R);
        /* operand rows: one pointer per operand, so the lane loops are plain array loops */
        uint64_t *const rd = R + in->d;
        const uint64_t *const ra = R + in->a, *const rb = R + in->b, *const rc = R + in->c, *const re = R + in->e;
        switch (in->op) {
        case EMU_OP_NOP: break;
        case EMU_OP_FENCE: emu_race_fence(x, (in->flags & EMU_F_SYS) != 0); break;
        case EMU_OP_MOV: LANES(m, rd[l] = ra[l]); break;
        case EMU_OP_ADD_I32: LANES(m, rd[l] = LO32(ra[l] + rb[l])); break;
        case EMU_OP_ADD_I64: LANES(m, rd[l] = ra[l] + rb[l]); break;
        case EMU_OP_SUB_I32: LANES(m, rd[l] = LO32(ra[l] - rb[l])); break;
        case EMU_OP_SUB_I64: LANES(m, rd[l] = ra[l] - rb[l]); break;
        case EMU_OP_MUL_LO_I32: LANES(m, rd[l] = LO32(ra[l] * rb[l])); break;
        case EMU_OP_MUL_LO_I64: LANES(m, rd[l] = ra[l] * rb[l]); break;
        case EMU_OP_MUL_WIDE_S32: LANES(m, rd[l] = U64((int64_t)I32(ra[l]) * I32(rb[l]))); break;
        case EMU_OP_MUL_WIDE_U32: LANES(m, rd[l] = LO32(ra[l]) * LO32(rb[l])); break;
        case EMU_OP_MAD_LO_I32: LANES(m, rd[l] = LO32(ra[l] * rb[l] + rc[l])); break;
        case EMU_OP_MAD_LO_I64: LANES(m, rd[l] = ra[l] * rb[l] + rc[l]); break;
        case EMU_OP_AND_B: LANES(m, rd[l] = ra[l] & rb[l]); break;
        case EMU_OP_OR_B: LANES(m, rd[l] = ra[l] | rb[l]); break;
        case EMU_OP_XOR_B: LANES(m, rd[l] = ra[l] ^ rb[l]); break;
        case EMU_OP_SHL_B32: LANES(m, { uint32_t s = U32(rb[l]); rd[l] = s > 31 ? 0 : U32(U32(ra[l]) << s); }); break;
        case EMU_OP_SHL_B64: LANES(m, { uint32_t s = U32(rb[l]); rd[l] = s > 63 ? 0 : ra[l] << s; }); break;
        case EMU_OP_SHR_U32: LANES(m, { uint32_t s = U32(rb[l]); rd[l] = s > 31 ? 0 : U32(ra[l]) >> s; }); break;
        case EMU_OP_SHR_S32: LANES(m, { uint32_t s = U32(rb[l]); rd[l] = U32(I32(ra[l]) >> (s > 31 ? 31 : s)); }); break;
        case EMU_OP_SHR_U64: LANES(m, { uint32_t s = U32(rb[l]); rd[l] = s > 63 ? 0 : ra[l] >> s; }); break;
        case EMU_OP_SHR_S64: LANES(m, { uint32_t s = U32(rb[l]); rd[l] = U64(I64(ra[l]) >> (s > 63 ? 63 : s)); }); break;
        case EMU_OP_SETP_S32: CMP_LOOP(int64_t, SX32); break;
        case EMU_OP_SETP_U32: CMP_LOOP(uint64_t, LO32); break;
        case EMU_OP_SETP_S64: CMP_LOOP(int64_t, I64); break;
        case EMU_OP_SETP_U64: CMP_LOOP(uint64_t, U64); break;
        case EMU_OP_SETP_F32: CMP_LOOP(float, f32); break;
        case EMU_OP_SETP_F64: CMP_LOOP(double, f64); break;
        case EMU_OP_SELP: { uint32_t p = P[in->pc]; LANES(m, rd[l] = (p >> l & 1) ? ra[l] : rb[l]); break; }
        case EMU_OP_CVT_S64_S32: LANES(m, rd[l] = U64(SX32(ra[l]))); break;
        case EMU_OP_CVT_U64_U32: LANES(m, rd[l] = LO32(ra[l])); break;
        case EMU_OP_ADD_F32: LANES(m, rd[l] = uf32(f32(ra[l]) + f32(rb[l]))); break;
        case EMU_OP_SUB_F32: LANES(m, rd[l] = uf32(f32(ra[l]) - f32(rb[l]))); break;
        case EMU_OP_MUL_F32: LANES(m, rd[l] = uf32(f32(ra[l]) * f32(rb[l]))); break;
        case EMU_OP_FMA_F32: LANES(m, rd[l] = uf32(fmaf(f32(ra[l]), f32(rb[l]), f32(rc[l])))); break;
        case EMU_OP_MIN_F32: LANES(m, rd[l] = uf32(minf_ptx(f32(ra[l]), f32(rb[l])))); break;
        case EMU_OP_MAX_F32: LANES(m, rd[l] = uf32(maxf_ptx(f32(ra[l]), f32(rb[l])))); break;
        case EMU_OP_ADD_F64: LANES(m, rd[l] = uf64(f64(ra[l]) + f64(rb[l]))); break;
        case EMU_OP_MUL_F64: LANES(m, rd[l] = uf64(f64(ra[l]) * f64(rb[l]))); break;
        case EMU_OP_FMA_F64: LANES(m, rd[l] = uf64(fma(f64(ra[l]), f64(rb[l]), f64(rc[l])))); break;

        case EMU_OP_MOV_PRED: P[in->pd] = (P[in->pd] & ~m) | (P[in->pc] & m); break;
        case EMU_OP_PRED_CONST: P[in->pd] = (P[in->pd] & ~m) | (in->imm ? m : 0); break;
        case EMU_OP_PRED_AND: P[in->pd] = (P[in->pd] & ~m) | (P[in->pc] & P[in->pq] & m); break;
        case EMU_OP_PRED_OR: P[in->pd] = (P[in->pd] & ~m) | ((P[in->pc] | P[in->pq]) & m); break;
        case EMU_OP_PRED_XOR: P[in->pd] = (P[in->pd] & ~m) | ((P[in->pc] ^ P[in->pq]) & m); break;
        case EMU_OP_PRED_NOT: P[in->pd] = (P[in->pd] & ~m) | (~P[in->pc] & m); break;

        case EMU_OP_SETP: {
            uint32_t bits = 0, qbits = 0, c = (in->pc != 0xffff) ? P[in->pc] : 0;
            if (in->flags & EMU_F_NEG_C) c = ~c;
            int ftz = (in->flags & EMU_F_FTZ) != 0;
            LANES(m, {
                int t = emu_compare(in->mod, in->t, ra[l], rb[l], ftz);
                int p = t, q = !t, cb = (int)(c >> l & 1);
                switch (in->nargs) {
                case EMU_BOOL_AND: p = t && cb; q = !t && cb; break;
                case EMU_BOOL_OR: p = t || cb; q = !t || cb; break;
                case EMU_BOOL_XOR: p = t ^ cb; q = !t ^ cb; break;
                }
                bits |= (uint32_t)p << l; qbits |= (uint32_t)q << l;
            });
            P[in->pd] = (P[in->pd] & ~m) | bits;
            if (in->pq != 0xffff) P[in->pq] = (P[in->pq] & ~m) | qbits;
            break;
        }
        case EMU_OP_SET: {
            uint32_t c = (in->pc != 0xffff) ? P[in->pc] : 0;
            if (in->flags & EMU_F_NEG_C) c = ~c;
            int ftz = (in->flags & EMU_F_FTZ) != 0;
            LANES(m, {
                int t = emu_compare(in->mod, in->t2, ra[l], rb[l], ftz), cb = (int)(c >> l & 1);
                if (in->nargs == EMU_BOOL_AND) t &= cb; else if (in->nargs == EMU_BOOL_OR) t |= cb; else if (in->nargs == EMU_BOOL_XOR) t ^= cb;
                rd[l] = !t ? 0 : set_true(in->t);
            });
            break;
        }
        case EMU_OP_TESTP: {
            uint32_t bits = 0;
            LANES(m, bits |= (uint32_t)emu_testp(in->mod, in->t, ra[l]) << l);
            P[in->pd] = (P[in->pd] & ~m) | bits;
            break;
        }
        case EMU_OP_CVT:
            emu_round_begin(in);
            LANES(m, rd[l] = emu_cvt(in, ra[l]));
            emu_round_end(in);
            break;
        case EMU_OP_CVT_PAIR: LANES(m, rd[l] = emu_cvt_pair(in, ra[l], rb[l])); break;
        case EMU_OP_SREG_DYN: {
            uint64_t v = in->mod == EMU_DYN_GLOBALTIMER ? now_ns() : executed * 4;
            if (in->mod == EMU_DYN_CLOCK) v = U32(v);
            LANES(m, rd[l] = v);
            break;
        }
        case EMU_OP_PACK: {
            unsigned bits = EMU_TSIZE(in->t) * 8 / in->nvec;
            uint64_t pm = bits >= 64 ? ~0ull : (1ull << bits) - 1;
            LANES(m, { uint64_t v = 0; for (int k = in->nvec - 1; k >= 0; k--) v = (bits >= 64 ? 0 : v << bits) | (R[in->v[k] + l] & pm); rd[l] = v; });
            break;
        }
        case EMU_OP_UNPACK: {
            unsigned bits = EMU_TSIZE(in->t) * 8 / in->nvec;
            uint64_t pm = bits >= 64 ? ~0ull : (1ull << bits) - 1;
            LANES(m, { uint64_t v = ra[l]; for (int k = 0; k < in->nvec; k++) { R[in->v[k] + l] = v & pm; v = bits >= 64 ? 0 : v >> bits; } });
            break;
        }
        case EMU_OP_MAPA:
            for (uint32_t mm = m; mm; mm &= mm - 1) {
                int l = __builtin_ctz(mm);
                rd[l] = emu_dsmem_mapa(x, w, in, l, ra[l], U32(rb[l]));
            }
            if (x->stop) LEAVE(EMU_W_DONE);
            break;
        case EMU_OP_GETCTARANK:
            LANES(m, rd[l] = emu_dsmem_rank(x, in->mod ? U32(ra[l]) : ra[l] - EMU_SHARED_WINDOW));
            break;
        case EMU_OP_ISSPACEP: {
            uint32_t bits = 0;
            LANES(m, {
                uint64_t a = ra[l];
                int shared = a - EMU_SHARED_WINDOW < EMU_WINDOW_SIZE, local = a - EMU_LOCAL_WINDOW < EMU_WINDOW_SIZE;
                int own = shared && !emu_dsmem_tag(x, (uint32_t)(a - EMU_SHARED_WINDOW) >> EMU_SHARED_TAG_SHIFT);
                int in_space = in->mod == EMU_SP_SHARED_CLUSTER ? shared : in->mod == EMU_SP_SHARED ? own
                             : in->mod == EMU_SP_LOCAL ? local : in->mod == EMU_SP_GLOBAL ? !shared && !local : 0;
                bits |= (uint32_t)in_space << l;
            });
            P[in->pd] = (P[in->pd] & ~m) | bits;
            break;
        }
        case EMU_OP_CVTA: {
            uint64_t win = in->space == EMU_SP_SHARED ? EMU_SHARED_WINDOW : EMU_LOCAL_WINDOW;
            if (in->flags & EMU_F_TO) LANES(m, rd[l] = ra[l] - win);
            else LANES(m, rd[l] = U32(ra[l]) + win);
            break;
        }
        case EMU_OP_LD_PARAM: {
            unsigned sz = EMU_TSIZE(in->t);
            if (in->mod == 1) {   /* at the offset a register holds: checked per lane */
                if (!emu_ld_param_at(x, w, in, R, m, fr->f->param_bytes)) LEAVE(EMU_W_DONE);
                break;
            }
            for (int k = 0; k < in->nvec; k++) {
                uint64_t v = 0;
                size_t off = (size_t)in->imm + (size_t)k * sz;
                if (off + sz <= fr->f->param_bytes) memcpy(&v, x->params + off, sz);
                if (EMU_TKIND(in->t) == EMU_K_S && sz < 8) v = U64((int64_t)(v << (64 - 8 * sz)) >> (64 - 8 * sz));
                LANES(m, R[in->v[k] + l] = v);
            }
            break;
        }
        case EMU_OP_LD: if (!emu_ld(x, w, in, R, m)) LEAVE(EMU_W_DONE); break;
        case EMU_OP_LD_STRONG:
            if (!emu_ld(x, w, in, R, m)) LEAVE(EMU_W_DONE);
            if (x->blocks) {   /* in a group of blocks it may wait for another block: let the others run */
                emu_group_spin(x, w, in, R, m, pc);
                top->pc = pc + 1;
                LEAVE(EMU_W_RUN);
            }
            break;
        case EMU_OP_ST: if (!emu_st(x, w, in, R, m)) LEAVE(EMU_W_DONE); break;
        case EMU_OP_CP_ASYNC: if (!emu_cp_async(x, w, in, R, P, m)) LEAVE(EMU_W_DONE); break;
        case EMU_OP_CP_COMMIT: emu_cp_commit(w, m); break;
        case EMU_OP_CP_WAIT: emu_cp_wait(x, w, in, m); break;
        case EMU_OP_ATOM: case EMU_OP_RED:
            if (!emu_atom(x, w, in, R, m)) LEAVE(EMU_W_DONE);
            if (in->op == EMU_OP_ATOM && x->blocks && in->space != EMU_SP_SHARED) {   /* an atomic spin, as above */
                emu_group_spin(x, w, in, R, m, pc);
                top->pc = pc + 1;
                LEAVE(EMU_W_RUN);
            }
            break;
        case EMU_OP_SHFL: emu_shfl(x, w, in, R, P, m, mask); break;
        case EMU_OP_VOTE: emu_vote(x, w, in, R, P, m); break;
        case EMU_OP_REDUX: emu_redux(x, w, in, R, m); break;
        case EMU_OP_MATCH: emu_match(x, w, in, R, P, m); break;
        case EMU_OP_ACTIVEMASK: LANES(m, rd[l] = mask); break;
        case EMU_OP_WARPSYNC:
            emu_check_members(x, w, in, R, m, "__syncwarp() (bar.warp.sync)");
            w->wsync++;
            break;

        case EMU_OP_BRA: {
            if (in->flags & EMU_F_ENDLESS) { endless_loop(x, w, in, pc, m); LEAVE(EMU_W_DONE); }
            if (m == mask) { pc = in->target; continue; }
            met->divergent_branches++;
            int32_t r = fr->f->ipdom[pc];
            uint32_t nt = mask & ~m;
            int32_t target = in->target;
            if (top->rpc != r) {
                top->pc = r;
                push_simt(w, pc + 1, r, nt, EMU_S_NORMAL, pc);
            } else {
                top->pc = pc + 1;
                top->mask = nt;
                top->from = pc;
            }
            push_simt(w, target, r, m, EMU_S_NORMAL, pc);
            SETTLE();
            continue;
        }
        case EMU_OP_EXIT:
            w->live &= ~m;
            remove_lanes(w, m, 0);
            top->pc = pc + 1;
            SETTLE();
            continue;
        case EMU_OP_RET:
            remove_lanes(w, m, 1);
            top->pc = pc + 1;
            SETTLE();
            continue;
        case EMU_OP_CALL: {
            const emu_func *callee = x->m->funcs[in->target];
            if (w->nframes >= EMU_MAX_CALL_DEPTH) {
                if (emu_diag_first(EMU_FD_STACK)) {
                    emu_record r;
                    emu_where(x, w, __builtin_ctz(m), in->loc, EMU_FD_STACK, &r);
                    emu_diag_report(&r, "the call to %s is %d calls deep: endless recursion? The GPU's "
                                    "call stack overflows and the launch fails (cudaErrorLaunchFailure).",
                                    callee->pretty, w->nframes);
                }
                emu_fatal(x, 719);
                LEAVE(EMU_W_DONE);
            }
            uint32_t caller_base = fr->local_base;
            uint32_t lb = (fr->local_base + fr->f->local_size + 15) & ~15u;
            top->pc = pc + 1;
            push_frame(x, w, callee, lb, pc);
            for (int i = 0; i < in->nargs && i < callee->nparams; i++)
                LANES(m, { uint8_t *base = w->local + (size_t)l * w->local_cap;
                           memmove(base + lb + callee->param_off[i], base + caller_base + in->args[i + 1], callee->param_size[i]); });
            push_simt(w, -1, -1, m, EMU_S_CALL, pc);
            push_simt(w, 0, -1, m, EMU_S_NORMAL, -1);
            RELOAD();
            continue;
        }
        case EMU_OP_CALL_PRINTF: {
            uint32_t base = fr->local_base;
            for (int l = 0; l < 32; l++) {
                if (!(m >> l & 1)) continue;
                uint8_t *lm = w->local + (size_t)l * w->local_cap;
                uint64_t fmt = 0, args = 0;
                if (in->nargs >= 1) memcpy(&fmt, lm + base + in->args[1], 8);
                if (in->nargs >= 2) memcpy(&args, lm + base + in->args[2], 8);
                emu_vprintf(x, w, l, in->loc, fmt, args);
                if (in->flags & EMU_F_TO) memset(lm + base + in->args[0], 0, 4);
            }
            if (x->stop) LEAVE(EMU_W_DONE);
            break;
        }
        case EMU_OP_CALL_ASSERT: {
            int l = __builtin_ctz(m);
            uint8_t *lm = w->local + (size_t)l * w->local_cap;
            uint64_t a[4] = { 0, 0, 0, 0 };
            for (int k = 0; k < 4 && k < in->nargs; k++) memcpy(&a[k], lm + fr->local_base + in->args[k + 1], k == 2 ? 4 : 8);
            const char *msg = emu_generic_ptr(x, w, l, a[0], 1), *file = emu_generic_ptr(x, w, l, a[1], 1);
            if (emu_diag_first(EMU_FD_ASSERT)) {
                emu_record r;
                emu_where(x, w, l, in->loc, EMU_FD_ASSERT, &r);
                emu_diag_report(&r, "assert(%.200s) failed (%.200s:%u); the launch fails with cudaErrorAssert.",
                                msg ? msg : "?", file ? file : "?", (unsigned)a[2]);
            }
            emu_fatal(x, 710);
            LEAVE(EMU_W_DONE);
        }
        case EMU_OP_TRAP:
            if (emu_group_trap(x, w, in, m)) LEAVE(EMU_W_DONE);   /* grid.sync() in a launch that is not cooperative */
            if (emu_diag_first(EMU_FD_TRAP)) {
                emu_record r;
                emu_where(x, w, __builtin_ctz(m), in->loc, EMU_FD_TRAP, &r);
                emu_diag_report(&r, "the kernel executed trap (__trap() or a failed check); the launch fails.");
            }
            emu_fatal(x, 719);
            LEAVE(EMU_W_DONE);
        case EMU_OP_BAR:
        case EMU_OP_BAR_RED:
            if (m != w->live && !emu_retire_exiting(w, m)) { divergent_barrier(x, w, in, m); LEAVE(EMU_W_DONE); }
            met->barriers++;
            if (in->op == EMU_OP_BAR_RED) {
                uint32_t c = P[in->pc];
                if (in->flags & EMU_F_NEG_C) c = ~c;
                c &= m;
                x->bar_popc += (uint32_t)__builtin_popcount(c);
                if (c != m) x->bar_and = 0;
                if (c) x->bar_or = 1;
                w->bar_red = in;
            }
            top->pc = pc + 1;
            w->bar_pc = pc;
            w->bar_id = U32(R[in->a + __builtin_ctz(m)]) & 15;
            if (in->nargs) x->bar_expected[w->bar_id] = U32(R[in->b + __builtin_ctz(m)]);
            LEAVE(EMU_W_BAR);
        case EMU_OP_BAR_ARRIVE: {
            /* The warp counts as arrived (all 32 of its threads, as the hardware counts) and goes on. */
            if (m != w->live && !emu_retire_exiting(w, m)) { divergent_barrier(x, w, in, m); LEAVE(EMU_W_DONE); }
            uint32_t id = U32(R[in->a + __builtin_ctz(m)]) & 15;
            x->bar_arrived[id] += 32;
            x->bar_expected[id] = U32(R[in->b + __builtin_ctz(m)]);
            break;
        }
        case EMU_OP_CBAR_ARRIVE:
            if (!emu_cluster_arrive(x, w, in, m)) LEAVE(EMU_W_DONE);
            break;
        case EMU_OP_CBAR_WAIT: {
            int waits = emu_cluster_wait(x, w, in, m, pc);
            if (!waits) LEAVE(EMU_W_DONE);
            if (waits == 2) break;   /* the phase it arrived for is over */
            top->pc = pc + 1;
            LEAVE(EMU_W_CBAR);
        }
        case EMU_OP_UNSUPPORTED:
            unsupported(x, w, in, fr->f, m);
            LEAVE(EMU_W_DONE);
        default: {
            /* Generic arithmetic: one C call per lane. */
            emu_round_begin(in);
            LANES(m, rd[l] = emu_alu(in, ra[l], rb[l], rc[l], re[l]));
            emu_round_end(in);
            break;
        }
        }
        pc++;
    }
}
