/* emu_exec_race.c - races on global memory: two threads touch the same bytes, at least one writes, not both
 * with strong accesses (atomics, volatile, .relaxed/.acquire/.release), and nothing orders the two.
 *
 * What orders two accesses (the PTX memory model, simplified): program order in one thread; in one
 * block a __syncthreads() between them (a new barrier interval), in one warp also a __syncwarp(); between
 * blocks, which run in any order and at the same time on a GPU, only a release by the earlier block after
 * its access (a fence such as __threadfence(), then an atomic on some word C; or an atomic with .release)
 * and an acquire of the same C by the later block before its access (an atomic on C, or a strong read of
 * it): the last-block-done pattern. An atomic on a word also orders the earlier atomics on that word before
 * the accesses that follow it in the same block (they form one chain of read-modify-writes).
 *
 * The emulator runs the blocks of a launch one after another, so a record of the last write and the last
 * plain reads of each word is enough: an access conflicts with what the record holds unless one of the
 * rules above orders them. Only memory written (or updated atomically) during the launch gets a record;
 * reads of memory nothing writes in the launch, such as the input, cost nothing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu_exec.h"

/* One access in a word's record. */
typedef struct emu_gaccess {
    uint32_t block;                /* linear block + 1; 0: none in this launch */
    uint32_t seq;                  /* its place in the launch's order of memory events */
    uint32_t interval, wsync;
    uint32_t loc;                  /* its line */
    uint16_t warp;
    uint8_t lane, bytes;           /* bytes: those of the word it touched, one bit each */
} emu_gaccess;

/* The record of one 4-byte word of global memory for this launch: its last plain write, its last
 * atomic or strong write, and the last plain read since the last write (the last ones only: a race with
 * an earlier access may go unseen, none is reported wrongly). */
typedef struct emu_gword { emu_gaccess plain, strong, read; } emu_gword;

struct emu_race_shadow { const emu_alloc *a; emu_gword *words; };

/* What a block releases: the order of its last release, and the sync word it released through. */
typedef struct emu_release { uint32_t seq; uint8_t word; } emu_release;

#define RACE_SYNC_WORDS 31   /* sync words (targets of atomics) told apart; more share the last id */
#define RACE_MAX_BLOCKS (1u << 24)   /* per-block releases are kept up to this many blocks */

static const char emu_msg_global_fix[] =
    N_("Threads that add into one total need an atomic (atomicAdd), or a partial per block (d_out[blockIdx.x]) "
    "added up afterwards; what one block writes and another reads needs __threadfence() and an atomic counter "
    "between them (the last-block-done pattern).");

/* ---- Per launch ------------------------------------------------------------------------------------ */

void emu_race_block(emu_ctx *x, uint32_t block_lin)
{
    x->race.block = block_lin + 1;
    x->race.acquired = 0;
    x->race.fence_seq = 0;
    x->race.fence_sys_seq = 0;
}

void emu_race_end(emu_ctx *x)
{
    for (int i = 0; i < x->race.nshadows; i++) free(x->race.shadows[i].words);
    free(x->race.shadows);
    free(x->race.releases);
    memset(&x->race, 0, sizeof x->race);
}

emu_race_shadow *emu_race_shadow_of(emu_ctx *x, const emu_alloc *a, int create)
{
    for (int i = 0; i < x->race.nshadows; i++)
        if (x->race.shadows[i].a == a) return &x->race.shadows[i];
    if (!create || x->race.nshadows == EMU_RACE_SHADOWS || !a->size) return NULL;
    if (!x->race.shadows && !(x->race.shadows = calloc(EMU_RACE_SHADOWS, sizeof *x->race.shadows))) abort();
    emu_race_shadow *s = &x->race.shadows[x->race.nshadows];
    /* calloc: the system hands out zero pages only where they are touched */
    if (!(s->words = calloc((a->size + 3) / 4, sizeof *s->words))) return NULL;
    s->a = a;
    x->race.nshadows++;
    return s;
}

/* The id (1..RACE_SYNC_WORDS) of the sync word at addr, added when create; 0 when it has none. */
static int sync_word(emu_ctx *x, uint64_t addr, int create)
{
    addr &= ~3ull;
    for (int i = 0; i < x->race.nsync; i++)
        if (x->race.sync[i] == addr) return i + 1;
    if (!create) return 0;
    if (x->race.nsync == RACE_SYNC_WORDS) return RACE_SYNC_WORDS;
    x->race.sync[x->race.nsync++] = addr;
    return x->race.nsync;
}

void emu_race_fence(emu_ctx *x, int sys)
{
    x->race.fence_seq = ++x->race.seq;
    if (sys) x->race.fence_sys_seq = x->race.fence_seq;
    if (sys && x->peers) emu_peers_fence(x);
}

/* The block releases what it did before its last fence (or before this access, for a .release) through
 * the sync word id. */
