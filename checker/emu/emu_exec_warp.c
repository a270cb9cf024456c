/* emu_exec_warp.c - warp-wide instructions: shuffles, votes, redux, match, and their member-mask checks.
 *
 * Each lane names its own member lanes: two half-warps may run one converged instruction with a mask
 * each (cub::WarpReduce<int, 16>, cooperative groups' tiled partitions), and each lane's result comes
 * from its own members only. */
#include <stdio.h>
#include <string.h>

#include "emu_exec.h"

static uint32_t lane_mask(const uint64_t *R, uint32_t slot, int l) { return (uint32_t)R[slot + l]; }

/* 1 when every lane of m names the same member mask (the common case: a full mask for all). */
static int one_mask(const uint64_t *R, uint32_t slot, uint32_t m)
{
    uint32_t first = lane_mask(R, slot, __builtin_ctz(m)), diff = 0;
    for (uint32_t mm = m; mm; mm &= mm - 1) diff |= lane_mask(R, slot, __builtin_ctz(mm)) ^ first;
    return diff == 0;
}

/* Whether the lanes missing from a warp instruction inside a function of the learner's (its call: r->other)
 * left the others before that call, so that the call sits in a branch they do not take, rather than in a
 * branch inside the function. The SIMT stack says where they left: the first entry from the top that holds
 * them waits there since the branch that made the entry above it; a call entry holds the lanes that made a
 * call that was not inlined. */
static int missing_before_call(const emu_ctx *x, const emu_warp *w, uint32_t missing, const emu_record *r)
{
    const emu_func *f = emu_top_frame(w)->f;
    for (int i = w->sp - 1; i >= 0; i--) {
        const emu_simt *e = &w->stack[i];
        if (e->kind == EMU_S_CALL) return !(e->mask & missing);
        if (!(e->mask & missing)) continue;
        if (w->nframes > 1) return 0;   /* inside the function that was called: they left there */
        int32_t branch = i + 1 < w->sp ? w->stack[i + 1].from : -1;
        if (branch < 0 || branch >= f->ncode) return 1;
        emu_place at, call;
        emu_loc_places(x->m, f->code[branch].loc, &at, &call);
        return !(call.line == r->other.line && !strcmp(call.file, r->other.file));
    }
    return 1;
}

/* A warp-synchronous instruction names its member lanes in each lane's slot e: each executing lane must be
 * a member, every live member must execute it too, with the same mask (PTX: the instruction waits for
 * the non-exited threads of the mask; lanes on their way out, emu_lanes_leaving, count as exited).
 * Returns 1 when that holds; else reports the first violation. */
int emu_check_members(emu_ctx *x, emu_warp *w, const emu_insn *in, const uint64_t *R, uint32_t m, const char *what)
{
    int uniform = one_mask(R, in->e, m);
    for (uint32_t mm = m; mm; mm &= mm - 1) {
        int l = __builtin_ctz(mm);
        uint32_t members = lane_mask(R, in->e, l);
        uint32_t missing = members & ~m & w->live, outside = (uniform ? m : 1u << l) & ~members, other = 0;
        if (missing) missing &= ~emu_lanes_leaving(w, missing);
        for (uint32_t k = uniform ? 0 : members & m; k; k &= k - 1)
            if (lane_mask(R, in->e, __builtin_ctz(k)) != members) { other = 1u << __builtin_ctz(k); break; }
        if (!missing && !outside && !other) {
            if (uniform) return 1;   /* the same for every lane */
            continue;
        }
        if (emu_diag_first(EMU_FD_MEMBERS)) {
            emu_record r;
            emu_where(x, w, l, in->loc, EMU_FD_MEMBERS, &r);
            r.lanes = missing;
            if (missing && r.other.label == EMU_LABEL_CALL && missing_before_call(x, w, missing, &r))
                emu_diag_report(&r, "%s names lanes 0x%08x as members, but lanes 0x%08x of them do not call %s "
                                "here: the call at line %d sits in a branch that they do not take. Undefined "
                                "behaviour: every member lane must make that call, so take it out of the branch "
                                "(a lane with nothing to add can pass the identity, 0 for a sum).",
                                what, members, missing, r.other.func, r.other.line);
            else if (missing)
                emu_diag_report(&r, "%s names lanes 0x%08x as members, but lanes 0x%08x of them do "
                                "not execute it here (they took another branch): undefined behaviour. Call it where "
                                "every member lane reaches it, or name in the mask only the lanes that do.",
                                what, members, missing);
            else if (outside)
                emu_diag_report(&r, "lanes 0x%08x execute %s but are not in their member mask "
                                "0x%08x: undefined behaviour.", outside, what, members);
            else
                emu_diag_report(&r, "%s: lane %d names the members 0x%08x, but its member lane %d "
                                "names 0x%08x: lanes that take part together must pass the same mask, or the "
                                "result is undefined.", what, l, members, __builtin_ctz(other),
                                lane_mask(R, in->e, __builtin_ctz(other)));
        }
        return 0;
    }
    return 1;
}

