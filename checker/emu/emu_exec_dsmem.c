/* emu_exec_dsmem.c - distributed shared memory: the shared memory of the other blocks of a cluster.
 *
 * mapa turns an address of the running block's shared variable into the same variable's address in block
 * r of the cluster (cluster.map_shared_rank). Every shared address carries its variable's tag (emu_svar);
 * the address mapa makes carries a tag of its own for the pair (rank, variable): with T the module's tags
 * + 1, the tag T * (rank + 1) + tag. A rank outside the cluster is kept as rank = cluster size, so that an
 * access through it is a finding. Such an address is a shared::cluster address, used by ld/st/atom/red
 * .shared::cluster or generically (the shared window + the address, as for any shared address).
 *
 * What orders two accesses of one block's shared memory by different blocks is the cluster barrier. Each
 * cluster counts its barrier's phases; each word of a block's shared memory keeps the last write and read
 * of the other blocks (emu_dword, with their phase), and the block's own accesses are in its shadow
 * (emu_sword) with the barrier interval that began the phase (emu_block.phase_interval). Two accesses in
 * one phase from different blocks, one of them a write, race; a read of bytes the owner has not written
 * yet races with the write to come, or reads garbage when the owner has gone past its writes (it waits at
 * the cluster barrier or has exited); an access of a block that has exited reads memory that is gone. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "emu_exec.h"

enum { ACC_LOAD, ACC_STORE, ACC_ATOMIC };   /* as emu_exec_mem.c's */

static const char emu_msg_mapa_not_shared[] = N_(
    "map_shared_rank (mapa) was given address 0x%llx, which is not shared memory: only a pointer into "
    "__shared__ memory names the same variable in another block of the cluster. The launch fails with "
    "cudaErrorIllegalAddress.");
static const char emu_msg_mapa_tags[] = N_(
    "the emulator cannot map this module's %u shared variables to the %u blocks of a cluster "
    "(mapa); the launch fails with cudaErrorIllegalInstruction. Please report it with this line.");
static const char emu_msg_bad_rank[] = N_(
    "an access of the shared memory of block %u of the cluster, but the cluster has %u blocks (ranks 0 "
    "to %u): map_shared_rank (mapa) was given a rank outside the cluster. The launch fails with "
    "cudaErrorIllegalAddress.");
static const char emu_msg_dsmem_oob[] = N_(
    "an out-of-bounds %s of %u bytes in the shared memory of block (%u,%u,%u) (rank %u of the cluster): "
    "%s[%lld], but %s has %u bytes: %u elements of %u bytes. The launch fails with cudaErrorIllegalAddress.");
static const char emu_msg_dsmem_race[] = N_(
    "%s %s of block (%u,%u,%u) (rank %u of the cluster) through distributed shared memory, which %s "
    "%s with no cluster barrier between the two: a race, the result depends on which block runs first. "
    "Is a cluster.sync() missing between them?");
static const char emu_msg_dsmem_early[] = N_(
    "reads %s of block (%u,%u,%u) (rank %u of the cluster) through distributed shared memory before "
    "that block has written it: nothing makes this read wait for the write. Is a cluster.sync() missing "
    "between the writes of each block and the reads of the others?");
static const char emu_msg_dsmem_uninit[] = N_(
    "reads %s of block (%u,%u,%u) (rank %u of the cluster) through distributed shared memory, which no "
    "thread has written: the value is garbage.");
static const char emu_msg_dsmem_local[] = N_(
    "%s shared memory %s, which %s of block (%u,%u,%u) %s through distributed shared memory with no "
    "cluster barrier between the two: a race, the result depends on which block runs first. Is a "
    "cluster.sync() missing between them?");
static const char emu_msg_dsmem_exited[] = N_(
    "%s %s of block (%u,%u,%u) (rank %u of the cluster), which has already exited: a block's shared "
    "memory is gone once it exits (on a GPU the access reads garbage or faults). A cluster.sync() at the end, "
    "after the last access of another block's shared memory, keeps every block alive until the others are "
    "done with it.");

