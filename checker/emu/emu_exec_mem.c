/* emu_exec_mem.c - loads, stores and atomics: address spaces, bounds and initialisation checks, races, metrics. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu_exec.h"

enum { ACC_LOAD, ACC_STORE, ACC_ATOMIC };
/* TRANSLATORS: what an out-of-bounds access was, in "an out-of-bounds global memory %s of %u bytes". */
static const char *const acc_name[] = { N_("read"), N_("write"), N_("atomic") };

/* ---- Diagnoses --------------------------------------------------------------------------------- */

static void global_oob(emu_ctx *x, emu_warp *w, const emu_insn *in, int l, uint64_t addr, unsigned n, int acc)
{
    if (!emu_diag_first(EMU_FD_OOB_GLOBAL)) { emu_fatal(x, 700); return; }
    char what[1200];
    emu_record r;
    emu_where(x, w, l, in->loc, EMU_FD_OOB_GLOBAL, &r);
    emu_alloc *a;
    if (addr < 65536) {
        snprintf(what, sizeof what, emu_text("address 0x%llx is a null (or nearly null) pointer"), (unsigned long long)addr);
    } else if ((a = emu_mem_lookup((uintptr_t)addr, 1)) != NULL) {
        snprintf(what, sizeof what, emu_text("it starts inside the %zu-byte %s at 0x%llx but runs %llu bytes past its end"),
                 a->size, a->what, (unsigned long long)a->base, (unsigned long long)(addr + n - (a->base + a->size)));
    } else {
        a = NULL;
        uint64_t past = 0, before = 0;
        for (uint64_t d = 1; d <= (1u << 20) && !a; d = d < 4096 ? d + 1 : d + 64) {
            if (addr >= d && (a = emu_mem_lookup((uintptr_t)(addr - d), 1)) != NULL) past = addr - (a->base + a->size);
            else if ((a = emu_mem_lookup((uintptr_t)(addr + n - 1 + d), 1)) != NULL) before = a->base - addr;
        }
        if (a && !before)
            snprintf(what, sizeof what, emu_text("address 0x%llx is %llu bytes past the end of the %zu-byte %s at 0x%llx "
                                                 "(element %llu of an array of %u-byte elements, which has %zu)"),
                     (unsigned long long)addr, (unsigned long long)past,
                     a->size, a->what, (unsigned long long)a->base, (unsigned long long)((addr - a->base) / n), n, a->size / n);
        else if (a)
            snprintf(what, sizeof what, emu_text("address 0x%llx is %llu bytes before the start of the %zu-byte %s at 0x%llx "
                                                 "(a negative index?)"),
                     (unsigned long long)addr, (unsigned long long)before, a->size, a->what, (unsigned long long)a->base);
        else if (emu_global_before(x, addr, n, what, sizeof what)) {
            /* far before what a pointer parameter points into: named by that parameter */
        } else
            snprintf(what, sizeof what, emu_text("address 0x%llx is not device memory: a host pointer, a freed allocation "
                                                 "or garbage? A kernel can only use memory from cudaMalloc (or __device__ "
                                                 "variables)"),
                     (unsigned long long)addr);
    }
    emu_diag_report(&r, "an out-of-bounds global memory %s of %u bytes: %s. The launch fails with "
                    "cudaErrorIllegalAddress.", emu_text(acc_name[acc]), n, what);
    emu_fatal(x, 700);
}

/* Whether the kernel may use a's memory: its own device's, or a peer's with peer access enabled. */
static inline int peer_ok(const emu_ctx *x, const emu_alloc *a)
{
    return a->device < 0 || a->device == x->device || emu_peer_access(x->device, a->device);
}

/* A load or store through a pointer to another device's memory, where peer access was never enabled: on a GPU
 * the access faults. */
static void peer_denied(emu_ctx *x, emu_warp *w, const emu_insn *in, int l, uint64_t addr, int acc, const emu_alloc *a)
{
    if (emu_diag_first(EMU_FD_PEER_ACCESS)) {
        emu_record r;
        emu_where(x, w, l, in->loc, EMU_FD_PEER_ACCESS, &r);
        char what[200];
        emu_alloc_describe(a, addr, what, sizeof what);
        emu_diag_report(&r, "a %s of %s, memory of device %d, by a kernel running on device %d, which has no peer "
                        "access to it. The launch fails with cudaErrorIllegalAddress. Enable it first: "
                        "cudaSetDevice(%d); cudaDeviceEnablePeerAccess(%d, 0); (after cudaDeviceCanAccessPeer says it "
                        "can), or copy the data with cudaMemcpyPeerAsync.",
                        emu_text(acc_name[acc]), what, a->device, x->device, x->device, a->device);
    }
    emu_fatal(x, 700);
}

/* The name of the shared variable of tag (see emu_svar) as the learner wrote it: "sdata". */
static void tag_name(emu_ctx *x, uint32_t tag, char *buf, size_t len)
{
    const char *ptx = tag >= 1 && tag <= x->nstags ? x->stags[tag].name : NULL;
    emu_var_name(ptx ? ptx : emu_text("shared memory"), buf, len);
}

/* An access of n bytes at offset rel of the shared variable of tag (its address told both) that falls
 * outside the variable: named with its index in elements of n bytes and the variable's size. */
static void shared_oob(emu_ctx *x, emu_warp *w, const emu_insn *in, int l, uint32_t tag, int64_t rel, unsigned n, int acc)
{
    if (emu_diag_first(EMU_FD_OOB_SHARED)) {
        char name[200], what[1200];
        emu_record r;
        emu_where(x, w, l, in->loc, EMU_FD_OOB_SHARED, &r);
        tag_name(x, tag, name, sizeof name);
        const emu_stag *st = tag >= 1 && tag <= x->nstags ? &x->stags[tag] : NULL;
        long long index = rel >= 0 ? rel / n : -((-rel + n - 1) / n);
        if (!st || (tag != EMU_SHARED_DYN_TAG && !st->size))
            snprintf(what, sizeof what, emu_text("address 0x%x is not in any shared variable of this kernel (a pointer "
                                                 "that does not point into shared memory?)"),
                     (unsigned)(EMU_SHARED_TAG_ADDR(tag) + rel));
        else if (tag == EMU_SHARED_DYN_TAG)
            snprintf(what, sizeof what, emu_text("%s[%lld], but the dynamic shared memory of this launch (the third "
                                                 "<<<>>> parameter) has %u bytes: %u elements of %u bytes"),
                     name, index, st->size, st->size / n, n);
        else
            snprintf(what, sizeof what, emu_text("%s[%lld], but %s is declared with %u bytes: %u elements of %u bytes"),
                     name, index, name, st->size, st->size / n, n);
        if (st && (tag == EMU_SHARED_DYN_TAG || st->size)) snprintf(r.array, sizeof r.array, "%.63s", name);
        emu_diag_report(&r, "an out-of-bounds shared memory %s of %u bytes: %s. The launch fails "
                        "with cudaErrorIllegalAddress.", emu_text(acc_name[acc]), n, what);
    }
    emu_fatal(x, 700);
}

static void local_oob(emu_ctx *x, emu_warp *w, const emu_insn *in, int l, uint64_t off, unsigned n, int acc)
{
    if (emu_diag_first(EMU_FD_OOB_LOCAL)) {
        emu_record r;
        emu_where(x, w, l, in->loc, EMU_FD_OOB_LOCAL, &r);
        emu_diag_report(&r, "an out-of-bounds local memory %s of %u bytes at offset %lld (a local array "
                        "indexed out of range?). The launch fails with cudaErrorIllegalAddress.",
                        emu_text(acc_name[acc]), n, (long long)(int64_t)off);
    }
    emu_fatal(x, 700);
}

