/* emu_exec_group.c - blocks that run together: a cluster's, or every block of a cooperative launch.
 *
 * A launch without clusters runs its blocks one after another (emu_exec_launch.c). A cluster's blocks
 * must run at the same time on a GPU: they wait for each other at the cluster barrier
 * (barrier.cluster.arrive/wait: cluster.sync()) and read each other's shared memory (emu_exec_dsmem.c).
 * So do the blocks of a cooperative launch, whose grid.sync() is a loop on a counter in the grid's
 * workspace (cooperative groups read its address from %envreg1 and %envreg2). Here a group of blocks is
 * resident at once, each with its warps, shared memory and barrier state; the running block's state is in
 * emu_ctx, the others' in their emu_block. A block runs until every warp that has not finished waits: at
 * the cluster barrier, or at a strong load (volatile, .acquire, .relaxed at gpu scope) or an atomic, where
 * a warp that spins for another block lets the others run. Clusters run one after another; a cooperative
 * launch is one group.
 *
 * A group that can no longer move is a deadlock on a GPU, reported: the cluster barrier waits for threads
 * that wait elsewhere, or every block spins on memory that nothing writes any more (grid.sync() waiting for
 * blocks that returned before it). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu_exec.h"

#define EMU_GRID_WS_BYTES 8  /* cooperative groups' grid_workspace: { wsSize, barrier } */

static const char emu_msg_cbar_divergent[] = N_(
    "%s is reached by only %d of the %d running threads of this warp: it sits in divergent code "
    "(inside an if or a loop that not all threads take). The cluster barrier waits for every thread of "
    "every block of the cluster, so the others never get past it: a deadlock (or undefined behaviour) on a "
    "GPU. Call cluster.sync() where every thread of the cluster reaches it.");
static const char emu_msg_cbar_deadlock[] = N_(
    "cluster.sync() (barrier.cluster) waits for every thread of the %u blocks of this cluster, but "
    "thread %s never arrives: it waits at %s at %s, which the threads waiting for the cluster never reach. "
    "On a GPU the cluster hangs. Every thread of every block must reach the same cluster barriers, and a "
    "__syncthreads() must not sit between a block's threads and the cluster barrier the others wait at.");
static const char emu_msg_grid_sync_exited[] = N_(
    "grid.sync() waits for every block of the grid, but block %s finished without reaching it: it "
    "returned before it, or it sits in a branch the block skips. The others wait for it forever: on a GPU "
    "the kernel hangs. Every thread of every block must reach each grid.sync(): guard the work with an if "
    "instead of returning.");
static const char emu_msg_grid_sync_exited_n[] = N_(
    "grid.sync() waits for every block of the grid, but blocks %s finished without reaching it: they "
    "returned before it, or it sits in a branch they skip. The others wait for them forever: on a GPU the "
    "kernel hangs. Every thread of every block must reach each grid.sync(): guard the work with an if "
    "instead of returning.");
static const char emu_msg_spin_forever[] = N_(
    "every block still running waits in a loop for memory that no thread writes any more (this warp "
    "reads the same value here again and again): the blocks wait for each other forever, and on a GPU the "
    "kernel hangs. Does each block reach what the others wait for (a grid.sync(), a flag it sets)? The "
    "launch fails with cudaErrorLaunchTimeout.");
static const char emu_msg_grid_sync_plain[] = N_(
    "grid.sync() needs a cooperative launch: cooperative groups found no grid workspace and trapped, "
    "because the kernel was launched with <<<>>> (or cudaLaunchKernel). Launch it with "
    "cudaLaunchCooperativeKernel, or cudaLaunchKernelEx with the attribute cudaLaunchAttributeCooperative, "
    "and no more blocks than fit on the device at once (cudaOccupancyMaxActiveBlocksPerMultiprocessor "
    "times the number of SMs). The launch fails with cudaErrorLaunchFailure.");

/* ---- The running block ------------------------------------------------------------------------------ */

