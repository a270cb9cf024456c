/* emu_exec_async.c - cp.async: copies from global into shared memory that land later, in groups a thread waits for. */
#include <string.h>

#include "emu_exec.h"

/* A copy is done at issue (the emulator runs one warp at a time, so nothing could see it land early), and
 * each destination word remembers the thread and the group that wrote it (emu_sword.cp_thread, cp_group).
 * What a GPU leaves undefined is then a finding: a shared read of such a word while the group has not been
 * waited for (the bytes may still be on their way), or, by another thread, before a barrier that follows the
 * issuing thread's wait (cp.async's writes are that thread's: others see them through a barrier). A thread's
 * groups are numbered as it commits them: a cp.async joins group cp_committed (the open one), commit_group
 * closes it, and wait_group N completes every group but the newest N, so groups below cp_done have landed. */

/* Text of what a learner should do, said with both findings. */
static const char emu_msg_cp_fix[] = N_(
    "Wait for the copy first (__pipeline_wait_prior(N) leaves at most N of the thread's newer groups in flight); "
    "another thread reads it after a __syncthreads() that follows the wait.");

int emu_cp_async(emu_ctx *x, emu_warp *w, const emu_insn *in, uint64_t *R, const uint32_t *P, uint32_t m)
{
    unsigned n = in->mod;
    emu_insn gin = *in, sin = *in;   /* the two halves: a global load and a shared store of n bytes */
    gin.space = EMU_SP_GLOBAL;
    gin.nvec = (uint8_t)(n / 4);
    uint32_t ignore = in->pc != 0xffff ? ((in->flags & EMU_F_NEG_C) ? ~P[in->pc] : P[in->pc]) : 0;
    uint64_t gaddr[32];
    int ng = 0;
    for (uint32_t mm = m; mm; mm &= mm - 1) {
        int l = __builtin_ctz(mm), space;
        uint64_t dst = (uint32_t)(R[in->a + l] + (uint64_t)in->imm), src = R[in->b + l] + R[in->e + l];
        unsigned from = (ignore >> l & 1) ? 0 : in->nargs ? (unsigned)R[in->c + l] : n;
        if (from > n) from = n;
        uint8_t bytes[16] = { 0 };
        uint32_t soff = 0, dummy;
        if (from == n) {
            const uint8_t *p = emu_resolve(x, w, &gin, l, src, n, 0, &space, &dummy);
            if (!p) return 0;
            memcpy(bytes, p, n);
        } else if (from) {
            /* a partial source: its bytes one by one (only they are read), aligned as the whole copy */
            if (src % n) { emu_resolve(x, w, &gin, l, src, n, 0, &space, &dummy); return 0; }
            gin.nvec = 1;
            gin.t = EMU_T_B8;
            for (unsigned i = 0; i < from; i++) {
                const uint8_t *p = emu_resolve(x, w, &gin, l, src + i, 1, 0, &space, &dummy);
                if (!p) return 0;
                bytes[i] = *p;
            }
            gin.nvec = (uint8_t)(n / 4);
            gin.t = EMU_T_B32;
        }
        if (from) gaddr[ng++] = src;
        uint8_t *d = emu_resolve(x, w, &sin, l, dst, n, 1, &space, &soff);
        if (!d) return 0;
        if (space != EMU_SP_SHARED) { memcpy(d, bytes, n); continue; }   /* another block's: checked there */
        emu_shared_store(x, w, &sin, l, soff, n, !memcmp(d, bytes, n));
        memcpy(d, bytes, n);
        uint16_t thread = (uint16_t)(w->id * 32 + l + 1), group = w->cp_committed[l];
        for (uint32_t k = soff / 4; k <= (soff + n - 1) / 4; k++) {
            x->shadow[k].cp_thread = thread;
            x->shadow[k].cp_group = group;
        }
    }
    if (ng) {
        x->met->global_async_requests++;
        x->met->global_async_sectors += emu_sectors(gaddr, ng, n);
        x->met->global_read_bytes += (uint64_t)ng * n;
    }
    return 1;
}

void emu_cp_commit(emu_warp *w, uint32_t m)
{
    for (uint32_t mm = m; mm; mm &= mm - 1) w->cp_committed[__builtin_ctz(mm)]++;
}

void emu_cp_wait(emu_ctx *x, emu_warp *w, const emu_insn *in, uint32_t m)
{
    for (uint32_t mm = m; mm; mm &= mm - 1) {
        int l = __builtin_ctz(mm);
        if (in->mod) w->cp_committed[l]++;   /* wait_all: commit_group, then wait_group 0 */
        uint16_t done = (uint16_t)(w->cp_committed[l] - (uint16_t)(in->mod ? 0 : in->imm));
        w->cp_done_before[l] = w->cp_done[l];
        if ((int16_t)(done - w->cp_done[l]) > 0) w->cp_done[l] = done;
        w->cp_wait_interval[l] = x->interval;
    }
}

void emu_cp_read(emu_ctx *x, emu_warp *w, const emu_insn *in, int l, const emu_sword *s, uint32_t off)
{
    unsigned issuer = s->cp_thread - 1u, reader = (unsigned)w->id * 32 + (unsigned)l;
    const emu_warp *iw = &x->warps[issuer / 32];
    int il = (int)(issuer % 32);
    int pending = (int16_t)(s->cp_group - iw->cp_done[il]) >= 0;
    /* another thread: the wait that completed the group must be behind a barrier */
    int unseen = !pending && reader != issuer && iw->cp_wait_interval[il] == x->interval &&
                 (int16_t)(s->cp_group - iw->cp_done_before[il]) >= 0;
    if (!(pending || unseen) || !emu_diag_first(EMU_FD_CP_ASYNC)) return;
    /* the read and the copy, both places of the record: the copy's line is the word's last write */
    char what[600], who[200];
    emu_record r;
    emu_shared_race(x, w, in, l, off, EMU_FD_CP_ASYNC, EMU_LABEL_READ, EMU_LABEL_COPY, s->w_loc, issuer / 32,
                    (int)(issuer % 32), &r, what, sizeof what, who, sizeof who);
    if (pending && reader == issuer)
        emu_diag_report(&r, "reads shared memory %s, which this thread's cp.async (__pipeline_memcpy_async) copies "
                        "into, before waiting for that copy: the bytes may not have landed. %s", what,
                        emu_text(emu_msg_cp_fix));
    else if (pending)
        emu_diag_report(&r, "reads shared memory %s, which a cp.async (__pipeline_memcpy_async) of %s copies into, "
                        "before that thread waited for the copy: the bytes may not have landed. %s", what, who,
                        emu_text(emu_msg_cp_fix));
    else
        emu_diag_report(&r, "reads shared memory %s, which a cp.async (__pipeline_memcpy_async) of %s copies into, "
                        "with no barrier between that thread's wait and this read: the copy is that thread's write, "
                        "which another thread sees only after a barrier. %s", what, who, emu_text(emu_msg_cp_fix));
}
