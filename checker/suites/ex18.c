/* ex18.c - hidden tests of exercise 18: NCCL. One communicator per device; an in-place all-reduce of float,
 * half, bf16 and int32 inside a group; gradients averaged bucket by bucket on a communication stream while the
 * compute stream goes on (DDP); a reduce-scatter that leaves each rank its shard (ZeRO). Every rank must end
 * with the same bits; n = 0, n < ranks, n not a multiple of them, buckets that do not divide n, 1 to 4 ranks.
 * On the emulator, the order that the learner's streams and events define is checked too (no all-reduce reads
 * a bucket before its gradient is computed, no update reads it before it is averaged: the emulator's findings),
 * and where the work runs (the caller's streams, never the default stream, and no wait on the host). */
#include "../harness/harness.h"
#include "../contracts/ex18.h"
#define HARNESS_SPACE_FILE "../spaces/ex18.def"
#include "../harness/harness_space_table.h"
#include "ranks.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char COMMS_HINT[] = N_("Does comms_create make one communicator per device, rank r on devices[r] "
                                    "(ncclCommInitAll(comms, ranks, devices)), and return its result?");
static const char NOTHING_HINT[] = N_("Is there one ncclAllReduce per rank, with sendbuff and recvbuff both "
                                      "d_bufs[r], between ncclGroupStart() and ncclGroupEnd()?");
static const char AVERAGE_HINT[] = N_("The all-reduce sums the ranks' gradients: is the sum divided by the number "
                                      "of ranks exactly once (the kernel scale by 1 / ranks, or ncclAvg, not both)?");
static const char BUCKET_HINT[] = N_("Does every bucket get its all-reduce, the last one too, with its own count "
                                     "(shorter when bucket does not divide n)?");
static const char BITS_HINT[] = N_("Does every rank take part in the same all-reduce of the same elements? NCCL "
                                   "gives every rank the same bits; a rank that computes its own sum does not.");
static const char SHARD_HINT[] = N_("ncclReduceScatter's count is what each rank receives: one shard, ceil(n / "
                                    "ranks) floats, not n. Is the padding past n zeroed before it is summed?");
static const char UPDATE_HINT[] = N_("Does sgd_update run on compute[r] after every bucket's average, with the same "
                                     "lr, once per step?");
static const char STREAM_HINT[] = N_("Is every kernel and every NCCL call given the stream of the rank it works "
                                     "for? The default stream (0, or no stream) orders nothing with the caller's "
                                     "streams.");
static const char WAIT_HINT[] = N_("Which call makes the host wait: a cudaStreamSynchronize, a "
                                   "cudaDeviceSynchronize, a cudaMemcpy without Async? Order the streams with "
                                   "events that streams wait for (cudaStreamWaitEvent), on the devices.");
static const char ERROR_HINT[] = N_("Which call failed? Check each NCCL call's ncclResult_t and each CUDA call's "
                                    "cudaError_t, and return the first that is not a success.");
static const char GROUP_OPEN_HINT[] = N_("When a call inside a group fails, is the group still closed "
                                         "(ncclGroupEnd) before the function returns the error?");

/* ---- The ranks: devices, streams and communicators --------------------------------------------------------- */

typedef struct ranks_set {
    int ranks;
    int devices[MAX_RANKS];
    cudaStream_t compute[MAX_RANKS], comm[MAX_RANKS];
    ncclComm_t comms[MAX_RANKS];
} ranks_set;

static void need_ranks(int ranks)
{
    if (ranks <= device_count()) return;
    char why[300];
    snprintf(why, sizeof why, _("not run here: %d ranks need %d devices, and this machine has %d."), ranks, ranks,
             device_count());
    harness_not_run(why);
}

static void nccl_ok(ncclResult_t res, const char *what)
{
    if (res != ncclSuccess)
        harness_fail(NULL, _("The checker's own %s failed: %s. This is the checker's problem, not yours."), what,
                     ncclGetErrorString(res));
}

/* The checker's own communicators, made once per number of ranks in a test's process and kept until it ends:
 * on a GPU making one connects every pair of devices, which takes far longer than the collectives tried. */
static ncclComm_t kept_comms[MAX_RANKS + 1][MAX_RANKS];

/* The devices, the highest first (rank r is device count-1-r, so that a file which takes rank r for device r
 * uses the wrong one), two streams each that do not wait for the default stream, as DDP's are, and (with
 * comms) the checker's own communicators. */
