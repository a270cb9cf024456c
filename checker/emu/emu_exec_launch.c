/* emu_exec_launch.c - emu_launch: arguments, shared memory, blocks one after another (or in groups that run
 * together, emu_exec_group.c), each block's warps until barriers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu_exec.h"

#define MAX_SHARED (227u * 1024u)
#define EMU_MAX_CLUSTER 16u   /* blocks per cluster with cudaFuncAttributeNonPortableClusterSizeAllowed */

static uint64_t env_budget(void)
{
    const char *s = getenv("EMU_BUDGET");
    if (!s || !*s) return EMU_DEFAULT_BUDGET;
    char *e;
    double v = strtod(s, &e);
    return v >= 1 ? (uint64_t)v : EMU_DEFAULT_BUDGET;
}

static unsigned next_rand(unsigned *s) { *s = *s * 1103515245u + 12345u; return (*s >> 16) & 0x7fff; }

static void bad_launch(emu_launch_result *out, const emu_kernel *k, int error, const char *why)
{
    emu_record r;
    emu_record_init(&r, EMU_FD_LAUNCH);
    snprintf(r.kernel, sizeof r.kernel, "%s", k ? emu_kernel_name(k) : "?");
    snprintf(r.text, sizeof r.text, emu_text("the launch is refused: %s."), emu_text(why));
    emu_finding_record(&r);
    out->error = error;
}

/* "threads (200,0,0), (201,0,0) ... and 52 more": the block's threads that have exited. */
static void exited_text(const emu_ctx *x, char *buf, size_t len)
{
    int shown = 0, total = 0;
    size_t o = (size_t)snprintf(buf, len, "%s", emu_text("threads "));
    for (int i = 0; i < x->nwarps; i++) total += __builtin_popcount(x->warps[i].exists & ~x->warps[i].live);
    for (int i = 0; i < x->nwarps && shown < 3; i++) {
        uint32_t gone = x->warps[i].exists & ~x->warps[i].live;
        for (; gone && shown < 3 && o < len; gone &= gone - 1, shown++) {
            uint32_t lin = (uint32_t)i * 32 + (uint32_t)__builtin_ctz(gone);
            o += (size_t)snprintf(buf + o, len - o, "%s(%u,%u,%u)", shown ? ", " : "", lin % x->block.x,
                                  lin / x->block.x % x->block.y, lin / (x->block.x * x->block.y));
        }
    }
    if (total > shown && o < len) snprintf(buf + o, len - o, emu_text(" and %d more"), total - shown);
}

/* Release the warps waiting at barrier id (every waiting warp when id < 0): a new barrier interval begins.
 * (One interval for the whole block: after a barrier of some warps only, a race between two of the others
 * goes unseen, but no race is ever reported that a barrier prevents.) */
