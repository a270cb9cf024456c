/* emu_order.c - the order that streams and events guarantee, checked: a vector clock per queue (a stream,
 * or a device's legacy default stream), joined by cudaStreamWaitEvent and by the host's waits, and a log of
 * what each operation in flight read and wrote. The emulator runs every operation at once when it is
 * enqueued, so the order it happened to run things in proves nothing; two operations conflict when they
 * touch the same bytes, one of them writes, and neither clock says that one happens before the other. Then
 * the finding names both lines: on a GPU the two may run at the same time, on two devices or two streams.
 *
 * The model (FastTrack's, at the granularity of operations): an operation enqueued on queue q takes the
 * epoch (q, ++clock[q][q]) after clock[q] joined the host's clock (it is ordered after everything the host
 * did and waited for before enqueuing it). Operation Y happens before X when X's clock holds Y's epoch.
 * Every operation is checked when it ends against the earlier ones still in flight (the host has not waited
 * for them); an operation the host has waited for can race with nothing enqueued later, and leaves the log.
 *
 * Accesses are recorded only once work has gone to a second queue (one queue orders everything by itself),
 * as byte ranges: a runtime copy gives its two ranges, a kernel each warp instruction's span of addresses,
 * merged with its neighbours.
 *
 * Kernels of several devices that run together (emu_held.c: they may wait for each other through flags in
 * memory) are one set: each is an operation of its own, its ranges tagged with it while it runs
 * (emu_order_running), and each is checked at the set's end against the operations before the set. Two
 * kernels of the set are not checked against each other: what orders them is their flags, which the engine
 * checks, not streams and events. */
#define _GNU_SOURCE      /* backtrace */
#include <execinfo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu_rt.h"

#define EMU_ORDER_FRAMES   16     /* host frames kept per operation, to name the learner's line */
#define EMU_ORDER_OPS      8192   /* operations in flight kept; the oldest leave first */
#define EMU_ORDER_MERGE    8      /* an access is merged with one of the operation's last ranges */
#define EMU_ORDER_COALESCE 4096   /* ranges of one operation before they are sorted and merged */

typedef uint32_t emu_vclock[EMU_ORDER_QUEUES];

struct emu_order_clock { emu_vclock c; };

typedef struct emu_queue {
    int used;          /* a live stream, or a legacy stream (always) */
    int device;
    int blocking;      /* waits for the device's legacy stream and it for this one (cudaStreamCreate's) */
    emu_vclock clock;
} emu_queue;

typedef struct emu_op {
    int queue, device;
    uint32_t epoch;
    char what[160];            /* "kernel add_chunk", "cudaMemcpyPeerAsync" */
    int together;              /* a kernel that ran with kernels of other devices, ordered by their flags */
    void *frames[EMU_ORDER_FRAMES];
    int nframes;
} emu_op;

typedef struct emu_range {
    int op;                    /* index into ops */
    const emu_alloc *alloc;
    uintptr_t lo, hi;          /* [lo, hi) in the program's addresses */
    int write;
    int strong;                /* a kernel's atomic or strong access: never races with another one */
    const emu_module *module;  /* a kernel's access: its instruction's place */
    uint32_t loc;
    uint32_t seq;              /* a kernel's: the order of its last memory event at the access (merged: the latest) */
} emu_range;

static emu_queue queues[EMU_ORDER_QUEUES];
static emu_vclock host;
static emu_op *ops;
static int nops, capops;
static emu_range *ranges;
static size_t nranges, capranges;
static int current = -1;          /* the operation running now, or -1 */
static size_t current_first;      /* its first range */
static int first_queue = -1;      /* the only queue used so far, until a second one makes tracking start */
static int in_set;                /* between emu_order_set_begin and emu_order_set_end */
static int set_ops[EMU_MAX_DEVICES];   /* the set's operations, in the order they began (-1: not tracked) */
static int set_queue[EMU_MAX_DEVICES];
static uint32_t set_epoch[EMU_MAX_DEVICES];
static uint32_t set_from[EMU_MAX_DEVICES][EMU_MAX_DEVICES];   /* [i][j]: the latest release of kernel j's that
                                                                * kernel i acquired (0: none) */
