/* emu_nccl.c - the emulator's NCCL: the course's own implementation of the NCCL calls that exercise 18 uses
 * (nccl/nccl.h declares them as NCCL 2.28 does), with NCCL's semantics, on the emulator's devices.
 *
 * - Communicators: a clique of ranks, one per device, made by ncclCommInitAll or by ncclCommInitRank with one
 *   unique id. Several ranks in one thread need a group: alone, a real NCCL call for one rank waits for the
 *   others, which the thread never gets to make; here that is a finding at the learner's line.
 * - Collectives (all-reduce, reduce-scatter, all-gather, broadcast, reduce; in place or not; sum, product,
 *   max, min and average of 8- to 64-bit integers and 16- to 64-bit floats): each rank's call is an operation
 *   on its stream, checked like a copy or a kernel (emu_order.c). A collective runs once every rank's call has
 *   been made (at ncclGroupEnd inside a group): every rank's stream is then ordered after what every rank had
 *   enqueued before its call, and each rank's operation reads its send buffer and writes its receive buffer.
 *   A kernel that writes a send buffer, or reads a receive buffer, in no order with the collective (another
 *   stream, no event) is a race between streams, with both lines.
 * - The reduction is made once, in rank order, and copied to every rank: every rank gets the same bits, as
 *   NCCL's do. Floats of 16 bits are added with one rounding per addition, as NCCL's kernels add them.
 * - Bad arguments give NCCL's results (ncclInvalidArgument, ncclInvalidUsage, ncclUnhandledCudaError) and a
 *   finding that says which argument and why; a buffer that does not hold count elements is a finding too (a
 *   GPU reads or writes past its end). */
#define _GNU_SOURCE      /* backtrace */
#include <execinfo.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu_exec.h"
#include "emu_rt.h"
#include "nccl/nccl.h"

#define NCCL_FRAMES   16
#define NCCL_MAGIC    0x4e43434cu
#define NCCL_ID_MAGIC "emulator's NCCL id "

static const char msg_outside_group[] =
    N_("%s for one rank of a communicator of %d, outside ncclGroupStart/ncclGroupEnd: with several ranks in one "
       "thread, NCCL's call for one rank waits for the other ranks' calls, which this thread has not made "
       "yet, and on a GPU it can wait forever. Make the calls for every device between ncclGroupStart() and "
       "ncclGroupEnd().");
static const char msg_bad_comm[] = N_("%s was given a communicator that was never created or is already destroyed");
static const char msg_null_buffer[] = N_("%s was given a NULL %s for %zu elements");
static const char msg_count_overflow[] =
    N_("%s: %zu elements of %zu bytes are more bytes than a size_t holds: is the count already in bytes?");
static const char msg_not_device[] = N_("%s: the %s %p is not device memory from cudaMalloc");
static const char msg_overrun[] =
    N_("%s: the %s holds %zu bytes from %s, and %zu elements of %zu bytes need %zu: NCCL would go %zu bytes past "
       "its end. NCCL's counts are in elements of the data type, not in bytes.");
static const char msg_buffer_device[] =
    N_("%s: the %s is memory of device %d, but this communicator's rank %d is on device %d");
static const char msg_stream_device[] =
    N_("%s: the stream is a stream of device %d, but this communicator's rank %d is on device %d: NCCL launches "
       "its kernel on that stream, and a GPU refuses a launch on another device's stream");
static const char msg_bad_stream[] = N_("%s was given a stream that was never created or is already destroyed");
static const char msg_bad_type[] = N_("%s: %d is not a data type of NCCL's that the emulator has (ncclDataType_t)");
static const char msg_bad_op[] = N_("%s: %d is not a reduction of NCCL's (ncclSum, ncclProd, ncclMax, ncclMin, ncclAvg)");
static const char msg_bad_root[] = N_("%s: the root %d is not a rank of this communicator of %d ranks");
static const char msg_mismatch[] =
    N_("%s: the ranks' calls do not match: rank %d's is %s, rank %d's is %s. Every rank must make the same "
       "collective, with the same count, type and operation, in the same order; on a GPU they would wait for "
       "each other forever or mix the wrong elements.");
static const char msg_unjoined[] =
    N_("%s for rank %d was never matched by the other ranks' calls before ncclCommDestroy: on a GPU its stream "
       "would wait for them forever");
static const char msg_freed[] =
    N_("%s: the %s was freed before the collective ran (at ncclGroupEnd, or at the last rank's call)");