static void release_barrier(emu_ctx *x, int id)
{
    int nexited = 0, nwaiting = 0, exited_threads = 0, threads = 0;
    const emu_warp *any = NULL;
    for (int i = 0; i < x->nwarps; i++) {
        emu_warp *w = &x->warps[i];
        threads += __builtin_popcount(w->exists);
        exited_threads += __builtin_popcount(w->exists & ~w->live);
        if (w->state == EMU_W_DONE) nexited++;
        if (w->state == EMU_W_BAR && (id < 0 || w->bar_id == (uint32_t)id)) { nwaiting++; if (!any) any = w; }
    }
    /* A barrier for all threads (no count) that some never reach: they returned before it. */
    int for_all = id < 0 || !x->bar_expected[id];
    if (exited_threads && any && for_all && emu_diag_first(EMU_FD_BAR_EXITED)) {
        char who[400];
        emu_record r;
        const emu_insn *bar = &any->frames[any->nframes - 1].f->code[any->bar_pc];
        emu_where(x, (emu_warp *)any, __builtin_ctz(any->live), bar->loc, EMU_FD_BAR_EXITED, &r);
        exited_text(x, who, sizeof who);
        emu_diag_report(&r, "%s is reached by %d of the %d threads of the block; the "
                        "other %d (%s) finished without reaching it: they returned before it, or it sits in a branch "
                        "or a loop that they skip. A barrier does not wait for threads that have finished, so "
                        "whatever the others expect from them after it (the shared memory they were to store, their "
                        "part of the tree) is missing, and a __syncthreads() that not every thread reaches is "
                        "undefined behaviour. Guard the work with an if (such as if (i < n)) instead of returning, "
                        "and keep barriers out of conditions that not every thread shares.",
                        emu_barrier_name(bar), threads - exited_threads, threads, exited_threads, who);
    }
    emu_flush_pending(x);
    x->interval = ++x->interval_top;
    for (int i = 0; i < x->nwarps; i++) {
        emu_warp *w = &x->warps[i];
        if (w->state != EMU_W_BAR || (id >= 0 && w->bar_id != (uint32_t)id)) continue;
        w->state = EMU_W_RUN;
        w->wsync++;
        if (w->bar_red) {
            const emu_insn *in = w->bar_red;
            const emu_frame *fr = &w->frames[w->nframes - 1];
            if (in->mod == EMU_AT_POPC) {
                uint64_t *R = w->regs + fr->reg_off;
                for (int l = 0; l < 32; l++) if (w->live >> l & 1) R[in->d + l] = x->bar_popc;
            } else {
                uint32_t *P = w->preds + fr->pred_off;
                int v = in->mod == EMU_AT_AND ? (int)x->bar_and : (int)x->bar_or;
                P[in->pd] = (P[in->pd] & ~w->live) | (v ? w->live : 0);
            }
            w->bar_red = NULL;
        }
    }
    x->bar_popc = 0; x->bar_and = 1; x->bar_or = 0;
    for (int b = 0; b < 16; b++)
        if (id < 0 || b == id) x->bar_arrived[b] = x->bar_expected[b] = 0;
    (void)nexited; (void)nwaiting;
}

/* After every warp ran as far as it can: release each barrier that the threads which reached it, waiting
 * or not (bar.arrive), make complete: its thread count, or every thread of the block when it has none.
 * When none is complete and force is set, no warp can move: the waiting ones are let go all at once, as
 * the hardware does when the other threads exited (reported) or, for named barriers that never fill,
 * instead of hanging. Returns whether any warp was let go. */
static int release_barriers(emu_ctx *x, int force)
{
    int released = 0, any = 0;
    for (int id = 0; id < 16; id++) {
        uint32_t waiting = 0;
        for (int i = 0; i < x->nwarps; i++)
            if (x->warps[i].state == EMU_W_BAR && x->warps[i].bar_id == (uint32_t)id) waiting += 32;
        if (!waiting) continue;
        any = 1;
        uint32_t need = x->bar_expected[id] ? x->bar_expected[id] : (uint32_t)x->nwarps * 32;
        if (waiting + x->bar_arrived[id] >= need) { release_barrier(x, id); released = 1; }
    }
    if (!released && any && force) { release_barrier(x, -1); released = 1; }
    return released;
}

/* Where each shared variable of kernel f's module lies in a block's shared memory (see emu_svar): the
 * kernel's own variables first, then the module's, then the dynamic shared memory. */
static emu_stag *shared_tags(const emu_func *f, const emu_ctx *x)
{
    const emu_module *m = f->mod;
    emu_stag *t = calloc((size_t)m->shared_tags + 1, sizeof *t);
    if (!t) return NULL;
    for (int i = 0; i < f->nsvars; i++)
        t[f->svars[i].tag] = (emu_stag){ f->svars[i].off, f->svars[i].size, f->svars[i].name };
    for (int i = 0; i < m->nsvars; i++)
        t[m->svars[i].tag] = (emu_stag){ x->mod_base + m->svars[i].off, m->svars[i].size, m->svars[i].name };
    t[EMU_SHARED_DYN_TAG] = (emu_stag){ x->dyn_base, x->dyn_size, m->dyn_name };
    return t;
}

