/* emu_rt.h - the runtime half's internal declarations: the emulated device, error state, registry. */
#ifndef EMU_RT_H
#define EMU_RT_H

#include <cuda_runtime_api.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "emu.h"
#include "emu_text.h"

/* ---- The emulated device: one table of limits, used by the launch checks and the properties ------ */

#define EMU_DEVICE_NAME            "NVIDIA H100 80GB HBM3 (CUDA emulator, CPU)"
#define EMU_CC_MAJOR               9
#define EMU_CC_MINOR               0
/* An H100 has 132 SMs. The emulator reports 16, one cluster's worth: what a kernel sizes from the SM count
 * (a grid of SMs x blocks per SM, a cooperative launch, cudaOccupancyMaxActiveClusters) is then 8 times
 * smaller and runs as much faster on the CPU. The tests that depend on it are named in checker/README.md.
 * A test may ask for another count before its first call (emu_set_sm_count): see emu_rt_sm_count. */
#define EMU_DEFAULT_SM_COUNT       16
#define EMU_MAX_SM_COUNT           1024
#define EMU_WARP_SIZE              32
#define EMU_MAX_THREADS_PER_BLOCK  1024
#define EMU_MAX_BLOCK_X            1024
#define EMU_MAX_BLOCK_Y            1024
#define EMU_MAX_BLOCK_Z            64
#define EMU_MAX_GRID_X             2147483647u
#define EMU_MAX_GRID_YZ            65535u
#define EMU_SHARED_PER_BLOCK       (48u * 1024u)    /* without opting in */
#define EMU_SHARED_PER_BLOCK_OPTIN (227u * 1024u)   /* with cudaFuncAttributeMaxDynamicSharedMemorySize */
#define EMU_SHARED_PER_SM          (228u * 1024u)
#define EMU_THREADS_PER_SM         2048
#define EMU_BLOCKS_PER_SM          32
#define EMU_REGS_PER_SM            65536
#define EMU_REGS_PER_THREAD        32               /* assumed: PTX has no register allocation */
#define EMU_CONST_MEM              (64u * 1024u)
#define EMU_L2_BYTES               (50u * 1024u * 1024u)
#define EMU_CLUSTER_PORTABLE       8                /* blocks per cluster; more with the non-portable opt-in */
#define EMU_CLUSTER_MAX            16
#define EMU_GPC_SMS                16               /* a cluster's blocks share one GPC of 16 SMs */
#define EMU_MEM_CAP                ((size_t)8 << 30) /* total device memory, before the host's own limit */

/* ---- Error state (emu_errors.c) ---------------------------------------------------------------------- */

/* Records err as the last error (what cudaGetLastError returns) and returns it. */
cudaError_t emu_rt_fail(cudaError_t err);

/* The context's sticky error, if any. A kernel's fatal error is pending until the next call that would
 * synchronise on a GPU; this call makes it sticky (and the last error). Returns cudaSuccess if none. */
cudaError_t emu_rt_status(void);

/* A kernel ended with err: sticky codes wait for the next synchronising call, others become the last
 * error at once. Returns what the launch call itself should return. */
cudaError_t emu_rt_kernel_error(cudaError_t err);

/* Forget every error (cudaDeviceReset). */
void emu_rt_errors_reset(void);

/* ---- Findings and metrics (emu_findings.c) ------------------------------------------------------------ */

void emu_rt_metrics_add(const emu_metrics *m);

/* ---- What the host asked (emu_activity.c): counted where each call succeeds ----------------------------- */

extern emu_activity emu_rt_activity;

/* ---- Device memory (emu_mem.c) ------------------------------------------------------------------------ */

enum emu_mem_kind { EMU_MEM_DEVICE, EMU_MEM_HOST, EMU_MEM_MANAGED, EMU_MEM_MODULE };

/* Allocates size bytes of the given kind and registers them. Returns cudaErrorMemoryAllocation when
 * the emulator's total or the host cannot hold them (and then records a finding naming who asked). */
cudaError_t emu_rt_mem_alloc(void **out, size_t size, enum emu_mem_kind kind, const char *who);

/* Frees an allocation that starts exactly at p and has the given kind; cudaErrorInvalidValue otherwise. */
cudaError_t emu_rt_mem_free(void *p, enum emu_mem_kind kind, const char *who);

/* The kind of the allocation holding addr (meaningful only when emu_mem_lookup found one). */
enum emu_mem_kind emu_rt_mem_kind(const emu_alloc *a);

/* The device allocation whose program address range holds addr, its guard bytes past the end and the
 * rest of its last page included (where a host read of d_out[n] lands), or NULL. */
const emu_alloc *emu_rt_mem_device_near(uintptr_t addr);

/* Marks [addr, addr+len) of a as written (or copies the flags of another range). */
void emu_rt_mem_mark(emu_alloc *a, uintptr_t addr, size_t len);
void emu_rt_mem_copy_marks(emu_alloc *dst, uintptr_t daddr, const emu_alloc *src, uintptr_t saddr,
                           size_t len);

