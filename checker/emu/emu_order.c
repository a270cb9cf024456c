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
 * merged with its neighbours. */
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
    void *frames[EMU_ORDER_FRAMES];
    int nframes;
} emu_op;

typedef struct emu_range {
    int op;                    /* index into ops */
    const emu_alloc *alloc;
    uintptr_t lo, hi;          /* [lo, hi) in the program's addresses */
    int write;
    const emu_module *module;  /* a kernel's access: its instruction's place */
    uint32_t loc;
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
}

void emu_order_host_wait_clock(const emu_order_clock *e)
{
    if (!e) return;
    join(host, e->c);
    retire();
}

void emu_order_host_wait_queue(int q)
{
    if (q < 0) return;
    enqueue_join(q);   /* the legacy stream waits for the blocking streams, so the host does too */
    join(host, queues[q].clock);
    retire();
}

void emu_order_host_wait_device(int device)
{
    for (int q = 0; q < EMU_ORDER_QUEUES; q++)
        if ((queues[q].used || q < EMU_MAX_DEVICES) && (q < EMU_MAX_DEVICES ? q : queues[q].device) == device)
            join(host, queues[q].clock);
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

void emu_order_begin(int q, int device, const char *what)
{
    void *frames[EMU_ORDER_FRAMES];
    emu_order_begin_frames(q, device, what, frames, backtrace(frames, EMU_ORDER_FRAMES));
}

void emu_order_begin_frames(int q, int device, const char *what, void *const *frames, int nframes)
{
    enqueue_join(q);
    uint32_t epoch = ++queues[q].clock[q];
    if (first_queue < 0) first_queue = q;
    if (q != first_queue) emu_order_track_start();
    if (!emu_order_on) return;
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
    snprintf(o->what, sizeof o->what, "%s", what);
    o->nframes = nframes < EMU_ORDER_FRAMES ? nframes : EMU_ORDER_FRAMES;
    memcpy(o->frames, frames, (size_t)o->nframes * sizeof *frames);
    current = nops++;
    current_first = nranges;
}

void emu_order_track_start(void) { emu_order_on = 1; }

static int range_order(const void *pa, const void *pb)
{
    const emu_range *a = pa, *b = pb;
    if (a->alloc != b->alloc) return (uintptr_t)a->alloc < (uintptr_t)b->alloc ? -1 : 1;
    if (a->write != b->write) return a->write - b->write;
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
        if (r->alloc == last->alloc && r->write == last->write && r->lo <= last->hi) {
            if (r->hi > last->hi) last->hi = r->hi;
        } else {
            ranges[++kept] = *r;
        }
    }
    nranges = kept + 1;
}

static void add_range(const emu_alloc *a, uintptr_t lo, uintptr_t hi, int write, const emu_module *m, uint32_t loc)
{
    if (nranges - current_first >= EMU_ORDER_COALESCE) coalesce();
    for (size_t i = nranges; i > current_first && i + EMU_ORDER_MERGE > nranges; i--) {
        emu_range *r = &ranges[i - 1];
        if (r->alloc == a && r->write == write && lo <= r->hi && hi >= r->lo) {
            if (lo < r->lo) r->lo = lo;
            if (hi > r->hi) r->hi = hi;
            return;
        }
    }
    if (nranges == capranges) {
        capranges = capranges ? capranges * 2 : 256;
        if (!(ranges = realloc(ranges, capranges * sizeof *ranges))) abort();
    }
    ranges[nranges++] = (emu_range){ current, a, lo, hi, write, m, loc };
}

void emu_order_range(const emu_alloc *a, uintptr_t lo, size_t len, int write)
{
    if (current >= 0 && a && len) add_range(a, lo, lo + len, write, NULL, 0);
}

void emu_order_access(const emu_alloc *a, uint64_t lo, uint64_t end, int write, const emu_module *m, uint32_t loc)
{
    if (current >= 0 && a && end > lo) add_range(a, (uintptr_t)lo, (uintptr_t)end, write, m, loc);
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
    const char *fmt = !mine->write ? msg_read_after : !theirs->write ? msg_write_after_read : msg_write_after_write;
    if (said_before(&r.at, fmt)) return;
    /* the words say what the later operation did to the earlier one's bytes, whichever line comes first */
    const emu_op *later = &ops[mine->op], *earlier = &ops[theirs->op];
    char what[300];
    emu_alloc_describe(mine->alloc, addr, what, sizeof what);
    if (mine->alloc->guard_name[0]) snprintf(r.array, sizeof r.array, "%s", mine->alloc->guard_name);
    snprintf(r.text, sizeof r.text, emu_text(fmt), later->what, later->device, what, earlier->what, earlier->device);
    emu_finding_record(&r);
}

void emu_order_end(void)
{
    if (current < 0) return;
    coalesce();
    const emu_queue *Q = &queues[ops[current].queue];
    int reported = 0;
    for (size_t i = current_first; i < nranges && !reported; i++) {
        const emu_range *x = &ranges[i];
        for (size_t j = 0; j < current_first && !reported; j++) {
            const emu_range *y = &ranges[j];
            const emu_op *oy = &ops[y->op];
            if (!(x->write || y->write) || y->alloc != x->alloc || y->hi <= x->lo || x->hi <= y->lo) continue;
            if (oy->queue == ops[current].queue || Q->clock[oy->queue] >= oy->epoch) continue;
            report(x, y, x->lo > y->lo ? x->lo : y->lo);
            reported = 1;   /* one finding per operation: the first conflict says what is missing */
        }
    }
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
    nops = 0;
    nranges = 0;
    nsaid = 0;
    current = -1;
    first_queue = -1;
    emu_order_on = 0;
    for (int q = 0; q < EMU_ORDER_QUEUES; q++) join(host, queues[q].clock);
}