static void misaligned(emu_ctx *x, emu_warp *w, const emu_insn *in, int l, uint64_t addr, unsigned n)
{
    if (emu_diag_first(EMU_FD_MISALIGNED)) {
        emu_record r;
        emu_where(x, w, l, in->loc, EMU_FD_MISALIGNED, &r);
        emu_diag_report(&r, "a %u-byte access at address 0x%llx, which is not a multiple of %u "
                        "(a vector type such as int4 or float4 needs an aligned pointer). The launch fails with "
                        "cudaErrorMisalignedAddress.", n, (unsigned long long)addr, n);
    }
    emu_fatal(x, 716);
}

static void uninit_global(emu_ctx *x, emu_warp *w, const emu_insn *in, int l, uint64_t addr, unsigned n, const emu_alloc *a)
{
    if (!emu_diag_first(EMU_FD_UNINIT_GLOBAL)) return;
    emu_record r;
    emu_where(x, w, l, in->loc, EMU_FD_UNINIT_GLOBAL, &r);
    emu_diag_report(&r, "reads %u bytes at offset %llu of the %zu-byte %s that nothing has "
                    "written (no cudaMemcpy, cudaMemset or kernel store): the value is garbage.",
                    n, (unsigned long long)(addr - a->base), a->size, a->what);
}

/* Whether a global load of nvec elements of sz bytes at offset off of a reads a value that nothing wrote. A
 * 64-bit element with only some of its bytes written is a struct's padding copied along with its fields
 * (Thrust's tuple<float, long> in max_element): the fields were written, so that one is not reported. */
static int reads_never_written(const emu_alloc *a, size_t off, unsigned sz, unsigned nvec)
{
    if (emu_alloc_written(a, off, (size_t)sz * nvec)) return 0;
    for (unsigned k = 0; k < nvec; k++, off += sz) {
        if (emu_alloc_written(a, off, sz)) continue;
        if (sz < 8) return 1;
        int any = 0;
        for (unsigned i = 0; i < sz && !any; i++) any = emu_alloc_written(a, off + i, 1);
        if (!any) return 1;
    }
    return 0;
}

/* A harness's guard (emu_mem_guard): the access is inside the allocation, so a GPU runs on with whatever
 * the guard holds, but outside the array the program was given. Not fatal: the result then shows what a
 * GPU would give, and the harness explains it with this finding's place. */
static void guard_touched(emu_ctx *x, emu_warp *w, const emu_insn *in, int l, uint64_t addr, unsigned n,
                          int acc, const emu_alloc *a)
{
    int kind = acc == ACC_LOAD ? EMU_FD_GUARD_READ : EMU_FD_GUARD_WRITE;
    if (!emu_diag_first(kind)) return;
    emu_record r;
    emu_where(x, w, l, in->loc, kind, &r);
    snprintf(r.array, sizeof r.array, "%s", a->guard_name);
    int64_t rel = (int64_t)(addr - a->open_lo), elem = (int64_t)a->guard_elem;
    int64_t index = rel >= 0 ? rel / elem : -((-rel + elem - 1) / elem);
    int64_t last = (rel + (int64_t)n - 1) / elem;   /* the access's last element (rel + n > 0 here) */
    uint64_t count = (a->open_hi - a->open_lo) / a->guard_elem;
    /* TRANSLATORS: what a kernel did to an element outside an array, in "%s %s[%lld], ...". */
    const char *verb = acc == ACC_LOAD ? emu_text("reads") : acc == ACC_STORE ? emu_text("writes")
                                                                              : emu_text("updates (atomically)");
    /* One wide access (a 16-byte vector) that starts inside the array and ends past it: its first element is
     * inside, so the words name the elements it spans and the first one outside. */
    if (index >= 0 && (uint64_t)index < count && acc == ACC_LOAD)
        emu_diag_report(&r, emu_ntext("reads %s[%lld] to %s[%lld] in one %u-byte access, but %s has %llu element, "
                                      "so the access reaches past its end, from %s[%llu] on: a GPU reads whatever "
                                      "lies there. Does the last vector of the loop stay inside n, or is the rest "
                                      "read one element at a time?",
                                      "reads %s[%lld] to %s[%lld] in one %u-byte access, but %s has %llu elements, "
                                      "so the access reaches past its end, from %s[%llu] on: a GPU reads whatever "
                                      "lies there. Does the last vector of the loop stay inside n, or is the rest "
                                      "read one element at a time?", count),
                        a->guard_name, (long long)index, a->guard_name, (long long)last, n, a->guard_name,
                        (unsigned long long)count, a->guard_name, (unsigned long long)count);
    else if (index >= 0 && (uint64_t)index < count)
        emu_diag_report(&r, emu_ntext("%s %s[%lld] to %s[%lld] in one %u-byte access, but %s has %llu element: the "
                                      "access reaches past its end, from %s[%llu] on, and writes outside the array.",
                                      "%s %s[%lld] to %s[%lld] in one %u-byte access, but %s has %llu elements: the "
                                      "access reaches past its end, from %s[%llu] on, and writes outside the array.",
                                      count),
                        verb, a->guard_name, (long long)index, a->guard_name, (long long)last, n, a->guard_name,
                        (unsigned long long)count, a->guard_name, (unsigned long long)count);
    else if (index < 0 && acc == ACC_LOAD)
        emu_diag_report(&r, "reads %s[%lld], before the start of %s (a negative index): it reads whatever "
                        "lies there.", a->guard_name, (long long)index, a->guard_name);
    else if (index < 0)
        emu_diag_report(&r, "%s %s[%lld], before the start of %s (a negative index).", verb,
                        a->guard_name, (long long)index, a->guard_name);
    else if (acc == ACC_LOAD)
        emu_diag_report(&r, emu_ntext("reads %s[%lld], but %s has %llu element, so the index is outside [0, "
                                      "%llu): a GPU reads whatever lies there and adds it in. Is the index checked "
                                      "against n?",
                                      "reads %s[%lld], but %s has %llu elements, so the index is outside [0, "
                                      "%llu): a GPU reads whatever lies there and adds it in. Is the index checked "
                                      "against n?", count),
                        a->guard_name, (long long)index, a->guard_name, (unsigned long long)count,
                        (unsigned long long)count);
    else
        emu_diag_report(&r, emu_ntext("%s %s[%lld], but %s has %llu element: the write lands outside the array, "
                                      "and the slot it was meant for is left as it was.",
                                      "%s %s[%lld], but %s has %llu elements: the write lands outside the "
                                      "array, and the slot it was meant for is left as it was.", count),
                        verb, a->guard_name, (long long)index, a->guard_name, (unsigned long long)count);
}

/* ---- Shared memory: never-written words and races -------------------------------------------- */

static void thread_of(emu_ctx *x, unsigned warp, unsigned lane, unsigned t[3])
{
    uint32_t lin = warp * 32 + lane;
    t[0] = lin % x->block.x; t[1] = lin / x->block.x % x->block.y; t[2] = lin / (x->block.x * x->block.y);
}

/* Names the shared access at byte off of the block's shared memory for a message: "sdata[5]" (the index
 * counted in elements of n bytes, the accessed type's size), "total" for a variable of one element. */
void emu_shared_what(emu_ctx *x, uint32_t off, unsigned n, char *buf, size_t len)
{
    for (uint32_t tag = 1; tag <= x->nstags; tag++) {
        const emu_stag *st = &x->stags[tag];
        if (off - st->base >= st->size) continue;
        char name[200];
        tag_name(x, tag, name, sizeof name);
        if (st->size <= n && tag != EMU_SHARED_DYN_TAG) snprintf(buf, len, "%s", name);
        else snprintf(buf, len, "%s[%u]", name, (off - st->base) / (n ? n : 1));
        return;
    }
    snprintf(buf, len, emu_text("byte %u"), off);
}