/* Puts block b's state where the executor reads it. */
static void enter(emu_ctx *x, emu_block *b)
{
    x->cur = b;
    x->ctaid = b->ctaid;
    x->warps = b->warps;
    x->shared = b->shared;
    x->shadow = b->shadow;
    x->interval = b->interval;
    x->block_interval = b->block_interval;
    x->bar_popc = b->bar_popc; x->bar_and = b->bar_and; x->bar_or = b->bar_or;
    memcpy(x->bar_arrived, b->bar_arrived, sizeof x->bar_arrived);
    memcpy(x->bar_expected, b->bar_expected, sizeof x->bar_expected);
    x->pend = b->pend; x->npend = b->npend; x->pend_more = b->pend_more;
    x->race.block = b->race_block; x->race.acquired = b->race_acquired; x->race.fence_seq = b->race_fence_seq;
    x->race.fence_sys_seq = b->race_fence_sys_seq;
    x->dsmem_hot = b->dsmem_phase == x->cbar_phase[b->cluster];
}

/* Keeps the running block's state in its emu_block. */
static void leave(emu_ctx *x)
{
    emu_block *b = x->cur;
    b->interval = x->interval;
    b->block_interval = x->block_interval;
    b->bar_popc = x->bar_popc; b->bar_and = x->bar_and; b->bar_or = x->bar_or;
    memcpy(b->bar_arrived, x->bar_arrived, sizeof b->bar_arrived);
    memcpy(b->bar_expected, x->bar_expected, sizeof b->bar_expected);
    b->npend = x->npend; b->pend_more = x->pend_more;
    b->race_block = x->race.block; b->race_acquired = x->race.acquired; b->race_fence_seq = x->race.fence_seq;
    b->race_fence_sys_seq = x->race.fence_sys_seq;
}

/* "(1,0,0), (3,0,0) and 2 more": the blocks of the group that have finished; *count: how many. */
static void done_text(emu_ctx *x, char *buf, size_t len, unsigned *count)
{
    size_t o = 0;
    unsigned shown = 0, total = 0;
    buf[0] = 0;
    for (int i = 0; i < x->nblocks; i++) {
        const emu_block *b = &x->blocks[i];
        if (!b->done) continue;
        total++;
        if (shown < 4 && o < len) {
            int n = snprintf(buf + o, len - o, "%s(%u,%u,%u)", shown ? ", " : "", b->ctaid.x, b->ctaid.y, b->ctaid.z);
            if (n > 0) o += (size_t)n;
            shown++;
        }
    }
    if (total > shown && o < len) snprintf(buf + o, len - o, emu_text(" and %u more"), total - shown);
    *count = total;
}

/* ---- The cluster barrier ---------------------------------------------------------------------------- */

/* The lanes m run a cluster barrier instruction while the warp's other live lanes do not: fine when those
 * are on their way out (they exit now, as in bar.sync), else a finding. */
static int converged(emu_ctx *x, emu_warp *w, const emu_insn *in, uint32_t m)
{
    if (m == w->live || emu_retire_exiting(w, m)) return 1;
    if (emu_diag_first(EMU_FD_CLUSTER_BAR)) {
        emu_record r;
        emu_where(x, w, __builtin_ctz(m), in->loc, EMU_FD_CLUSTER_BAR, &r);
        r.lanes = w->live & ~m;
        emu_diag_report(&r, emu_msg_cbar_divergent,
                        in->op == EMU_OP_CBAR_WAIT ? "cluster.sync() (barrier.cluster.wait)"
                                                   : "cluster.sync() (barrier.cluster.arrive)",
                        __builtin_popcount(m), __builtin_popcount(w->live));
    }
    emu_fatal(x, 702);
    return 0;
}

/* The current phase of the running block's cluster barrier (a block that is its own cluster: phase_top). */
static uint32_t phase_now(const emu_ctx *x)
{
    return x->cbar_phase ? x->cbar_phase[x->cur->cluster] : x->phase_top;
}

/* The lanes m arrive for the current phase. */
static void arrive(emu_warp *w, uint32_t m, uint32_t now)
{
    if (w->cbar_for != now) { w->cbar_arrived = 0; w->cbar_for = now; }
    w->cbar_arrived |= m;
}

/* Lanes of w that have not exited and have not arrived for phase now. */
static uint32_t not_arrived(const emu_warp *w, uint32_t now)
{
    return w->live & ~(w->cbar_for == now ? w->cbar_arrived : 0);
}

int emu_cluster_arrive(emu_ctx *x, emu_warp *w, const emu_insn *in, uint32_t m)
{
    if (in->mod && !converged(x, w, in, m)) return 0;   /* .aligned: the whole warp together */
    arrive(w, m, phase_now(x));
    emu_race_cluster_arrive(x);
    return 1;
}