static void ranks_make(ranks_set *s, int ranks, int comms)
{
    memset(s, 0, sizeof *s);
    s->ranks = ranks;
    int count = device_count();
    for (int r = 0; r < ranks; r++) {
        s->devices[r] = count - 1 - r;
        CUDA_OK(cudaSetDevice(s->devices[r]));
        CUDA_OK(cudaStreamCreateWithFlags(&s->compute[r], cudaStreamNonBlocking));
        CUDA_OK(cudaStreamCreateWithFlags(&s->comm[r], cudaStreamNonBlocking));
    }
    if (comms && !kept_comms[ranks][0]) nccl_ok(ncclCommInitAll(kept_comms[ranks], ranks, s->devices), "ncclCommInitAll");
    if (comms) memcpy(s->comms, kept_comms[ranks], sizeof s->comms);
}

static void ranks_free(ranks_set *s)
{
    for (int r = 0; r < s->ranks; r++) {
        cudaSetDevice(s->devices[r]);
        cudaStreamDestroy(s->compute[r]);
        cudaStreamDestroy(s->comm[r]);
        if (s->comms[r] && s->comms[r] != kept_comms[s->ranks][r]) ncclCommDestroy(s->comms[r]);   /* the learner's */
    }
}

static void sync_streams(const ranks_set *s, int comm_too)
{
    ranks_sync(s->devices, s->compute, s->ranks);
    if (comm_too) ranks_sync(s->devices, s->comm, s->ranks);
}

/* The learner's call's result: a failure says which call and what NCCL says. */
static void expect_success(ncclResult_t res, const char *what)
{
    if (res != ncclSuccess)
        harness_fail(_(ERROR_HINT), _("%s returned %s."), what, ncclGetErrorString(res));
}

/* What a call asked of the runtime (the emulator counts it; a GPU does not), checked: the caller's streams
 * only, and no wait on the host. */
static void expect_streams_only(const emu_activity *a, const char *what)
{
    uint64_t on_default = a->default_stream_launches + a->default_stream_copies;
    if (on_default > 0)
        harness_fail(_(STREAM_HINT), _("%s put %" PRIu64 " of its kernels, copies and NCCL calls on the default "
                                       "stream, which the caller's streams (made with cudaStreamNonBlocking) do not "
                                       "wait for."),
                     what, on_default);
    if (a->host_waits > 0) {
        char waits[32];
        harness_times(a->host_waits, waits, sizeof waits);
        harness_fail(_(WAIT_HINT), _("%s made the host wait for a device %s: it should only enqueue work, and "
                                     "return while the devices run it."), what, waits);
    }
}

/* ---- Values of each type, and their sums ----------------------------------------------------------------- */

typedef enum elem_type { T_FLOAT, T_HALF, T_BF16, T_INT32 } elem_type;

static const ncclDataType_t NCCL_TYPES[] = { ncclFloat, ncclHalf, ncclBfloat16, ncclInt32 };
static const char *const TYPE_NAMES[] = { "ncclFloat", "ncclHalf", "ncclBfloat16", "ncclInt32" };
static const size_t TYPE_BYTES[] = { 4, 2, 2, 4 };
/* Each type's unit roundoff: an addition rounds by at most this times its result. */
static const double TYPE_UNIT[] = { 1.0 / 16777216.0, 1.0 / 2048.0, 1.0 / 256.0, 0 };

/* Floats of every magnitude from 2^-10 to 2^10, of both signs: their sum in another order has other last bits. */
static void float_values(float *h, size_t n, int rank, uint64_t salt)
{
    harness_random_floats(h, n, -1.0f, 1.0f, salt * 16 + (uint64_t)rank);
    for (size_t i = 0; i < n; i++) h[i] = ldexpf(h[i], (int)((i * 7 + (size_t)rank * 3) % 21) - 10);
}

/* n values of type t for a rank, as bytes, and each as a double. */
static void *typed_values(elem_type t, size_t n, int rank, uint64_t salt, double *as_double)
{
    void *h = harness_alloc((n ? n : 1) * TYPE_BYTES[t]);
    if (t == T_FLOAT) {
        float_values(h, n, rank, salt);
        for (size_t i = 0; i < n; i++) as_double[i] = ((float *)h)[i];
    } else if (t == T_INT32) {
        /* large enough that a count in bytes or a missing rank changes the sum, small enough not to wrap */
        harness_random_ints(h, n, -100000000, 100000000, salt * 16 + (uint64_t)rank);
        for (size_t i = 0; i < n; i++) as_double[i] = ((int *)h)[i];
    } else {
        harness_half_kind k = t == T_HALF ? HARNESS_F16 : HARNESS_BF16;
        harness_random_halves(k, h, n, -8.0f, 8.0f, salt * 16 + (uint64_t)rank);
        for (size_t i = 0; i < n; i++) as_double[i] = harness_half_to_float(k, ((uint16_t *)h)[i]);
    }
    return h;
}