/* What a learner should do about a lane reading what another lane of its warp wrote with no barrier between:
 * in warp-synchronous code through volatile shared memory (the classic last-warp unroll), __syncwarp(); in
 * other code, whichever barrier fits where the two accesses are. */
static const char emu_msg_warp_fix_volatile[] = N_(
    "This is warp-synchronous code through volatile shared memory, as in the classic last-warp unroll: since "
    "Volta the lanes of a warp need not run in lockstep, and volatile orders nothing between them. Put "
    "__syncwarp() between the steps (or use __shfl_down_sync instead of shared memory).");
static const char emu_msg_warp_fix[] = N_(
    "Put __syncthreads() between them where every thread of the block gets there (as after each step of a "
    "block-wide tree), __syncwarp() where only this warp's lanes do.");

/* ... and about a read and another lane's write of one word inside one step: in a volatile last-warp unroll,
 * the guard its steps lack; elsewhere, the order that makes the read safe. */
static const char emu_msg_step_fix_volatile[] = N_(
    "Guard the step so that no lane writes what another lane reads in it (if (tid < s) in a last-warp "
    "unroll), or read into a register, __syncwarp(), then write.");
static const char emu_msg_step_fix[] = N_(
    "Read into a register, then __syncwarp() (or __syncthreads() where the whole block gets there), then "
    "write: no lane may write what another lane still reads in the same step.");

/* The array a name such as "sdata[5]" is of, into r. */
static void array_of(const char *what, emu_record *r)
{
    size_t n = strcspn(what, "[ ");
    if (n && n < sizeof r->array && what[n] != ' ') snprintf(r->array, sizeof r->array, "%.*s", (int)n, what);
}


/* A lane other than l recorded for one of the bytes in bytes (lanes[b] for byte b), or -1. */
static int other_lane(const uint8_t lanes[4], unsigned bytes, int l)
{
    for (int b = 0; b < 4; b++)
        if ((bytes >> b & 1) && lanes[b] != EMU_SWORD_NONE && lanes[b] != l) return lanes[b];
    return -1;
}

/* "thread (3,0,0)", or "other threads" for EMU_SWORD_LANES. */
static void thread_text(emu_ctx *x, unsigned warp, int lane, char *buf, size_t len)
{
    unsigned t[3];
    if (lane == EMU_SWORD_LANES) { snprintf(buf, len, "%s", emu_text("other threads")); return; }
    thread_of(x, warp, (unsigned)lane, t);
    snprintf(buf, len, emu_text("thread (%u,%u,%u)"), t[0], t[1], t[2]);
}

/* Starts the record of a race on shared memory at byte off: this access (at_label) and the other one, made
 * at loc by lane of warp (other_label; EMU_SWORD_LANES: several threads); what receives "sdata[5]", who the
 * other thread. */
static void shared_race(emu_ctx *x, emu_warp *w, const emu_insn *in, int l, uint32_t off, int kind, int at_label,
                        int other_label, uint32_t loc, unsigned warp, int lane, emu_record *r, char *what,
                        size_t whatlen, char *who, size_t wholen)
{
    emu_where(x, w, l, in->loc, kind, r);
    emu_shared_what(x, off, EMU_TSIZE(in->t), what, whatlen);
    array_of(what, r);
    if (who) thread_text(x, warp, lane, who, wholen);
    emu_where_other(x, loc, at_label, other_label, -1, warp, lane == EMU_SWORD_LANES ? -1 : lane, r);
}

/* A read of never-written bytes: kept until the next barrier (see emu_pending). */
static void pending_read(emu_ctx *x, emu_warp *w, const emu_insn *in, int l, uint32_t k, uint32_t off, unsigned n)
{
    for (int i = 0; i < x->npend; i++)
        if (x->pend[i].word == k) { x->pend[i].reads++; return; }
    if (x->npend == EMU_PENDING_READS) { x->pend_more++; return; }
    x->pend[x->npend++] = (emu_pending){ k, off, (uint16_t)w->id, (uint8_t)l, (uint8_t)n, in->loc, 1 };
}

/* Another thread's write of word k is a race with the reads of it pending: they are no garbage reads. */
static void pending_race(emu_ctx *x, uint32_t k)
{
    for (int i = 0; i < x->npend; i++)
        if (x->pend[i].word == k) {
            memmove(&x->pend[i], &x->pend[i + 1], (size_t)(x->npend - i - 1) * sizeof *x->pend);
            x->npend--;
            return;
        }
}

/* Records lane l's write of bytes of a shadow word (already cleared of an earlier block's records). */
static void record_write(emu_ctx *x, emu_warp *w, emu_sword *s, unsigned bytes, int l, uint32_t loc)
{
    if (!(s->w_interval == x->interval && s->w_warp == w->id && s->w_wsync == w->wsync)) {
        s->w_bytes = 0;
        memset(s->w_lane, EMU_SWORD_NONE, 4);
    }
    for (int b = 0; b < 4; b++) if (bytes >> b & 1) s->w_lane[b] = (uint8_t)l;
    s->w_bytes |= (uint8_t)bytes;
    s->written |= (uint8_t)bytes;
    s->w_interval = x->interval;
    s->w_warp = (uint16_t)w->id;
    s->w_wsync = w->wsync;
    s->w_loc = loc;
}

/* Checks lane l's n-byte access at byte off against the shadow, reports what it finds, then records it.
 * same: a store of the value the bytes already hold (two lanes writing one value is no conflict). */