/* Lane l of a shuffle reads lane j, which does not run this shuffle: its value is undefined. */
static void shfl_absent(emu_ctx *x, emu_warp *w, const emu_insn *in, int l, int j)
{
    static const char *const names[] = { "__shfl_up_sync", "__shfl_down_sync", "__shfl_xor_sync", "__shfl_sync" };
    char why[400];
    emu_record r;
    emu_where(x, w, l, in->loc, EMU_FD_SHFL_ABSENT, &r);
    /* Lane j never made the call of the learner's function this shuffle is in: the members' finding says so,
     * and that the call is what to move (this one's advice, a source lane inside the branch, would not fit). */
    if (r.other.label == EMU_LABEL_CALL && (w->live >> j & 1) && missing_before_call(x, w, 1u << j, &r)) return;
    if (!emu_diag_first(EMU_FD_SHFL_ABSENT)) return;
    r.lanes = 1u << j;
    if (!(w->exists >> j & 1))
        snprintf(why, sizeof why, emu_text("there is no thread in lane %d: the block has %u threads"), j, x->nthreads);
    else if (!(w->live >> j & 1))
        snprintf(why, sizeof why, emu_text("the thread in lane %d has already returned"), j);
    else if (emu_lanes_leaving(w, 1u << j))
        snprintf(why, sizeof why, emu_text("the thread in lane %d has nothing left to run but its exit (it returned "
                                           "early, or left a loop that this lane still runs)"), j);
    else
        snprintf(why, sizeof why, emu_text("the thread in lane %d is not running this line (it took another branch)"), j);
    emu_diag_report(&r, "%s (shfl.sync) in lane %d reads the value of lane %d, but %s: the value "
                    "it gets is undefined. Only read from lanes that run the shuffle with it (a source lane "
                    "within the block and the branch, e.g. lane + offset < blockDim.x).",
                    names[in->mod & 3], l, j, why);
}

void emu_shfl(emu_ctx *x, emu_warp *w, const emu_insn *in, uint64_t *R, uint32_t *P, uint32_t m, uint32_t mask)
{
    (void)mask;
    static const char *const what[] = { "__shfl_up_sync (shfl.sync)", "__shfl_down_sync (shfl.sync)",
                                        "__shfl_xor_sync (shfl.sync)", "__shfl_sync (shfl.sync)" };
    emu_check_members(x, w, in, R, m, what[in->mod & 3]);
    uint32_t src[32];
    for (int l = 0; l < 32; l++) src[l] = (uint32_t)R[in->a + l];   /* d may be a */
    uint32_t pbits = 0;
    /* The usual case: a full warp, the same lane offset and clamp everywhere, no segments. */
    const uint64_t *rb = R + in->b, *rc = R + in->c;
    uint64_t *rd = R + in->d;
    uint32_t b0 = (uint32_t)rb[0], c0 = (uint32_t)rc[0], diff = 0;
    for (int l = 0; l < 32; l++) diff |= ((uint32_t)rb[l] ^ b0) | ((uint32_t)rc[l] ^ c0);
    if (m == 0xffffffffu && !diff && ((c0 >> 8) & 31) == 0 && in->mod != EMU_SH_IDX) {
        int bb = (int)(b0 & 31), cv = (int)(c0 & 31);
        for (int l = 0; l < 32; l++) {
            int j = in->mod == EMU_SH_UP ? l - bb : in->mod == EMU_SH_DOWN ? l + bb : (l ^ bb);
            int ok = in->mod == EMU_SH_UP ? j >= cv : j <= cv;
            rd[l] = src[ok ? j : l];
            pbits |= (uint32_t)ok << l;
        }
        if (in->pd != 0xffff) P[in->pd] = pbits;
        return;
    }
    for (uint32_t mm = m; mm; mm &= mm - 1) {
        int l = __builtin_ctz(mm);
        int j = emu_shfl_lane(in->mod, l, (uint32_t)R[in->b + l], (uint32_t)R[in->c + l]), ok = j >= 0;
        if (!ok) j = l;
        else if (!(m >> j & 1)) { shfl_absent(x, w, in, l, j); j = l; }
        R[in->d + l] = src[j];
        pbits |= (uint32_t)ok << l;
    }
    if (in->pd != 0xffff) P[in->pd] = (P[in->pd] & ~m) | pbits;
}