static int nset;

/* After a set: what a kernel released, and the queue whose later work its release orders (kernel j's accesses
 * before its event seq come before queue's operations after the set). */
typedef struct emu_release_after { int queue, from_queue; uint32_t from_epoch, seq; } emu_release_after;
#define EMU_ORDER_RELEASES 256
static emu_release_after releases[EMU_ORDER_RELEASES];
static int nreleases;
int emu_order_on;

static const char msg_read_after[] =
    N_("%s on device %d reads %s, which %s on device %d wrote, and nothing orders the read after that write (no "
       "cudaStreamWaitEvent on an event recorded after it, no synchronisation in between): on a GPU the read may "
       "run first, or at the same time, and see old bytes. Record an event on the writer's stream after the write, "
       "and make the reader's stream wait for it (cudaEventRecord, then cudaStreamWaitEvent).");
static const char msg_write_after_read[] =
    N_("%s on device %d writes %s, which %s on device %d reads, and nothing orders this write after that read: "
       "on a GPU the write may land while the other side still reads, and it reads the new bytes. Make the writer's "
       "stream wait for an event recorded after the read (cudaEventRecord, then cudaStreamWaitEvent).");
/* The same when the kernel (the reader, or the earlier reader) ran with kernels of other devices: what orders
 * it with the other devices' work is their flags. */
static const char msg_read_after_flags[] =
    N_("%s on device %d reads %s, which %s on device %d wrote, and nothing orders the read after that write: the "
       "kernel read no flag that device %d's kernel set after it, and no event or synchronisation stands between "
       "them. On a GPU the read may run first and see old bytes. A kernel that reads a peer's buffer waits for "
       "the flag that the peer's kernel sets in the same call: does each call's flag carry the call's own number "
       "(its epoch), so that the last call's flag cannot pass for it?");
static const char msg_write_after_read_flags[] =
    N_("%s on device %d writes %s, which %s on device %d reads, and nothing orders this write after that read: "
       "the kernel on device %d did not wait for a flag that the reading kernel set after its reads, and no "
       "event stands between them. On a GPU the write may land while the other side still reads. Before a "
       "kernel returns, does it wait until every peer has told it, through a flag, that it has finished reading "
       "its buffers?");
static const char msg_write_after_write[] =
    N_("%s on device %d writes %s, which %s on device %d writes too, in no order that the streams and events "
       "define: on a GPU either may land last. Order the two with an event (cudaEventRecord, then "
       "cudaStreamWaitEvent).");

/* ---- Clocks ---------------------------------------------------------------------------------------------- */

static void join(emu_vclock into, const emu_vclock from)
{
    for (int i = 0; i < EMU_ORDER_QUEUES; i++)
        if (from[i] > into[i]) into[i] = from[i];
}

int emu_order_legacy(int device) { return device; }

int emu_order_queue_new(int device, int blocking)
{
    for (int q = EMU_MAX_DEVICES; q < EMU_ORDER_QUEUES; q++)
        if (!queues[q].used) {
            /* a slot used before keeps its clock: its old operations then seem ordered before the new
             * stream's (a race between them goes unseen; none is invented) */
            queues[q].used = 1;
            queues[q].device = device;
            queues[q].blocking = blocking;
            join(queues[q].clock, host);
            return q;
        }
    return -1;
}

void emu_order_queue_free(int q)
{
    if (q >= EMU_MAX_DEVICES && q < EMU_ORDER_QUEUES) queues[q].used = 0;
}

/* Queue q before its next operation: after everything the host waited for, and, between a device's legacy
 * stream and its blocking streams, after the other side's work. */
static void enqueue_join(int q)
{
    emu_queue *Q = &queues[q];
    join(Q->clock, host);
    if (q < EMU_MAX_DEVICES) {
        for (int i = EMU_MAX_DEVICES; i < EMU_ORDER_QUEUES; i++)
            if (queues[i].used && queues[i].blocking && queues[i].device == q) join(Q->clock, queues[i].clock);
    } else if (Q->blocking) {
        join(Q->clock, queues[emu_order_legacy(Q->device)].clock);
    }
}