static void release(emu_ctx *x, int id, uint32_t seq)
{
    uint64_t blocks = (uint64_t)x->grid.x * x->grid.y * x->grid.z;
    if (!x->race.releases) {
        if (!(x->race.releases = calloc(blocks < RACE_MAX_BLOCKS ? blocks : 1, sizeof *x->race.releases))) abort();
    }
    /* Past RACE_MAX_BLOCKS blocks, one release stands for all: lenient (a race may go unseen), never wrong. */
    emu_release *r = &x->race.releases[blocks < RACE_MAX_BLOCKS ? x->race.block - 1 : 0];
    r->seq = seq;
    r->word = (uint8_t)id;
}

/* The cluster barrier's sync word: an address no allocation has (the last page of the address space). */
#define RACE_CLUSTER_WORD 0xfffffffffffff000ull

void emu_race_cluster_arrive(emu_ctx *x)
{
    release(x, sync_word(x, RACE_CLUSTER_WORD, 1), ++x->race.seq);
}

void emu_race_cluster_wait(emu_ctx *x)
{
    int id = sync_word(x, RACE_CLUSTER_WORD, 1);
    x->race.acquired |= 1u << id;
}

/* Whether the recorded access r comes before the current access of lane l of w in the memory model.
 * strong_here: r is an atomic or strong write of this very word (at addr), which the current block
 * acquired if it updated the word atomically itself. */
static int ordered(emu_ctx *x, emu_warp *w, int l, const emu_gaccess *r, int strong_here, uint64_t addr)
{
    if (r->block == x->race.block) {
        if (r->interval != x->interval) return 1;   /* a __syncthreads() between */
        if (r->warp != w->id) return 0;
        return r->lane == l || r->wsync != w->wsync;   /* the same thread, or a __syncwarp() between */
    }
    int own = strong_here ? sync_word(x, addr, 0) : 0;
    if (own && (x->race.acquired >> own & 1)) return 1;
    uint64_t blocks = (uint64_t)x->grid.x * x->grid.y * x->grid.z;
    if (!x->race.releases) return 0;
    const emu_release *rel = &x->race.releases[blocks < RACE_MAX_BLOCKS ? r->block - 1 : 0];
    return rel->word && rel->seq > r->seq && (x->race.acquired >> rel->word & 1);
}

/* Whether r touched bytes of the word and is not ordered before the current access. */
static int conflicts(emu_ctx *x, emu_warp *w, int l, const emu_gaccess *r, unsigned bytes, int strong_here, uint64_t addr)
{
    return r->block && (r->bytes & bytes) && !ordered(x, w, l, r, strong_here, addr);
}

static void record(emu_ctx *x, emu_warp *w, int l, emu_gaccess *r, uint32_t seq, unsigned bytes, uint32_t loc)
{
    *r = (emu_gaccess){ x->race.block, seq, x->interval, w->wsync, loc, (uint16_t)w->id, (uint8_t)l, (uint8_t)bytes };
}

/* ---- The finding ------------------------------------------------------------------------------------ */

/* "thread (3,0,0) of the same warp", "... of another warp of this block", "... of block (2,0,0)". */
static void other_text(emu_ctx *x, emu_warp *w, uint32_t block, uint16_t warp, uint8_t lane, char *buf, size_t len)
{
    uint32_t lin = (uint32_t)warp * 32 + lane, b = block - 1;
    unsigned tx = lin % x->block.x, ty = lin / x->block.x % x->block.y, tz = lin / (x->block.x * x->block.y);
    if (block != x->race.block)
        snprintf(buf, len, emu_text("thread (%u,%u,%u) of block (%u,%u,%u)"), tx, ty, tz, b % x->grid.x,
                 b / x->grid.x % x->grid.y, b / (x->grid.x * x->grid.y));
    else
        snprintf(buf, len, warp == w->id ? emu_text("thread (%u,%u,%u) of the same warp")
                                         : emu_text("thread (%u,%u,%u) of another warp of this block"), tx, ty, tz);
}

/* kind and other_kind: EMU_RACE_* of this access and of the recorded one, r. */
static void report(emu_ctx *x, emu_warp *w, const emu_insn *in, int l, const emu_alloc *a, uint64_t addr, unsigned n,
                   int kind, const char *verb, int other_kind, const char *other_verb, const emu_gaccess *r)
{
    if (!emu_diag_first(EMU_FD_GLOBAL_RACE)) return;
    static const int labels[] = { [EMU_RACE_READ] = EMU_LABEL_READ, [EMU_RACE_WRITE] = EMU_LABEL_WRITE,
                                  [EMU_RACE_ATOMIC] = EMU_LABEL_ATOMIC };
    char what[600], who[300];
    emu_record rec;
    emu_where(x, w, l, in->loc, EMU_FD_GLOBAL_RACE, &rec);
    emu_global_name(x, a, addr, n, what, sizeof what);
    size_t name = strcspn(what, "[ ");
    if (name && what[name] == '[' && name < sizeof rec.array) snprintf(rec.array, sizeof rec.array, "%.*s", (int)name, what);
    other_text(x, w, r->block, r->warp, r->lane, who, sizeof who);
    emu_where_other(x, r->loc, labels[kind], labels[other_kind], (long long)r->block - 1, r->warp, r->lane, &rec);
    emu_diag_report(&rec, "%s %s in global memory, which %s %s with nothing ordering the two: a "
                    "race on global memory, so updates can be lost. %s", verb, what, who, other_verb,
                    emu_text(emu_msg_global_fix));
}