void emu_vote(emu_ctx *x, emu_warp *w, const emu_insn *in, uint64_t *R, uint32_t *P, uint32_t m)
{
    emu_check_members(x, w, in, R, m, "__ballot_sync/__any_sync/__all_sync (vote.sync)");
    uint32_t p = P[in->pc];
    if (in->flags & EMU_F_NEG_C) p = ~p;
    uint32_t result = 0;
    for (uint32_t mm = m; mm; mm &= mm - 1) {
        int l = __builtin_ctz(mm);
        uint32_t group = lane_mask(R, in->e, l) & m, on = p & group;   /* this lane's members */
        switch (in->mod) {
        case EMU_VO_BALLOT: R[in->d + l] = on; break;
        case EMU_VO_ANY: result |= (uint32_t)(on != 0) << l; break;
        case EMU_VO_ALL: result |= (uint32_t)(on == group) << l; break;
        default: result |= (uint32_t)(on == group || on == 0) << l; break;
        }
    }
    if (in->mod != EMU_VO_BALLOT) P[in->pd] = (P[in->pd] & ~m) | result;
}

/* The reduction of redux.sync over the lanes in group. */
static uint32_t redux_of(const emu_insn *in, const uint64_t *R, uint32_t group)
{
    int sgn = EMU_TKIND(in->t) == EMU_K_S;
    uint32_t acc = (uint32_t)R[in->a + __builtin_ctz(group)];
    for (uint32_t mm = group & (group - 1); mm; mm &= mm - 1) {
        uint32_t v = (uint32_t)R[in->a + __builtin_ctz(mm)];
        switch (in->mod) {
        case EMU_AT_ADD: acc += v; break;
        case EMU_AT_MIN: acc = sgn ? ((int32_t)v < (int32_t)acc ? v : acc) : (v < acc ? v : acc); break;
        case EMU_AT_MAX: acc = sgn ? ((int32_t)v > (int32_t)acc ? v : acc) : (v > acc ? v : acc); break;
        case EMU_AT_AND: acc &= v; break;
        case EMU_AT_OR: acc |= v; break;
        case EMU_AT_XOR: acc ^= v; break;
        }
    }
    return acc;
}

void emu_redux(emu_ctx *x, emu_warp *w, const emu_insn *in, uint64_t *R, uint32_t m)
{
    emu_check_members(x, w, in, R, m, "__reduce_*_sync (redux.sync)");
    if (one_mask(R, in->e, m)) {
        uint32_t acc = redux_of(in, R, m);
        for (uint32_t mm = m; mm; mm &= mm - 1) R[in->d + __builtin_ctz(mm)] = acc;
        return;
    }
    uint32_t results[32];
    for (uint32_t mm = m; mm; mm &= mm - 1) {
        int l = __builtin_ctz(mm);
        uint32_t group = lane_mask(R, in->e, l) & m;
        results[l] = redux_of(in, R, group ? group : 1u << l);
    }
    for (uint32_t mm = m; mm; mm &= mm - 1) R[in->d + __builtin_ctz(mm)] = results[__builtin_ctz(mm)];
}

void emu_match(emu_ctx *x, emu_warp *w, const emu_insn *in, uint64_t *R, uint32_t *P, uint32_t m)
{
    emu_check_members(x, w, in, R, m, "__match_*_sync (match.sync)");
    uint64_t wmask = EMU_TSIZE(in->t) == 8 ? ~0ull : 0xffffffffull;
    uint32_t res[32], all[32];
    for (uint32_t mm = m; mm; mm &= mm - 1) {
        int l = __builtin_ctz(mm);
        uint32_t group = lane_mask(R, in->e, l) & m, s = 0;
        uint64_t v = R[in->a + l] & wmask;
        for (uint32_t k = group; k; k &= k - 1) { int j = __builtin_ctz(k); if ((R[in->a + j] & wmask) == v) s |= 1u << j; }
        res[l] = s;
        all[l] = (s | (1u << l)) == (group | (1u << l));
    }
    uint32_t pbits = 0;
    for (uint32_t mm = m; mm; mm &= mm - 1) {
        int l = __builtin_ctz(mm);
        uint32_t group = lane_mask(R, in->e, l) & m;
        R[in->d + l] = in->mod == EMU_VO_ALL ? (all[l] ? group : 0) : res[l];
        pbits |= all[l] << l;
    }
    if (in->mod == EMU_VO_ALL && in->pd != 0xffff) P[in->pd] = (P[in->pd] & ~m) | pbits;
}