int emu_cluster_wait(emu_ctx *x, emu_warp *w, const emu_insn *in, uint32_t m, int pc)
{
    if (!converged(x, w, in, m)) return 0;
    uint32_t now = phase_now(x);
    /* lanes that arrived for a phase that has completed since (cluster.barrier_arrive(), work, then
     * barrier_wait()) go on */
    if (w->cbar_for != now && w->cbar_for && (m & ~w->cbar_arrived) == 0) return 2;
    arrive(w, m, now);   /* a wait with no arrive before it is undefined: taken as both */
    w->bar_pc = pc;
    return 1;
}

/* Whether every thread of cluster c that has not exited arrived at its barrier. */
static int cluster_complete(emu_ctx *x, uint32_t c)
{
    for (uint32_t r = 0; r < x->cluster_size; r++) {
        const emu_block *b = &x->blocks[c * x->cluster_size + r];
        for (int i = 0; i < x->nwarps; i++)
            if (not_arrived(&b->warps[i], x->cbar_phase[c])) return 0;
    }
    return 1;
}

/* The warps of the running block waiting at the cluster barrier go on: a new phase begins, which is also a
 * new barrier interval of the block (the cluster barrier is a barrier of each of its blocks too). */
static void release_block(emu_ctx *x)
{
    emu_flush_pending(x);
    x->interval = ++x->interval_top;
    for (int i = 0; i < x->nwarps; i++) {
        emu_warp *w = &x->warps[i];
        if (w->state != EMU_W_CBAR) continue;
        w->state = EMU_W_RUN;
        w->wsync++;
    }
    emu_race_cluster_wait(x);
}

/* Releases the barrier of every cluster of the group whose threads all arrived; returns how many. */
static int release_clusters(emu_ctx *x)
{
    int released = 0;
    for (uint32_t c = 0; c * x->cluster_size < (uint32_t)x->nblocks; c++) {
        int waiting = 0;
        for (uint32_t r = 0; r < x->cluster_size && !waiting; r++) {
            const emu_block *b = &x->blocks[c * x->cluster_size + r];
            for (int i = 0; i < x->nwarps && !waiting; i++) waiting = b->warps[i].state == EMU_W_CBAR;
        }
        if (!waiting || !cluster_complete(x, c)) continue;
        emu_dsmem_phase_end(x, c);
        x->cbar_phase[c] = ++x->phase_top;
        for (uint32_t r = 0; r < x->cluster_size; r++) {
            emu_block *b = &x->blocks[c * x->cluster_size + r];
            enter(x, b);
            release_block(x);
            b->phase_interval = x->interval;
            leave(x);
        }
        released++;
    }
    return released;
}

/* The cluster barrier can never complete: waiter (a warp of the running block) waits at it, and w, of block
 * ctaid, waits at a block barrier that never completes, as the threads at the cluster barrier do not come. */
static void deadlock_report(emu_ctx *x, emu_warp *waiter, emu_warp *w, emu_dim3 ctaid)
{
    if (emu_diag_first(EMU_FD_CLUSTER_BAR)) {
        char who[300], bar_at[600];
        emu_record r;
        const emu_insn *bar = &w->frames[w->nframes - 1].f->code[w->bar_pc];
        const emu_insn *cw = &waiter->frames[waiter->nframes - 1].f->code[waiter->bar_pc];
        int lane = __builtin_ctz(w->live);
        uint32_t lin = (uint32_t)w->id * 32 + (uint32_t)lane;
        snprintf(who, sizeof who, emu_text("(%u,%u,%u) of block (%u,%u,%u)"), lin % x->block.x,
                 lin / x->block.x % x->block.y, lin / (x->block.x * x->block.y), ctaid.x, ctaid.y, ctaid.z);
        emu_loc_text(x->m, bar->loc, bar_at, sizeof bar_at);
        emu_where(x, waiter, __builtin_ctz(waiter->live), cw->loc, EMU_FD_CLUSTER_BAR, &r);
        emu_diag_report(&r, emu_msg_cbar_deadlock, x->cluster_size, who, emu_barrier_name(bar), bar_at);
    }
    emu_fatal(x, 702);
}

/* A warp of warps in state, or NULL. */
static emu_warp *warp_in(emu_warp *warps, int n, int state)
{
    for (int i = 0; i < n; i++) if (warps[i].state == state) return &warps[i];
    return NULL;
}