static const char msg_bad_ranks[] = N_("%s: %d ranks is not a size the emulator's NCCL has (1 to %d)");
static const char msg_bad_rank[] = N_("%s: rank %d is not a rank of a communicator of %d ranks");
static const char msg_rank_taken[] = N_("%s: rank %d of this unique id was made already");
static const char msg_same_device[] =
    N_("%s: ranks %d and %d are both on device %d: a communicator has one rank per device");
static const char msg_bad_id[] = N_("%s was given a unique id that ncclGetUniqueId did not make");
static const char msg_group_end[] = N_("ncclGroupEnd was called without an ncclGroupStart before it");
static const char msg_null_result[] = N_("%s was given a NULL pointer for its result");

/* ---- Communicators ------------------------------------------------------------------------------------- */

typedef struct emu_clique {
    char id[NCCL_UNIQUE_ID_BYTES];
    int nranks, joined;
    struct ncclComm *ranks[EMU_MAX_DEVICES];
} emu_clique;

struct ncclComm {
    uint32_t magic;
    emu_clique *clique;
    int rank, device;
    uint64_t calls;          /* collectives made so far: the next one's sequence number */
    char last_error[sizeof ((emu_record *)0)->text];   /* what ncclGetLastError says */
};

static unsigned long ids_made;