static void shared_check(emu_ctx *x, emu_warp *w, const emu_insn *in, int l, uint32_t off, unsigned n, int acc, int same)
{
    uint32_t w0 = off / 4, w1 = (off + n - 1) / 4;
    char what[600], who[200];
    const uint32_t now = x->interval, fresh = x->block_interval;
    emu_record r;
    /* other blocks touched it, or a strong access that may synchronise with them */
    if (x->dsmem_hot || (x->blocks && (in->flags & EMU_F_VOLATILE))) emu_dsmem_local(x, w, in, l, off, n, acc != ACC_LOAD);
#define WARP_FIX emu_text(in->flags & EMU_F_VOLATILE ? emu_msg_warp_fix_volatile : emu_msg_warp_fix)
    for (uint32_t k = w0; k <= w1; k++) {
        emu_sword *s = &x->shadow[k];
        unsigned bytes = emu_word_bytes(k, off, n);
        uint32_t at = k * 4 > off ? k * 4 : off;   /* the first byte of this word the access touches */
        if (s->w_interval < fresh) { s->written = 0; s->w_bytes = 0; s->w_interval = 0; s->cp_thread = 0; }   /* an earlier block's */
        if (s->r_interval < fresh) { s->r_bytes = 0; s->r_interval = 0; }
        int w_now = s->w_interval == now, r_now = s->r_interval == now;
        int w_step = w_now && s->w_warp == w->id && s->w_wsync == w->wsync;   /* this warp, since its last barrier */
        if (acc == ACC_LOAD) {
            int wl;
            if (bytes & ~s->written) pending_read(x, w, in, l, k, at, EMU_TSIZE(in->t));
            if (s->cp_thread) emu_cp_read(x, w, in, l, s, at);   /* a cp.async wrote it */
            if (w_now && s->w_warp != w->id && (bytes & s->w_bytes)) {
                if (emu_diag_first(EMU_FD_RACE)) {
                    shared_race(x, w, in, l, at, EMU_FD_RACE, EMU_LABEL_READ, EMU_LABEL_WRITE, s->w_loc, s->w_warp,
                                s->w_lane[__builtin_ctz(bytes & s->w_bytes)], &r, what, sizeof what, who, sizeof who);
                    emu_diag_report(&r, "reads shared memory %s that %s of another warp wrote after the "
                                    "last barrier: a race, the result depends on which warp runs first. Missing "
                                    "__syncthreads() between the write and the read?", what, who);
                }
            } else if (w_step && (wl = other_lane(s->w_lane, bytes & s->w_bytes, l)) >= 0) {
                if (emu_diag_first(EMU_FD_WARP_RACE)) {
                    shared_race(x, w, in, l, at, EMU_FD_WARP_RACE, EMU_LABEL_READ, EMU_LABEL_WRITE, s->w_loc,
                                s->w_warp, wl, &r, what, sizeof what, who, sizeof who);
                    emu_diag_report(&r, "reads shared memory %s that %s of the same warp wrote, "
                                    "with no barrier between them: neither __syncthreads() nor "
                                    "__syncwarp(). %s", what, who, WARP_FIX);
                }
            }
            if (!r_now) {
                s->r_interval = now; s->r_warp = (uint16_t)w->id; s->r_multi = 0; s->r_bytes = 0;
                s->r_wsync = w->wsync; memset(s->r_lane, EMU_SWORD_NONE, 4);
            } else if (s->r_warp != w->id) {
                s->r_multi = 1;
                s->m_loc = in->loc;
            } else if (s->r_wsync != w->wsync) {
                s->r_wsync = w->wsync; memset(s->r_lane, EMU_SWORD_NONE, 4);
            }
            s->r_bytes |= (uint8_t)bytes;
            if (s->r_warp == w->id) s->r_loc = in->loc;
            if (s->r_warp == w->id && s->r_wsync == w->wsync)
                for (int b = 0; b < 4; b++)
                    if (bytes >> b & 1)
                        s->r_lane[b] = s->r_lane[b] == EMU_SWORD_NONE || s->r_lane[b] == l ? (uint8_t)l : EMU_SWORD_LANES;
        } else {
            int rl = -1, wl = -1, race = 0;
            if (acc == ACC_STORE && w_now && s->w_warp != w->id && (bytes & s->w_bytes)) {
                race = 1;
                if (emu_diag_first(EMU_FD_RACE)) {
                    shared_race(x, w, in, l, at, EMU_FD_RACE, EMU_LABEL_WRITE, EMU_LABEL_WRITE, s->w_loc, s->w_warp,
                                s->w_lane[__builtin_ctz(bytes & s->w_bytes)], &r, what, sizeof what, who, sizeof who);
                    emu_diag_report(&r, "writes shared memory %s that %s of another warp also wrote "
                                    "since the last barrier: a race (which value stays depends on the order the warps "
                                    "run). Missing __syncthreads()?", what, who);
                }
            } else if (acc == ACC_STORE && r_now && (s->r_multi || s->r_warp != w->id) && (bytes & s->r_bytes)) {
                race = 1;
                if (emu_diag_first(EMU_FD_RACE)) {
                    /* the reader: the first warp that read, unless that is this one (then another: its line only) */
                    int first = s->r_warp != w->id, reader = first ? other_lane(s->r_lane, bytes, -1) : -1;
                    shared_race(x, w, in, l, at, EMU_FD_RACE, EMU_LABEL_WRITE, EMU_LABEL_READ,
                                first ? s->r_loc : s->m_loc, s->r_warp, reader >= 0 ? reader : EMU_SWORD_LANES, &r,
                                what, sizeof what, NULL, 0);
                    emu_diag_report(&r, "writes shared memory %s that a thread of another warp "
                                    "read since the last barrier: a race (the reader may see the old or the new value). "
                                    "Missing __syncthreads() between the read and this write?", what);
                }
            } else if (acc == ACC_STORE && r_now && s->r_warp == w->id && s->r_wsync == w->wsync &&
                       (rl = other_lane(s->r_lane, bytes, l)) >= 0) {
                /* A lane of this warp read the word since the warp's last barrier, and this lane now writes it. */
                race = 1;
                if (emu_diag_first(EMU_FD_WARP_RACE)) {
                    shared_race(x, w, in, l, at, EMU_FD_WARP_RACE, EMU_LABEL_WRITE, EMU_LABEL_READ, s->r_loc,
                                (unsigned)w->id, rl, &r, what, sizeof what, who, sizeof who);
                    emu_diag_report(&r, "writes shared memory %s that %s of the same warp read "
                                    "in the same step: a read and another lane's write of one word fall between the "
                                    "same two barriers, so the read may see the old or the new value. %s",
                                    what, who,
                                    emu_text(in->flags & EMU_F_VOLATILE ? emu_msg_step_fix_volatile : emu_msg_step_fix));
                }
            } else if (acc == ACC_STORE && w_step && !same && (wl = other_lane(s->w_lane, bytes & s->w_bytes, l)) >= 0) {
                if (emu_diag_first(EMU_FD_WARP_RACE)) {
                    shared_race(x, w, in, l, at, EMU_FD_WARP_RACE, EMU_LABEL_WRITE, EMU_LABEL_WRITE, s->w_loc,
                                s->w_warp, wl, &r, what, sizeof what, who, sizeof who);
                    emu_diag_report(&r, "writes shared memory %s that %s of the same warp wrote "
                                    "with another value, with no barrier between them: neither __syncthreads() nor "
                                    "__syncwarp(), so which value stays is undefined. %s", what, who, WARP_FIX);
                }
            }
            if (race) pending_race(x, k);
            record_write(x, w, s, bytes, l, in->loc);
            s->cp_thread = 0;
        }
    }
#undef WARP_FIX
}

/* A shared atomic reads the bytes (they must have been written) and writes them; atomics of several
 * threads on one word are no race, so only the write is recorded for the plain accesses that follow. */
static void shared_atomic(emu_ctx *x, emu_warp *w, const emu_insn *in, int l, uint32_t off, unsigned n)
{
    if (x->blocks) emu_dsmem_local(x, w, in, l, off, n, 2);   /* recorded: other blocks' atomics do not race */
    for (uint32_t k = off / 4; k <= (off + n - 1) / 4; k++) {
        emu_sword *s = &x->shadow[k];
        unsigned bytes = emu_word_bytes(k, off, n);
        if (s->w_interval < x->block_interval) { s->written = 0; s->w_bytes = 0; }
        if (bytes & ~s->written) pending_read(x, w, in, l, k, off, n);
        record_write(x, w, s, bytes, l, in->loc);
        s->cp_thread = 0;
    }
}

/* At a barrier or the block's end: the first read of never-written shared memory still pending is
 * described, the others counted. */
void emu_flush_pending(emu_ctx *x)
{
    for (int i = 0; i < x->npend; i++) {
        const emu_pending *p = &x->pend[i];
        if (!emu_diag_add(EMU_FD_UNINIT_SHARED, p->reads + (i == 0 ? x->pend_more : 0))) continue;
        char what[600];
        emu_record r;
        emu_where(x, &x->warps[p->warp], p->lane, p->loc, EMU_FD_UNINIT_SHARED, &r);
        emu_shared_what(x, p->off, p->size, what, sizeof what);
        array_of(what, &r);
        emu_diag_report(&r, "reads shared memory %s that no thread of this block has written: "
                        "the value is garbage (a missing load into shared memory, or an index past the part that "
                        "was filled?).", what);
    }
    x->npend = 0;
    x->pend_more = 0;
}