/* Bytes in use and the most the emulator will hand out. */
size_t emu_rt_mem_used(void);
size_t emu_rt_mem_total(void);

/* Frees every runtime-owned allocation (cudaDeviceReset). */
void emu_rt_mem_reset(void);

/* ---- Copies (emu_api.c) ---------------------------------------------------------------------------------- */

/* The copy behind every cudaMemcpy flavour, enqueued on stream s (the default stream for the ones without
 * Async): the pointers checked by kind (Default looks them up), the bytes moved, the order recorded. */
cudaError_t emu_rt_copy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind, const char *who,
                        cudaStream_t s);

/* ---- Places in the learner's code (emu_diag.c), for the findings about host code ------------------------ */

/* 1 for a file of the toolkit or the system (a header's own code is not where a learner's mistake is). */
int emu_source_is_system(const char *path);
/* path as the learner's editor shows it: relative to the directory the program runs in, below it. */
const char *emu_source_path(const char *path);

/* 1 for a place in the learner's own file, where host code's findings point: a .cu file outside the
 * toolkit. Thrust's, CUB's and the C++ library's headers are not .cu files, wherever the toolkit lives,
 * so their own arithmetic is never blamed on a correct program. */
static inline int emu_source_is_learners(const char *path)
{
    size_t n = path ? strlen(path) : 0;
    return n > 3 && !strcmp(path + n - 3, ".cu") && !emu_source_is_system(path);
}

/* ---- Registration and launches (emu_runtime.c) --------------------------------------------------------- */

typedef struct emu_rt_function emu_rt_function;

/* The registered kernel whose host stub is host_fun, or NULL. */
emu_rt_function *emu_rt_function_find(const void *host_fun);

/* The kernel, loading its module on first use; NULL with *err set (and a finding) if it cannot run. */
const emu_kernel *emu_rt_function_kernel(emu_rt_function *f, cudaError_t *err);

/* The opt-in for dynamic shared memory set with cudaFuncSetAttribute (0 when never set). */
int emu_rt_function_max_dynamic_shared(const emu_rt_function *f);
void emu_rt_function_set_max_dynamic_shared(emu_rt_function *f, int bytes);

/* A kernel's cluster attributes from cudaFuncSetAttribute: sizes above 8 allowed, and the cluster set at run
 * time (cudaFuncAttributeRequiredCluster*, 0s when unset). */
typedef struct emu_rt_cluster_attrs { int non_portable; int required[3]; int policy; } emu_rt_cluster_attrs;
emu_rt_cluster_attrs *emu_rt_function_cluster(emu_rt_function *f);

/* Blocks of block_size threads with dynamic_shared bytes of dynamic shared memory that one SM holds at once
 * (emu_device.c): 0 when the kernel may not have that much dynamic shared memory (more than 48 KB without
 * the opt-in of cudaFuncSetAttribute, as on a GPU). */
int emu_rt_blocks_per_sm(emu_rt_function *f, const emu_kernel *k, int block_size, size_t dynamic_shared);
/* The cluster a kernel runs in unless the launch names one: __cluster_dims__, or the run-time required
 * cluster; 0 when none. */
int emu_rt_kernel_cluster(emu_rt_function *f, const emu_kernel *k, dim3 *dims);
/* The cluster of a launch configuration: its cudaLaunchAttributeClusterDimension, else the kernel's own;
 * 0 when there is none. */
int emu_rt_config_cluster(emu_rt_function *f, const emu_kernel *k, const cudaLaunchConfig_t *c, dim3 *dims);

/* The device storage of a registered __device__/__constant__ variable, by its host shadow's address;
 * its size and name too. NULL with *err set (and a finding) if there is none. */
void *emu_rt_symbol(const void *symbol, size_t *size, const char **name, cudaError_t *err);

/* Frees every loaded module, so the next use reloads it with fresh __device__ variables. */
void emu_rt_modules_reset(void);

/* ---- Fat binaries (emu_fatbin.c) ----------------------------------------------------------------------- */

/* Finds the PTX in a __fatBinC_Wrapper_t. Returns 0 and the text, or -1 and a sentence in err. */
int emu_fatbin_ptx(const void *wrapper, const char **ptx, size_t *len, char *err, size_t errlen);

/* ---- Streams (emu_events.c) ----------------------------------------------------------------------------- */

/* Whether s is the default stream or a live stream from cudaStreamCreate. */
int emu_rt_stream_valid(cudaStream_t s);

/* The order queue of a valid stream s (emu_order.c) and the device it belongs to: a created stream's own, or
 * the current device's legacy stream for the default stream. */
int emu_rt_stream_queue(cudaStream_t s, int *device);

/* 1 for the default stream (0, cudaStreamLegacy, cudaStreamPerThread). */
static inline int emu_rt_stream_is_default(cudaStream_t s)
{
    return s == NULL || s == cudaStreamLegacy || s == cudaStreamPerThread;
}