emu_order_clock *emu_order_record(emu_order_clock *e, int q)
{
    if (!e && !(e = calloc(1, sizeof *e))) abort();
    enqueue_join(q);
    memcpy(e->c, queues[q].clock, sizeof e->c);
    return e;
}

void emu_order_wait(int q, const emu_order_clock *e)
{
    enqueue_join(q);
    if (e) join(queues[q].clock, e->c);
}

void emu_order_clock_free(emu_order_clock *e) { free(e); }

/* The host waited: operations it now knows to be done can race with nothing later, and leave the log. */
static void retire(void)
{
    int kept = 0, *moved = malloc((size_t)(nops ? nops : 1) * sizeof *moved);
    if (!moved) abort();
    for (int i = 0; i < nops; i++) {
        moved[i] = -1;
        if (i == current || host[ops[i].queue] < ops[i].epoch) {
            moved[i] = kept;
            ops[kept++] = ops[i];
        }
    }
    size_t r = 0;
    for (size_t i = 0; i < nranges; i++)
        if (moved[ranges[i].op] >= 0) {
            ranges[r] = ranges[i];
            ranges[r++].op = moved[ranges[i].op];
        }
    if (current >= 0) {
        size_t first = 0;
        while (first < r && ranges[first].op != moved[current]) first++;
        current_first = first;
        current = moved[current];
    }
    nops = kept;
    nranges = r;
    free(moved);
    int k = 0;   /* a release of a kernel the host has waited for orders nothing any more */
    for (int i = 0; i < nreleases; i++)
        if (host[releases[i].from_queue] < releases[i].from_epoch) releases[k++] = releases[i];
    nreleases = k;
}

void emu_order_host_wait_clock(const emu_order_clock *e)
{
    if (!e) return;
    emu_rt_held_run_covered(e->c);
    join(host, e->c);
    retire();
}

void emu_order_host_wait_queue(int q)
{
    if (q < 0) return;
    enqueue_join(q);   /* the legacy stream waits for the blocking streams, so the host does too */
    emu_rt_held_run_covered(queues[q].clock);
    join(host, queues[q].clock);
    retire();
}

void emu_order_host_wait_device(int device)
{
    emu_vclock all;
    memcpy(all, host, sizeof all);
    for (int q = 0; q < EMU_ORDER_QUEUES; q++)
        if ((queues[q].used || q < EMU_MAX_DEVICES) && (q < EMU_MAX_DEVICES ? q : queues[q].device) == device)
            join(all, queues[q].clock);
    emu_rt_held_run_covered(all);
    memcpy(host, all, sizeof host);
    retire();
}

void emu_order_serialize_devices(const int *devices, int count)
{
    emu_vclock all;
    memcpy(all, host, sizeof all);
    for (int pass = 0; pass < 2; pass++)
        for (int q = 0; q < EMU_ORDER_QUEUES; q++) {
            int dev = q < EMU_MAX_DEVICES ? q : queues[q].device, hit = 0;
            if (q >= EMU_MAX_DEVICES && !queues[q].used) continue;
            for (int i = 0; i < count; i++) hit |= devices[i] == dev;
            if (!hit) continue;
            if (pass == 0) join(all, queues[q].clock);
            else join(queues[q].clock, all);
        }
}

/* ---- Operations and their accesses ----------------------------------------------------------------------- */

/* The operation's place in queue q: its epoch, and (while accesses are recorded) its entry in the log, named
 * at the host's frames; -1 when it has none. */
