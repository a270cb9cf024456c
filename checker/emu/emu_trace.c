/* emu_trace.c - `make show`'s record of a run: the warp instructions of each launch's first blocks, with their
 * lines, their lanes and the addresses of their memory accesses, written to the file EMU_TRACE names.
 *
 * Nothing here runs unless EMU_TRACE is set: emu_launch asks emu_trace_launch once per launch, and the
 * instruction loop tests one pointer that stays NULL. checker/show/trace.py reads the file. One record a
 * line, fields separated by one space; a NAME or TEXT field is the last and runs to the end of the line:
 *
 *   launch K GX GY GZ BX BY BZ DYN NAME  launch K (from 1) of kernel NAME: its grid, its block and its
 *                                       dynamic shared memory in bytes
 *   cluster K                           its blocks run in clusters of K (written only when K > 1)
 *   var BASE SIZE NAME                  one of its shared variables: where its bytes lie in a block's shared
 *                                       memory (NAME as declared in the PTX)
 *   block X Y Z                         the instructions after this line are that block's (the blocks of a
 *                                       cluster take turns: a block's line comes again when it runs again)
 *   loc ID TEXT                         location ID is TEXT ("file:line", as findings name places), written
 *                                       before the first instruction of that line
 *   buf ID SIZE ELEM NAME               device allocation ID, written before the first access to it: its
 *                                       size in bytes, and its element size and name where the program named
 *                                       it (emu_mem_guard: 4 d_in), else 0 and what made it ("cudaMalloc")
 *   i W PC LOC MASK M OP [DETAIL]       warp W issued instruction PC of its function, of location LOC, with
 *                                       lanes MASK running (hex); of those, M executed it (the others' guard
 *                                       was false; 0: none). OP: ld st atom shfl bar wsync exit call bra op,
 *                                       and cp commit wait (cp.async and its groups), carrive cwait (the
 *                                       cluster barrier).
 *                                       DETAIL, one value per lane of M in lane order:
 *     s BYTES CONFLICTS OFF...            shared memory: each lane's byte offset in the block's shared
 *                                         memory (-1: outside every variable; R:OFF: offset OFF in the
 *                                         shared memory of the block of rank R of the cluster), and the
 *                                         bank conflicts of the access as the metrics count them
 *     g BYTES SECTORS BUF OFF...          global memory: each lane's byte offset in allocation BUF (BUF -1:
 *                                         in none, or in more than the first 64: OFF are then addresses),
 *                                         and the 32-byte sectors of the access as the metrics count them
 *     l BYTES                             local memory (each thread's own)
 *     x J...                              a shuffle: the lane each lane reads (-1: it keeps its own value)
 *     g ... s ...                         cp.async: the global bytes it reads (g, as above), then the shared
 *                                         bytes it writes (s, as above)
 *     n N                                 cp.async.wait_group N: every group of the lane but the newest N
 *                                         has landed (n all: wait_all, a commit_group then N = 0)
 *   end K ERROR BLOCKS INSNS            launch K ended with cudaError_t ERROR; BLOCKS blocks and INSNS warp
 *                                       instructions of it are not in the file (past EMU_TRACE_BLOCKS blocks
 *                                       per launch, default 2, or EMU_TRACE_LIMIT instructions in all,
 *                                       default 200000; the blocks written are the first that ran)
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu_exec.h"

#define TRACE_BUFS 64       /* allocations given an id; accesses to others are written as addresses */
#define TRACE_MODULES 16    /* modules whose locations get ids (a location's id is module * 2^24 + its index) */
#define TRACE_BLOCKS 64     /* blocks written per launch, at most */

typedef struct emu_trace {
    FILE *f;
    int launch;                         /* the current launch's number */
    uint64_t limit, written;            /* warp instructions: at most, and so far */
    unsigned max_blocks, blocks;        /* blocks written per launch: at most, and in this launch so far */
    uint64_t traced[TRACE_BLOCKS];      /* those blocks, linear, + 1 */
    uint64_t left_blocks, left_insns;   /* of this launch, not written */
    int on;                             /* the current block is being written */
    uint64_t block;                     /* the current block, linear, + 1 */
    const emu_alloc *bufs[TRACE_BUFS]; int nbufs;
    const emu_module *mods[TRACE_MODULES]; int nmods;
    uint8_t *seen[TRACE_MODULES];       /* per module, per location: its loc record is written */
} emu_trace;