/* ---- Metrics ----------------------------------------------------------------------------------- */

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Distinct 32-byte sectors touched by the lanes' accesses of n bytes each. */
uint64_t emu_sectors(const uint64_t *addr, int cnt, unsigned n)
{
    uint64_t sec[128];
    int k = 0;
    for (int i = 0; i < cnt; i++)
        for (uint64_t s = addr[i] >> 5; s <= (addr[i] + n - 1) >> 5 && k < 128; s++) sec[k++] = s;
    int sorted = 1;
    for (int i = 1; i < k; i++) if (sec[i] < sec[i - 1]) { sorted = 0; break; }
    if (!sorted) qsort(sec, (size_t)k, sizeof *sec, cmp_u64);
    uint64_t d = k > 0;
    for (int i = 1; i < k; i++) d += sec[i] != sec[i - 1];
    return d;
}

/* Bank conflicts of one warp-wide shared access (32 banks of 4 bytes; the same word is a broadcast).
 * 8-byte accesses go in two half-warp phases, 16-byte ones in four quarter-warp phases. */
uint64_t emu_bank_conflicts(const uint32_t *off, const int *lane, int cnt, unsigned n)
{
    int lanes_per_phase = n <= 4 ? 32 : n == 8 ? 16 : 8;
    uint64_t extra = 0;
    for (int phase = 0; phase < 32 / lanes_per_phase; phase++) {
        uint32_t words[128];
        int k = 0;
        for (int i = 0; i < cnt; i++) {
            if (lane[i] / lanes_per_phase != phase) continue;
            for (uint32_t wd = off[i] / 4; wd <= (off[i] + n - 1) / 4 && k < 128; wd++) words[k++] = wd;
        }
        if (!k) continue;
        int per_bank[32] = { 0 };
        uint32_t first[32];
        int slow = 0;
        for (int i = 0; i < k && !slow; i++) {
            int b = (int)(words[i] & 31);
            if (!per_bank[b]) { per_bank[b] = 1; first[b] = words[i]; }
            else if (first[b] != words[i]) slow = 1;
        }
        if (!slow) continue;   /* every bank holds one word: no conflict */
        /* distinct words per bank */
        uint64_t w64[128];
        for (int i = 0; i < k; i++) w64[i] = ((uint64_t)(words[i] & 31) << 32) | words[i];
        qsort(w64, (size_t)k, sizeof *w64, cmp_u64);
        int worst = 0, run = 0;
        for (int i = 0; i < k; i++) {
            if (i == 0 || (w64[i] >> 32) != (w64[i - 1] >> 32)) run = 1;
            else if (w64[i] != w64[i - 1]) run++;
            if (run > worst) worst = run;
        }
        extra += (uint64_t)(worst - 1);
    }
    return extra;
}

/* ---- Address resolution -------------------------------------------------------------------------- */

/* Where a lane's access of n bytes lands; NULL (after a fatal finding) if nowhere valid. */
static uint8_t *resolve(emu_ctx *x, emu_warp *w, const emu_insn *in, int l, uint64_t addr, unsigned n, int acc,
                        int *space_out, uint32_t *soff)
{
    int space = emu_space_of(in->space, &addr);
    *space_out = space;
    if (addr % n) {
        /* vector and 8-byte accesses need natural alignment */
        misaligned(x, w, in, l, space == EMU_SP_GLOBAL ? addr : addr, n);
        return NULL;
    }
    if (space == EMU_SP_SHARED) {
        uint32_t off;
        if (!emu_shared_offset(x, addr, n, &off)) {
            uint32_t tag = (uint32_t)(addr >> EMU_SHARED_TAG_SHIFT);
            if (emu_dsmem_tag(x, tag)) {   /* a shared::cluster address: a block of the cluster */
                int own;
                uint8_t *p = emu_dsmem_resolve(x, w, in, l, addr, n, acc, &own, soff);
                if (own == 0) *space_out = EMU_SP_SHARED_CLUSTER;   /* another block's: checked there */
                if (own >= 0) return p;
            }
            shared_oob(x, w, in, l, tag, (int64_t)addr - EMU_SHARED_TAG_ADDR(tag), n, acc);
            return NULL;
        }
        *soff = off;
        return x->shared + off;
    }
    if (space == EMU_SP_LOCAL) {
        if (addr + n > w->local_cap || addr >= w->local_cap) { local_oob(x, w, in, l, addr, n, acc); return NULL; }
        return w->local + (size_t)l * w->local_cap + addr;
    }
    emu_alloc *a = x->last_alloc;
    if (!a || addr < a->base || addr + n > a->base + a->size || addr + n < addr) {
        a = emu_mem_lookup((uintptr_t)addr, n);
        if (!a) { global_oob(x, w, in, l, addr, n, acc); return NULL; }
        if (!peer_ok(x, a)) { peer_denied(x, w, in, l, addr, acc, a); return NULL; }
        x->last_alloc = a;
        x->last_full = a->written_upto >= a->size;
        x->last_shadow = emu_race_shadow_of(x, a, 0);
    }
    if (a->guard_name[0] && (addr < a->open_lo || addr + n > a->open_hi)) guard_touched(x, w, in, l, addr, n, acc, a);
    size_t off = addr - a->base;
    if (emu_order_on)
        emu_order_access(a, addr, addr + n, (acc != ACC_LOAD) | ((acc == ACC_ATOMIC || (in->flags & EMU_F_VOLATILE)) << 1),
                         x->m, in->loc, x->race.seq);
    if (acc == ACC_LOAD ? reads_never_written(a, off, EMU_TSIZE(in->t), n / EMU_TSIZE(in->t))
                        : acc == ACC_ATOMIC && !emu_alloc_written(a, off, n))
        uninit_global(x, w, in, l, addr, n, a);
    if (acc != ACC_LOAD) emu_alloc_mark(a, off, n);
    return emu_alloc_view(a, addr);
}

uint8_t *emu_resolve(emu_ctx *x, emu_warp *w, const emu_insn *in, int l, uint64_t addr, unsigned n, int store,
                     int *space, uint32_t *soff)
{
    return resolve(x, w, in, l, addr, n, store ? ACC_STORE : ACC_LOAD, space, soff);
}

void emu_shared_store(emu_ctx *x, emu_warp *w, const emu_insn *in, int l, uint32_t off, unsigned n, int same)
{
    shared_check(x, w, in, l, off, n, ACC_STORE, same);
}

void emu_shared_race(emu_ctx *x, emu_warp *w, const emu_insn *in, int l, uint32_t off, int kind, int at_label,
                     int other_label, uint32_t loc, unsigned warp, int lane, emu_record *r, char *what, size_t whatlen,
                     char *who, size_t wholen)
{
    shared_race(x, w, in, l, off, kind, at_label, other_label, loc, warp, lane, r, what, whatlen, who, wholen);
}

static void count_access(emu_ctx *x, int acc, const uint64_t *gaddr, int ng, const uint32_t *soff, const int *slane, int ns, unsigned n)
{
    emu_metrics *met = x->met;
    if (ng) {
        if (acc == ACC_LOAD) {
            met->global_load_requests++;
            met->global_load_sectors += emu_sectors(gaddr, ng, n);
            met->global_read_bytes += (uint64_t)ng * n;
        }
        else { met->global_store_requests++; met->global_store_sectors += emu_sectors(gaddr, ng, n); }
    }
    if (ns) {
        uint64_t c = emu_bank_conflicts(soff, slane, ns, n);
        if (acc == ACC_LOAD) { met->shared_load_instructions++; met->shared_load_bank_conflicts += c; }
        else { met->shared_store_instructions++; met->shared_store_bank_conflicts += c; }
    }
}

/* ---- Global fast path: one range check for the whole warp against the last allocation hit ---------- */

static inline void load_n(uint64_t *dst, const uint8_t *p, unsigned sz)
{
    switch (sz) {
    case 1: *dst = *p; break;
    case 2: { uint16_t v; memcpy(&v, p, 2); *dst = v; break; }
    case 4: { uint32_t v; memcpy(&v, p, 4); *dst = v; break; }
    default: memcpy(dst, p, 8); break;
    }
}