static int enqueue(int q, int device, const char *what, void *const *frames, int nframes)
{
    enqueue_join(q);
    uint32_t epoch = ++queues[q].clock[q];
    if (first_queue < 0) first_queue = q;
    if (q != first_queue) emu_order_track_start();
    if (!emu_order_on) return -1;
    if (nops == EMU_ORDER_OPS) {   /* the oldest leaves: a race with it goes unseen */
        host[ops[0].queue] = host[ops[0].queue] > ops[0].epoch ? host[ops[0].queue] : ops[0].epoch;
        retire();
    }
    if (nops == capops) {
        capops = capops ? capops * 2 : 64;
        if (!(ops = realloc(ops, (size_t)capops * sizeof *ops))) abort();
    }
    emu_op *o = &ops[nops];
    o->queue = q;
    o->device = device;
    o->epoch = epoch;
    o->together = 0;
    snprintf(o->what, sizeof o->what, "%s", what);
    o->nframes = nframes < EMU_ORDER_FRAMES ? nframes : EMU_ORDER_FRAMES;
    memcpy(o->frames, frames, (size_t)o->nframes * sizeof *frames);
    return nops++;
}

void emu_order_begin(int q, int device, const char *what)
{
    void *frames[EMU_ORDER_FRAMES];
    emu_order_begin_frames(q, device, what, frames, backtrace(frames, EMU_ORDER_FRAMES));
}

void emu_order_run_held_before(int q)
{
    enqueue_join(q);
    emu_rt_held_run_covered(queues[q].clock);
}

void emu_order_begin_frames(int q, int device, const char *what, void *const *frames, int nframes)
{
    emu_order_run_held_before(q);   /* held kernels this operation comes after run first */
    current = enqueue(q, device, what, frames, nframes);
    current_first = nranges;
}

uint32_t emu_order_hold(int q, int device, const char *what)
{
    void *frames[EMU_ORDER_FRAMES];
    enqueue(q, device, what, frames, backtrace(frames, EMU_ORDER_FRAMES));
    return queues[q].clock[q];
}

void emu_order_track_start(void) { emu_order_on = 1; }

static int range_order(const void *pa, const void *pb)
{
    const emu_range *a = pa, *b = pb;
    if (a->op != b->op) return a->op - b->op;
    if (a->alloc != b->alloc) return (uintptr_t)a->alloc < (uintptr_t)b->alloc ? -1 : 1;
    if (a->write != b->write) return a->write - b->write;
    if (a->strong != b->strong) return a->strong - b->strong;
    return a->lo < b->lo ? -1 : a->lo > b->lo;
}

/* The running operation's ranges sorted and merged: a grid-stride loop's warps each leave a range per lap, one
 * array's worth of them, which become one. (The place kept is the first range's, in address order.) */
static void coalesce(void)
{
    size_t count = nranges - current_first, kept = current_first;
    if (count < 2) return;
    qsort(ranges + current_first, count, sizeof *ranges, range_order);
    for (size_t i = current_first + 1; i < nranges; i++) {
        emu_range *last = &ranges[kept], *r = &ranges[i];
        if (r->op == last->op && r->alloc == last->alloc && r->write == last->write && r->strong == last->strong &&
            r->lo <= last->hi) {
            if (r->hi > last->hi) last->hi = r->hi;
            if (r->seq > last->seq) last->seq = r->seq;
        } else {
            ranges[++kept] = *r;
        }
    }
    nranges = kept + 1;
}

static void add_range(const emu_alloc *a, uintptr_t lo, uintptr_t hi, int access, const emu_module *m, uint32_t loc,
                      uint32_t seq)
{
    int write = access & 1, strong = access >> 1 & 1;
    if (nranges - current_first >= EMU_ORDER_COALESCE) coalesce();
    for (size_t i = nranges; i > current_first && i + EMU_ORDER_MERGE > nranges; i--) {
        emu_range *r = &ranges[i - 1];
        if (r->op == current && r->alloc == a && r->write == write && r->strong == strong && lo <= r->hi &&
            hi >= r->lo) {
            if (lo < r->lo) r->lo = lo;
            if (hi > r->hi) r->hi = hi;
            if (seq > r->seq) r->seq = seq;
            return;
        }
    }
    if (nranges == capranges) {
        capranges = capranges ? capranges * 2 : 256;
        if (!(ranges = realloc(ranges, capranges * sizeof *ranges))) abort();
    }
    ranges[nranges++] = (emu_range){ current, a, lo, hi, write, strong, m, loc, seq };
}