static double typed_value(elem_type t, const void *h, size_t i)
{
    switch (t) {
    case T_FLOAT: return ((const float *)h)[i];
    case T_INT32: return ((const int *)h)[i];
    default: return harness_half_to_float(t == T_HALF ? HARNESS_F16 : HARNESS_BF16, ((const uint16_t *)h)[i]);
    }
}

/* The ranks' values added one after another in any order: ranks - 1 roundings of at most u times the partial
 * sum each, and the result's own rounding to the type: (ranks) u sum|x|. Integers: exact. */
static double sum_bound(elem_type t, int ranks, double abs_sum)
{
    return TYPE_UNIT[t] * ranks * abs_sum * 1.001 + (t == T_FLOAT ? 1e-37 : t == T_INT32 ? 0 : 1e-7);
}

/* ---- allreduce_in_place ----------------------------------------------------------------------------------- */

typedef struct typed_run {
    elem_type t;
    size_t n;
    dev_buffer bufs[MAX_RANKS];
    void *d_bufs[MAX_RANKS];
    void *h_in[MAX_RANKS], *h_out[MAX_RANKS];
    double *in[MAX_RANKS];   /* each rank's values as doubles */
} typed_run;

static void typed_make(typed_run *g, const ranks_set *s, elem_type t, size_t n, uint64_t salt)
{
    memset(g, 0, sizeof *g);
    g->t = t;
    g->n = n;
    for (int r = 0; r < s->ranks; r++) {
        CUDA_OK(cudaSetDevice(s->devices[r]));
        g->in[r] = harness_alloc((n ? n : 1) * sizeof(double));
        g->h_in[r] = typed_values(t, n, r, salt, g->in[r]);
        g->h_out[r] = harness_alloc((n ? n : 1) * TYPE_BYTES[t]);
        if (t == T_HALF || t == T_BF16) {
            g->bufs[r] = dev_input_halves(g->h_in[r], n, 0x7C00, 0);
        } else {
            const float guard_f = HARNESS_GUARD_FLOAT;
            const int guard_i = HARNESS_GUARD_INT;
            g->bufs[r] = dev_input(g->h_in[r], n, 4, t == T_FLOAT ? (const void *)&guard_f : (const void *)&guard_i, 0);
        }
        char name[32];
        snprintf(name, sizeof name, "d_bufs[%d]", r);
        dev_name(&g->bufs[r], name);
        g->d_bufs[r] = dev_ptr(&g->bufs[r]);
    }
}

static void typed_free(typed_run *g, int ranks)
{
    for (int r = 0; r < ranks; r++) {
        dev_free(&g->bufs[r]);
        free(g->h_in[r]);
        free(g->h_out[r]);
        free(g->in[r]);
    }
}

static void typed_check(const typed_run *g, int ranks, const char *what)
{
    for (int r = 0; r < ranks; r++)
        for (size_t i = 0; i < g->n; i++) {
            double sum = 0, abs_sum = 0;
            for (int q = 0; q < ranks; q++) {
                sum += g->in[q][i];
                abs_sum += fabs(g->in[q][i]);
            }
            double got = typed_value(g->t, g->h_out[r], i), bound = sum_bound(g->t, ranks, abs_sum);
            if (fabs(got - sum) <= bound) continue;
            if (ranks > 1 && !memcmp((const char *)g->h_out[r] + i * TYPE_BYTES[g->t],
                                     (const char *)g->h_in[r] + i * TYPE_BYTES[g->t], TYPE_BYTES[g->t])) {
                harness_evidence("bug-model", "name=nothing-reduced hint=1");
                harness_fail(_(NOTHING_HINT), _("%s: rank %d's element %zu should be %.9g, the sum over the %d ranks, "
                                                "but it still holds that rank's own value %.9g."),
                             what, r, i, sum, ranks, got);
            }
            harness_fail(_(NOTHING_HINT), _("%s: rank %d's element %zu should be %.9g, within %.3g, but it is %.9g."),
                         what, r, i, sum, bound, got);
        }
    for (int r = 1; r < ranks; r++)
        if (g->n && memcmp(g->h_out[r], g->h_out[0], g->n * TYPE_BYTES[g->t])) {
            harness_evidence("bug-model", "name=bits-differ hint=4");
            harness_fail(_(BITS_HINT), _("%s: ranks 0 and %d hold other bits for the same element: an all-reduce "
                                         "must give every rank the same bits, or replicas of a model drift apart."),
                         what, r);
        }
}