static inline void store_n(uint8_t *p, uint64_t v, unsigned sz)
{
    switch (sz) {
    case 1: *p = (uint8_t)v; break;
    case 2: { uint16_t u = (uint16_t)v; memcpy(p, &u, 2); break; }
    case 4: { uint32_t u = (uint32_t)v; memcpy(p, &u, 4); break; }
    default: memcpy(p, &v, 8); break;
    }
}

/* Where the emulator keeps the byte the program calls addr, in an allocation of this shift (emu_alloc_view). */
static inline uint8_t *at(uintptr_t shift, uint64_t addr) { return (uint8_t *)(uintptr_t)(addr + shift); }

/* Sectors of a warp access whose lanes are in increasing, contiguous order: the common coalesced case. */
static uint64_t sectors_fast(const uint64_t *addr, int cnt, unsigned n)
{
    uint64_t diff = 0;
    for (int i = 1; i < cnt; i++) diff |= addr[i] ^ (addr[i - 1] + n);
    if (diff) return emu_sectors(addr, cnt, n);
    return ((addr[cnt - 1] + n - 1) >> 5) - (addr[0] >> 5) + 1;
}

/* The race record of lane l's global access of n bytes at addr (the allocation is x->last_alloc); for a
 * store or an atomic the allocation gets a record if it has none. p: where the bytes are. */
static void race_lane(emu_ctx *x, emu_warp *w, const emu_insn *in, const uint64_t *R, int l, uint64_t addr, unsigned n,
                      int kind)
{
    if (kind != EMU_RACE_READ && !x->last_shadow) x->last_shadow = emu_race_shadow_of(x, x->last_alloc, 1);
    int same = 0;
    uint8_t bytes[32];
    if (kind == EMU_RACE_WRITE) {
        unsigned sz = EMU_TSIZE(in->t);
        for (int k = 0; k < in->nvec; k++) store_n(bytes + k * sz, R[in->v[k] + l], sz);
        same = !memcmp(bytes, emu_alloc_view(x->last_alloc, addr), n);
    }
    emu_race_access(x, w, in, l, x->last_shadow, addr, n, kind, same);
    /* the store itself (again, after): the next lane's write compares with this one's value */
    if (kind == EMU_RACE_WRITE) memcpy(emu_alloc_view(x->last_alloc, addr), bytes, n);
}

/* race_lane for the lanes of m, whose addresses are addr[0..] in lane order. */
static void race_lanes(emu_ctx *x, emu_warp *w, const emu_insn *in, const uint64_t *R, uint32_t m, const uint64_t *addr,
                       unsigned n, int store)
{
    int i = 0;
    for (uint32_t mm = m; mm; mm &= mm - 1, i++)
        race_lane(x, w, in, R, __builtin_ctz(mm), addr[i], n, store ? EMU_RACE_WRITE : EMU_RACE_READ);
}

/* 1 when done, 0 when the slow path must run (to diagnose), -1 never. The lanes' addresses (addr, lo, hi)
 * are the program's, which the metrics count; the bytes are read and written where at() puts them. */