static void nccl_finding(struct ncclComm *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The comm if it is live, else NULL after a finding (who: the call). */
static struct ncclComm *live_comm(ncclComm_t comm, const char *who)
{
    if (comm && comm->magic == NCCL_MAGIC) return comm;
    nccl_finding(NULL, msg_bad_comm, who);
    return NULL;
}

/* "file:line" of the learner's call among the frames, or "". */
static void learner_line(char *where, size_t len)
{
    void *frames[NCCL_FRAMES];
    int n = backtrace(frames, NCCL_FRAMES);
    emu_host_frames_line(frames, n, where, len);
}

/* A finding of NCCL's rules at the learner's line, kept also as the communicator's last error. */
static void nccl_finding_kind(int kind, struct ncclComm *c, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void vfinding(int kind, struct ncclComm *c, const char *fmt, va_list ap)
{
    char where[600], text[sizeof ((emu_record *)0)->text];
    vsnprintf(text, sizeof text, emu_text(fmt), ap);
    learner_line(where, sizeof where);
    emu_finding_at(kind, where, "%s", text);
    if (c) snprintf(c->last_error, sizeof c->last_error, "%s", text);
}

static void nccl_finding_kind(int kind, struct ncclComm *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfinding(kind, c, fmt, ap);
    va_end(ap);
}

static void nccl_finding(struct ncclComm *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfinding(EMU_FD_NCCL, c, fmt, ap);
    va_end(ap);
}

ncclResult_t ncclGetVersion(int *version)
{
    if (!version) return ncclInvalidArgument;
    *version = NCCL_VERSION_CODE;
    return ncclSuccess;
}

ncclResult_t ncclGetUniqueId(ncclUniqueId *id)
{
    if (!id) {
        nccl_finding(NULL, msg_null_result, "ncclGetUniqueId");
        return ncclInvalidArgument;
    }
    memset(id, 0, sizeof *id);
    snprintf(id->internal, sizeof id->internal, NCCL_ID_MAGIC "%lu", ++ids_made);
    return ncclSuccess;
}

static int group_depth;   /* ncclGroupStart calls not yet ended */

static emu_clique *clique_of(const char *id, int nranks)
{
    static emu_clique *cliques[256];
    static int ncliques;
    for (int i = 0; i < ncliques; i++)
        if (!memcmp(cliques[i]->id, id, NCCL_UNIQUE_ID_BYTES) && cliques[i]->joined < cliques[i]->nranks)
            return cliques[i];
    emu_clique *q = calloc(1, sizeof *q);
    if (!q) abort();
    memcpy(q->id, id, NCCL_UNIQUE_ID_BYTES);
    q->nranks = nranks;
    if (ncliques < 256) cliques[ncliques++] = q;
    return q;
}

/* Rank `rank` of clique on device: the checks NCCL makes, then the communicator. */
static ncclResult_t join(ncclComm_t *out, emu_clique *q, int rank, int device, const char *who)
{
    if (rank < 0 || rank >= q->nranks) {
        nccl_finding(NULL, msg_bad_rank, who, rank, q->nranks);
        return ncclInvalidArgument;
    }
    if (q->ranks[rank]) {
        nccl_finding(NULL, msg_rank_taken, who, rank);
        return ncclInvalidUsage;
    }
    for (int r = 0; r < q->nranks; r++)
        if (q->ranks[r] && q->ranks[r]->device == device) {
            nccl_finding(NULL, msg_same_device, who, r, rank, device);
            return ncclInvalidUsage;
        }
    struct ncclComm *c = calloc(1, sizeof *c);
    if (!c) return ncclSystemError;
    c->magic = NCCL_MAGIC;
    c->clique = q;
    c->rank = rank;
    c->device = device;
    q->ranks[rank] = c;
    q->joined++;
    *out = c;
    return ncclSuccess;
}

ncclResult_t ncclCommInitRank(ncclComm_t *comm, int nranks, ncclUniqueId id, int rank)
{
    const char *who = "ncclCommInitRank";
    if (!comm) {
        nccl_finding(NULL, msg_null_result, who);
        return ncclInvalidArgument;
    }
    if (nranks < 1 || nranks > EMU_MAX_DEVICES) {
        nccl_finding(NULL, msg_bad_ranks, who, nranks, EMU_MAX_DEVICES);
        return ncclInvalidArgument;
    }
    if (strncmp(id.internal, NCCL_ID_MAGIC, strlen(NCCL_ID_MAGIC))) {
        nccl_finding(NULL, msg_bad_id, who);
        return ncclInvalidArgument;
    }
    emu_clique *q = clique_of(id.internal, nranks);
    if (q->nranks != nranks) {
        nccl_finding(NULL, msg_bad_ranks, who, nranks, q->nranks);
        return ncclInvalidArgument;
    }
    ncclResult_t res = join(comm, q, rank, emu_rt_device_current(), who);
    /* Alone, the call returns once every rank has joined: the thread's next call never comes. */
    if (res == ncclSuccess && group_depth == 0 && q->joined < q->nranks)
        nccl_finding_kind(EMU_FD_NCCL_GROUP, *comm, msg_outside_group, who, nranks);
    return res;
}

ncclResult_t ncclCommInitAll(ncclComm_t *comms, int ndev, const int *devlist)
{
    const char *who = "ncclCommInitAll";
    if (!comms) {
        nccl_finding(NULL, msg_null_result, who);
        return ncclInvalidArgument;
    }
    if (ndev < 1 || ndev > EMU_MAX_DEVICES) {
        nccl_finding(NULL, msg_bad_ranks, who, ndev, EMU_MAX_DEVICES);
        return ncclInvalidArgument;
    }
    for (int r = 0; r < ndev; r++) {
        int device = devlist ? devlist[r] : r;
        if (emu_rt_device_check(device, who) != cudaSuccess) return ncclInvalidArgument;
    }
    ncclUniqueId id;
    ncclGetUniqueId(&id);
    emu_clique *q = clique_of(id.internal, ndev);
    for (int r = 0; r < ndev; r++) {
        ncclResult_t res = join(&comms[r], q, r, devlist ? devlist[r] : r, who);
        if (res != ncclSuccess) return res;
    }
    return ncclSuccess;
}

ncclResult_t ncclCommCount(const ncclComm_t comm, int *count)
{
    if (!live_comm(comm, "ncclCommCount") || !count) return ncclInvalidArgument;
    *count = comm->clique->nranks;
    return ncclSuccess;
}

ncclResult_t ncclCommCuDevice(const ncclComm_t comm, int *device)
{
    if (!live_comm(comm, "ncclCommCuDevice") || !device) return ncclInvalidArgument;
    *device = comm->device;
    return ncclSuccess;
}

ncclResult_t ncclCommUserRank(const ncclComm_t comm, int *rank)
{
    if (!live_comm(comm, "ncclCommUserRank") || !rank) return ncclInvalidArgument;
    *rank = comm->rank;
    return ncclSuccess;
}

ncclResult_t ncclCommGetAsyncError(ncclComm_t comm, ncclResult_t *async_error)
{
    if (!live_comm(comm, "ncclCommGetAsyncError") || !async_error) return ncclInvalidArgument;
    *async_error = ncclSuccess;
    return ncclSuccess;
}

const char *ncclGetLastError(ncclComm_t comm)
{
    return comm && comm->magic == NCCL_MAGIC ? comm->last_error : "";
}

/* NCCL's own words for its results. */
const char *ncclGetErrorString(ncclResult_t result)
{
    switch (result) {
    case ncclSuccess: return "no error";
    case ncclUnhandledCudaError: return "unhandled cuda error (run with NCCL_DEBUG=INFO for details)";
    case ncclSystemError: return "unhandled system error (run with NCCL_DEBUG=INFO for details)";
    case ncclInternalError: return "internal error - please report this issue to the NCCL developers";
    case ncclInvalidArgument: return "invalid argument (run with NCCL_DEBUG=WARN for details)";
    case ncclInvalidUsage: return "invalid usage (run with NCCL_DEBUG=WARN for details)";
    case ncclRemoteError: return "remote process exited or there was a network error";
    case ncclInProgress: return "NCCL operation in progress";
    default: return "unknown result code";
    }
}

/* ---- Data types and reductions --------------------------------------------------------------------------- */

static size_t type_size(int t)
{
    static const size_t sizes[] = { 1, 1, 4, 4, 8, 8, 2, 4, 8, 2 };
    return t >= 0 && t <= ncclBfloat16 ? sizes[t] : 0;
}

static int is_float(int t) { return t >= ncclFloat16 && t <= ncclBfloat16; }

/* Element i of p as a double (floats) or as 64 bits (integers, sign-extended where signed). */
static double get_float(const void *p, size_t i, int t)
{
    switch (t) {
    case ncclFloat16: return emu_half_value(EMU_T_F16, ((const uint16_t *)p)[i]);
    case ncclBfloat16: return emu_half_value(EMU_T_BF16, ((const uint16_t *)p)[i]);
    case ncclFloat32: return ((const float *)p)[i];
    default: return ((const double *)p)[i];
    }
}

static uint64_t get_int(const void *p, size_t i, int t)
{
    switch (t) {
    case ncclInt8: return (uint64_t)(int64_t)((const int8_t *)p)[i];
    case ncclUint8: return ((const uint8_t *)p)[i];
    case ncclInt32: return (uint64_t)(int64_t)((const int32_t *)p)[i];
    case ncclUint32: return ((const uint32_t *)p)[i];
    default: return ((const uint64_t *)p)[i];
    }
}

/* v + err (err what v left out of the exact value) rounded once to float type t, stored as element i of p. */
static void put_float(void *p, size_t i, int t, double v, double err)
{
    switch (t) {
    case ncclFloat16: ((uint16_t *)p)[i] = emu_half_round(EMU_T_F16, v, err, EMU_RND_RN); break;
    case ncclBfloat16: ((uint16_t *)p)[i] = emu_half_round(EMU_T_BF16, v, err, EMU_RND_RN); break;
    case ncclFloat32: ((float *)p)[i] = (float)v; break;   /* err is 0 for float: v is float's own result */
    default: ((double *)p)[i] = v;
    }
}

static void put_int(void *p, size_t i, int t, uint64_t v)
{
    switch (t) {
    case ncclInt8: case ncclUint8: ((uint8_t *)p)[i] = (uint8_t)v; break;
    case ncclInt32: case ncclUint32: ((uint32_t *)p)[i] = (uint32_t)v; break;
    default: ((uint64_t *)p)[i] = v;
    }
}

static int is_signed(int t) { return t == ncclInt8 || t == ncclInt32 || t == ncclInt64; }

/* acc (element i of out) op= element i of x, one rounding in type t, as NCCL's kernels combine two values. */
static void combine(void *out, const void *x, size_t i, int t, int op)
{
    if (is_float(t)) {
        double a = get_float(out, i, t), b = get_float(x, i, t), v, err = 0;
        if (t == ncclFloat32) {
            float fa = (float)a, fb = (float)b;
            v = op == ncclProd ? fa * fb : op == ncclMax ? fmaxf(fa, fb) : op == ncclMin ? fminf(fa, fb) : fa + fb;
        } else if (op == ncclProd) {
            v = a * b;   /* exact in a double for 16-bit floats; a double's product rounds once itself */
        } else if (op == ncclMax || op == ncclMin) {
            v = op == ncclMax ? fmax(a, b) : fmin(a, b);
        } else {
            v = a + b;
            double bb = v - a;
            err = (a - (v - bb)) + (b - bb);   /* two-sum: what the double left out */
        }
        put_float(out, i, t, v, t == ncclFloat64 ? 0 : err);
        return;
    }
    uint64_t a = get_int(out, i, t), b = get_int(x, i, t), v;
    int less = is_signed(t) ? (int64_t)a < (int64_t)b : a < b;
    switch (op) {
    case ncclProd: v = a * b; break;
    case ncclMax: v = less ? b : a; break;
    case ncclMin: v = less ? a : b; break;
    default: v = a + b;   /* wraps, as the GPU's integer adds do */
    }
    put_int(out, i, t, v);
}

/* ncclAvg of floats as NCCL makes it: each rank's value times 1/nranks (rounded to the type), then summed;
 * of integers: the sum divided by nranks, rounded toward zero. */
static void premultiply(void *p, size_t i, int t, int nranks)
{
    double scale = 1.0 / nranks;
    if (t == ncclFloat32) scale = (float)scale;
    else if (t == ncclFloat16) scale = emu_half_value(EMU_T_F16, emu_half_round(EMU_T_F16, scale, 0, EMU_RND_RN));
    else if (t == ncclBfloat16) scale = emu_half_value(EMU_T_BF16, emu_half_round(EMU_T_BF16, scale, 0, EMU_RND_RN));
    double v = get_float(p, i, t);
    put_float(p, i, t, t == ncclFloat32 ? (double)((float)v * (float)scale) : v * scale, 0);
}

static void divide(void *p, size_t i, int t, int nranks)
{
    uint64_t v = get_int(p, i, t);
    put_int(p, i, t, is_signed(t) ? (uint64_t)((int64_t)v / nranks) : v / (uint64_t)nranks);
}

/* ---- Calls, matched across ranks ------------------------------------------------------------------------- */

enum coll { COLL_ALLREDUCE, COLL_REDUCESCATTER, COLL_ALLGATHER, COLL_BROADCAST, COLL_REDUCE };
static const char *const coll_names[] = { "ncclAllReduce", "ncclReduceScatter", "ncclAllGather", "ncclBroadcast",
                                          "ncclReduce" };

typedef struct emu_call {
    enum coll kind;
    struct ncclComm *comm;
    const void *send;
    void *recv;
    size_t count;            /* per rank: recvcount of a reduce-scatter, sendcount of an all-gather */
    int type, op, root;
    int queue, device;
    uint64_t seq;
    void *frames[NCCL_FRAMES];
    int nframes;
} emu_call;

static emu_call *pending;
static int npending, cappending;

/* What the call does, for a finding: "ncclAllReduce of 1000 elements of type 7 with op 0". */
static void call_text(const emu_call *c, char *buf, size_t len)
{
    snprintf(buf, len, "%s (count %zu, datatype %d, op %d, root %d)", coll_names[c->kind], c->count, c->type,
             c->kind == COLL_ALLGATHER || c->kind == COLL_BROADCAST ? -1 : c->op, c->root);
}

/* The bytes a rank's send and receive buffers must hold. */
static void call_bytes(const emu_call *c, int nranks, size_t *send_bytes, size_t *recv_bytes)
{
    size_t e = c->count * type_size(c->type);
    *send_bytes = c->kind == COLL_REDUCESCATTER ? e * (size_t)nranks : e;
    *recv_bytes = c->kind == COLL_ALLGATHER ? e * (size_t)nranks : e;
    if (c->kind == COLL_BROADCAST && c->comm->rank != c->root) *send_bytes = 0;
    if (c->kind == COLL_REDUCE && c->comm->rank != c->root) *recv_bytes = 0;
}

/* Whether buffer p (role: "sendbuff") holds bytes, in elements of elem bytes, on the communicator's device; a
 * finding if not. */
static int buffer_ok(struct ncclComm *c, const void *p, size_t bytes, size_t elem, const char *role, const char *who)
{
    if (!bytes) return 1;
    const emu_alloc *a = emu_mem_lookup((uintptr_t)p, 1);
    if (!a) {
        nccl_finding(c, msg_not_device, who, role, p);
        return 0;
    }
    if (a->device >= 0 && a->device != c->device) {
        nccl_finding(c, msg_buffer_device, who, role, a->device, c->rank, c->device);
        return 0;
    }
    uintptr_t end = a->guard_name[0] ? a->open_hi : a->base + a->size;
    uintptr_t start = a->guard_name[0] && a->open_lo > (uintptr_t)p ? a->open_lo : (uintptr_t)p;
    if ((uintptr_t)p + bytes > end || start > (uintptr_t)p) {
        size_t holds = end > (uintptr_t)p ? end - (uintptr_t)p : 0;
        nccl_finding(c, msg_overrun, who, role, holds, a->guard_name[0] ? a->guard_name : a->what, bytes / elem,
                     elem, bytes, bytes - holds);
        return 0;
    }
    return 1;
}

/* The checks NCCL makes of a call, and then the call kept until every rank has made its own. */
static ncclResult_t enqueue(enum coll kind, const void *send, void *recv, size_t count, int type, int op, int root,
                            ncclComm_t comm, cudaStream_t stream)
{
    const char *who = coll_names[kind];
    struct ncclComm *c = live_comm(comm, who);
    if (!c) return ncclInvalidArgument;
    int nranks = c->clique->nranks;
    if (!type_size(type)) {
        nccl_finding(c, msg_bad_type, who, type);
        return ncclInvalidArgument;
    }
    if ((kind != COLL_ALLGATHER && kind != COLL_BROADCAST) && (op < 0 || op >= ncclNumOps)) {
        nccl_finding(c, msg_bad_op, who, op);
        return ncclInvalidArgument;
    }
    if ((kind == COLL_BROADCAST || kind == COLL_REDUCE) && (root < 0 || root >= nranks)) {
        nccl_finding(c, msg_bad_root, who, root, nranks);
        return ncclInvalidArgument;
    }
    size_t per = (kind == COLL_REDUCESCATTER || kind == COLL_ALLGATHER) ? (size_t)nranks : 1;
    if (count > SIZE_MAX / type_size(type) / per) {
        nccl_finding(c, msg_count_overflow, who, count, type_size(type) * per);   /* per rank's part, times ranks */
        return ncclInvalidArgument;
    }
    if (!emu_rt_stream_valid(stream)) {
        nccl_finding(c, msg_bad_stream, who);
        return ncclInvalidArgument;
    }
    int device, queue;
    if (emu_rt_stream_is_default(stream)) {   /* NCCL sets the comm's device first: its legacy stream */
        device = c->device;
        queue = emu_order_legacy(c->device);
    } else {
        queue = emu_rt_stream_queue(stream, &device);
        if (device != c->device) {
            nccl_finding(c, msg_stream_device, who, device, c->rank, c->device);
            return ncclUnhandledCudaError;
        }
    }
    emu_call call = { kind, c, send, recv, count, type, op, root, queue, device, c->calls, {0}, 0 };
    size_t send_bytes, recv_bytes;
    call_bytes(&call, nranks, &send_bytes, &recv_bytes);
    if ((send_bytes && !send) || (recv_bytes && !recv)) {
        nccl_finding(c, msg_null_buffer, who, send_bytes && !send ? "sendbuff" : "recvbuff", count);
        return ncclInvalidArgument;
    }
    if (!buffer_ok(c, send, send_bytes, type_size(type), "sendbuff", who) ||
        !buffer_ok(c, recv, recv_bytes, type_size(type), "recvbuff", who))
        return ncclInvalidArgument;
    c->calls++;
    call.nframes = backtrace(call.frames, NCCL_FRAMES);
    emu_rt_activity.launches++;   /* NCCL launches one kernel per rank's call */
    if (emu_rt_stream_is_default(stream)) emu_rt_activity.default_stream_launches++;
    if (group_depth == 0 && nranks > 1) nccl_finding_kind(EMU_FD_NCCL_GROUP, c, msg_outside_group, who, nranks);
    if (npending == cappending) {
        cappending = cappending ? cappending * 2 : 32;
        if (!(pending = realloc(pending, (size_t)cappending * sizeof *pending))) abort();
    }
    pending[npending++] = call;
    return ncclSuccess;
}

/* ---- A collective, once every rank's call is in ---------------------------------------------------------- */

/* The emulator's view of [p, p + bytes) of device memory, and its allocation in *a (NULL: no bytes). */
static unsigned char *view(const void *p, size_t bytes, emu_alloc **a)
{
    *a = bytes ? emu_mem_lookup((uintptr_t)p, bytes) : NULL;
    return *a ? emu_alloc_view(*a, (uintptr_t)p) : NULL;
}

/* out = the reduction of the ranks' count elements at byte offset `from` of their send buffers, made once, in
 * rank order (so that every rank receives the same bits). */
static void reduce_into(unsigned char *out, emu_call *const *calls, int nranks, size_t from, size_t count)
{
    const emu_call *c0 = calls[0];
    size_t bytes = count * type_size(c0->type);
    unsigned char *x = malloc(bytes ? bytes : 1);
    if (!x) abort();
    for (int r = 0; r < nranks; r++) {
        emu_alloc *a;
        const unsigned char *send = view(calls[r]->send, from + bytes, &a) + from;
        unsigned char *dst = r == 0 ? out : x;
        memcpy(dst, send, bytes);
        if (c0->op == ncclAvg && is_float(c0->type))
            for (size_t i = 0; i < count; i++) premultiply(dst, i, c0->type, nranks);
        if (r > 0)
            for (size_t i = 0; i < count; i++) combine(out, x, i, c0->type, c0->op == ncclAvg ? ncclSum : c0->op);
    }
    if (c0->op == ncclAvg && !is_float(c0->type))
        for (size_t i = 0; i < count; i++) divide(out, i, c0->type, nranks);
    free(x);
}

/* Rank r's part: an operation on its stream that reads its send buffer and writes result into its receive
 * buffer (result NULL: writes nothing), named at the learner's call of it. */
static void rank_part(const emu_call *c, int nranks, const unsigned char *result)
{
    size_t send_bytes, recv_bytes;
    call_bytes(c, nranks, &send_bytes, &recv_bytes);
    emu_alloc *sa, *ra;
    view(c->send, send_bytes, &sa);
    unsigned char *recv = result ? view(c->recv, recv_bytes, &ra) : (ra = NULL, NULL);
    emu_order_begin_frames(c->queue, c->device, coll_names[c->kind], c->frames, c->nframes);
    emu_order_range(sa, (uintptr_t)c->send, send_bytes, 0);
    if (recv) emu_order_range(ra, (uintptr_t)c->recv, recv_bytes, 1);
    if (recv) memmove(recv, result, recv_bytes);
    emu_order_end();
    if (recv) emu_rt_mem_mark(ra, (uintptr_t)c->recv, recv_bytes);
}

/* A finding at the learner's call c. */
static void finding_at_call(const emu_call *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void finding_at_call(const emu_call *c, const char *fmt, ...)
{
    char where[600], text[sizeof ((emu_record *)0)->text];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, emu_text(fmt), ap);
    va_end(ap);
    emu_host_frames_line(c->frames, c->nframes, where, sizeof where);
    emu_finding_at(EMU_FD_NCCL, where, "%s", text);
    snprintf(c->comm->last_error, sizeof c->comm->last_error, "%s", text);
}

static void run_collective(emu_call *const *calls, int nranks)
{
    const emu_call *c0 = calls[0];
    for (int r = 1; r < nranks; r++) {
        const emu_call *c = calls[r];
        int reduces = c0->kind != COLL_ALLGATHER && c0->kind != COLL_BROADCAST;
        int roots = c0->kind == COLL_BROADCAST || c0->kind == COLL_REDUCE;
        if (c->kind != c0->kind || c->count != c0->count || c->type != c0->type || (reduces && c->op != c0->op) ||
            (roots && c->root != c0->root)) {
            char mine[160], theirs[160];
            call_text(c0, mine, sizeof mine);
            call_text(c, theirs, sizeof theirs);
            finding_at_call(c, msg_mismatch, coll_names[c->kind], 0, mine, r, theirs);
            return;
        }
    }
    for (int r = 0; r < nranks; r++) {   /* a buffer freed between the call and the group's end */
        size_t send_bytes, recv_bytes;
        call_bytes(calls[r], nranks, &send_bytes, &recv_bytes);
        int send_gone = send_bytes && !emu_mem_lookup((uintptr_t)calls[r]->send, send_bytes);
        if (send_gone || (recv_bytes && !emu_mem_lookup((uintptr_t)calls[r]->recv, recv_bytes))) {
            finding_at_call(calls[r], msg_freed, coll_names[calls[r]->kind], send_gone ? "sendbuff" : "recvbuff");
            return;
        }
    }
    /* Every rank's part comes after what every rank had enqueued before its call: a rank receives from all. */
    emu_order_clock *before[EMU_MAX_DEVICES];
    for (int r = 0; r < nranks; r++) before[r] = emu_order_record(NULL, calls[r]->queue);
    for (int r = 0; r < nranks; r++)
        for (int s = 0; s < nranks; s++) emu_order_wait(calls[r]->queue, before[s]);
    for (int r = 0; r < nranks; r++) emu_order_clock_free(before[r]);
    /* a kernel held until then (emu_held.c) that wrote a send buffer before the call runs before it is read */
    for (int r = 0; r < nranks; r++) emu_order_run_held_before(calls[r]->queue);

    size_t elem = type_size(c0->type), part = c0->count * elem;
    size_t total = c0->kind == COLL_REDUCESCATTER || c0->kind == COLL_ALLGATHER ? part * (size_t)nranks : part;
    unsigned char *result = malloc(total ? total : 1);
    if (!result) abort();
    emu_alloc *a;
    switch (c0->kind) {
    case COLL_ALLREDUCE: case COLL_REDUCE:
        reduce_into(result, calls, nranks, 0, c0->count);
        break;
    case COLL_REDUCESCATTER:
        reduce_into(result, calls, nranks, 0, c0->count * (size_t)nranks);
        break;
    case COLL_ALLGATHER:
        for (int r = 0; r < nranks && part; r++) memcpy(result + (size_t)r * part, view(calls[r]->send, part, &a), part);
        break;
    case COLL_BROADCAST:
        if (part) memcpy(result, view(calls[c0->root]->send, part, &a), part);
        break;
    }
    for (int r = 0; r < nranks; r++) {
        const unsigned char *mine = result;
        if (c0->kind == COLL_REDUCESCATTER) mine = result + (size_t)r * part;
        if (c0->kind == COLL_REDUCE && r != c0->root) mine = NULL;
        rank_part(calls[r], nranks, mine);
    }
    free(result);
}

/* Runs every collective whose ranks have all made their call, in the order of the first rank's calls. */
static void run_complete(void)
{
    for (int i = 0; i < npending;) {
        const emu_call *c = &pending[i];
        emu_clique *q = c->comm->clique;
        int at[EMU_MAX_DEVICES], found = 0;
        for (int r = 0; r < q->nranks; r++) at[r] = -1;
        for (int j = 0; j < npending; j++)
            if (pending[j].comm->clique == q && pending[j].seq == c->seq && at[pending[j].comm->rank] < 0) {
                at[pending[j].comm->rank] = j;
                found++;
            }
        if (found < q->nranks) {
            i++;
            continue;
        }
        emu_call *calls[EMU_MAX_DEVICES], copies[EMU_MAX_DEVICES];
        for (int r = 0; r < q->nranks; r++) {
            copies[r] = pending[at[r]];
            calls[r] = &copies[r];
            pending[at[r]].comm = NULL;   /* taken */
        }
        int kept = 0;
        for (int j = 0; j < npending; j++)
            if (pending[j].comm) pending[kept++] = pending[j];
        npending = kept;
        run_collective(calls, q->nranks);
        i = 0;
    }
}

ncclResult_t ncclAllReduce(const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype,
                           ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream)
{
    ncclResult_t res = enqueue(COLL_ALLREDUCE, sendbuff, recvbuff, count, datatype, op, 0, comm, stream);
    if (res == ncclSuccess && group_depth == 0) run_complete();
    return res;
}

ncclResult_t ncclReduceScatter(const void *sendbuff, void *recvbuff, size_t recvcount, ncclDataType_t datatype,
                               ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream)
{
    ncclResult_t res = enqueue(COLL_REDUCESCATTER, sendbuff, recvbuff, recvcount, datatype, op, 0, comm, stream);
    if (res == ncclSuccess && group_depth == 0) run_complete();
    return res;
}

ncclResult_t ncclAllGather(const void *sendbuff, void *recvbuff, size_t sendcount, ncclDataType_t datatype,
                           ncclComm_t comm, cudaStream_t stream)
{
    ncclResult_t res = enqueue(COLL_ALLGATHER, sendbuff, recvbuff, sendcount, datatype, ncclSum, 0, comm, stream);
    if (res == ncclSuccess && group_depth == 0) run_complete();
    return res;
}

ncclResult_t ncclBroadcast(const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype, int root,
                           ncclComm_t comm, cudaStream_t stream)
{
    ncclResult_t res = enqueue(COLL_BROADCAST, sendbuff, recvbuff, count, datatype, ncclSum, root, comm, stream);
    if (res == ncclSuccess && group_depth == 0) run_complete();
    return res;
}

ncclResult_t ncclBcast(void *buff, size_t count, ncclDataType_t datatype, int root, ncclComm_t comm,
                       cudaStream_t stream)
{
    return ncclBroadcast(buff, buff, count, datatype, root, comm, stream);
}

ncclResult_t ncclReduce(const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype, ncclRedOp_t op,
                        int root, ncclComm_t comm, cudaStream_t stream)
{
    ncclResult_t res = enqueue(COLL_REDUCE, sendbuff, recvbuff, count, datatype, op, root, comm, stream);
    if (res == ncclSuccess && group_depth == 0) run_complete();
    return res;
}

ncclResult_t ncclGroupStart(void)
{
    group_depth++;
    return ncclSuccess;
}

ncclResult_t ncclGroupEnd(void)
{
    if (group_depth == 0) {
        nccl_finding(NULL, msg_group_end);
        return ncclInvalidUsage;
    }
    if (--group_depth == 0) run_complete();
    return ncclSuccess;
}

/* ---- The end of a communicator --------------------------------------------------------------------------- */

static ncclResult_t comm_end(ncclComm_t comm, const char *who, int quiet)
{
    struct ncclComm *c = live_comm(comm, who);
    if (!c) return ncclInvalidArgument;
    int kept = 0;
    for (int j = 0; j < npending; j++) {
        if (pending[j].comm != c) {
            pending[kept++] = pending[j];
            continue;
        }
        if (!quiet) finding_at_call(&pending[j], msg_unjoined, coll_names[pending[j].kind], c->rank);
    }
    npending = kept;
    c->clique->ranks[c->rank] = NULL;
    c->magic = 0;   /* the memory stays: a later use of the handle is told apart from a live one */
    return ncclSuccess;
}

ncclResult_t ncclCommFinalize(ncclComm_t comm)
{
    return live_comm(comm, "ncclCommFinalize") ? ncclSuccess : ncclInvalidArgument;
}

ncclResult_t ncclCommDestroy(ncclComm_t comm) { return comm_end(comm, "ncclCommDestroy", 0); }

ncclResult_t ncclCommAbort(ncclComm_t comm) { return comm_end(comm, "ncclCommAbort", 1); }