void emu_block_start(emu_ctx *x)
{
    /* Poisoned, so that a read of a slot nobody stored gives a visibly wrong result, not a lucky 0. */
    memset(x->shared, EMU_SHARED_POISON, x->shared_size);
    /* the shadow's older records belong to earlier blocks */
    x->interval = x->block_interval = ++x->interval_top;
    x->bar_popc = 0; x->bar_and = 1; x->bar_or = 0;
    memset(x->bar_arrived, 0, sizeof x->bar_arrived);
    memset(x->bar_expected, 0, sizeof x->bar_expected);
    x->npend = 0;
    x->pend_more = 0;
    for (int i = 0; i < x->nwarps; i++) {
        emu_warp *w = &x->warps[i];
        w->id = i;
        uint32_t first = (uint32_t)i * 32, left = x->nthreads - first;
        w->exists = left >= 32 ? 0xffffffffu : (1u << left) - 1;
        w->live = w->exists;
        w->state = EMU_W_RUN;
        w->wsync = 1;
        w->sp = 0; w->nframes = 0; w->regtop = 0; w->predtop = 0;
        w->bar_red = NULL;
        w->cbar_arrived = 0;
        w->cbar_for = 0;
        w->spin_pc = 0;
        memset(w->cp_committed, 0, sizeof w->cp_committed);
        memset(w->cp_done, 0, sizeof w->cp_done);
        memset(w->cp_done_before, 0, sizeof w->cp_done_before);
        memset(w->cp_wait_interval, 0, sizeof w->cp_wait_interval);
        /* the entry frame; its constants include this block's special registers */
        emu_exec_enter(x, w);
    }
}

int emu_block_run(emu_ctx *x, int shuffle)
{
    for (;;) {
        if (shuffle)
            for (int i = x->nwarps - 1; i > 0; i--) {
                int j = (int)(next_rand(&x->seed) % (unsigned)(i + 1)), t = x->order[i];
                x->order[i] = x->order[j]; x->order[j] = t;
            }
        int running = 0;
        for (int i = 0; i < x->nwarps; i++) {
            emu_warp *w = &x->warps[x->order[i]];
            if (w->state == EMU_W_RUN) running |= emu_exec_warp(x, w) == EMU_W_RUN;
            if (x->stop) return EMU_BLOCK_DONE;
        }
        int done = 0, cluster_wait = 0;
        for (int i = 0; i < x->nwarps; i++) {
            done += x->warps[i].state == EMU_W_DONE;
            cluster_wait += x->warps[i].state == EMU_W_CBAR;
        }
        if (done == x->nwarps) { emu_flush_pending(x); return EMU_BLOCK_DONE; }
        /* a warp that stopped at a strong load runs again after the other blocks of its group */
        if (running) { release_barriers(x, 0); return EMU_BLOCK_YIELD; }
        if (!release_barriers(x, !cluster_wait)) return EMU_BLOCK_WAIT;
    }
}

void emu_warps_free(emu_warp *warps, int n)
{
    for (int i = 0; i < n && warps; i++) {
        emu_warp *w = &warps[i];
        free(w->stack); free(w->frames); free(w->regs); free(w->preds); free(w->local);
    }
    free(warps);
}

void emu_launch(const emu_kernel *k, emu_dim3 grid, emu_dim3 block, size_t dynamic_shared, void **args,
                emu_launch_result *out)
{
    emu_launch_config c = { grid, block, dynamic_shared, { 0, 0, 0 }, 0, 0, 0 };
    emu_launch_ex(k, &c, args, out);
}

/* Checks launch c of kernel k and makes its context in x (for launch_close to free): 0 when the launch is
 * refused or stopped at once (out says why), else 1 with *shuffle the warp order setting. */
