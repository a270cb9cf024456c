/* emu.h - the contract between the emulator's two halves.
 *
 * The runtime half (emu_runtime*.c, emu_fatbin.c, emu_mem.c) is what nvcc's host code links against
 * when built with `-cudart none`: registration, launches, cudaMalloc/cudaMemcpy/events/errors.
 * The engine half (emu_ptx*.c, emu_exec*.c) parses PTX once and runs kernels warp by warp.
 *
 * Device memory has two addresses, as on a GPU: the one cudaMalloc hands to the program, whose pages
 * the host cannot read or write (host code that reads device memory faults, as it does beside a GPU,
 * and emu_host_fault names its line), and the emulator's own view of the same bytes, where the engine
 * and the runtime's copies read and write. The runtime registers each allocation here, so that the
 * engine can tell a valid device address from an out-of-bounds or host one, and find its view.
 */
#ifndef EMU_H
#define EMU_H

#include <stddef.h>
#include <stdint.h>

#include "emu_record.h"

/* ---- Device memory (owned by the runtime, queried by the engine) ---------------------------- */

typedef struct emu_alloc {
    uintptr_t base;          /* first byte, as the program sees it */
    size_t size;             /* bytes the program asked for */
    intptr_t shift;          /* the emulator's view of byte p is at p + shift: 0 where the host may read
                              * the memory itself (cudaMallocHost, managed memory, __device__ variables) */
    /* What has been written by a copy, a memset or a kernel: every byte below written_upto, and above it
     * each byte whose flag is set in written (one flag per byte, made by the first write there; NULL
     * until then). Memory written in order from its start, the usual case, only moves written_upto. */
    size_t written_upto;
    unsigned char *written;
    const char *what;        /* "cudaMalloc", or the name of a __device__ variable */
    int device;              /* the device whose memory it is (cudaMalloc's current device); -1: every device's
                              * (pinned or managed memory, a module's variables) */
    /* A harness's guard zones (emu_mem_guard): when guard_name[0] is set, only [open_lo, open_hi) is the
     * program's; a kernel's access to the rest is a finding. */
    uintptr_t open_lo, open_hi;
    size_t guard_elem;       /* element size, for the index in messages */
    char guard_name[24];     /* "d_in", "d_out" */
} emu_alloc;

/* 1 when every byte of [off, off + n) of a has been written. */
static inline int emu_alloc_written(const emu_alloc *a, size_t off, size_t n)
{
    if (off + n <= a->written_upto) return 1;
    if (!a->written) return 0;
    for (size_t i = off > a->written_upto ? off : a->written_upto; i < off + n; i++)
        if (!a->written[i]) return 0;
    return 1;
}

/* Where the emulator reads and writes the byte that the program calls addr, an address inside a. */
static inline void *emu_alloc_view(const emu_alloc *a, uintptr_t addr)
{
    return (void *)(addr + (uintptr_t)a->shift);
}

/* Marks [off, off + n) of a as written. */
void emu_alloc_mark(emu_alloc *a, size_t off, size_t n);

/* Moves written_upto past the flags already set after it and returns it: a scan that resumes where the
 * last one stopped, so that memory written from the front costs one pass, not one pass per write. */
size_t emu_alloc_settle(emu_alloc *a);

/* The allocation that holds all of [addr, addr+len), or NULL if no single allocation does. */
emu_alloc *emu_mem_lookup(uintptr_t addr, size_t len);

/* Marks the allocation that holds [base, base + bytes) as a harness's guarded buffer: only that range is
 * the program's array (called name, with elements of elem_size bytes); every load or store of a kernel that
 * touches the rest of the allocation is reported with the index it used. Returns 0 when no allocation
 * holds the range. */
int emu_mem_guard(const void *base, size_t bytes, const char *name, size_t elem_size);

/* What lies at addr of a, for a finding: "d_out[3]" inside a harness's named array, else "byte 12 of the 4096
 * bytes from cudaMalloc" (or how far past its end). */