/* TRANSLATORS: what a block did to another block's shared memory, in "%s %s of block ...": this
   thread's access (present tense), and the other one's (past tense) in "which thread ... %s". */
static const char *const verb_now[] = { N_("reads"), N_("writes"), N_("updates with an atomic") };
static const char *const verb_past[] = { N_("read"), N_("wrote"), N_("updated with an atomic") };
/* TRANSLATORS: what an out-of-bounds access was, in "an out-of-bounds %s of %u bytes in the shared memory of
   block". */
static const char *const acc_noun[] = { N_("read"), N_("write"), N_("atomic") };

/* ---- Addresses ------------------------------------------------------------------------------------------ */

/* The variable tag and cluster rank of a shared::cluster address's tag; 0 when it is no such tag. */
static int decode(const emu_ctx *x, uint32_t tag, uint32_t *var, uint32_t *rank)
{
    uint32_t T = x->nstags + 1;
    if (tag < T) return 0;
    *var = tag % T;
    *rank = tag / T - 1;
    return *var >= 1 && *rank <= x->cluster_size;
}

uint64_t emu_dsmem_mapa(emu_ctx *x, emu_warp *w, const emu_insn *in, int l, uint64_t addr, uint32_t rank)
{
    emu_record r;
    if (!in->mod && addr - EMU_SHARED_WINDOW >= EMU_WINDOW_SIZE) {
        if (emu_diag_first(EMU_FD_OOB_DSMEM)) {
            emu_where(x, w, l, in->loc, EMU_FD_OOB_DSMEM, &r);
            emu_diag_report(&r, emu_msg_mapa_not_shared, (unsigned long long)addr);
        }
        emu_fatal(x, 700);
        return 0;
    }
    uint32_t a = (uint32_t)(in->mod ? addr : addr - EMU_SHARED_WINDOW), tag = a >> EMU_SHARED_TAG_SHIFT, var = tag, old;
    if (tag > x->nstags && !decode(x, tag, &var, &old)) return addr;   /* no variable's: the access says so */
    if (rank >= x->cluster_size) { x->bad_rank = rank; rank = x->cluster_size; }
    uint32_t T = x->nstags + 1, mapped = T * (rank + 1) + var;
    if (mapped > EMU_SHARED_TAG_MAX) {
        if (emu_diag_first(EMU_FD_UNSUPPORTED)) {
            emu_where(x, w, l, in->loc, EMU_FD_UNSUPPORTED, &r);
            emu_diag_report(&r, emu_msg_mapa_tags, x->nstags, x->cluster_size);
        }
        emu_fatal(x, 715);
        return 0;
    }
    uint32_t out = a - EMU_SHARED_TAG_ADDR(tag) + EMU_SHARED_TAG_ADDR(mapped);
    return in->mod ? out : out + EMU_SHARED_WINDOW;
}

int emu_dsmem_where(const emu_ctx *x, uint64_t addr, unsigned n, uint32_t *rank, uint32_t *off)
{
    uint32_t tag = (uint32_t)addr >> EMU_SHARED_TAG_SHIFT, var;
    if (!emu_dsmem_tag(x, tag) || !decode(x, tag, &var, rank) || *rank >= x->cluster_size) return 0;
    int64_t rel = (int32_t)((uint32_t)addr - EMU_SHARED_TAG_ADDR(tag));
    if (rel < 0 || (uint64_t)rel + n > x->stags[var].size) return 0;
    *off = x->stags[var].base + (uint32_t)rel;
    return 1;
}

uint32_t emu_dsmem_rank(emu_ctx *x, uint64_t shared_addr)
{
    uint32_t var, rank;
    if (decode(x, (uint32_t)shared_addr >> EMU_SHARED_TAG_SHIFT, &var, &rank)) return rank;
    return emu_cluster_rank(x);
}

/* ---- Findings ------------------------------------------------------------------------------------------- */