static void cluster_deadlock(emu_ctx *x)
{
    emu_block *wb = NULL, *bb = NULL;
    emu_warp *waiter = NULL, *w = NULL;
    for (int i = 0; i < x->nblocks; i++) {
        emu_block *b = &x->blocks[i];
        if (!waiter && (waiter = warp_in(b->warps, x->nwarps, EMU_W_CBAR))) wb = b;
        if (!w && (w = warp_in(b->warps, x->nwarps, EMU_W_BAR))) bb = b;
    }
    if (!waiter || !w) { emu_fatal(x, 702); return; }
    enter(x, wb);
    deadlock_report(x, waiter, w, bb->ctaid);
    leave(x);
}

int emu_cluster_of_one(emu_ctx *x)
{
    for (int i = 0; i < x->nwarps; i++)
        if (not_arrived(&x->warps[i], x->phase_top)) {
            emu_warp *waiter = warp_in(x->warps, x->nwarps, EMU_W_CBAR), *w = warp_in(x->warps, x->nwarps, EMU_W_BAR);
            if (waiter && w) deadlock_report(x, waiter, w, x->ctaid);
            else emu_fatal(x, 702);
            return 0;
        }
    x->phase_top++;
    release_block(x);
    return 1;
}

/* ---- Spinning: a warp that waits for another block ---------------------------------------------------- */

void emu_group_spin(emu_ctx *x, emu_warp *w, const emu_insn *in, const uint64_t *R, uint32_t m, int pc)
{
    uint64_t h = 1469598103934665603ull;
    int nv = in->op == EMU_OP_LD_STRONG ? in->nvec : 1;
    for (uint32_t mm = m; mm; mm &= mm - 1) {
        int l = __builtin_ctz(mm);
        for (int k = 0; k < nv; k++) h = (h ^ R[(in->op == EMU_OP_LD_STRONG ? in->v[k] : in->d) + l]) * 1099511628211ull;
    }
    /* reading something new (or somewhere new) is progress; the same value at the same place is a spin */
    if (w->spin_pc != (uint32_t)pc + 1 || w->spin_hash != h) x->spin_progress = 1;
    w->spin_pc = (uint32_t)pc + 1;
    w->spin_hash = h;
    w->spin_addr = R[in->a + __builtin_ctz(m)] + (uint64_t)in->imm;
    w->spin_lane = (uint32_t)__builtin_ctz(m);
}

/* What changes when a group moves on, other than what spinning warps read. */
static uint64_t progress_mark(const emu_ctx *x)
{
    const emu_metrics *t = x->met;
    uint64_t done = 0;
    for (int i = 0; i < x->nblocks; i++) done += (uint64_t)x->blocks[i].done;
    return t->global_store_requests + t->shared_store_instructions + t->barriers + done * 1000003u;
}

/* Whether a warp of block b spins on the grid workspace: it waits in grid.sync(). */
static int spins_on_grid_sync(const emu_ctx *x, const emu_block *b)
{
    for (int i = 0; i < x->nwarps; i++)
        if (b->warps[i].state == EMU_W_RUN && b->warps[i].spin_pc && x->grid_ws &&
            b->warps[i].spin_addr - x->grid_ws < EMU_GRID_WS_BYTES)
            return 1;
    return 0;
}

/* The first warp of a block still running that stopped at a strong load to let others run, and its block. */
static emu_warp *spinner(emu_ctx *x, emu_block **block)
{
    for (int i = 0; i < x->nblocks; i++) {
        emu_block *b = &x->blocks[i];
        if (b->done) continue;
        for (int j = 0; j < x->nwarps; j++)
            if (b->warps[j].state == EMU_W_RUN && b->warps[j].spin_pc) { *block = b; return &b->warps[j]; }
    }
    return NULL;
}