/* ---- Devices (emu_devices.c): EMU_DEVICES of them (4 unless set), each with its memory and streams ------- */

#define EMU_MAX_DEVICES 16

int emu_rt_device_count(void);
int emu_rt_device_current(void);
/* The SMs each device reports: EMU_DEFAULT_SM_COUNT, or the count a test asked for (emu_set_sm_count). A
 * cluster's blocks share one GPC: EMU_GPC_SMS of the SMs, or all of them on a device of fewer. */
int emu_rt_sm_count(void);
int emu_rt_sms_per_gpc(void);
/* cudaSuccess for a device that exists; else a finding naming who asked, and cudaErrorInvalidDevice. */
cudaError_t emu_rt_device_check(int device, const char *who);
void emu_rt_devices_reset(void);

/* ---- Order between streams and devices (emu_order.c) ------------------------------------------------------ */

/* Queues: 0 .. EMU_MAX_DEVICES-1 are the devices' legacy default streams, the rest created streams. */
#define EMU_ORDER_QUEUES 128
typedef struct emu_order_clock emu_order_clock;   /* an event's: what its record covers */

int emu_order_legacy(int device);
/* A queue for a stream created on device (-1 when every slot is taken: the stream then shares the device's
 * legacy queue, an order that may hide a race but invents none); blocking: it waits for the legacy stream. */
int emu_order_queue_new(int device, int blocking);
void emu_order_queue_free(int q);
/* cudaEventRecord on queue q: the clock e (made when NULL) now covers q's work so far. Returns e. */
emu_order_clock *emu_order_record(emu_order_clock *e, int q);
void emu_order_clock_free(emu_order_clock *e);
/* cudaStreamWaitEvent: q's later work is ordered after what e covers (NULL: never recorded, no wait). */
void emu_order_wait(int q, const emu_order_clock *e);
/* The host waited for an event, a queue, or every queue of a device. */
void emu_order_host_wait_clock(const emu_order_clock *e);
void emu_order_host_wait_queue(int q);
void emu_order_host_wait_device(int device);
/* cudaMemcpyPeer's rule: serialized with all work, earlier and later, on these devices. */
void emu_order_serialize_devices(const int *devices, int count);
/* An operation on queue q of device: a kernel or a copy, named by what ("kernel add", "cudaMemcpyPeerAsync").
 * Between begin and end, emu_order_range (the runtime's copies) and emu_order_access (the engine) give what it
 * touches; end checks it against the operations still in flight and files a finding for a conflict. */
void emu_order_begin(int q, int device, const char *what);
/* The same, named at the host's frames of an earlier call (a collective that runs at ncclGroupEnd is the
 * learner's ncclAllReduce line, not the group's end). */
void emu_order_begin_frames(int q, int device, const char *what, void *const *frames, int nframes);
/* A kernel held (emu_held.c): its place in q's order is taken now, and its epoch returned; it runs later, in
 * a set of kernels of several devices, between emu_order_set_begin (the set's queues and epochs) and
 * emu_order_set_end, which checks each one's accesses (emu_order_running says whose they are). */
uint32_t emu_order_hold(int q, int device, const char *what);
void emu_order_set_begin(const int *q, const uint32_t *epoch, int count);
void emu_order_set_end(void);
void emu_order_range(const emu_alloc *a, uintptr_t lo, size_t len, int write);
void emu_order_end(void);
/* Start recording accesses (done by emu_order_begin once a second queue has work). */
void emu_order_track_start(void);
/* An allocation is freed: its ranges leave the log. */
void emu_order_forget(const emu_alloc *a);
void emu_order_reset(void);

/* ---- Kernels held until the host waits (emu_held.c) -------------------------------------------------------- */

/* Whether a launch on device is held (1) rather than run now (0): with several devices in use, a kernel that
 * may wait for another device's kernel, or any kernel of a device while another device's is held. A held
 * launch keeps copies of its arguments. */
int emu_rt_held_add(const emu_kernel *k, const emu_launch_config *c, void **args, int queue, const char *what);
/* Runs the held kernels together (emu_launch_together): at exit, at cudaDeviceReset, before the findings are
 * taken, and (emu_rt_held_run_covered) when one of them is ordered before what comes next: clock, of the
 * queue of an operation about to be enqueued or of what the host waits for, covers its epoch. Work on other
 * streams, which the held kernels may run beside, leaves them held. */
void emu_rt_held_run(void);
void emu_rt_held_run_covered(const uint32_t *clock);
/* The held kernels that queue q's next operation comes after run now (emu_order_begin does it; the emulator's
 * NCCL, which reads the ranks' buffers before its operations begin, asks first). */
void emu_order_run_held_before(int q);
/* A device other than 0 was made current: kernels may be held from now on. */
void emu_rt_held_devices(void);

/* "file:line" of the innermost place in the learner's code among the host frames (backtrace's), or "". */
void emu_host_frames_line(void *const *frames, int nframes, char *where, size_t len);

#endif