/* The array a finding names ("part" of "part[3]"), for its record. */
static void array_of(const char *what, emu_record *r)
{
    size_t n = strcspn(what, "[ ");
    if (n && n < sizeof r->array && what[n] != ' ') snprintf(r->array, sizeof r->array, "%.*s", (int)n, what);
}

/* "thread (3,0,0)" for the linear thread t of a block. */
static void thread_name(const emu_ctx *x, uint32_t t, char *buf, size_t len)
{
    snprintf(buf, len, emu_text("thread (%u,%u,%u)"), t % x->block.x, t / x->block.x % x->block.y,
             t / (x->block.x * x->block.y));
}

/* The label of a place for an access of kind acc. */
static int label_of(int acc) { return acc == ACC_LOAD ? EMU_LABEL_READ : acc == ACC_STORE ? EMU_LABEL_WRITE : EMU_LABEL_ATOMIC; }

/* The linear index of the block of the running cluster with rank. */
static long long block_lin(const emu_ctx *x, uint32_t rank)
{
    const emu_block *b = &x->blocks[x->cur->cluster * x->cluster_size + rank];
    return ((long long)b->ctaid.z * x->grid.y + b->ctaid.y) * x->grid.x + b->ctaid.x;
}

/* Lane l's access acc of block b's shared memory at off races with the other one (who, other_acc), whose
 * record, when it is another block's, gives the finding its second place. */
static void race(emu_ctx *x, emu_warp *w, const emu_insn *in, int l, const emu_block *b, uint32_t off, unsigned n,
                 int acc, const char *who, int other_acc, const emu_daccess *other)
{
    if (!emu_diag_first(EMU_FD_DSMEM_RACE)) return;
    char what[300];
    emu_record r;
    emu_where(x, w, l, in->loc, EMU_FD_DSMEM_RACE, &r);
    if (other)
        emu_where_other(x, other->loc, label_of(acc), label_of(other_acc), block_lin(x, other->rank), other->thread / 32u,
                        (int)(other->thread % 32u), &r);
    emu_shared_what(x, off, n, what, sizeof what);
    array_of(what, &r);
    emu_diag_report(&r, emu_msg_dsmem_race, emu_text(verb_now[acc]), what, b->ctaid.x, b->ctaid.y, b->ctaid.z, b->rank,
                    who, emu_text(verb_past[other_acc]));
}

/* "thread (3,0,0) of block (1,0,0)" for the access d of another block. */
static void remote_who(const emu_ctx *x, const emu_daccess *d, char *buf, size_t len)
{
    char t[200];
    const emu_block *b = &x->blocks[x->cur->cluster * x->cluster_size + d->rank];
    thread_name(x, d->thread, t, sizeof t);
    snprintf(buf, len, emu_text("%s of block (%u,%u,%u)"), t, b->ctaid.x, b->ctaid.y, b->ctaid.z);
}

/* ---- Accesses of another block's shared memory ---------------------------------------------------------- */

/* Whether every warp of b that has not finished waits at the cluster barrier: b writes nothing more in
 * this phase. */
static int settled(const emu_ctx *x, const emu_block *b)
{
    for (int i = 0; i < x->nwarps; i++)
        if (b->warps[i].state != EMU_W_DONE && b->warps[i].state != EMU_W_CBAR) return 0;
    return 1;
}

/* Starts record r of kind for thread t of block index bi at loc, as emu_where does for a running thread. */
static void where_thread(emu_ctx *x, uint32_t bi, uint32_t t, uint32_t loc, int kind, emu_record *r)
{
    emu_dim3 saved = x->ctaid;
    emu_warp w;
    memset(&w, 0, sizeof w);
    w.id = (int)(t / 32);
    w.nframes = 0;
    x->ctaid = x->blocks[bi].ctaid;
    emu_where(x, &w, (int)(t % 32), loc, kind, r);
    x->ctaid = saved;
}