static int launch_open(const emu_kernel *k, const emu_launch_config *c, void **args, emu_launch_result *out,
                       emu_ctx *x, int *shuffle)
{
    memset(out, 0, sizeof *out);
    if (!k) { out->error = 98; return 0; }   /* cudaErrorInvalidDeviceFunction */
    const emu_func *f = &k->f;
    emu_dim3 grid = c->grid, block = c->block;
    size_t dynamic_shared = c->dynamic_shared;
    uint64_t nthreads = (uint64_t)block.x * block.y * block.z;
    if (!grid.x || !grid.y || !grid.z || !nthreads) { bad_launch(out, k, 9, N_("a grid or block dimension is 0")); return 0; }
    if (nthreads > 1024 || block.x > 1024 || block.y > 1024 || block.z > 64) {
        char why[600];
        snprintf(why, sizeof why, emu_text("a block of %u x %u x %u threads is more than the 1024 threads (64 in z) a block may have"),
                 block.x, block.y, block.z);
        bad_launch(out, k, 9, why);
        return 0;
    }
    if (grid.y > 65535 || grid.z > 65535) { bad_launch(out, k, 9, N_("gridDim.y and gridDim.z may be at most 65535")); return 0; }
    size_t stat = emu_kernel_static_shared(k);
    if (stat + dynamic_shared > MAX_SHARED) {
        char why[600];
        snprintf(why, sizeof why, emu_text("it asks for %zu bytes of shared memory per block (%zu static + %zu dynamic), more "
                                           "than the %u a block may have"),
                 stat + dynamic_shared, stat, dynamic_shared, MAX_SHARED);
        bad_launch(out, k, 9, why);
        return 0;
    }
    /* Clusters: the launch's, else the kernel's own (__cluster_dims__), else one block each. */
    emu_dim3 cluster = c->cluster;
    int explicit_cluster = cluster.x != 0;
    if (!explicit_cluster) explicit_cluster = emu_kernel_cluster(k, &cluster, NULL, NULL);
    if (!explicit_cluster) cluster = (emu_dim3){ 1, 1, 1 };
    uint64_t cluster_size = (uint64_t)cluster.x * cluster.y * cluster.z;
    if (!cluster_size || cluster_size > EMU_MAX_CLUSTER || grid.x % cluster.x || grid.y % cluster.y || grid.z % cluster.z) {
        char why[600];
        snprintf(why, sizeof why, emu_text("clusters of %u x %u x %u blocks do not tile the grid of %u x %u x %u blocks, "
                                           "or hold more than %u blocks"),
                 cluster.x, cluster.y, cluster.z, grid.x, grid.y, grid.z, EMU_MAX_CLUSTER);
        bad_launch(out, k, 912, why);   /* cudaErrorInvalidClusterSize */
        return 0;
    }
    if (f->nparams && !args) { bad_launch(out, k, 1, N_("the kernel takes arguments but none were given")); return 0; }
    /* A kernel that never finished in an earlier test of this run costs nothing the second time. */
    if (emu_diag_endless_known(f->name, f->pretty)) { out->error = 702; return 0; }   /* cudaErrorLaunchTimeout */

    memset(x, 0, sizeof *x);
    x->k = f;
    x->m = f->mod;
    x->grid = grid;
    x->block = block;
    x->cluster = cluster;
    x->cluster_size = (uint32_t)cluster_size;
    x->explicit_cluster = explicit_cluster;
    x->cooperative = c->cooperative;
    x->device = c->device;
    x->nthreads = (uint32_t)nthreads;
    x->params = calloc(1, f->param_bytes + 16);
    for (int i = 0; i < f->nparams; i++)
        if (args[i]) memcpy(x->params + f->param_off[i], args[i], f->param_size[i]);
    x->mod_base = (f->own_shared + 15) & ~15u;
    /* every .shared variable of the module has its place in the block (a kernel reports only those it uses) */
    x->dyn_base = (x->mod_base + f->mod->mod_shared + 15) & ~15u;
    x->dyn_size = (uint32_t)dynamic_shared;
    x->shared_size = x->dyn_base + x->dyn_size;
    x->stags = shared_tags(f, x);
    x->nstags = f->mod->shared_tags;
    x->nwarps = (int)((nthreads + 31) / 32);
    x->order = malloc((size_t)x->nwarps * sizeof *x->order);
    x->pend = x->pend_own;
    if (!x->params || !x->stags || !x->order) abort();
    for (int i = 0; i < x->nwarps; i++) x->order[i] = i;
    x->budget = env_budget();
    x->met = &out->metrics;
    const char *sh = getenv("EMU_SHUFFLE_WARPS");
    *shuffle = sh && *sh && strcmp(sh, "0") != 0;
    const char *seed = getenv("EMU_SEED");
    x->seed = seed ? (unsigned)strtoul(seed, NULL, 10) : 12345u;
    return 1;
}