void emu_order_range(const emu_alloc *a, uintptr_t lo, size_t len, int write)
{
    if (current >= 0 && a && len) add_range(a, lo, lo + len, write, NULL, 0, 0);
}

void emu_order_access(const emu_alloc *a, uint64_t lo, uint64_t end, int access, const emu_module *m, uint32_t loc,
                      uint32_t seq)
{
    if (current >= 0 && a && end > lo) add_range(a, (uintptr_t)lo, (uintptr_t)end, access, m, loc, seq);
}

/* ---- The finding ----------------------------------------------------------------------------------------- */

/* The place of range r: its instruction's line in a kernel, else the learner's call that enqueued it. */
static void range_place(const emu_range *r, emu_place *p)
{
    memset(p, 0, sizeof *p);
    if (r->module) {
        emu_place call;
        emu_loc_places(r->module, r->loc, p, &call);
    } else {
        const emu_op *o = &ops[r->op];
        char where[600] = "";
        emu_host_frames_line(o->frames, o->nframes, where, sizeof where);
        const char *colon = strrchr(where, ':');
        if (colon && colon > where) {
            snprintf(p->file, sizeof p->file, "%.*s", (int)(colon - where), where);
            p->line = atoi(colon + 1);
        }
    }
    p->label = r->write ? EMU_LABEL_WRITE : EMU_LABEL_READ;
}

/* The races already reported, by the line that comes first and what happened there: a race at a line is said
 * once (with the first line it races with), however many devices, steps, elements and other lines show it. */
#define EMU_ORDER_SAID 64
static char said[EMU_ORDER_SAID][320];
static int nsaid;

/* 1 when a race at a of this kind (how: which of the three messages) was reported before; else it is
 * remembered. */
static int said_before(const emu_place *a, const char *how)
{
    char at[300], key[320];
    emu_place_text(a, at, sizeof at);
    snprintf(key, sizeof key, "%s|%p", at, (const void *)how);
    for (int i = 0; i < nsaid; i++)
        if (!strcmp(said[i], key)) return 1;
    if (nsaid < EMU_ORDER_SAID) snprintf(said[nsaid++], sizeof said[0], "%s", key);
    return 0;
}

static void report(const emu_range *mine, const emu_range *theirs, uintptr_t addr)
{
    emu_record r;
    emu_record_init(&r, EMU_FD_STREAM_RACE);
    emu_place here, there;
    range_place(mine, &here);
    range_place(theirs, &there);
    /* the learner's own line first, where only one side is the learner's (the other a harness's copy) */
    int swap = !emu_source_is_learners(here.file) && emu_source_is_learners(there.file);
    r.at = swap ? there : here;
    r.other = swap ? here : there;
    /* the words say what the later operation did to the earlier one's bytes, whichever line comes first */
    const emu_op *later = &ops[mine->op], *earlier = &ops[theirs->op];
    const char *fmt = !mine->write ? (later->together ? msg_read_after_flags : msg_read_after)
                      : !theirs->write ? (earlier->together ? msg_write_after_read_flags : msg_write_after_read)
                                       : msg_write_after_write;
    if (said_before(&r.at, fmt)) return;
    char what[300];
    emu_alloc_describe(mine->alloc, addr, what, sizeof what);
    if (mine->alloc->guard_name[0]) snprintf(r.array, sizeof r.array, "%s", mine->alloc->guard_name);
    /* the flag variants name the device whose kernel should have waited or set the flag once more */
    snprintf(r.text, sizeof r.text, emu_text(fmt), later->what, later->device, what, earlier->what, earlier->device,
             fmt == msg_write_after_read_flags ? later->device : earlier->device);
    emu_finding_record(&r);
}

/* Whether range y (of operation oy) comes before operation op, on queue Q, member `member` of the running set
 * (-1: none): by Q's clock, by the clock of a member whose flag op acquired, or, for a kernel of an earlier
 * set, by a release of that kernel's after y which op's queue acquired. */