/* The early read e is said: it came before a write of the same phase (a race), or nobody wrote the bytes. */
static void early_said(emu_ctx *x, const emu_dearly *e, int written)
{
    int kind = written ? EMU_FD_DSMEM_RACE : EMU_FD_UNINIT_SHARED;
    if (!emu_diag_first(kind)) return;
    char what[300];
    emu_record r;
    const emu_block *b = &x->blocks[e->block];
    where_thread(x, e->reader, e->thread, e->loc, kind, &r);
    emu_shared_what(x, e->off, e->size, what, sizeof what);
    array_of(what, &r);
    emu_diag_report(&r, written ? emu_msg_dsmem_early : emu_msg_dsmem_uninit, what, b->ctaid.x, b->ctaid.y, b->ctaid.z,
                    b->rank);
}

/* The early reads of word k of block index bi are followed by a write: each is a race. */
static void early_written(emu_ctx *x, uint32_t bi, uint32_t k)
{
    for (int i = 0; i < x->ndearly; i++)
        if (x->dearly[i].block == bi && x->dearly[i].word == k) {
            early_said(x, &x->dearly[i], 1);
            x->dearly[i--] = x->dearly[--x->ndearly];
        }
}

void emu_dsmem_phase_end(emu_ctx *x, uint32_t c)
{
    for (int i = 0; i < x->ndearly; i++)
        if (c == UINT32_MAX || x->blocks[x->dearly[i].block].cluster == c) {
            early_said(x, &x->dearly[i], 0);
            x->dearly[i--] = x->dearly[--x->ndearly];
        }
}

/* Whether what blocks p and the one of rank did in phase now is ordered: a strong read of one saw a strong
 * write of the other (a flag). */
static int synced(const emu_ctx *x, const emu_block *p, uint32_t rank, uint32_t now)
{
    const emu_block *q = &x->blocks[p->cluster * x->cluster_size + rank];
    return (p->synced_phase == now && (p->synced >> rank & 1)) || (q->synced_phase == now && (q->synced >> p->rank & 1));
}

/* Block p's strong read sees d's write: from then on, p is ordered after what that writer did before it. */
static void see(emu_block *p, const emu_daccess *d, uint32_t now)
{
    if (d->phase != now || !d->strong || d->rank == p->rank) return;
    if (p->synced_phase != now) { p->synced = 0; p->synced_phase = now; }
    p->synced |= 1u << d->rank;
}