static emu_trace *the_trace;   /* one file per process; opened by the first launch that asks */
static int trace_asked = -1;   /* -1: EMU_TRACE not read yet */

static uint64_t env_number(const char *name, uint64_t fallback)
{
    const char *s = getenv(name);
    char *end;
    unsigned long long v = s && *s ? strtoull(s, &end, 10) : 0;
    return v ? (uint64_t)v : fallback;
}

struct emu_trace *emu_trace_launch(emu_ctx *x)
{
    if (trace_asked < 0) {
        const char *path = getenv("EMU_TRACE");
        trace_asked = path && *path;
        if (trace_asked) {
            the_trace = calloc(1, sizeof *the_trace);
            if (the_trace && !(the_trace->f = fopen(path, "w"))) { free(the_trace); the_trace = NULL; }
            if (the_trace) {
                the_trace->limit = env_number("EMU_TRACE_LIMIT", 200000);
                the_trace->max_blocks = (unsigned)env_number("EMU_TRACE_BLOCKS", 2);
                if (the_trace->max_blocks > TRACE_BLOCKS) the_trace->max_blocks = TRACE_BLOCKS;
            }
        }
    }
    emu_trace *t = the_trace;
    if (!t) return NULL;
    t->launch++;
    t->blocks = 0;
    t->left_blocks = t->left_insns = 0;
    t->on = 0;
    t->block = 0;
    fprintf(t->f, "launch %d %u %u %u %u %u %u %u %s\n", t->launch, x->grid.x, x->grid.y, x->grid.z, x->block.x,
            x->block.y, x->block.z, x->dyn_size, x->k->pretty);
    if (x->cluster_size > 1) fprintf(t->f, "cluster %u\n", x->cluster_size);
    for (uint32_t tag = 1; tag <= x->nstags; tag++)
        if (x->stags[tag].size) {
            char name[200];
            emu_var_name(x->stags[tag].name ? x->stags[tag].name : "?", name, sizeof name);
            fprintf(t->f, "var %u %u %s\n", x->stags[tag].base, x->stags[tag].size, name);
        }
    return t;
}

void emu_trace_end(emu_ctx *x)
{
    emu_trace *t = x->trace;
    uint64_t blocks = (uint64_t)x->grid.x * x->grid.y * x->grid.z;
    t->left_blocks = blocks > t->blocks ? blocks - t->blocks : 0;
    fprintf(t->f, "end %d %d %llu %llu\n", t->launch, x->error, (unsigned long long)t->left_blocks,
            (unsigned long long)t->left_insns);
    fflush(t->f);
}

void emu_trace_untraced(emu_ctx *x)
{
    emu_trace *t = emu_trace_launch(x);
    if (!t) return;
    t->left_blocks = x->met->blocks;
    t->left_insns = x->met->warp_instructions;
    x->trace = t;
    emu_trace_end(x);
    x->trace = NULL;
}

/* The trace's id of location loc of module m (written the first time); -1 without one. */
static long loc_id(emu_trace *t, const emu_module *m, uint32_t loc)
{
    int k = 0;
    while (k < t->nmods && t->mods[k] != m) k++;
    if (k == t->nmods) {
        if (k == TRACE_MODULES || !(t->seen[k] = calloc((size_t)m->nlocs + 1, 1))) return -1;
        t->mods[t->nmods++] = m;
    }
    long id = (long)k << 24 | (long)loc;
    if ((int)loc < m->nlocs && !t->seen[k][loc]) {
        char text[600];
        t->seen[k][loc] = 1;
        fprintf(t->f, "loc %ld %s\n", id, emu_loc_text(m, loc, text, sizeof text));
    }
    return id;
}