/* One all-reduce of n elements of type t over ranks, checked; with act, what it asked of the runtime. */
static void expect_allreduce(int ranks, elem_type t, size_t n, uint64_t salt, emu_activity *act, int *known)
{
    if (ranks > device_count()) return;
    ranks_set s;
    typed_run g;
    ranks_make(&s, ranks, 1);
    typed_make(&g, &s, t, n, salt);
    char what[200];
    snprintf(what, sizeof what, "allreduce_in_place(count = %zu, %s, ranks = %d)", n, TYPE_NAMES[t], ranks);
    backend_take_activity(NULL);
    expect_success(allreduce_in_place(g.d_bufs, n, NCCL_TYPES[t], s.comms, s.compute, ranks), what);
    int k = backend_take_activity(act);
    if (known) *known = k;
    sync_streams(&s, 0);
    for (int r = 0; r < ranks; r++) {
        CUDA_OK(cudaSetDevice(s.devices[r]));
        dev_fetch(&g.bufs[r], g.h_out[r]);
    }
    harness_after_launch(what);
    typed_check(&g, ranks, what);
    typed_free(&g, ranks);
    ranks_free(&s);
}

/* ---- ddp_step ----------------------------------------------------------------------------------------------- */

typedef struct ddp_run {
    size_t n, bucket;
    float lr;
    float *h_w, *h_acts[MAX_RANKS], *h_grads[MAX_RANKS], *h_w_out[MAX_RANKS];
    dev_buffer weights[MAX_RANKS], grads[MAX_RANKS], acts[MAX_RANKS];
    float *d_w[MAX_RANKS], *d_g[MAX_RANKS];
    const float *d_a[MAX_RANKS];
} ddp_run;

static void ddp_make(ddp_run *g, const ranks_set *s, size_t n, size_t bucket, uint64_t salt)
{
    memset(g, 0, sizeof *g);
    g->n = n;
    g->bucket = bucket;
    g->lr = 0.125f;
    g->h_w = harness_alloc((n ? n : 1) * sizeof(float));
    harness_random_floats(g->h_w, n, -2.0f, 2.0f, salt * 16 + 15);
    for (int r = 0; r < s->ranks; r++) {
        CUDA_OK(cudaSetDevice(s->devices[r]));
        g->h_acts[r] = harness_alloc((n ? n : 1) * sizeof(float));
        g->h_grads[r] = harness_alloc((n ? n : 1) * sizeof(float));
        g->h_w_out[r] = harness_alloc((n ? n : 1) * sizeof(float));
        float_values(g->h_acts[r], n, r, salt);
        char name[32];
        g->weights[r] = dev_input_floats(g->h_w, n, HARNESS_GUARD_FLOAT);   /* replicas: the same on every rank */
        snprintf(name, sizeof name, "d_weights[%d]", r);
        dev_name(&g->weights[r], name);
        g->acts[r] = dev_input_floats(g->h_acts[r], n, HARNESS_GUARD_FLOAT);
        snprintf(name, sizeof name, "d_acts[%d]", r);
        dev_name(&g->acts[r], name);
        g->grads[r] = dev_output_floats(n);
        snprintf(name, sizeof name, "d_grads[%d]", r);
        dev_name(&g->grads[r], name);
        g->d_w[r] = dev_ptr(&g->weights[r]);
        g->d_g[r] = dev_ptr(&g->grads[r]);
        g->d_a[r] = dev_ptr(&g->acts[r]);
    }
}

static void ddp_free(ddp_run *g, int ranks)
{
    for (int r = 0; r < ranks; r++) {
        dev_free(&g->weights[r]);
        dev_free(&g->grads[r]);
        dev_free(&g->acts[r]);
        free(g->h_acts[r]);
        free(g->h_grads[r]);
        free(g->h_w_out[r]);
    }
    free(g->h_w);
}

static void ddp_what(const ddp_run *g, int ranks, char *buf, size_t len)
{
    snprintf(buf, len, "ddp_step(n = %zu, bucket = %zu, ranks = %d)", g->n, g->bucket, ranks);
}

/* The step's result: every rank's gradient the average, within its rounding; the same bits everywhere; the
 * weights updated with it. */