/* Every block still running spins, reading the same values: report where, and why when it is grid.sync(). */
static void spin_deadlock(emu_ctx *x)
{
    char who[400];
    emu_block *b;
    emu_warp *w = spinner(x, &b);
    unsigned exited = 0;
    if (w) done_text(x, who, sizeof who, &exited);
    int grid_sync = w && exited && spins_on_grid_sync(x, b), kind = grid_sync ? EMU_FD_GRID_SYNC : EMU_FD_BUDGET;
    if (w && emu_diag_first(kind)) {
        emu_record r;
        enter(x, b);
        const emu_insn *in = &w->frames[w->nframes - 1].f->code[w->spin_pc - 1];
        emu_where(x, w, __builtin_ctz(w->live), in->loc, kind, &r);
        leave(x);
        if (grid_sync) emu_diag_report(&r, exited == 1 ? emu_msg_grid_sync_exited : emu_msg_grid_sync_exited_n, who);
        else emu_diag_report(&r, emu_msg_spin_forever);
    }
    emu_fatal(x, 702);
}

int emu_group_waiter(emu_ctx *x, int kind, emu_record *r, char *flag, size_t len, int *device)
{
    emu_block *b;
    emu_warp *w = spinner(x, &b);
    if (!w) return 0;
    enter(x, b);
    const emu_insn *in = &w->frames[w->nframes - 1].f->code[w->spin_pc - 1];
    emu_where(x, w, (int)w->spin_lane, in->loc, kind, r);
    emu_alloc *a = emu_mem_lookup((uintptr_t)w->spin_addr, 4);
    *device = a ? a->device : -1;
    if (a) emu_peers_name(x, a, w->spin_addr, 4, flag, len);
    else snprintf(flag, len, "0x%llx", (unsigned long long)w->spin_addr);
    leave(x);
    return 1;
}

int emu_group_trap(emu_ctx *x, emu_warp *w, const emu_insn *in, uint32_t m)
{
    if (x->cooperative || !x->m->reads_envreg) return 0;
    if (emu_diag_first(EMU_FD_GRID_SYNC)) {
        emu_record r;
        emu_where(x, w, __builtin_ctz(m), in->loc, EMU_FD_GRID_SYNC, &r);
        emu_diag_report(&r, emu_msg_grid_sync_plain);
    }
    emu_fatal(x, 719);
    return 1;
}

/* ---- Groups ------------------------------------------------------------------------------------------- */

/* Starts the next wave of the launch's clusters in the group's blocks: clusters in the order of their ids
 * (x first), each one's blocks in the order of their ranks. A last wave with fewer clusters than the group
 * holds leaves the rest of its blocks done. */
static void start_wave(emu_ctx *x)
{
    emu_dim3 g = x->grid, c = x->cluster;
    uint32_t ncx = g.x / c.x, ncy = g.y / c.y, nclusters = (uint32_t)x->nblocks / x->cluster_size;
    for (uint32_t k = 0; k < nclusters; k++) {
        if (x->group_next >= x->group_total) {
            for (uint32_t r = 0; r < x->cluster_size; r++) x->blocks[k * x->cluster_size + r].done = 1;
            continue;
        }
        uint64_t next = x->group_next++;
        uint32_t cx = (uint32_t)(next % ncx), cy = (uint32_t)(next / ncx % ncy), cz = (uint32_t)(next / ((uint64_t)ncx * ncy));
        x->cbar_phase[k] = ++x->phase_top;   /* phases are the launch's: older records never match */
        for (uint32_t r = 0; r < x->cluster_size; r++) {
            emu_block *b = &x->blocks[k * x->cluster_size + r];
            uint32_t rx = r % c.x, ry = r / c.x % c.y, rz = r / (c.x * c.y);
            b->ctaid = (emu_dim3){ cx * c.x + rx, cy * c.y + ry, cz * c.z + rz };
            b->rank = r;
            b->cluster = k;
            b->done = 0;
            b->dsmem_phase = 0;
            x->warps = b->warps;
            x->shared = b->shared;
            x->shadow = b->shadow;
            x->ctaid = b->ctaid;
            x->pend = b->pend;
            x->cur = b;
            emu_race_block(x, (b->ctaid.z * g.y + b->ctaid.y) * g.x + b->ctaid.x);
            emu_block_start(x);
            leave(x);
            b->phase_interval = b->interval;
            x->met->blocks++;
        }
    }
    x->group_wave = 1;
}