/* Checks and records lane l's access of n bytes at off of block b's shared memory (b is not running). */
static void remote_access(emu_ctx *x, emu_warp *w, const emu_insn *in, int l, emu_block *b, uint32_t off, unsigned n,
                          int acc)
{
    emu_block *a = x->cur;
    uint32_t now = x->cbar_phase[a->cluster], thread = (uint32_t)w->id * 32 + (uint32_t)l;
    uint32_t bi = (uint32_t)(b - x->blocks), ai = (uint32_t)(a - x->blocks);
    int strong = acc == ACC_ATOMIC || (in->flags & EMU_F_VOLATILE);
    char what[300], who[300];
    if (b->done && emu_diag_first(EMU_FD_DSMEM_EXITED)) {
        emu_record r;
        emu_where(x, w, l, in->loc, EMU_FD_DSMEM_EXITED, &r);
        emu_shared_what(x, off, n, what, sizeof what);
        array_of(what, &r);
        emu_diag_report(&r, emu_msg_dsmem_exited, emu_text(verb_now[acc]), what, b->ctaid.x, b->ctaid.y, b->ctaid.z,
                        b->rank);
    }
    b->dsmem_phase = now;
    for (uint32_t k = off / 4; k <= (off + n - 1) / 4; k++) {
        unsigned bytes = emu_word_bytes(k, off, n);
        uint32_t at = k * 4 > off ? k * 4 : off;
        emu_sword *s = &b->shadow[k];
        emu_dword *d = &b->dshadow[k];
        int mine = s->w_interval >= b->block_interval;   /* the shadow's record is this block's */
        unsigned written = mine ? s->written : 0;
        int w_now = d->w.phase == now && (d->w.bytes & bytes), r_now = d->r.phase == now && (d->r.bytes & bytes);
        /* two strong accesses do not race (the owner's own strong ones are noted in own_w and own_r) */
        int strong_w = strong && w_now && d->w.strong, strong_r = strong && r_now && d->r.strong;
        int with_b = synced(x, a, b->rank, now);
        int own_write = mine && s->w_warp != EMU_SWORD_REMOTE && s->w_interval >= b->phase_interval &&
                        (s->written & bytes) && !(strong && d->own_w == now) && !with_b;
        int own_read = s->r_interval >= b->phase_interval && s->r_interval >= b->block_interval && (s->r_bytes & bytes) &&
                       !(strong && d->own_r == now) && !with_b;
        int other_write = w_now && d->w.rank != a->rank && !strong_w && !synced(x, a, d->w.rank, now);
        int other_read = r_now && d->r.rank != a->rank && !strong_r && !synced(x, a, d->r.rank, now);
        if (acc == ACC_LOAD && strong) see(a, &d->w, now);
        if (acc != ACC_LOAD) early_written(x, bi, k);
        if (own_write || (own_read && acc != ACC_LOAD)) {
            unsigned lane = s->w_lane[__builtin_ctz(bytes)];
            if (own_write && lane < 32) thread_name(x, (uint32_t)s->w_warp * 32 + lane, what, sizeof what);
            else snprintf(what, sizeof what, "%s", emu_text("a thread"));
            snprintf(who, sizeof who, emu_text("%s of that block"), what);
            race(x, w, in, l, b, at, n, acc, who, !own_write ? ACC_LOAD : ACC_STORE, NULL);
        } else if (other_write || (other_read && acc != ACC_LOAD)) {
            remote_who(x, other_write ? &d->w : &d->r, who, sizeof who);
            race(x, w, in, l, b, at, n, acc, who, other_write ? (d->w.atomic ? ACC_ATOMIC : ACC_STORE) : ACC_LOAD,
                 other_write ? &d->w : &d->r);
        } else if (acc != ACC_STORE && (bytes & ~written) && !w_now) {
            if (settled(x, b)) {
                emu_dearly e = { bi, k, at, in->loc, ai, thread, n };
                early_said(x, &e, 0);
            } else if (!d->r.early || d->r.phase != now) {
                /* the owner may still write it in this phase: said at that write, or at the phase's end */
                if (x->ndearly < EMU_DSMEM_EARLY) x->dearly[x->ndearly++] = (emu_dearly){ bi, k, at, in->loc, ai, thread, n };
                d->r.early = 1;
            }
        }
        emu_daccess *rec = acc == ACC_LOAD ? &d->r : &d->w;
        int early = acc == ACC_LOAD && rec->phase == now && rec->early;
        if (rec->phase != now || rec->rank != a->rank) rec->bytes = 0;
        *rec = (emu_daccess){ now, in->loc, (uint16_t)thread, (uint8_t)a->rank, (uint8_t)(rec->bytes | bytes),
                              (uint8_t)(acc == ACC_ATOMIC), (uint8_t)strong, (uint8_t)early };
        if (acc == ACC_LOAD && (bytes & ~written) && !w_now && !settled(x, b)) rec->early = 1;
        if (acc != ACC_LOAD) {
            /* the owner's later reads find the bytes written (a record of another block's write) */
            if (!mine) {
                s->w_interval = b->block_interval;
                s->w_warp = EMU_SWORD_REMOTE;
                s->w_bytes = 0;
                s->written = 0;
            }
            s->written |= (uint8_t)bytes;
        }
    }
}

