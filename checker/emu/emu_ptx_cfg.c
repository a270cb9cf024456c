/* emu_ptx_cfg.c - a function's control-flow graph and immediate post-dominators: where diverged lanes meet. */
#include <stdlib.h>
#include <string.h>

#include "emu_ptx.h"

static int ends_block(const emu_insn *in)
{
    return in->op == EMU_OP_BRA || in->op == EMU_OP_RET || in->op == EMU_OP_EXIT || in->op == EMU_OP_TRAP;
}

/* The blocks from which the exit can be reached, along succ and the virtual edges to the exit. */
static char *exit_reachers(int nb, int (*succ)[2], const char *vexit, int EXIT)
{
    char *reach = calloc((size_t)nb, 1);
    if (!reach) abort();
    for (int changed = 1; changed;) {
        changed = 0;
        for (int b = nb - 1; b >= 0; b--) {
            if (reach[b]) continue;
            int r = vexit[b];
            for (int k = 0; k < 2 && !r; k++) r = succ[b][k] == EXIT || (succ[b][k] >= 0 && reach[succ[b][k]]);
            if (r) { reach[b] = 1; changed = 1; }
        }
    }
    return reach;
}

/* Whether block b is the target of a backward branch from a block that cannot reach the exit either:
 * the header of a loop with no way out. */
static int is_back_edge_target(const emu_func *f, const int *start, const int *last, int nb, int b, const char *reach)
{
    for (int c = 0; c < nb; c++) {
        const emu_insn *in = &f->code[last[c]];
        if (!reach[c] && in->op == EMU_OP_BRA && in->target == start[b] && in->target <= last[c]) return 1;
    }
    return 0;
}

/* Whether in does something that other threads could wait for or see: a barrier, a warp-synchronous
 * instruction, a store or an atomic, a call (or the return of a .func to its caller, whose code follows),
 * an instruction not run here. Arithmetic, loads and branches do not. */
static int acts_on_others(const emu_insn *in)
{
    switch (in->op) {
    case EMU_OP_BAR: case EMU_OP_BAR_RED: case EMU_OP_BAR_ARRIVE: case EMU_OP_CBAR_ARRIVE: case EMU_OP_CBAR_WAIT:
    case EMU_OP_WARPSYNC: case EMU_OP_SHFL:
    case EMU_OP_VOTE: case EMU_OP_REDUX: case EMU_OP_MATCH: case EMU_OP_ST: case EMU_OP_ATOM: case EMU_OP_RED:
    case EMU_OP_CP_ASYNC:
    case EMU_OP_CALL: case EMU_OP_CALL_PRINTF: case EMU_OP_CALL_ASSERT: case EMU_OP_RET: case EMU_OP_UNSUPPORTED:
        return 1;
    }
    return 0;
}

/* The instructions that may run after instruction i (at most two); 0 after an exit. */
static int successors(const emu_func *f, int i, int s[2])
{
    const emu_insn *in = &f->code[i];
    int k = 0, n = f->ncode;
    if (in->op == EMU_OP_BRA && in->target >= 0 && in->target < n) s[k++] = in->target;
    int ends = in->op == EMU_OP_BRA || in->op == EMU_OP_EXIT || in->op == EMU_OP_TRAP || in->op == EMU_OP_RET;
    if ((!ends || in->guard >= 0) && i + 1 < n) s[k++] = i + 1;
    return k;
}

/* f->leaving (made when first asked: most kernels never need it): the instructions from which every path reaches the kernel's exit doing nothing on the way
 * that other threads could wait for or see (acts_on_others). A lane that waits there for the others of its
 * warp to reconverge (it returned early, or left a loop that the others still run) only has to exit: a
 * warp-synchronous instruction of the others need not wait for it, as the PTX ISA says of exited threads
 * (and ptxas makes such lanes exit where they leave). Computed as the largest set closed under "nothing
 * acts on others on any path", cut to the instructions that can reach an exit (a loop with no way out
 * never exits). */
