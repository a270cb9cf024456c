/* emu_events.c - streams and events. Everything runs synchronously on the calling thread, so a stream is a
 * handle to check, with its device and its queue in the order that emu_order.c checks, and an event is a
 * timestamp from a monotonic CPU clock with the order clock of what its record covers. */
#define _POSIX_C_SOURCE 200809L  /* clock_gettime */
#include <stdlib.h>
#include <time.h>

#include "emu_rt.h"

static const char emu_msg_bad_event[] = N_("%s was given an event that was never created or is already destroyed");
static const char emu_msg_bad_stream_call[] =
    N_("%s was given a stream that was never created or is already destroyed");
static const char emu_msg_unrecorded[] =
    N_("cudaEventElapsedTime: the %s event was never recorded (call cudaEventRecord on it first)");
static const char emu_msg_no_timing[] =
    N_("cudaEventElapsedTime: an event created with cudaEventDisableTiming has no time");

static const char emu_msg_event_device[] =
    N_("cudaEventRecord: the event was created on device %d and the stream belongs to device %d; record an event "
       "on a stream of its own device (cudaSetDevice before cudaEventCreate), one event per device");

struct CUstream_st { unsigned flags; int priority; int device; int queue; };
struct CUevent_st { unsigned flags; int recorded; double ms; int device; emu_order_clock *clock; };

/* Live handles, so that a destroyed or made-up one is refused instead of dereferenced. */
#define EMU_MAX_HANDLES 4096
static void *emu_handles[EMU_MAX_HANDLES];
static int emu_nhandles;

static int emu_handle_add(void *h)
{
    if (emu_nhandles == EMU_MAX_HANDLES) return -1;
    emu_handles[emu_nhandles++] = h;
    return 0;
}

static int emu_handle_live(const void *h)
{
    for (int i = emu_nhandles - 1; i >= 0; i--)
        if (emu_handles[i] == h) return 1;
    return 0;
}

static int emu_handle_remove(const void *h)
{
    for (int i = emu_nhandles - 1; i >= 0; i--)
        if (emu_handles[i] == h) {
            emu_handles[i] = emu_handles[--emu_nhandles];
            return 1;
        }
    return 0;
}

static double emu_now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* ---- Streams ---------------------------------------------------------------------------------------- */

int emu_rt_stream_valid(cudaStream_t s)
{
    return s == NULL || s == cudaStreamLegacy || s == cudaStreamPerThread || emu_handle_live(s);
}

int emu_rt_stream_queue(cudaStream_t s, int *device)
{
    if (emu_rt_stream_is_default(s) || !emu_handle_live(s)) {
        *device = emu_rt_device_current();
        return emu_order_legacy(*device);
    }
    *device = s->device;
    return s->queue;
}

static cudaError_t emu_check_stream(cudaStream_t s, const char *who)
{
    if (emu_rt_stream_valid(s)) return cudaSuccess;
    emu_finding(emu_msg_bad_stream_call, who);
    return emu_rt_fail(cudaErrorInvalidResourceHandle);
}

cudaError_t cudaStreamCreateWithPriority(cudaStream_t *s, unsigned flags, int priority)
{
    if (!s) return emu_rt_fail(cudaErrorInvalidValue);
    struct CUstream_st *st = malloc(sizeof *st);
    if (!st || emu_handle_add(st) != 0) { free(st); return emu_rt_fail(cudaErrorMemoryAllocation); }
    st->flags = flags;
    st->priority = priority;
    st->device = emu_rt_device_current();
    st->queue = emu_order_queue_new(st->device, !(flags & cudaStreamNonBlocking));
    if (st->queue < 0) st->queue = emu_order_legacy(st->device);
    *s = st;
    return cudaSuccess;
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned flags)
{
    return cudaStreamCreateWithPriority(s, flags, 0);
}

cudaError_t cudaStreamCreate(cudaStream_t *s) { return cudaStreamCreateWithPriority(s, 0, 0); }

cudaError_t cudaStreamDestroy(cudaStream_t s)
{
    if (s == NULL || !emu_handle_remove(s)) {
        emu_finding(emu_msg_bad_stream_call, "cudaStreamDestroy");
        return emu_rt_fail(cudaErrorInvalidResourceHandle);
    }
    if (s->queue != emu_order_legacy(s->device)) emu_order_queue_free(s->queue);
    free(s);
    return cudaSuccess;
}

/* The host learnt that everything queued on s is done. */
static cudaError_t emu_stream_done(cudaStream_t s, const char *who)
{
    int device;
    /* first: a held kernel it waits for runs now (emu_held.c), and its error is this wait's to return */
    if (emu_rt_stream_valid(s)) emu_order_host_wait_queue(emu_rt_stream_queue(s, &device));
    cudaError_t err = emu_rt_status();
    if (err == cudaSuccess) err = emu_check_stream(s, who);
    return err;
}

cudaError_t cudaStreamSynchronize(cudaStream_t s)
{
    emu_rt_activity.host_waits++;
    return emu_stream_done(s, "cudaStreamSynchronize");
}

/* cudaSuccess says that the stream's work is done: a host that polls until then has waited for it. */
cudaError_t cudaStreamQuery(cudaStream_t s) { return emu_stream_done(s, "cudaStreamQuery"); }