void emu_alloc_describe(const emu_alloc *a, uintptr_t addr, char *buf, size_t len);

/* The emulator's view of the byte at p: p itself when p is not in device memory. */
void *emu_mem_view(const void *p);

/* Register memory the engine owns (a module's __device__ variables) so lookups find it. */
void emu_mem_register(void *base, size_t size, const char *what, int initialised);
void emu_mem_unregister(void *base);

/* Device memory of total_bytes that holds chunk (chunk_bytes, a multiple of the page size) over and over:
 * the chunk's pages mapped again and again, copy on write, so that 8 GiB of a repeated input cost the
 * memory of one chunk, and a kernel that writes into it gets its own copy of each page it writes. Freed
 * by cudaFree. NULL when this system cannot map memory so (then copy the chunk into cudaMalloc'd memory). */
void *emu_device_repeated(const void *chunk, size_t chunk_bytes, size_t total_bytes);

/* ---- Modules and kernels (owned by the engine) ------------------------------------------------ */

typedef struct emu_module emu_module;
typedef struct emu_kernel emu_kernel;
typedef struct { unsigned x, y, z; } emu_dim3;

/* Parse and decode one PTX text. On failure returns NULL and writes a sentence into err. */
emu_module *emu_module_load(const char *ptx, size_t len, char *err, size_t errlen);
void emu_module_free(emu_module *m);

/* A kernel by its (mangled) entry name, or NULL. */
const emu_kernel *emu_module_kernel(const emu_module *m, const char *entry);
const char *emu_kernel_name(const emu_kernel *k);       /* demangled where possible, for messages */
int emu_kernel_param_count(const emu_kernel *k);
size_t emu_kernel_param_size(const emu_kernel *k, int i);
size_t emu_kernel_static_shared(const emu_kernel *k);   /* bytes of .shared declared in the kernel */
/* 1 when the kernel (or a function of its module it may call) has a strong load or an atomic on memory
 * other than shared: it may wait in a loop for what another kernel, on another device, writes. */
int emu_kernel_may_wait(const emu_kernel *k);
/* The cluster a kernel declares (__cluster_dims__: PTX .reqnctapercluster), 0 when it declares none; with
 * explicit set when it must be launched in clusters (.explicitcluster), max_blocks its .maxclusterrank (0:
 * none). */
int emu_kernel_cluster(const emu_kernel *k, emu_dim3 *dims, int *explicit_cluster, unsigned *max_blocks);

/* A module-scope .global variable's storage (already registered with emu_mem_register), or NULL. */
void *emu_module_global(const emu_module *m, const char *name, size_t *size);

/* ---- Launches ----------------------------------------------------------------------------------- */

/* Counters per launch, defined as Nsight Compute defines the metric named beside each. */
typedef struct emu_metrics {
    uint64_t warp_instructions;      /* smsp__inst_executed.sum (PTX instructions here, not SASS) */
    uint64_t thread_instructions;    /* smsp__thread_inst_executed.sum: active lanes summed */
    uint64_t divergent_branches;     /* smsp__sass_branch_targets_threads_divergent.sum */
    uint64_t shared_load_instructions, shared_store_instructions;
    uint64_t shared_load_bank_conflicts;   /* l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum */
    uint64_t shared_store_bank_conflicts;  /* l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum */
    uint64_t global_load_requests, global_load_sectors;   /* l1tex__t_requests/sectors_pipe_lsu_mem_global_op_ld */
    uint64_t global_store_requests, global_store_sectors; /* ..._op_st */
    uint64_t global_async_requests, global_async_sectors; /* cp.async: ..._op_ldgsts */
    uint64_t global_read_bytes;      /* what the lanes of global loads and cp.async asked for (the sectors: what moved) */
    uint64_t dsmem_load_requests, dsmem_store_requests;   /* warp accesses of other blocks' shared memory (a cluster's) */
    uint64_t global_atomics;         /* warp-level atomic/reduction instructions on global memory */
    uint64_t shared_atomics;
    uint64_t barriers;               /* bar.sync executed, counted once per warp */
    uint64_t blocks;                 /* blocks run */
    uint64_t threads_per_block;
} emu_metrics;