/* The trace's id of the allocation a (written the first time); -1 when the table is full. */
static int buf_id(emu_trace *t, const emu_alloc *a)
{
    for (int i = 0; i < t->nbufs; i++)
        if (t->bufs[i] == a) return i;
    if (t->nbufs == TRACE_BUFS) return -1;
    t->bufs[t->nbufs] = a;
    fprintf(t->f, "buf %d %zu %zu %s\n", t->nbufs, a->size, a->guard_name[0] ? a->guard_elem : 0,
            a->guard_name[0] ? a->guard_name : a->what ? a->what : "?");
    return t->nbufs++;
}

static const char *op_name(const emu_insn *in)
{
    switch (in->op) {
    case EMU_OP_LD: case EMU_OP_LD_STRONG: return "ld";
    case EMU_OP_ST: return "st";
    case EMU_OP_ATOM: case EMU_OP_RED: return "atom";
    case EMU_OP_SHFL: return "shfl";
    case EMU_OP_BAR: case EMU_OP_BAR_RED: case EMU_OP_BAR_ARRIVE: return "bar";
    case EMU_OP_WARPSYNC: return "wsync";
    case EMU_OP_EXIT: return "exit";
    case EMU_OP_CALL: case EMU_OP_CALL_PRINTF: case EMU_OP_CALL_ASSERT: return "call";
    case EMU_OP_BRA: return "bra";
    case EMU_OP_CP_ASYNC: return "cp";
    case EMU_OP_CP_COMMIT: return "commit";
    case EMU_OP_CP_WAIT: return "wait";
    case EMU_OP_CBAR_ARRIVE: return "carrive";
    case EMU_OP_CBAR_WAIT: return "cwait";
    }
    return "op";
}

/* A memory instruction's lanes: their addresses (in the space they resolved to), and for global memory the
 * allocation that holds all of them (its buf record written first); see DETAIL at the top of this file. */
typedef struct mem_access mem_access;
static void gather_at(emu_trace *t, const emu_insn *in, uint32_t m, const uint64_t *R, int ra, int re, mem_access *a);
struct mem_access {
    unsigned n;                 /* bytes per lane */
    int space, cnt, buf;
    uint64_t addr[32];          /* in the space's own addresses; global ones relative to buf when buf >= 0 */
    int lane[32];
};

static void gather(emu_trace *t, const emu_insn *in, uint32_t m, const uint64_t *R, mem_access *a)
{
    a->n = in->op == EMU_OP_ATOM || in->op == EMU_OP_RED ? EMU_TSIZE(in->t) : EMU_TSIZE(in->t) * in->nvec;
    if (in->op == EMU_OP_CP_ASYNC) {   /* its source: global memory at register b + offset e, n bytes */
        emu_insn src = *in;
        src.space = EMU_SP_GLOBAL;
        src.imm = 0;
        a->n = in->mod;
        gather_at(t, &src, m, R, in->b, in->e, a);
        return;
    }
    gather_at(t, in, m, R, in->a, -1, a);
}

/* The lanes' addresses: register ra + (register re, or the instruction's offset where re < 0). */
static void gather_at(emu_trace *t, const emu_insn *in, uint32_t m, const uint64_t *R, int ra, int re, mem_access *a)
{
    a->space = EMU_SP_GLOBAL;
    a->cnt = 0;
    a->buf = -1;
    for (uint32_t mm = m; mm; mm &= mm - 1, a->cnt++) {
        int l = __builtin_ctz(mm);
        uint64_t addr = R[ra + l] + (re >= 0 ? R[re + l] : (uint64_t)in->imm);
        if (in->space == EMU_SP_SHARED || in->space == EMU_SP_LOCAL) addr = (uint32_t)addr;
        a->space = emu_space_of(in->space, &addr);   /* a warp's lanes share a space in the course's code */
        a->addr[a->cnt] = addr;
        a->lane[a->cnt] = l;
    }
    if (a->space != EMU_SP_GLOBAL) return;
    const emu_alloc *al = emu_mem_lookup((uintptr_t)a->addr[0], a->n);
    for (int i = 1; i < a->cnt && al; i++)
        if (a->addr[i] < al->base || a->addr[i] + a->n > al->base + al->size) al = NULL;
    if (al && (a->buf = buf_id(t, al)) >= 0)
        for (int i = 0; i < a->cnt; i++) a->addr[i] -= al->base;
}