static int global_fast(emu_ctx *x, emu_warp *w, const emu_insn *in, uint64_t *R, uint32_t m, int store)
{
    if (x->peers && !store) return 0;   /* each lane's read is checked against the other devices' writes */
    unsigned sz = EMU_TSIZE(in->t), n = sz * in->nvec;
    uint64_t addr[32], lo = ~0ull, hi = 0, bad = 0;
    int cnt = 0, contiguous = 0;
    if (m == 0xffffffffu) {
        /* The whole warp: plain loops, and the coalesced case (lane l at base + l * n) found first, with
         * no per-lane address list at all. */
        const uint64_t *ra = R + in->a, imm = (uint64_t)in->imm, base = ra[0] + imm;
        uint64_t diff = 0, want = ra[0];
        EMU_IVDEP for (int l = 0; l < 32; l++) { diff |= ra[l] ^ want; want += n; }
        cnt = 32;
        if (!diff && base <= base + 31ull * n) { lo = base; hi = base + 31ull * n; bad = base; contiguous = 1; }
        else {
            EMU_IVDEP for (int l = 0; l < 32; l++) addr[l] = ra[l] + imm;
            EMU_IVDEP for (int l = 0; l < 32; l++) {
                bad |= addr[l];
                lo = addr[l] < lo ? addr[l] : lo;
                hi = addr[l] > hi ? addr[l] : hi;
            }
        }
    } else
        for (uint32_t mm = m; mm; mm &= mm - 1) {
            int l = __builtin_ctz(mm);
            uint64_t a = R[in->a + l] + (uint64_t)in->imm;
            addr[cnt++] = a;
            bad |= a;
            if (a < lo) lo = a;
            if (a > hi) hi = a;
        }
    if (bad & (n - 1)) return 0;
    emu_alloc *al = x->last_alloc;
    if (!al || lo < al->base || hi + n > al->base + al->size || hi + n < hi) {
        al = emu_mem_lookup((uintptr_t)lo, hi + n - lo);
        if (!al || !peer_ok(x, al)) return 0;   /* the slow path says why */
        x->last_alloc = al;
        /* Knowing that every byte is written is cheaper than touching the flags at every access: an
         * input written by cudaMemcpy is usually whole. The scan resumes where the last one stopped. */
        x->last_full = emu_alloc_settle(al) >= al->size;
        x->last_shadow = emu_race_shadow_of(x, al, 0);
    }
    if (al->guard_name[0] && (lo < al->open_lo || hi + n > al->open_hi)) return 0;   /* a guard: said by resolve */
    if (emu_order_on)
        emu_order_access(al, lo, hi + n, store | (((in->flags & EMU_F_VOLATILE) != 0) << 1), x->m, in->loc, x->race.seq);
    /* Races: every store and atomic is recorded; a load is checked once the memory has a record, or
     * when it is a strong read that may acquire what another block released. */
    if (store || x->last_shadow || ((in->flags & EMU_F_VOLATILE) && x->race.nsync)) {
        if (contiguous) EMU_IVDEP for (int l = 0; l < 32; l++) addr[l] = lo + (uint64_t)l * n;
        race_lanes(x, w, in, R, m, addr, n, store);
    }
    const uintptr_t shift = (uintptr_t)al->shift;
    if (!store) {
        /* A warp's next access by this load is usually one stride further: fetch it now, so that the
         * cache miss overlaps with the loop's other instructions instead of stalling the next load. */
        uint64_t *last = &x->stride_last[(((uintptr_t)in >> 4) ^ ((unsigned)w->id * 97u)) & 255];
        uint64_t next = lo + (lo - *last);
        if (*last && next >= al->base && next + 128 <= al->base + al->size) {
            __builtin_prefetch(at(shift, next));
            __builtin_prefetch(at(shift, next + 64));
        }
        *last = lo;
    }
    if (x->last_full && contiguous && in->nvec == 1 && !store && (sz == 4 || sz == 8)) {
        /* The commonest load of all: coalesced, one value per lane, every byte known to be written. */
        uint64_t *rd = R + in->v[0];
        const uint8_t *p = at(shift, lo);
        if (sz == 8) memcpy(rd, p, 32 * 8);
        else if (EMU_TKIND(in->t) == EMU_K_S)
            EMU_IVDEP for (int l = 0; l < 32; l++) { int32_t v; memcpy(&v, p + 4 * l, 4); rd[l] = (uint64_t)(int64_t)v; }
        else EMU_IVDEP for (int l = 0; l < 32; l++) { uint32_t v; memcpy(&v, p + 4 * l, 4); rd[l] = v; }
        x->met->global_load_requests++;
        x->met->global_read_bytes += (uint64_t)cnt * n;
        x->met->global_load_sectors += ((hi + n - 1) >> 5) - (lo >> 5) + 1;
        return 1;
    }
    if (contiguous) EMU_IVDEP for (int l = 0; l < 32; l++) addr[l] = lo + (uint64_t)l * n;
    if (x->last_full && cnt == 32 && in->nvec == 1 && !store) {
        /* A whole warp, one value per lane, every byte known to be written. */
        uint64_t *rd = R + in->v[0];
        int sgn = EMU_TKIND(in->t) == EMU_K_S;
        switch (sz) {
        case 4:
            if (sgn)
                EMU_IVDEP for (int l = 0; l < 32; l++) {
                    int32_t v;
                    memcpy(&v, at(shift, addr[l]), 4);
                    rd[l] = (uint64_t)(int64_t)v;
                }
            else
                EMU_IVDEP for (int l = 0; l < 32; l++) {
                    uint32_t v;
                    memcpy(&v, at(shift, addr[l]), 4);
                    rd[l] = v;
                }
            break;
        case 8: EMU_IVDEP for (int l = 0; l < 32; l++) memcpy(&rd[l], at(shift, addr[l]), 8); break;
        default:
            for (int l = 0; l < 32; l++) {
                uint64_t v;
                load_n(&v, at(shift, addr[l]), sz);
                if (sgn) v = (uint64_t)((int64_t)(v << (64 - 8 * sz)) >> (64 - 8 * sz));
                rd[l] = v;
            }
        }
        x->met->global_load_requests++;
        x->met->global_read_bytes += (uint64_t)cnt * n;
        x->met->global_load_sectors += contiguous ? ((hi + n - 1) >> 5) - (lo >> 5) + 1 : emu_sectors(addr, cnt, n);
        return 1;
    }
    if (x->last_full) {
        int sgn0 = EMU_TKIND(in->t) == EMU_K_S && sz < 8, i0 = 0;
        if (store) {
            for (uint32_t mm = m; mm; mm &= mm - 1, i0++) {
                int l = __builtin_ctz(mm);
                uint8_t *p = at(shift, addr[i0]);
                for (int k = 0; k < in->nvec; k++) store_n(p + k * sz, R[in->v[k] + l], sz);
            }
            x->met->global_store_requests++;
            x->met->global_store_sectors += sectors_fast(addr, cnt, n);
            return 1;
        }
        for (uint32_t mm = m; mm; mm &= mm - 1, i0++) {
            int l = __builtin_ctz(mm);
            const uint8_t *p = at(shift, addr[i0]);
            for (int k = 0; k < in->nvec; k++) {
                uint64_t v;
                load_n(&v, p + k * sz, sz);
                if (sgn0) v = (uint64_t)((int64_t)(v << (64 - 8 * sz)) >> (64 - 8 * sz));
                R[in->v[k] + l] = v;
            }
        }
        x->met->global_load_requests++;
        x->met->global_read_bytes += (uint64_t)cnt * n;
        x->met->global_load_sectors += sectors_fast(addr, cnt, n);
        return 1;
    }
    int sgn = EMU_TKIND(in->t) == EMU_K_S && sz < 8;
    int i = 0;
    if (store) {
        for (uint32_t mm = m; mm; mm &= mm - 1, i++) {
            int l = __builtin_ctz(mm);
            uint8_t *p = at(shift, addr[i]);
            for (int k = 0; k < in->nvec; k++) store_n(p + k * sz, R[in->v[k] + l], sz);
            if (!contiguous) emu_alloc_mark(al, addr[i] - al->base, n);
        }
        if (contiguous) emu_alloc_mark(al, lo - al->base, hi + n - lo);
        x->met->global_store_requests++;
        x->met->global_store_sectors += sectors_fast(addr, cnt, n);
        return 1;
    }
    for (int j = 0; j < cnt; j++)
        if (reads_never_written(al, addr[j] - al->base, sz, in->nvec)) {
            uninit_global(x, w, in, __builtin_ctz(m), addr[j], n, al);
            break;
        }
    for (uint32_t mm = m; mm; mm &= mm - 1, i++) {
        int l = __builtin_ctz(mm);
        const uint8_t *p = at(shift, addr[i]);
        for (int k = 0; k < in->nvec; k++) {
            uint64_t v;
            load_n(&v, p + k * sz, sz);
            if (sgn) v = (uint64_t)((int64_t)(v << (64 - 8 * sz)) >> (64 - 8 * sz));
            R[in->v[k] + l] = v;
        }
    }
    x->met->global_load_requests++;
    x->met->global_read_bytes += (uint64_t)cnt * n;
    x->met->global_load_sectors += sectors_fast(addr, cnt, n);
    return 1;
}

int emu_ld(emu_ctx *x, emu_warp *w, const emu_insn *in, uint64_t *R, uint32_t m)
{
    if (in->space == EMU_SP_GLOBAL && in->t != EMU_T_B128 && global_fast(x, w, in, R, m, 0)) return 1;
    unsigned sz = EMU_TSIZE(in->t), n = sz * in->nvec;
    int sgn = EMU_TKIND(in->t) == EMU_K_S && sz < 8;
    uint64_t gaddr[32]; uint32_t soff[32]; int slane[32];
    int ng = 0, ns = 0, nd = 0;   /* nd: another block's shared memory (distributed shared memory) */
    uint8_t *ptr[32];
    for (uint32_t mm = m; mm; mm &= mm - 1) {
        int l = __builtin_ctz(mm);
        uint64_t addr = R[in->a + l] + (uint64_t)in->imm;
        if (in->space == EMU_SP_SHARED || in->space == EMU_SP_LOCAL) addr = (uint32_t)addr;
        int space; uint32_t so = 0;
        uint8_t *p = resolve(x, w, in, l, addr, n, ACC_LOAD, &space, &so);
        if (!p) return 0;
        if (space == EMU_SP_GLOBAL) {
            gaddr[ng++] = addr;
            if (x->last_shadow || ((in->flags & EMU_F_VOLATILE) && x->race.nsync)) race_lane(x, w, in, R, l, addr, n, EMU_RACE_READ);
            if (x->peers) emu_peers_read(x, w, in, l, x->last_alloc, addr, n);
        } else if (space == EMU_SP_SHARED) { soff[ns] = so; slane[ns++] = l; shared_check(x, w, in, l, so, n, ACC_LOAD, 0); }
        else if (space == EMU_SP_SHARED_CLUSTER) nd = 1;
        ptr[l] = p;
    }
    /* Values go to registers after every lane's address was read: a register may be both. */
    for (uint32_t mm = m; mm; mm &= mm - 1) {
        int l = __builtin_ctz(mm);
        for (int k = 0; k < in->nvec; k++) {
            uint64_t v;
            load_n(&v, ptr[l] + k * sz, sz);
            if (sgn) v = (uint64_t)((int64_t)(v << (64 - 8 * sz)) >> (64 - 8 * sz));
            R[in->v[k] + l] = v;
        }
    }
    count_access(x, ACC_LOAD, gaddr, ng, soff, slane, ns, n);
    x->met->dsmem_load_requests += (uint64_t)nd;
    return 1;
}