static void ddp_check(const ddp_run *g, int ranks, const char *what)
{
    for (int r = 0; r < ranks; r++)
        for (size_t i = 0; i < g->n; i++) {
            double sum = 0, abs_sum = 0;
            for (int q = 0; q < ranks; q++) {
                float grad = g->h_acts[q][i] * g->h_w[i];
                sum += grad;
                abs_sum += fabs(grad);
            }
            double avg = sum / ranks, bound = (ranks + 2) * HARNESS_FLOAT_UNIT * abs_sum / ranks * 1.001 + 1e-37;
            float got = g->h_grads[r][i];
            if (fabs(got - avg) <= bound) continue;
            const char *hint = _(AVERAGE_HINT);
            char why[200] = "";
            if (ranks > 1 && fabs(got - sum) <= 2 * bound * ranks) {
                harness_evidence("bug-model", "name=not-averaged hint=3");
                snprintf(why, sizeof why, "%s", _(" It is the sum: the average was never taken."));
            } else if (ranks > 1 && fabs(got - avg / ranks) <= 2 * bound) {
                harness_evidence("bug-model", "name=averaged-twice hint=3");
                snprintf(why, sizeof why, "%s", _(" It is the average divided by the ranks again."));
            } else if (ranks > 1 && fabs(got - g->h_acts[r][i] * g->h_w[i]) <= 2 * bound) {
                harness_evidence("bug-model", "name=bucket-not-reduced hint=2");
                snprintf(why, sizeof why, _(" It is rank %d's own gradient: its bucket (bucket %zu) was never "
                                            "all-reduced."), r, i / g->bucket);
                hint = _(BUCKET_HINT);
            } else if (harness_is_poison_float(got)) {
                snprintf(why, sizeof why, "%s", _(" It was never written."));
                hint = _(BUCKET_HINT);
            }
            harness_fail(hint, _("%s: rank %d's gradient %zu should be %.9g, the ranks' average within %.3g, but it "
                                 "is %.9g.%s"),
                         what, r, i, avg, bound, got, why);
        }
    for (int r = 1; r < ranks; r++)
        for (size_t i = 0; i < g->n; i++)
            if (memcmp(&g->h_grads[r][i], &g->h_grads[0][i], sizeof(float))) {
                harness_evidence("bug-model", "name=bits-differ hint=4");
                harness_fail(_(BITS_HINT), _("%s: gradient %zu is %.9g on rank 0 and %.9g on rank %d: every rank "
                                             "must hold the same bits."),
                             what, i, g->h_grads[0][i], g->h_grads[r][i], r);
            }
    for (int r = 0; r < ranks; r++)
        for (size_t i = 0; i < g->n; i++) {
            /* the update as sgd_update makes it, with or without a fused multiply-add */
            float grad = g->h_grads[r][i], expected = g->h_w[i] - g->lr * grad;
            double bound = 2 * HARNESS_FLOAT_UNIT * (fabs(g->h_w[i]) + fabs(g->lr * grad)) + 1e-37;
            if (fabs((double)g->h_w_out[r][i] - expected) <= bound) continue;
            harness_fail(_(UPDATE_HINT), _("%s: rank %d's weight %zu should be %.9g - %g x %.9g = %.9g after the step, "
                                           "but it is %.9g."),
                         what, r, i, g->h_w[i], g->lr, grad, expected, g->h_w_out[r][i]);
        }
}

/* One step over ranks, checked: the caller waits for the compute streams only. */
static void expect_ddp(int ranks, size_t n, size_t bucket, uint64_t salt, emu_activity *act)
{
    if (ranks > device_count()) return;
    ranks_set s;
    ddp_run g;
    ranks_make(&s, ranks, 1);
    ddp_make(&g, &s, n, bucket, salt);
    char what[200];
    ddp_what(&g, ranks, what, sizeof what);
    backend_take_activity(NULL);
    expect_success(ddp_step(g.d_w, g.d_g, g.d_a, n, bucket, g.lr, s.comms, s.compute, s.comm, ranks), what);
    backend_take_activity(act);
    sync_streams(&s, 0);
    for (int r = 0; r < ranks; r++) {
        CUDA_OK(cudaSetDevice(s.devices[r]));
        dev_fetch(&g.grads[r], g.h_grads[r]);
        dev_fetch(&g.weights[r], g.h_w_out[r]);
        dev_expect_unchanged(&g.acts[r], what);
    }
    harness_after_launch(what);
    ddp_check(&g, ranks, what);
    ddp_free(&g, ranks);
    ranks_free(&s);
}

/* ---- shard_gradients ---------------------------------------------------------------------------------------- */