/* The launch's end: its records of races freed, its trace written, a kernel that never ended remembered,
 * its result in out. */
static void launch_close(emu_ctx *x, emu_launch_result *out)
{
    emu_race_end(x);
    if (x->trace) emu_trace_end(x);
    if (x->executed >= x->budget || x->endless) emu_diag_endless_record(x->k->name);
    fflush(stdout);
    out->metrics.threads_per_block = x->nthreads;
    out->error = x->error;
    free(x->order); free(x->stags); free(x->params);
}

void emu_launch_ex(const emu_kernel *k, const emu_launch_config *c, void **args, emu_launch_result *out)
{
    emu_ctx X;
    emu_ctx *x = &X;
    int shuffle;
    if (!launch_open(k, c, args, out, x, &shuffle)) return;
    emu_dim3 grid = x->grid;
    x->trace = emu_trace_launch(x);
    emu_diag_begin();
    if (x->cluster_size > 1 || x->cooperative) {
        emu_group_launch(x, shuffle);   /* blocks that run together */
    } else {
        x->shared = calloc(1, x->shared_size + 16);
        x->shadow = calloc((size_t)x->shared_size / 4 + 2, sizeof *x->shadow);
        x->warps = calloc((size_t)x->nwarps, sizeof *x->warps);
        if (!x->shared || !x->shadow || !x->warps) abort();
        for (unsigned bz = 0; bz < grid.z && !x->stop; bz++)
            for (unsigned by = 0; by < grid.y && !x->stop; by++)
                for (unsigned bx = 0; bx < grid.x && !x->stop; bx++) {
                    x->ctaid = (emu_dim3){ bx, by, bz };
                    emu_race_block(x, (bz * grid.y + by) * grid.x + bx);
                    emu_block_start(x);
                    /* a block waits only at its own cluster barrier: a cluster of one */
                    while (emu_block_run(x, shuffle) == EMU_BLOCK_WAIT && emu_cluster_of_one(x)) {}
                    out->metrics.blocks++;
                }
        emu_warps_free(x->warps, x->nwarps);
        free(x->shadow);
        free(x->shared);
    }
    emu_diag_end(x->k->pretty);
    launch_close(x, out);
}

/* ---- Kernels of several devices at once ------------------------------------------------------------------ */

static const char emu_msg_devices_wait[] = N_(
    "the kernels of %d devices wait for each other forever: this one, on device %d, waits in a loop for %s%s, "
    "and %s. Nothing that still runs writes what they wait for, so on a GPU machine every one of them hangs. "
    "Does each device write the flag that the others wait for, where they read it (in the peer's memory, "
    "or its own), with the value they wait for (this call's epoch, not the last one's)? The launches fail "
    "with cudaErrorLaunchTimeout.");
static const char emu_msg_device_waits_alone[] = N_(
    "this kernel, on device %d, waits in a loop for %s%s, but the kernels of the other devices that ran with "
    "it have finished, and nothing writes it any more: on a GPU machine it hangs. Does each device write the "
    "flag that the others wait for, where they read it (in the peer's memory, or its own), with the value "
    "they wait for (this call's epoch, not the last one's)? The launch fails with cudaErrorLaunchTimeout.");
/* TRANSLATORS: one waiting kernel of several, in a list joined by "; " */
static const char emu_msg_other_waits[] = N_("device %d waits at %s for %s%s");

/* Whether launch x has blocks still to run. */
static int unfinished(const emu_ctx *x)
{
    return !x->stop && (x->group_wave || x->group_next < x->group_total);
}