static void write_access(emu_trace *t, emu_ctx *x, const mem_access *a)
{
    if (a->space == EMU_SP_SHARED) {
        uint32_t off[32], good[32];
        int good_lane[32], ok = 0;
        for (int i = 0; i < a->cnt; i++)
            if (emu_shared_offset(x, a->addr[i], a->n, &off[i])) { good[ok] = off[i]; good_lane[ok++] = a->lane[i]; }
            else off[i] = UINT32_MAX;
        fprintf(t->f, " s %u %llu", a->n, (unsigned long long)emu_bank_conflicts(good, good_lane, ok, a->n));
        for (int i = 0; i < a->cnt; i++) {
            uint32_t rank, roff;
            if (off[i] != UINT32_MAX) fprintf(t->f, " %u", off[i]);
            else if (emu_dsmem_where(x, a->addr[i], a->n, &rank, &roff)) fprintf(t->f, " %u:%u", rank, roff);
            else fputs(" -1", t->f);
        }
    } else if (a->space == EMU_SP_GLOBAL) {
        uint64_t addr[32];   /* the sectors are counted on addresses */
        for (int i = 0; i < a->cnt; i++) addr[i] = a->addr[i] + (a->buf >= 0 ? t->bufs[a->buf]->base : 0);
        fprintf(t->f, " g %u %llu %d", a->n, (unsigned long long)emu_sectors(addr, a->cnt, a->n), a->buf);
        for (int i = 0; i < a->cnt; i++) fprintf(t->f, " %llu", (unsigned long long)a->addr[i]);
    } else if (a->space == EMU_SP_LOCAL)
        fprintf(t->f, " l %u", a->n);
}

void emu_trace_insn(emu_ctx *x, emu_warp *w, const emu_insn *in, int pc, uint32_t mask, uint32_t m, const uint64_t *R)
{
    emu_trace *t = x->trace;
    uint64_t block = ((uint64_t)x->ctaid.z * x->grid.y + x->ctaid.y) * x->grid.x + x->ctaid.x + 1;
    if (block != t->block) {   /* a block that runs again (a cluster's take turns) keeps its choice */
        t->block = block;
        unsigned k = 0;
        while (k < t->blocks && t->traced[k] != block) k++;
        if (k == t->blocks && k < t->max_blocks) t->traced[t->blocks++] = block;
        t->on = k < t->blocks;
        if (t->on) fprintf(t->f, "block %u %u %u\n", x->ctaid.x, x->ctaid.y, x->ctaid.z);
    }
    if (!t->on || t->written >= t->limit) { t->left_insns++; return; }
    t->written++;
    long loc = loc_id(t, emu_top_frame(w)->f->mod, in->loc);
    int memory = m && (in->op == EMU_OP_LD || in->op == EMU_OP_LD_STRONG || in->op == EMU_OP_ST || in->op == EMU_OP_ATOM ||
                       in->op == EMU_OP_RED || in->op == EMU_OP_CP_ASYNC) &&
                 in->space != EMU_SP_PARAM && in->space != EMU_SP_CONST;
    mem_access a;
    if (memory) gather(t, in, m, R, &a);
    fprintf(t->f, "i %d %d %ld %x %x %s", w->id, pc, loc, mask, m, op_name(in));
    if (memory)
        write_access(t, x, &a);
    if (memory && in->op == EMU_OP_CP_ASYNC) {   /* and where it lands */
        emu_insn dst = *in;
        dst.op = EMU_OP_ST;
        dst.nvec = (uint8_t)(in->mod / 4);
        gather(t, &dst, m, R, &a);
        write_access(t, x, &a);
    } else if (m && in->op == EMU_OP_CP_WAIT) {
        if (in->mod) fputs(" n all", t->f);
        else fprintf(t->f, " n %lld", (long long)in->imm);
    }
    else if (m && in->op == EMU_OP_SHFL) {
        fputs(" x", t->f);
        for (uint32_t mm = m; mm; mm &= mm - 1) {
            int l = __builtin_ctz(mm);
            fprintf(t->f, " %d", emu_shfl_lane(in->mod, l, (uint32_t)R[in->b + l], (uint32_t)R[in->c + l]));
        }
    }
    fputc('\n', t->f);
}