const uint8_t *emu_ptx_leaving(const emu_func *cf)
{
    emu_func *f = (emu_func *)cf;   /* a cache: made at the first question */
    if (f->leaving) return f->leaving;
    int n = f->ncode, s[2];
    uint8_t *quiet = malloc((size_t)(n > 0 ? n : 1)), *exits = calloc((size_t)(n > 0 ? n : 1), 1);
    f->leaving = calloc((size_t)(n > 0 ? n : 1), 1);
    if (!quiet || !exits || !f->leaving) abort();
    for (int i = 0; i < n; i++) {
        quiet[i] = !acts_on_others(&f->code[i]);
        exits[i] = f->code[i].op == EMU_OP_EXIT || f->code[i].op == EMU_OP_TRAP;
    }
    for (int changed = 1; changed;) {
        changed = 0;
        for (int i = n - 1; i >= 0; i--) {
            int k = successors(f, i, s);
            for (int j = 0; j < k; j++) {
                if (quiet[i] && !quiet[s[j]]) { quiet[i] = 0; changed = 1; }
                if (!exits[i] && exits[s[j]]) { exits[i] = 1; changed = 1; }
            }
        }
    }
    for (int i = 0; i < n; i++) f->leaving[i] = quiet[i] && exits[i];
    free(quiet);
    free(exits);
    return f->leaving;
}

/* Post-dominator sets by iteration over bit sets (functions here have at most a few hundred blocks);
 * the immediate post-dominator of a block is its strict post-dominator with the largest set. */