/* Every kernel that has not finished only spins: one finding, at the first one's line, that names each
 * device, its line and the flag it waits for. */
static void devices_deadlock(emu_ctx *xs, const int *live, int n)
{
    if (emu_diag_first(EMU_FD_BUDGET)) {
        emu_record first, r;
        char flag[300], where[400], mem[100], others[1600] = "", first_flag[300] = "", first_mem[100] = "";
        int waiting = 0, device, first_device = 0;
        size_t o = 0;
        for (int i = 0; i < n; i++) {
            if (!live[i] || !unfinished(&xs[i]) ||
                !emu_group_waiter(&xs[i], EMU_FD_BUDGET, &r, flag, sizeof flag, &device))
                continue;
            emu_peers_memory_text(device, mem, sizeof mem);
            if (!waiting++) {
                first = r;
                first_device = xs[i].device;
                snprintf(first_flag, sizeof first_flag, "%s", flag);
                snprintf(first_mem, sizeof first_mem, "%s", mem);
                continue;
            }
            emu_place_text(&r.at, where, sizeof where);
            if (o && o < sizeof others) o += (size_t)snprintf(others + o, sizeof others - o, "; ");
            if (o < sizeof others)
                o += (size_t)snprintf(others + o, sizeof others - o, emu_text(emu_msg_other_waits), xs[i].device,
                                      where, flag, mem);
        }
        if (waiting > 1)
            emu_diag_report(&first, emu_msg_devices_wait, waiting, first_device, first_flag, first_mem, others);
        else if (waiting)
            emu_diag_report(&first, emu_msg_device_waits_alone, first_device, first_flag, first_mem);
    }
    for (int i = 0; i < n; i++)
        if (live[i] && unfinished(&xs[i])) { xs[i].endless = 1; emu_fatal(&xs[i], 702); }
}

void emu_launch_together(int n, const emu_kernel *const *k, const emu_launch_config *c, void **const *args,
                         emu_launch_result *out)
{
    if (n == 1) {
        emu_order_running(0);
        emu_launch_ex(k[0], &c[0], args[0], &out[0]);
        return;
    }
    emu_ctx *xs = calloc((size_t)n, sizeof *xs);
    emu_peers *peers = calloc((size_t)n, sizeof *peers);
    int *live = calloc((size_t)n, sizeof *live), shuffle = 0;
    if (!xs || !peers || !live || n > EMU_PEERS_MAX) abort();
    emu_diag_begin();
    for (int i = 0; i < n; i++) {
        if (!launch_open(k[i], &c[i], args[i], &out[i], &xs[i], &shuffle)) continue;
        emu_order_running(i);
        emu_group_open(&xs[i], c[i].resident);
        peers[i].all = xs;
        peers[i].n = n;
        peers[i].self = i;
        xs[i].peers = &peers[i];
        live[i] = 1;
    }
    /* Turns: each kernel one step. They wait for each other forever when none moved for EMU_SPIN_ROUNDS. */
    for (int calm = 0, running = 1; running;) {
        int moved = 0;
        running = 0;
        for (int i = 0; i < n; i++) {
            if (!live[i] || !unfinished(&xs[i])) continue;
            emu_order_running(i);
            int st = emu_group_step(&xs[i], shuffle);
            moved |= st != EMU_GROUP_CALM;
            running |= st != EMU_GROUP_DONE;
        }
        calm = moved ? 0 : calm + 1;
        if (running && calm > EMU_SPIN_ROUNDS) { devices_deadlock(xs, live, n); break; }
    }
    emu_order_running(-1);
    for (int i = 0; i < n; i++)
        if (live[i]) emu_group_close(&xs[i]);
    emu_diag_end(NULL);
    for (int i = 0; i < n; i++)
        if (live[i]) {
            emu_trace_untraced(&xs[i]);   /* their instructions interleave: `make show` lists the launches */
            launch_close(&xs[i], &out[i]);
        }
    free(live);
    free(peers);
    free(xs);
}