static void expect_shards(int ranks, size_t n, uint64_t salt, emu_activity *act)
{
    if (ranks > device_count()) return;
    ranks_set s;
    ranks_make(&s, ranks, 1);
    const size_t shard = (n + (size_t)ranks - 1) / (size_t)ranks, padded = shard * (size_t)ranks;
    dev_buffer grads[MAX_RANKS], shards[MAX_RANKS];
    float *d_grads[MAX_RANKS], *d_shards[MAX_RANKS], *h_in[MAX_RANKS], *h_out[MAX_RANKS];
    for (int r = 0; r < ranks; r++) {
        CUDA_OK(cudaSetDevice(s.devices[r]));
        h_in[r] = harness_alloc((padded ? padded : 1) * sizeof(float));
        h_out[r] = harness_alloc((shard ? shard : 1) * sizeof(float));
        float_values(h_in[r], n, r, salt);
        /* the room past n holds what a reused buffer would: old gradients, not zeros */
        for (size_t i = n; i < padded; i++) h_in[r][i] = 1000.0f + (float)i;
        char name[32];
        grads[r] = dev_input_floats(h_in[r], padded, HARNESS_GUARD_FLOAT);
        snprintf(name, sizeof name, "d_grads[%d]", r);
        dev_name(&grads[r], name);
        shards[r] = dev_output_floats(shard);
        snprintf(name, sizeof name, "d_shards[%d]", r);
        dev_name(&shards[r], name);
        d_grads[r] = dev_ptr(&grads[r]);
        d_shards[r] = dev_ptr(&shards[r]);
    }
    char what[200];
    snprintf(what, sizeof what, "shard_gradients(n = %zu, ranks = %d)", n, ranks);
    backend_take_activity(NULL);
    expect_success(shard_gradients(d_grads, d_shards, n, s.comms, s.compute, ranks), what);
    backend_take_activity(act);
    sync_streams(&s, 0);
    for (int r = 0; r < ranks; r++) {
        CUDA_OK(cudaSetDevice(s.devices[r]));
        dev_fetch(&shards[r], h_out[r]);
        float *now = harness_alloc((padded ? padded : 1) * sizeof(float));
        dev_fetch(&grads[r], now);
        for (size_t i = 0; i < n; i++)
            if (memcmp(&now[i], &h_in[r][i], sizeof(float)))
                harness_fail(_(SHARD_HINT), _("%s changed rank %d's gradient %zu (from %.9g to %.9g): the gradient is "
                                              "only read; only the room past n may be written."),
                             what, r, i, h_in[r][i], now[i]);
        free(now);
    }
    harness_after_launch(what);
    for (int r = 0; r < ranks; r++)
        for (size_t j = 0; j < shard && (size_t)r * shard + j < n; j++) {
            size_t i = (size_t)r * shard + j;
            double sum = 0, abs_sum = 0;
            for (int q = 0; q < ranks; q++) {
                sum += h_in[q][i];
                abs_sum += fabs(h_in[q][i]);
            }
            double avg = sum / ranks, bound = (ranks + 2) * HARNESS_FLOAT_UNIT * abs_sum / ranks * 1.001 + 1e-37;
            if (fabs(h_out[r][j] - avg) <= bound) continue;
            char got[64];
            harness_describe_float(h_out[r][j], got, sizeof got);
            const char *hint = _(SHARD_HINT);
            if (ranks > 1 && fabs(h_out[r][j] - sum) <= 2 * bound * ranks) {
                harness_evidence("bug-model", "name=not-averaged hint=3");
                hint = _(AVERAGE_HINT);
            }
            harness_fail(hint, _("%s: rank %d's shard element %zu (gradient %zu) should be %.9g, the ranks' average "
                                 "within %.3g, but it is %s."),
                         what, r, j, i, avg, bound, got);
        }
    for (int r = 0; r < ranks; r++) {
        dev_free(&grads[r]);
        dev_free(&shards[r]);
        free(h_in[r]);
        free(h_out[r]);
    }
    ranks_free(&s);
}

/* ---- The declared cases ------------------------------------------------------------------------------------ */

static size_t case_bucket(const harness_cover *c, size_t k, size_t n)
{
    const char *label = harness_case_label(c, k, "bucket");
    if (!strcmp(label, "tenth")) return n / 10 + 1;
    if (!strcmp(label, "third")) return n / 3 + 1;
    if (!strcmp(label, "whole")) return n ? n : 1;
    return n + 7;
}

/* ---- The tests ------------------------------------------------------------------------------------------- */

START_TEST(test_ex18_comms)
{
    for (int ranks = 1; ranks <= largest_ring(); ranks++) {
        ranks_set s;
        ranks_make(&s, ranks, 0);
        char what[120];
        snprintf(what, sizeof what, "comms_create(ranks = %d)", ranks);
        expect_success(comms_create(s.comms, s.devices, ranks), what);
        harness_after_launch(what);
        for (int r = 0; r < ranks; r++) {
            int count = -1, rank = -1, device = -1;
            if (!s.comms[r] || ncclCommCount(s.comms[r], &count) != ncclSuccess ||
                ncclCommUserRank(s.comms[r], &rank) != ncclSuccess ||
                ncclCommCuDevice(s.comms[r], &device) != ncclSuccess)
                harness_fail(_(COMMS_HINT), _("%s returned ncclSuccess, but comms[%d] is not a communicator."), what, r);
            if (count != ranks || rank != r || device != s.devices[r])
                harness_fail(_(COMMS_HINT), _("%s: comms[%d] is rank %d of %d on device %d; it should be rank %d of %d "
                                              "on device %d (devices[%d])."),
                             what, r, rank, count, device, r, ranks, s.devices[r], r);
        }
        ranks_free(&s);
    }
}
END_TEST