uint8_t *emu_dsmem_resolve(emu_ctx *x, emu_warp *w, const emu_insn *in, int l, uint64_t addr, unsigned n, int acc,
                           int *own, uint32_t *off)
{
    uint32_t tag = (uint32_t)addr >> EMU_SHARED_TAG_SHIFT, var, rank;
    char name[200];
    emu_record r;
    *own = -1;
    if (!decode(x, tag, &var, &rank)) return NULL;   /* not a shared::cluster address: the caller says so */
    *own = 0;
    if (rank >= x->cluster_size) {
        if (emu_diag_first(EMU_FD_OOB_DSMEM)) {
            emu_where(x, w, l, in->loc, EMU_FD_OOB_DSMEM, &r);
            emu_diag_report(&r, emu_msg_bad_rank, x->bad_rank, x->cluster_size, x->cluster_size - 1);
        }
        emu_fatal(x, 700);
        return NULL;
    }
    const emu_stag *st = &x->stags[var];
    emu_block *b = x->blocks ? &x->blocks[x->cur->cluster * x->cluster_size + rank] : NULL;
    int64_t rel = (int32_t)((uint32_t)addr - EMU_SHARED_TAG_ADDR(tag));
    if (rel < 0 || (uint64_t)rel + n > st->size) {
        if (emu_diag_first(EMU_FD_OOB_DSMEM)) {
            emu_dim3 id = b ? b->ctaid : x->ctaid;
            long long index = rel >= 0 ? rel / n : -((-rel + n - 1) / n);
            emu_where(x, w, l, in->loc, EMU_FD_OOB_DSMEM, &r);
            emu_var_name(st->name ? st->name : emu_text("shared memory"), name, sizeof name);
            array_of(name, &r);
            emu_diag_report(&r, emu_msg_dsmem_oob, emu_text(acc_noun[acc]), n, id.x, id.y, id.z, rank, name, index, name,
                            st->size, st->size / n, n);
        }
        emu_fatal(x, 700);
        return NULL;
    }
    *off = st->base + (uint32_t)rel;
    if (!b || b == x->cur) { *own = 1; return x->shared + *off; }
    remote_access(x, w, in, l, b, *off, n, acc);
    return b->shared + *off;
}

void emu_dsmem_local(emu_ctx *x, emu_warp *w, const emu_insn *in, int l, uint32_t off, unsigned n, int store)
{
    emu_block *me = x->cur;
    uint32_t now = x->cbar_phase[me->cluster];
    int strong = store == 2 || (in->flags & EMU_F_VOLATILE);
    for (uint32_t k = off / 4; k <= (off + n - 1) / 4; k++) {
        unsigned bytes = emu_word_bytes(k, off, n);
        emu_dword *d = &me->dshadow[k];
        if (store && d->r.early && d->r.phase == now) early_written(x, (uint32_t)(me - x->blocks), k);
        int w_now = d->w.phase == now && (d->w.bytes & bytes), r_now = store && d->r.phase == now && (d->r.bytes & bytes);
        const emu_daccess *other = w_now && !(strong && d->w.strong) && !synced(x, me, d->w.rank, now) ? &d->w
                                 : r_now && !(strong && d->r.strong) && !synced(x, me, d->r.rank, now) ? &d->r : NULL;
        if (!store && strong) see(me, &d->w, now);
        if (strong && store) d->own_w = now;   /* what another block's strong access does not race with */
        else if (strong) d->own_r = now;
        if (!other || !emu_diag_first(EMU_FD_DSMEM_RACE)) continue;
        char what[300], t[200];
        emu_record r;
        const emu_block *b = &x->blocks[me->cluster * x->cluster_size + other->rank];
        int mine = store ? store : ACC_LOAD, theirs = other == &d->w ? (d->w.atomic ? ACC_ATOMIC : ACC_STORE) : ACC_LOAD;
        emu_where(x, w, l, in->loc, EMU_FD_DSMEM_RACE, &r);
        emu_where_other(x, other->loc, label_of(mine), label_of(theirs), block_lin(x, other->rank), other->thread / 32u,
                        (int)(other->thread % 32u), &r);
        emu_shared_what(x, k * 4 > off ? k * 4 : off, n, what, sizeof what);
        array_of(what, &r);
        thread_name(x, other->thread, t, sizeof t);
        emu_diag_report(&r, emu_msg_dsmem_local, emu_text(verb_now[mine]), what, t, b->ctaid.x, b->ctaid.y, b->ctaid.z,
                        emu_text(verb_past[theirs]));
    }
}