/* What a launch found. error is a cudaError_t value: 0 when the kernel ran to the end. */
typedef struct emu_launch_result {
    int error;
    emu_metrics metrics;
} emu_launch_result;

/* Run a kernel to completion on the calling thread. args[i] points to parameter i's bytes, as in
 * cudaLaunchKernel. Findings (races, uninitialised reads...) go to emu_finding(); a fatal one (an
 * out-of-bounds access, a deadlock, the instruction budget spent) also ends the launch with an error.
 * The blocks run one after another, or in the clusters the kernel declares (emu_kernel_cluster). */
void emu_launch(const emu_kernel *k, emu_dim3 grid, emu_dim3 block, size_t dynamic_shared,
                void **args, emu_launch_result *out);

/* A launch with the extensible launch's attributes (cudaLaunchKernelEx) that change how blocks run:
 * clusters (the blocks of one run together, with distributed shared memory and the cluster barrier) and
 * a cooperative launch (every block runs together, so that grid.sync() can wait for all of them). The
 * runtime has checked them against the device (emu_runtime.c). */
typedef struct emu_launch_config {
    emu_dim3 grid, block;
    size_t dynamic_shared;
    emu_dim3 cluster;          /* blocks per cluster; {0,0,0}: the kernel's own (__cluster_dims__) or none */
    int cooperative;
    int device;                /* the device it runs on: another device's memory needs peer access */
    unsigned resident;         /* emu_launch_together: blocks of it that fit on the device at once (0: all) */
} emu_launch_config;
void emu_launch_ex(const emu_kernel *k, const emu_launch_config *c, void **args, emu_launch_result *out);

/* Kernels of n different devices that run at the same time, as on a GPU machine: each may wait in a loop
 * for a flag that another one writes (a one-shot all-reduce). Each kernel's blocks that fit on its device
 * are resident at once; the kernels' blocks take turns, one step each, so that a block that spins on a flag
 * lets the others run. When every block that has not finished only spins, reading the same values, the
 * kernels wait for each other forever: a deadlock, reported with each device's line and flag. Before
 * kernel i runs, emu_order_running(i) says so to the runtime. */
void emu_launch_together(int n, const emu_kernel *const *k, const emu_launch_config *c, void **const *args,
                         emu_launch_result *out);

/* ---- Devices and the order between them (owned by the runtime, asked by the engine) ------------------------- */

/* 1 when a kernel on device `from` may load and store the memory of device `to` (the same device, or peer
 * access enabled with cudaDeviceEnablePeerAccess). */
int emu_peer_access(int from, int to);

/* The SMs every emulated device reports from now on (16 unless asked; 1 to 1024): a test that asks before the
 * program's first CUDA call sees a GPU of that size (its occupancy, its clusters, cooperative launches). */
void emu_set_sm_count(int sms);

/* 1 while the runtime records what the running operation touches (emu_order.c: more than one stream has
 * work); the engine then gives each global access, [lo, end) of allocation a, with its instruction's place
 * and the order of the kernel's memory events so far (seq: emu_order_acquired's releases are in it). access:
 * 1 for a write, | 2 for a strong access (an atomic, volatile, .relaxed/.acquire/.release): two strong
 * accesses never race (a flag). */
extern int emu_order_on;
void emu_order_access(const emu_alloc *a, uint64_t lo, uint64_t end, int access, const emu_module *m, uint32_t loc,
                      uint32_t seq);
/* Kernel `member` of the set that emu_launch_together runs is the one running now: its accesses are its own. */
void emu_order_running(int member);
/* Kernel `member` of that set read a flag that kernel `from` released at its memory event `seq`: what came
 * before `from` in stream order comes before `member` too, and what `from` did before seq comes before what
 * follows `member` on its stream. */