cudaError_t cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t e, unsigned flags)
{
    (void)flags;
    if (!e || !emu_handle_live(e)) {
        emu_finding(emu_msg_bad_event, "cudaStreamWaitEvent");
        return emu_rt_fail(cudaErrorInvalidResourceHandle);
    }
    cudaError_t err = emu_check_stream(s, "cudaStreamWaitEvent");
    if (err != cudaSuccess) return err;
    int device;
    /* an event never recorded is no wait at all, as on a GPU */
    emu_order_wait(emu_rt_stream_queue(s, &device), e->recorded ? e->clock : NULL);
    return cudaSuccess;
}

/* ---- Events ---------------------------------------------------------------------------------------- */

static struct CUevent_st *emu_event(cudaEvent_t e, const char *who)
{
    if (e && emu_handle_live(e)) return e;
    emu_finding(emu_msg_bad_event, who);
    emu_rt_fail(cudaErrorInvalidResourceHandle);
    return NULL;
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t *e, unsigned flags)
{
    if (!e) return emu_rt_fail(cudaErrorInvalidValue);
    struct CUevent_st *ev = calloc(1, sizeof *ev);
    if (!ev || emu_handle_add(ev) != 0) { free(ev); return emu_rt_fail(cudaErrorMemoryAllocation); }
    ev->flags = flags;
    ev->device = emu_rt_device_current();
    *e = ev;
    return cudaSuccess;
}

cudaError_t cudaEventCreate(cudaEvent_t *e) { return cudaEventCreateWithFlags(e, cudaEventDefault); }

cudaError_t cudaEventDestroy(cudaEvent_t e)
{
    if (!emu_event(e, "cudaEventDestroy")) return cudaErrorInvalidResourceHandle;
    emu_handle_remove(e);
    emu_order_clock_free(e->clock);
    free(e);
    return cudaSuccess;
}

cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s)
{
    struct CUevent_st *ev = emu_event(e, "cudaEventRecord");
    if (!ev) return cudaErrorInvalidResourceHandle;
    cudaError_t err = emu_check_stream(s, "cudaEventRecord");
    if (err != cudaSuccess) return err;
    int device, queue = emu_rt_stream_queue(s, &device);
    if (device != ev->device) {
        emu_finding(emu_msg_event_device, ev->device, device);
        return emu_rt_fail(cudaErrorInvalidResourceHandle);
    }
    ev->clock = emu_order_record(ev->clock, queue);
    ev->recorded = 1;
    ev->ms = emu_now_ms();
    return cudaSuccess;
}

cudaError_t cudaEventRecordWithFlags(cudaEvent_t e, cudaStream_t s, unsigned flags)
{
    (void)flags;
    return cudaEventRecord(e, s);
}

/* The host learnt that what e's record covers is done. */
static cudaError_t emu_event_done(cudaEvent_t e, const char *who)
{
    /* first, as for a stream: a held kernel the record covers runs now */
    if (e && emu_handle_live(e) && e->recorded) emu_order_host_wait_clock(e->clock);
    cudaError_t err = emu_rt_status();
    if (err != cudaSuccess) return err;
    if (!emu_event(e, who)) return cudaErrorInvalidResourceHandle;
    return cudaSuccess;
}

cudaError_t cudaEventSynchronize(cudaEvent_t e)
{
    emu_rt_activity.host_waits++;
    return emu_event_done(e, "cudaEventSynchronize");
}

/* cudaSuccess says that the work before the record is done: a host that polls until then has waited. */
cudaError_t cudaEventQuery(cudaEvent_t e) { return emu_event_done(e, "cudaEventQuery"); }

cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end)
{
    cudaError_t err = emu_rt_status();
    if (err != cudaSuccess) return err;
    struct CUevent_st *a = emu_event(start, "cudaEventElapsedTime");
    struct CUevent_st *b = a ? emu_event(end, "cudaEventElapsedTime") : NULL;
    if (!a || !b) return cudaErrorInvalidResourceHandle;
    if (!ms) return emu_rt_fail(cudaErrorInvalidValue);
    if ((a->flags | b->flags) & cudaEventDisableTiming) {
        emu_finding(emu_msg_no_timing);
        return emu_rt_fail(cudaErrorInvalidResourceHandle);
    }
    if (!a->recorded || !b->recorded) {
        emu_finding(emu_msg_unrecorded, !a->recorded ? emu_text("start") : emu_text("end"));
        return emu_rt_fail(cudaErrorInvalidResourceHandle);
    }
    *ms = (float)(b->ms - a->ms);
    return cudaSuccess;
}

/* ---- Host functions in a stream: everything before them is done, so they run now ------------------- */

cudaError_t cudaLaunchHostFunc(cudaStream_t s, cudaHostFn_t fn, void *user_data)
{
    cudaError_t err = emu_check_stream(s, "cudaLaunchHostFunc");
    if (err != cudaSuccess) return err;
    if (!fn) return emu_rt_fail(cudaErrorInvalidValue);
    fn(user_data);
    return cudaSuccess;
}

cudaError_t cudaStreamAddCallback(cudaStream_t s, cudaStreamCallback_t cb, void *user_data, unsigned flags)
{
    (void)flags;
    cudaError_t err = emu_check_stream(s, "cudaStreamAddCallback");
    if (err != cudaSuccess) return err;
    if (!cb) return emu_rt_fail(cudaErrorInvalidValue);
    cb(s, emu_rt_status(), user_data);
    return cudaSuccess;
}