START_TEST(test_ex18_core)
{
    need_ranks(2);
    for (int ranks = 2; ranks <= largest_ring(); ranks++) expect_allreduce(ranks, T_FLOAT, 3000, 10 + (uint64_t)ranks, NULL, NULL);
}
END_TEST

START_TEST(test_ex18_declared_allreduce)
{
    harness_cover c;
    harness_cover_build(&SPACE, &c);
    for (size_t k = 0; k < c.cases; k++) {
        int ranks = (int)harness_case_number(&c, k, "ranks");
        elem_type t = (elem_type)harness_case_index(&c, k, "dtype");
        expect_allreduce(ranks, t, case_n(&c, k, ranks), 30 + (uint64_t)k, NULL, NULL);
    }
    harness_cover_free(&c);
}
END_TEST

START_TEST(test_ex18_ddp_core)
{
    need_ranks(2);
    expect_ddp(largest_ring(), 10000, 1500, 50, NULL);
}
END_TEST

START_TEST(test_ex18_declared_ddp)
{
    harness_cover c;
    harness_cover_build(&SPACE, &c);
    for (size_t k = 0; k < c.cases; k++) {
        int ranks = (int)harness_case_number(&c, k, "ranks");
        size_t n = case_n(&c, k, ranks);
        expect_ddp(ranks, n, case_bucket(&c, k, n), 130 + (uint64_t)k, NULL);
    }
    harness_cover_free(&c);
}
END_TEST

START_TEST(test_ex18_declared_shards)
{
    harness_cover c;
    harness_cover_build(&SPACE, &c);
    for (size_t k = 0; k < c.cases; k++) {
        int ranks = (int)harness_case_number(&c, k, "ranks");
        expect_shards(ranks, case_n(&c, k, ranks), 230 + (uint64_t)k, NULL);
    }
    harness_cover_free(&c);
}
END_TEST

/* Counted by the emulator: every kernel and NCCL call on the caller's streams, and no wait on the host. */
START_TEST(test_ex18_streams)
{
    need_ranks(2);
    emu_activity a;
    int known = 0;
    expect_allreduce(largest_ring(), T_FLOAT, 4099, 90, &a, &known);
    if (!known) return;
    expect_streams_only(&a, "allreduce_in_place(count = 4099)");
    expect_ddp(largest_ring(), 4099, 1000, 91, &a);
    expect_streams_only(&a, "ddp_step(n = 4099, bucket = 1000)");
    expect_shards(largest_ring(), 4099, 92, &a);
    expect_streams_only(&a, "shard_gradients(n = 4099)");
}
END_TEST

/* A call that NCCL refuses (a count that overflows a size_t): the function returns NCCL's result, and closes
 * its group, so that the next call works. */
START_TEST(test_ex18_errors)
{
    need_ranks(2);
    ranks_set s;
    typed_run g;
    ranks_make(&s, largest_ring(), 1);
    typed_make(&g, &s, T_FLOAT, 1000, 70);
    const size_t huge = (size_t)-1 / 2;
    ncclResult_t res = allreduce_in_place(g.d_bufs, huge, ncclFloat, s.comms, s.compute, s.ranks);
    int refused;   /* the emulator's NCCL says why it refused: the call's result is what is graded here */
    free(backend_take_findings(&refused));
    if (res == ncclSuccess)
        harness_fail(_(ERROR_HINT), _("allreduce_in_place(count = %zu) returned ncclSuccess, but NCCL refused the "
                                      "call (ncclInvalidArgument): the error must come back to the caller."),
                     huge);
    char what[120];
    snprintf(what, sizeof what, "allreduce_in_place(count = 1000) after a call that failed");
    res = allreduce_in_place(g.d_bufs, 1000, ncclFloat, s.comms, s.compute, s.ranks);
    if (res != ncclSuccess)
        harness_fail(_(GROUP_OPEN_HINT), _("%s returned %s."), what, ncclGetErrorString(res));
    sync_streams(&s, 0);
    for (int r = 0; r < s.ranks; r++) {
        CUDA_OK(cudaSetDevice(s.devices[r]));
        dev_fetch(&g.bufs[r], g.h_out[r]);
    }
    harness_after_launch(what);
    for (int r = 0; r < s.ranks; r++)
        if (!memcmp(g.h_out[r], g.h_in[r], 1000 * sizeof(float)))
            harness_fail(_(GROUP_OPEN_HINT), _("%s left rank %d's buffer as it was: its all-reduce never ran, as when "
                                               "the failed call left its group open."), what, r);
    typed_check(&g, s.ranks, what);
    typed_free(&g, s.ranks);
    ranks_free(&s);
}
END_TEST