void emu_order_acquired(int member, int from, uint32_t seq);

/* The places of location loc of module m in the learner's code (the engine's, emu_diag.c): the line, and the
 * learner's call where the line is inside a function of theirs. */
void emu_loc_places(const emu_module *m, uint32_t loc, emu_place *at, emu_place *call);

/* ---- Findings (owned by the runtime, reported by the engine) ------------------------------------- */

/* Records a finding of the host's use of the runtime (kind EMU_FD_RUNTIME, no place): a full sentence for
 * a learner. fmt is a msgid of the course's catalog: it is translated when the program bound one
 * (emu_text.h). */
void emu_finding(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A finding of kind (an emu_kind) at where, "FILE:LINE" in the learner's host code (or "" for none), with
 * fmt's words: the host code's findings (a read of device memory, undefined behaviour), in no kernel. */
void emu_finding_at(int kind, const char *where, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Files a record (emu_record.h): printed to stderr as "emulator: " and its words (once per distinct finding
 * in a run, unless EMU_QUIET=1, as the course's harness sets it: it reports the findings itself), and kept
 * until the next emu_records_take or emu_findings_take. A record equal to one already kept is not kept twice. */
void emu_finding_record(const emu_record *r);

/* The kept record of kind at place at (the first of its kind in a launch, filed before) happened count
 * times in that launch: its count becomes count (when it has none yet), and stderr says so. */
void emu_finding_count(int kind, const emu_place *at, unsigned long count);

/* Host code touched memory at addr and the CPU refused (a SIGSEGV or SIGBUS handler's si_addr); pc is the
 * faulting instruction (NULL when unknown), write 1 for a write, 0 for a read, -1 unknown. When addr is
 * device memory (the program's address of an allocation, which the host cannot touch), records a finding
 * at the learner's line ("host read of device memory" or "host write to device memory") and returns 1;
 * returns 0, and records nothing, for any other address. Meant for a handler that ends the program. */
int emu_host_fault(const void *addr, const void *pc, int write);

/* Decodes now the PTX of every binary the program registered (those with __managed__ variables aside, which
 * load when host code first reaches one), as the first launch of each would: a process that forks its tests
 * (the harness) calls it first, so that each test finds the modules decoded instead of decoding them again.
 * What a load finds wrong is said at the launch that needs it, as before. */
void emu_modules_load(void);

/* The findings since the last take: a malloc'ed array of *count records (NULL when there are none), for
 * the caller to free. */
emu_record *emu_records_take(int *count);

/* The same findings as text, for programs that only look at words (tests, the metrics tool): each record's
 * words (as on stderr, second place included) on a line of their own, joined by newlines into buf. Returns
 * how many there were. */
int emu_findings_take(char *buf, size_t len);

/* The metrics summed over the launches since the last call. */
void emu_metrics_take(emu_metrics *out);

/* ---- What the host asked of the runtime (owned by the runtime), for tests of how a program uses it ---- */

typedef struct emu_activity {
    uint64_t allocations;       /* device memory: cudaMalloc, cudaMallocAsync, cudaMallocManaged, cudaMallocPitch */
    uint64_t allocated_bytes;   /* their sizes, summed */
    uint64_t frees;             /* cudaFree, cudaFreeAsync */
    uint64_t host_waits;        /* calls that return only once the device has done the work queued before them:
                                 * cudaDeviceSynchronize, cudaStreamSynchronize, cudaEventSynchronize, cudaFree, and
                                 * copies without Async (but from device to device, which the host only queues) */
    uint64_t launches;          /* kernels launched */
    uint64_t default_stream_launches;  /* of those, on the default stream (0, cudaStreamLegacy, cudaStreamPerThread) */
    uint64_t default_stream_copies;    /* copies and memsets on the default stream: every cudaMemcpy, cudaMemcpyPeer,
                                        * cudaMemset, and the Async ones given the default stream */
} emu_activity;

/* The counts since the last call. */
void emu_activity_take(emu_activity *out);

#endif