void emu_ptx_cfg(emu_func *f)
{
    int n = f->ncode;
    free(f->ipdom);
    f->ipdom = malloc((size_t)(n > 0 ? n : 1) * sizeof *f->ipdom);
    if (!f->ipdom) abort();
    for (int i = 0; i < n; i++) f->ipdom[i] = -1;
    free(f->leaving);
    f->leaving = NULL;   /* emu_ptx_leaving makes it when first asked */
    if (n == 0) return;

    /* Leaders and blocks. */
    char *leader = calloc((size_t)n + 1, 1);
    int *block_of = malloc((size_t)n * sizeof *block_of);
    if (!leader || !block_of) abort();
    leader[0] = 1;
    for (int i = 0; i < n; i++) {
        const emu_insn *in = &f->code[i];
        if (in->op == EMU_OP_BRA && in->target >= 0 && in->target < n) leader[in->target] = 1;
        if (ends_block(in) && i + 1 < n) leader[i + 1] = 1;
    }
    int nb = 0;
    for (int i = 0; i < n; i++) { if (leader[i]) nb++; block_of[i] = nb - 1; }
    int *start = malloc((size_t)nb * sizeof *start), *last = malloc((size_t)nb * sizeof *last);
    int (*succ)[2] = malloc((size_t)nb * sizeof *succ);
    if (!start || !last || !succ) abort();
    for (int i = 0; i < n; i++) { if (leader[i]) start[block_of[i]] = i; last[block_of[i]] = i; }
    int EXIT = nb;   /* the virtual exit node */
    for (int b = 0; b < nb; b++) {
        const emu_insn *in = &f->code[last[b]];
        int fall = last[b] + 1 < n ? block_of[last[b] + 1] : EXIT;
        succ[b][0] = succ[b][1] = -1;
        if (in->op == EMU_OP_BRA) {
            int t = (in->target >= 0 && in->target < n) ? block_of[in->target] : EXIT;
            succ[b][0] = t;
            if (in->guard >= 0) succ[b][1] = fall;
        } else if (in->op == EMU_OP_RET || in->op == EMU_OP_EXIT || in->op == EMU_OP_TRAP) {
            succ[b][0] = in->guard >= 0 ? fall : EXIT;
            if (in->guard >= 0) succ[b][1] = EXIT;
        } else succ[b][0] = fall;
    }
    /* A loop with no way out (an unsigned s >= 0, or a step that never changes s) reaches no exit, so no
     * block in it has post-dominators and lanes that diverge inside it would never meet again. Each such
     * loop gets a virtual edge from its header to the exit, where lanes meet as in any loop; its back
     * edges are marked, so that a warp that goes round it is stopped with a finding that names it. */
    char *vexit = calloc((size_t)nb, 1), *doomed = calloc((size_t)nb, 1);
    if (!vexit || !doomed) abort();
    for (int first = 1;; first = 0) {
        char *reach = exit_reachers(nb, succ, vexit, EXIT);
        int header = -1;
        for (int b = 0; b < nb && header < 0; b++)
            if (!reach[b] && is_back_edge_target(f, start, last, nb, b, reach)) header = b;
        for (int b = 0; b < nb && header < 0; b++) if (!reach[b]) header = b;
        if (first) for (int b = 0; b < nb; b++) doomed[b] = !reach[b];
        free(reach);
        if (header < 0) break;
        vexit[header] = 1;
    }
    for (int b = 0; b < nb; b++) {
        emu_insn *in = &f->code[last[b]];
        if (in->op == EMU_OP_BRA && in->target >= 0 && in->target <= last[b] && doomed[block_of[in->target]])
            in->flags |= EMU_F_ENDLESS;
    }

    int nn = nb + 1;
    size_t words = ((size_t)nn + 63) / 64;
    uint64_t *pd = malloc((size_t)nn * words * sizeof *pd);
    uint64_t *tmp = malloc(words * sizeof *tmp);
    if (!pd || !tmp) abort();
    for (int b = 0; b < nn; b++) memset(pd + (size_t)b * words, 0xff, words * sizeof *pd);
    memset(pd + (size_t)EXIT * words, 0, words * sizeof *pd);
    pd[(size_t)EXIT * words + EXIT / 64] |= 1ull << (EXIT % 64);
    for (int changed = 1; changed;) {
        changed = 0;
        for (int b = nb - 1; b >= 0; b--) {
            memset(tmp, 0xff, words * sizeof *tmp);
            for (int k = 0; k < 3; k++) {
                int s = k < 2 ? succ[b][k] : vexit[b] ? EXIT : -1;
                if (s < 0) continue;
                for (size_t w = 0; w < words; w++) tmp[w] &= pd[(size_t)s * words + w];
            }
            tmp[b / 64] |= 1ull << (b % 64);
            if (memcmp(tmp, pd + (size_t)b * words, words * sizeof *tmp)) {
                memcpy(pd + (size_t)b * words, tmp, words * sizeof *tmp);
                changed = 1;
            }
        }
    }
    int *size = malloc((size_t)nn * sizeof *size);
    if (!size) abort();
    for (int b = 0; b < nn; b++) {
        int c = 0;
        for (size_t w = 0; w < words; w++) c += __builtin_popcountll(pd[(size_t)b * words + w]);
        size[b] = c;
    }
    for (int b = 0; b < nb; b++) {
        const emu_insn *in = &f->code[last[b]];
        if (in->op != EMU_OP_BRA || in->guard < 0) continue;
        /* a block that cannot reach the exit has every block in its set: no meeting point */
        if (!(pd[(size_t)b * words + EXIT / 64] & (1ull << (EXIT % 64)))) continue;
        int best = -1;
        for (int q = 0; q < nn; q++) {
            if (q == b || !(pd[(size_t)b * words + q / 64] & (1ull << (q % 64)))) continue;
            if (best < 0 || size[q] > size[best]) best = q;
        }
        f->ipdom[last[b]] = (best < 0 || best == EXIT) ? -1 : start[best];
    }
    free(size); free(pd); free(tmp); free(succ); free(start); free(last); free(leader); free(block_of);
    free(vexit); free(doomed);
}