/* Two steps back to back, no wait between them: the second's backward writes gradients that the first's
 * all-reduces and update use. Only the function's own events order them. */
START_TEST(test_ex18_ddp_twice)
{
    need_ranks(2);
    ranks_set s;
    ddp_run g;
    int ranks = largest_ring();
    ranks_make(&s, ranks, 1);
    ddp_make(&g, &s, 5000, 700, 80);
    char what[200];
    ddp_what(&g, ranks, what, sizeof what);
    strncat(what, _(", twice back to back"), sizeof what - strlen(what) - 1);
    for (int k = 0; k < 2; k++)
        expect_success(ddp_step(g.d_w, g.d_g, g.d_a, g.n, g.bucket, g.lr, s.comms, s.compute, s.comm, ranks), what);
    sync_streams(&s, 0);
    for (int r = 0; r < ranks; r++) {
        CUDA_OK(cudaSetDevice(s.devices[r]));
        dev_fetch(&g.grads[r], g.h_grads[r]);
        dev_fetch(&g.weights[r], g.h_w_out[r]);
    }
    harness_after_launch(what);
    for (int r = 1; r < ranks; r++)
        if (memcmp(g.h_w_out[r], g.h_w_out[0], g.n * sizeof(float)))
            harness_fail(_(BITS_HINT), _("%s: ranks 0 and %d hold other weights: every rank must hold the same bits."),
                         what, r);
    /* Two steps on the host, in double: the weights move by the first step's average gradient, then by the
     * second's, taken at the weights after the first. */
    for (size_t i = 0; i < g.n; i++) {
        double w = g.h_w[i], acts = 0, abs_acts = 0;
        for (int q = 0; q < ranks; q++) {
            acts += g.h_acts[q][i];
            abs_acts += fabs(g.h_acts[q][i]);
        }
        for (int step = 0; step < 2; step++) w -= g.lr * (acts / ranks) * w;
        double bound = 16 * HARNESS_FLOAT_UNIT * (fabs(g.h_w[i]) * (1 + g.lr * abs_acts / ranks) * (1 + g.lr * abs_acts / ranks)) + 1e-37;
        if (fabs(g.h_w_out[0][i] - w) > bound)
            harness_fail(_(UPDATE_HINT), _("%s: weight %zu should be %.9g after two steps, but it is %.9g."), what, i,
                         w, g.h_w_out[0][i]);
    }
    ddp_free(&g, ranks);
    ranks_free(&s);
}
END_TEST

int main(int argc, char **argv)
{
    /* The GPU machines' rule: NVLink multicast (NVLS) stays off, also in a program that starts with its own
     * environment; NCCL reads this when a communicator is made. */
    setenv("NCCL_NVLS_ENABLE", "0", 1);
    const harness_test tests[] = {
        {N_("core: comms_create makes rank r of one communicator on devices[r]"), test_ex18_comms, NEEDS_DEVICE},
        {N_("core: allreduce_in_place leaves the sum on every rank, 2 to 4 devices"), test_ex18_core, NEEDS_DEVICE},
        {N_("sizes: allreduce_in_place, n against the ranks, float, half, bf16 and int32"),
         test_ex18_declared_allreduce, NEEDS_DEVICE},
        {N_("core: ddp_step averages the gradients bucket by bucket and updates the weights"), test_ex18_ddp_core,
         NEEDS_DEVICE},
        {N_("sizes: ddp_step, n against the ranks and buckets that do not divide n"), test_ex18_declared_ddp,
         NEEDS_DEVICE},
        {N_("sizes: shard_gradients, n against the ranks (a shard with padding)"), test_ex18_declared_shards,
         NEEDS_DEVICE},
        {N_("concept: two steps back to back, no wait between them"), test_ex18_ddp_twice, NEEDS_DEVICE},
        {N_("concept: the work runs on the caller's streams and the host never waits"), test_ex18_streams,
         NEEDS_EMULATOR},
        {N_("edges: an error NCCL returns comes back to the caller, and the group is closed"), test_ex18_errors,
         NEEDS_EMULATOR},
        {0},
    };
    const harness_exercise ex = {"18", N_("Part IV: NCCL, gradients in buckets, and a reduce-scatter"),
                                 "exercises/18-nccl/lesson.md", tests, &SPACE};
    return harness_run(&ex, argc, argv);
}