int emu_group_step(emu_ctx *x, int shuffle)
{
    if (x->stop) return EMU_GROUP_DONE;
    if (!x->group_wave) {
        if (x->group_next >= x->group_total) return EMU_GROUP_DONE;
        start_wave(x);
    }
    int finished = 1, spinning = 0;
    uint64_t mark = progress_mark(x);
    x->spin_progress = 0;
    for (int i = 0; i < x->nblocks; i++) {
        emu_block *b = &x->blocks[i];
        if (b->done) continue;
        enter(x, b);
        int st = emu_block_run(x, shuffle);
        leave(x);
        if (x->stop) return EMU_GROUP_DONE;
        if (st == EMU_BLOCK_DONE) b->done = 1;
        else finished = 0;
        spinning |= st == EMU_BLOCK_YIELD;
    }
    if (finished) {
        emu_dsmem_phase_end(x, UINT32_MAX);
        x->group_wave = 0;
        return EMU_GROUP_MOVED;
    }
    if (release_clusters(x)) return EMU_GROUP_MOVED;
    if (!spinning) { cluster_deadlock(x); return EMU_GROUP_DONE; }
    return x->spin_progress || progress_mark(x) != mark ? EMU_GROUP_MOVED : EMU_GROUP_CALM;
}

void emu_group_open(emu_ctx *x, uint32_t resident)
{
    emu_dim3 g = x->grid, c = x->cluster;
    uint64_t nblocks_grid = (uint64_t)g.x * g.y * g.z;
    uint32_t per_group = x->cluster_size;
    if (x->cooperative) per_group = (uint32_t)nblocks_grid;
    else if (resident > per_group)   /* whole clusters, no more than the grid has */
        per_group = (uint32_t)((resident < nblocks_grid ? resident : nblocks_grid) / x->cluster_size * x->cluster_size);
    uint32_t nclusters = per_group / x->cluster_size;
    x->nblocks = (int)per_group;
    x->blocks = calloc(per_group, sizeof *x->blocks);
    x->cbar_phase = calloc(nclusters, sizeof *x->cbar_phase);
    if (!x->blocks || !x->cbar_phase) abort();
    for (uint32_t i = 0; i < per_group; i++) {
        emu_block *b = &x->blocks[i];
        b->warps = calloc((size_t)x->nwarps, sizeof *b->warps);
        b->shared = calloc(1, x->shared_size + 16);
        b->shadow = calloc((size_t)x->shared_size / 4 + 2, sizeof *b->shadow);
        b->dshadow = calloc((size_t)x->shared_size / 4 + 2, sizeof *b->dshadow);
        if (!b->warps || !b->shared || !b->shadow || !b->dshadow) abort();
    }
    if (x->cooperative) {
        /* the grid workspace: { its size, the barrier counter grid.sync() adds to and spins on } */
        uint32_t init[2] = { EMU_GRID_WS_BYTES, 0 };
        void *ws = calloc(1, EMU_GRID_WS_BYTES);
        if (!ws) abort();
        memcpy(ws, init, sizeof init);
        emu_mem_register(ws, EMU_GRID_WS_BYTES, "grid workspace", 1);
        x->grid_ws = (uint64_t)(uintptr_t)ws;
    }
    x->group_total = (uint64_t)(g.x / c.x) * (g.y / c.y) * (g.z / c.z);
    x->group_next = 0;
    x->group_wave = 0;
}

void emu_group_close(emu_ctx *x)
{
    x->cur = NULL;
    if (x->grid_ws) {
        void *ws = (void *)(uintptr_t)x->grid_ws;
        emu_mem_unregister(ws);
        free(ws);
        x->grid_ws = 0;
    }
    for (int i = 0; i < x->nblocks; i++) {
        emu_block *b = &x->blocks[i];
        emu_warps_free(b->warps, x->nwarps);
        free(b->shared); free(b->shadow); free(b->dshadow);
    }
    free(x->blocks); free(x->cbar_phase);
    x->blocks = NULL; x->warps = NULL; x->shared = NULL; x->shadow = NULL; x->pend = x->pend_own;
}

/* Runs the group's blocks until all have finished, the launch stops, or it deadlocks: every block that has
 * not finished only spins, reading the same values, for more than EMU_SPIN_ROUNDS rounds. */
void emu_group_launch(emu_ctx *x, int shuffle)
{
    emu_group_open(x, 0);
    int calm = 0, st;
    while ((st = emu_group_step(x, shuffle)) != EMU_GROUP_DONE) {
        calm = st == EMU_GROUP_CALM ? calm + 1 : 0;
        if (calm > EMU_SPIN_ROUNDS) { spin_deadlock(x); break; }
    }
    emu_group_close(x);
}