static int before(const emu_queue *Q, int q, int member, const emu_range *y, const emu_op *oy)
{
    if (Q->clock[oy->queue] >= oy->epoch) return 1;
    for (int j = 0; member >= 0 && j < nset; j++)
        if (set_from[member][j] && queues[set_queue[j]].clock[oy->queue] >= oy->epoch) return 1;
    for (int k = 0; k < nreleases; k++) {
        const emu_release_after *r = &releases[k];
        if (r->queue == q && r->from_queue == oy->queue && r->from_epoch == oy->epoch && y->seq < r->seq) return 1;
    }
    return 0;
}

/* Checks operation op's ranges (from current_first on) against the operations before them; member: its place
 * in the running set, or -1. */
static void check_op(int op, int member)
{
    const emu_queue *Q = &queues[ops[op].queue];
    for (size_t i = current_first; i < nranges; i++) {
        const emu_range *x = &ranges[i];
        if (x->op != op) continue;
        for (size_t j = 0; j < current_first; j++) {
            const emu_range *y = &ranges[j];
            const emu_op *oy = &ops[y->op];
            if (!(x->write || y->write) || (x->strong && y->strong) || y->alloc != x->alloc || y->hi <= x->lo ||
                x->hi <= y->lo)
                continue;
            if (oy->queue == ops[op].queue || before(Q, ops[op].queue, member, y, oy)) continue;
            report(x, y, x->lo > y->lo ? x->lo : y->lo);
            return;   /* one finding per operation: the first conflict says what is missing */
        }
    }
}

void emu_order_end(void)
{
    if (current < 0 || in_set) return;
    coalesce();
    check_op(current, -1);
    current = -1;
}

void emu_order_set_begin(const int *q, const uint32_t *epoch, int count)
{
    in_set = 1;
    nset = 0;
    /* found by queue and epoch: the log may have moved its entries, or let the oldest go (then untracked) */
    memset(set_from, 0, sizeof set_from);
    for (int i = 0; i < count && i < EMU_MAX_DEVICES; i++) {
        set_queue[nset] = q[i];
        set_epoch[nset] = epoch[i];
        set_ops[nset] = -1;
        for (int o = nops - 1; o >= 0 && set_ops[nset] < 0; o--)
            if (ops[o].queue == q[i] && ops[o].epoch == epoch[i]) set_ops[nset] = o;
        if (set_ops[nset] >= 0) ops[set_ops[nset]].together = count > 1;
        nset++;
    }
    current = -1;
    current_first = nranges;
}

void emu_order_running(int member)
{
    if (in_set) current = member >= 0 && member < nset ? set_ops[member] : -1;
}

void emu_order_acquired(int member, int from, uint32_t seq)
{
    if (in_set && member >= 0 && member < nset && from >= 0 && from < nset && seq > set_from[member][from])
        set_from[member][from] = seq;
}

void emu_order_set_end(void)
{
    coalesce();
    for (int i = 0; i < nset; i++)
        if (set_ops[i] >= 0) check_op(set_ops[i], i);
    /* A kernel that acquired another's flag finished after that one released it: what its stream does next
     * comes after what the other kernel did before the release, until the host waits for that kernel (past
     * EMU_ORDER_RELEASES such orders in flight at once, the newer ones are not known). */
    for (int i = 0; i < nset; i++)
        for (int j = 0; j < nset; j++)
            if (set_from[i][j] && nreleases < EMU_ORDER_RELEASES)
                releases[nreleases++] = (emu_release_after){ set_queue[i], set_queue[j], set_epoch[j], set_from[i][j] };
    in_set = 0;
    nset = 0;
    current = -1;
}

void emu_order_forget(const emu_alloc *a)
{
    size_t r = 0;
    for (size_t i = 0; i < nranges; i++)
        if (ranges[i].alloc != a) ranges[r++] = ranges[i];
    nranges = r;
}

void emu_order_reset(void)
{
    nreleases = 0;
    in_set = 0;
    nset = 0;
    nops = 0;
    nranges = 0;
    nsaid = 0;
    current = -1;
    first_queue = -1;
    emu_order_on = 0;
    for (int q = 0; q < EMU_ORDER_QUEUES; q++) join(host, queues[q].clock);
}