/* ---- What another launch asks (kernels of several devices, emu_exec_peers.c) ------------------------ */

int emu_race_plain_write(emu_ctx *x, const emu_alloc *a, uint64_t addr, unsigned n, uint32_t *seq, uint32_t *loc,
                         int *last)
{
    emu_race_shadow *sh = emu_race_shadow_of(x, a, 0);
    int found = 0;
    if (!sh || addr < a->base || addr + n > a->base + a->size) return 0;
    for (uint64_t k = (addr - a->base) / 4; k <= (addr + n - 1 - a->base) / 4; k++) {
        const emu_gword *g = &sh->words[k];
        if (!g->plain.block || (found && g->plain.seq <= *seq)) continue;
        found = 1;
        *seq = g->plain.seq;
        *loc = g->plain.loc;
        *last = !g->strong.block || g->plain.seq > g->strong.seq;
    }
    return found;
}

/* ---- Accesses --------------------------------------------------------------------------------------- */

/* What an access of kind did, for a race's words: looked up only when there is a race to report (every
 * access of a launch passes below, and a lookup in the catalog for each was a few per cent of a suite's time). */
static const char *verb_of(int kind)
{
    /* TRANSLATORS: what two threads did to one word, in "%s: %s %s in global memory, which %s %s with nothing
       ordering the two": this thread (present tense), then the other one (past tense). */
    return kind == EMU_RACE_ATOMIC ? emu_text("updates with an atomic")
           : kind == EMU_RACE_READ ? emu_text("reads") : emu_text("writes");
}

void emu_race_access(emu_ctx *x, emu_warp *w, const emu_insn *in, int l, emu_race_shadow *sh, uint64_t addr,
                     unsigned n, int kind, int same)
{
    const emu_alloc *a = sh ? sh->a : NULL;
    int strong = kind == EMU_RACE_ATOMIC || (in->flags & EMU_F_VOLATILE);
    if (strong && (kind == EMU_RACE_ATOMIC || (in->flags & EMU_F_ACQUIRE) || x->race.nsync)) {
        /* an atomic, or a strong read of a sync word, acquires it; a release or a fence before releases */
        int id = sync_word(x, addr, kind == EMU_RACE_ATOMIC || (in->flags & (EMU_F_ACQUIRE | EMU_F_RELEASE)));
        if (id) x->race.acquired |= 1u << id;
        if (id && kind != EMU_RACE_READ && (in->flags & EMU_F_RELEASE)) release(x, id, ++x->race.seq);
        else if (id && kind != EMU_RACE_READ && x->race.fence_seq) release(x, id, x->race.fence_seq);
    }
    if (!sh) return;
    uint32_t seq = ++x->race.seq;
    if (x->peers && strong && kind != EMU_RACE_READ) emu_peers_write(x, in, addr, seq);
    for (uint64_t k = (addr - a->base) / 4; k <= (addr + n - 1 - a->base) / 4; k++) {
        emu_gword *g = &sh->words[k];
        uint64_t word = a->base + k * 4;
        unsigned bytes = 0;
        for (unsigned b = 0; b < 4; b++) bytes |= (unsigned)(word + b >= addr && word + b < addr + n) << b;
        /* A plain write conflicts with every access; atomics and strong accesses conflict only with plain
         * writes (not with plain reads, so that the plain first read of a compare-and-swap loop, as the
         * CUDA guide writes it, is no race). A plain write of the value already there is no conflict. */
        if (conflicts(x, w, l, &g->plain, bytes, 0, word) && !(kind == EMU_RACE_WRITE && !strong && same))
            report(x, w, in, l, a, addr, n, kind, verb_of(kind), EMU_RACE_WRITE, emu_text("wrote"), &g->plain);
        else if (kind == EMU_RACE_WRITE && !strong && conflicts(x, w, l, &g->strong, bytes, 1, word))
            report(x, w, in, l, a, addr, n, kind, verb_of(kind), EMU_RACE_ATOMIC, emu_text("updated with an atomic"),
                   &g->strong);
        else if (kind == EMU_RACE_WRITE && !strong && conflicts(x, w, l, &g->read, bytes, 0, word))
            report(x, w, in, l, a, addr, n, kind, verb_of(kind), EMU_RACE_READ, emu_text("read"), &g->read);
        if (kind == EMU_RACE_READ) {
            if (!strong) record(x, w, l, &g->read, seq, bytes, in->loc);
        } else {
            record(x, w, l, strong ? &g->strong : &g->plain, seq, bytes, in->loc);
            if (!strong) g->read.block = 0;
        }
    }
}