int emu_st(emu_ctx *x, emu_warp *w, const emu_insn *in, uint64_t *R, uint32_t m)
{
    if (in->space == EMU_SP_GLOBAL && global_fast(x, w, in, R, m, 1)) return 1;
    unsigned sz = EMU_TSIZE(in->t), n = sz * in->nvec;
    uint64_t gaddr[32]; uint32_t soff[32]; int slane[32];
    int ng = 0, ns = 0, nd = 0;
    for (uint32_t mm = m; mm; mm &= mm - 1) {
        int l = __builtin_ctz(mm);
        uint64_t addr = R[in->a + l] + (uint64_t)in->imm;
        if (in->space == EMU_SP_SHARED || in->space == EMU_SP_LOCAL) addr = (uint32_t)addr;
        int space; uint32_t so = 0;
        uint8_t *p = resolve(x, w, in, l, addr, n, ACC_STORE, &space, &so);
        if (!p) return 0;
        if (space == EMU_SP_GLOBAL) {
            gaddr[ng++] = addr;
            race_lane(x, w, in, R, l, addr, n, EMU_RACE_WRITE);
        } else if (space == EMU_SP_SHARED) {
            uint8_t bytes[32];
            for (int k = 0; k < in->nvec; k++) store_n(bytes + k * sz, R[in->v[k] + l], sz);
            soff[ns] = so; slane[ns++] = l;
            shared_check(x, w, in, l, so, n, ACC_STORE, !memcmp(bytes, p, n));
        } else if (space == EMU_SP_SHARED_CLUSTER) nd = 1;
        for (int k = 0; k < in->nvec; k++) store_n(p + k * sz, R[in->v[k] + l], sz);
    }
    count_access(x, ACC_STORE, gaddr, ng, soff, slane, ns, n);
    x->met->dsmem_store_requests += (uint64_t)nd;
    return 1;
}

/* ---- Kernel parameters read through a register (CUB takes a parameter's address) ------------------- */

int emu_ld_param_at(emu_ctx *x, emu_warp *w, const emu_insn *in, uint64_t *R, uint32_t m, uint32_t param_bytes)
{
    unsigned sz = EMU_TSIZE(in->t), n = sz * in->nvec;
    int sgn = EMU_TKIND(in->t) == EMU_K_S && sz < 8;
    for (uint32_t mm = m; mm; mm &= mm - 1) {
        int l = __builtin_ctz(mm);
        uint64_t off = R[in->a + l] + (uint64_t)in->imm;
        if (off > param_bytes || n > param_bytes - off) {
            if (emu_diag_first(EMU_FD_OOB_PARAM)) {
                emu_record r;
                emu_where(x, w, l, in->loc, EMU_FD_OOB_PARAM, &r);
                emu_diag_report(&r, "a read of %u bytes at offset %lld of the kernel's parameters, "
                                "which are %u bytes. The launch fails with cudaErrorIllegalAddress.",
                                n, (long long)(int64_t)off, param_bytes);
            }
            emu_fatal(x, 700);
            return 0;
        }
        for (int k = 0; k < in->nvec; k++) {
            uint64_t v = 0;
            memcpy(&v, x->params + off + (uint64_t)k * sz, sz);
            if (sgn) v = (uint64_t)((int64_t)(v << (64 - 8 * sz)) >> (64 - 8 * sz));
            R[in->v[k] + l] = v;
        }
    }
    return 1;
}

/* ---- Atomics ---------------------------------------------------------------------------------------- */

static float ftz32(float f) { return (fpclassify(f) == FP_SUBNORMAL) ? copysignf(0.0f, f) : f; }

static uint64_t atom_apply(const emu_insn *in, uint64_t old, uint64_t b, uint64_t c)
{
    int t = in->t, k = EMU_TKIND(t);
    unsigned sz = EMU_TSIZE(t);
    switch (in->mod) {
    case EMU_AT_ADD:
        if (t == EMU_T_F32) {
            float o, v; uint32_t u = (uint32_t)old, bu = (uint32_t)b;
            memcpy(&o, &u, 4); memcpy(&v, &bu, 4);
            float r = ftz32(ftz32(o) + ftz32(v));   /* atom.add.f32 flushes subnormals */
            memcpy(&u, &r, 4);
            return u;
        }
        if (t == EMU_T_F64) { double o, v, r; memcpy(&o, &old, 8); memcpy(&v, &b, 8); r = o + v; uint64_t u; memcpy(&u, &r, 8); return u; }
        return old + b;
    case EMU_AT_MIN: case EMU_AT_MAX: {
        int less;
        if (k == EMU_K_S) less = sz == 4 ? (int32_t)(uint32_t)b < (int32_t)(uint32_t)old : (int64_t)b < (int64_t)old;
        else less = sz == 4 ? (uint32_t)b < (uint32_t)old : b < old;
        if (in->mod == EMU_AT_MIN) return less ? b : old;
        int eq = sz == 4 ? (uint32_t)b == (uint32_t)old : b == old;
        return (!less && !eq) ? b : old;
    }
    case EMU_AT_AND: return old & b;
    case EMU_AT_OR: return old | b;
    case EMU_AT_XOR: return old ^ b;
    case EMU_AT_EXCH: return b;
    case EMU_AT_CAS: return (sz == 4 ? (uint32_t)old == (uint32_t)b : old == b) ? c : old;
    case EMU_AT_INC: return (uint32_t)old >= (uint32_t)b ? 0 : (uint32_t)old + 1;
    case EMU_AT_DEC: return ((uint32_t)old == 0 || (uint32_t)old > (uint32_t)b) ? (uint32_t)b : (uint32_t)old - 1;
    }
    return old;
}

int emu_atom(emu_ctx *x, emu_warp *w, const emu_insn *in, uint64_t *R, uint32_t m)
{
    unsigned n = EMU_TSIZE(in->t);
    int any_global = 0, any_shared = 0;
    for (uint32_t mm = m; mm; mm &= mm - 1) {   /* lanes in order, one at a time, as the hardware serialises them */
        int l = __builtin_ctz(mm);
        uint64_t addr = R[in->a + l] + (uint64_t)in->imm;
        if (in->space == EMU_SP_SHARED) addr = (uint32_t)addr;
        int space; uint32_t so = 0;
        uint8_t *p = resolve(x, w, in, l, addr, n, ACC_ATOMIC, &space, &so);
        if (!p) return 0;
        if (space == EMU_SP_SHARED) {
            any_shared = 1;
            shared_atomic(x, w, in, l, so, n);
        } else if (space == EMU_SP_SHARED_CLUSTER) {
            any_shared = 1;
        } else {
            any_global = 1;
            race_lane(x, w, in, R, l, addr, n, EMU_RACE_ATOMIC);
        }
        uint64_t old = 0;
        memcpy(&old, p, n);
        uint64_t nv = atom_apply(in, old, R[in->b + l], R[in->c + l]);
        memcpy(p, &nv, n);
        if (in->op == EMU_OP_ATOM) R[in->d + l] = old;
    }
    if (any_global) x->met->global_atomics++;
    if (any_shared) x->met->shared_atomics++;
    return 1;
}

/* ---- For printf and assert --------------------------------------------------------------------------- */

void *emu_local_ptr(emu_ctx *x, emu_warp *w, int lane, uint64_t addr, size_t size)
{
    (void)x;
    if (addr >= w->local_cap || addr + size > w->local_cap) return NULL;
    return w->local + (size_t)lane * w->local_cap + addr;
}

const void *emu_generic_ptr(emu_ctx *x, emu_warp *w, int lane, uint64_t addr, size_t size)
{
    if (addr - EMU_SHARED_WINDOW < EMU_WINDOW_SIZE) {
        uint32_t off;
        return emu_shared_offset(x, addr - EMU_SHARED_WINDOW, (unsigned)size, &off) ? x->shared + off : NULL;
    }
    if (addr - EMU_LOCAL_WINDOW < EMU_WINDOW_SIZE) return emu_local_ptr(x, w, lane, addr - EMU_LOCAL_WINDOW, size);
    const emu_alloc *a = emu_mem_lookup((uintptr_t)addr, size);
    return a ? emu_alloc_view(a, addr) : NULL;
}
