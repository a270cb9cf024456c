/* emu_exec_warp.c - warp-wide instructions: shuffles, votes, redux, match, and their member-mask checks. */
#include <stdio.h>
#include <string.h>

#include "emu_exec.h"

/* The lanes of m whose member mask (the register in->e) equals lane l's: they run the instruction as one
 * group. Lanes that run together may name different masks: CUB's logical warps of 16 lanes each name
 * their own half. */
static uint32_t mask_group(const emu_insn *in, const uint64_t *R, uint32_t m, int l)
{
    uint32_t mask = (uint32_t)R[in->e + l], group = 0;
    for (uint32_t mm = m; mm; mm &= mm - 1) {
        int j = __builtin_ctz(mm);
        if ((uint32_t)R[in->e + j] == mask) group |= 1u << j;
    }
    return group;
}

/* A warp-synchronous instruction names its member lanes; every member must execute it together, and each
 * lane must be a member of the mask it names. Each distinct mask among the lanes m is checked. Returns 1
 * when every mask is consistent with the lanes running here. */
int emu_check_members(emu_ctx *x, emu_warp *w, const emu_insn *in, const uint64_t *R, uint32_t m, const char *what)
{
    for (uint32_t todo = m; todo;) {
        int first = __builtin_ctz(todo);
        uint32_t members = (uint32_t)R[in->e + first], group = mask_group(in, R, todo, first);
        todo &= ~group;
        uint32_t missing = members & ~m & w->exists;
        uint32_t outside = group & ~members;
        if (!missing && !outside) continue;
        if (emu_diag_first(EMU_FD_MEMBERS)) {
            char where[800];
            emu_where(x, w, first, in->loc, where, sizeof where);
            if (missing)
                emu_diag_report(EMU_FD_MEMBERS, "%s: %s names lanes 0x%08x as members, but lanes 0x%08x of them do "
                                "not execute it here (they took another branch or exited): undefined behaviour. Call "
                                "it where every member lane reaches it, or pass __activemask() / a mask of the lanes "
                                "that do.", where, what, members, missing);
            else
                emu_diag_report(EMU_FD_MEMBERS, "%s: lanes 0x%08x execute %s but are not in its member mask 0x%08x: "
                                "undefined behaviour.", where, outside, what, members);
        }
        return 0;
    }
    return 1;
}

void emu_shfl(emu_ctx *x, emu_warp *w, const emu_insn *in, uint64_t *R, uint32_t *P, uint32_t m, uint32_t mask)
{
    (void)mask;
    emu_check_members(x, w, in, R, m, "__shfl_*_sync (shfl.sync)");
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
        uint32_t b = (uint32_t)R[in->b + l] & 31, c = (uint32_t)R[in->c + l];
        uint32_t segmask = (c >> 8) & 31, cval = c & 31;
        int maxl = (int)((l & segmask) | (cval & ~segmask)), minl = (int)(l & segmask);
        int j, ok;
        switch (in->mod) {
        case EMU_SH_UP: j = l - (int)b; ok = j >= maxl; break;
        case EMU_SH_DOWN: j = l + (int)b; ok = j <= maxl; break;
        case EMU_SH_BFLY: j = l ^ (int)b; ok = j <= maxl; break;
        default: j = minl | (int)(b & ~segmask); ok = j <= maxl; break;
        }
        if (!ok || j < 0 || j > 31) j = l;
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
    uint32_t ballot[32], result = 0;   /* any/all/uni: the lanes whose answer is true */
    /* Each group of lanes that name the same mask votes among themselves. */
    for (uint32_t todo = m; todo;) {
        uint32_t group = mask_group(in, R, todo, __builtin_ctz(todo));
        todo &= ~group;
        uint32_t on = p & group;
        for (uint32_t mm = group; mm; mm &= mm - 1) ballot[__builtin_ctz(mm)] = on;
        if (in->mod == EMU_VO_ANY ? on != 0 : in->mod == EMU_VO_ALL ? on == group : (on == group || on == 0))
            result |= group;
    }
    if (in->mod == EMU_VO_BALLOT) {
        for (uint32_t mm = m; mm; mm &= mm - 1) R[in->d + __builtin_ctz(mm)] = ballot[__builtin_ctz(mm)];
        return;
    }
    P[in->pd] = (P[in->pd] & ~m) | result;
}

void emu_redux(emu_ctx *x, emu_warp *w, const emu_insn *in, uint64_t *R, uint32_t m)
{
    emu_check_members(x, w, in, R, m, "__reduce_*_sync (redux.sync)");
    int sgn = EMU_TKIND(in->t) == EMU_K_S;
    uint32_t out[32];
    for (uint32_t todo = m; todo;) {
        uint32_t group = mask_group(in, R, todo, __builtin_ctz(todo));
        todo &= ~group;
        uint32_t acc = 0;
        int first = 1;
        for (uint32_t mm = group; mm; mm &= mm - 1) {
            uint32_t v = (uint32_t)R[in->a + __builtin_ctz(mm)];
            if (first) { acc = v; first = 0; continue; }
            switch (in->mod) {
            case EMU_AT_ADD: acc += v; break;
            case EMU_AT_MIN: acc = sgn ? ((int32_t)v < (int32_t)acc ? v : acc) : (v < acc ? v : acc); break;
            case EMU_AT_MAX: acc = sgn ? ((int32_t)v > (int32_t)acc ? v : acc) : (v > acc ? v : acc); break;
            case EMU_AT_AND: acc &= v; break;
            case EMU_AT_OR: acc |= v; break;
            case EMU_AT_XOR: acc ^= v; break;
            }
        }
        for (uint32_t mm = group; mm; mm &= mm - 1) out[__builtin_ctz(mm)] = acc;
    }
    for (uint32_t mm = m; mm; mm &= mm - 1) R[in->d + __builtin_ctz(mm)] = out[__builtin_ctz(mm)];
}

void emu_match(emu_ctx *x, emu_warp *w, const emu_insn *in, uint64_t *R, uint32_t *P, uint32_t m)
{
    emu_check_members(x, w, in, R, m, "__match_*_sync (match.sync)");
    uint64_t wmask = EMU_TSIZE(in->t) == 8 ? ~0ull : 0xffffffffull;
    uint32_t res[32], same = 0;   /* same: the lanes of the groups whose values are all equal */
    for (uint32_t todo = m; todo;) {
        uint32_t group = mask_group(in, R, todo, __builtin_ctz(todo));
        todo &= ~group;
        uint64_t v0 = R[in->a + __builtin_ctz(group)] & wmask;
        int allsame = 1;
        for (uint32_t mm = group; mm; mm &= mm - 1) {
            int l = __builtin_ctz(mm);
            uint64_t v = R[in->a + l] & wmask;
            if (v != v0) allsame = 0;
            uint32_t s = 0;
            for (uint32_t k = group; k; k &= k - 1) { int j = __builtin_ctz(k); if ((R[in->a + j] & wmask) == v) s |= 1u << j; }
            res[l] = s;
        }
        if (allsame) same |= group;
        if (in->mod == EMU_VO_ALL)   /* each lane gets its group's mask when the group's values all match */
            for (uint32_t mm = group; mm; mm &= mm - 1) res[__builtin_ctz(mm)] = allsame ? group : 0;
    }
    for (uint32_t mm = m; mm; mm &= mm - 1) R[in->d + __builtin_ctz(mm)] = res[__builtin_ctz(mm)];
    if (in->mod == EMU_VO_ALL && in->pd != 0xffff) P[in->pd] = (P[in->pd] & ~m) | same;
}
