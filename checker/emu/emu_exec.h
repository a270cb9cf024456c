/* emu_exec.h - the executor's state: a launch, its block, warps, SIMT stacks and register frames. */
#ifndef EMU_EXEC_H
#define EMU_EXEC_H

#include "emu_ptx.h"

#define EMU_MAX_CALL_DEPTH 64          /* deeper recursion is reported as a stack overflow */
#define EMU_DEFAULT_BUDGET 2000000000ull
#define EMU_SHARED_POISON  0xCD        /* every byte of shared memory at a block's start */

/* EMU_IVDEP before a lane loop: its iterations are independent (an instruction's destination row may be
 * one of its source rows, but lane l only reads and writes element l), so the compiler may vectorise it
 * without checking at run time whether the rows overlap. */
#if defined(__GNUC__) && !defined(__clang__)
#define EMU_IVDEP _Pragma("GCC ivdep")
#else
#define EMU_IVDEP   /* clang checks the overlap at run time instead (and warns where a hint cannot apply) */
#endif

/* A warp runs, waits at a barrier of its block, has finished, or waits at its cluster's barrier
 * (barrier.cluster.wait: cluster.sync(), emu_exec_group.c). */
enum { EMU_W_RUN, EMU_W_BAR, EMU_W_DONE, EMU_W_CBAR };
enum { EMU_S_NORMAL, EMU_S_CALL };

/* One SIMT stack entry: lanes in mask run from pc until pc == rpc, then rejoin the entry below.
 * A CALL entry marks a call: when it is on top again, the callee has returned. from: the branch that made
 * the entry (-1: none), which tells where lanes that wait below left the others. */
typedef struct emu_simt { int32_t pc, rpc; uint32_t mask; int32_t kind, from; } emu_simt;

typedef struct emu_frame {
    const emu_func *f;
    size_t reg_off, pred_off;   /* into the warp's register and predicate arenas */
    uint32_t local_base;        /* offset of this frame's locals in each lane's local memory */
    int32_t call_pc;            /* the caller's call instruction (for the return value) */
} emu_frame;

typedef struct emu_warp {
    int id;
    uint32_t exists;            /* lanes that hold a thread */
    uint32_t live;              /* lanes that have not exited */
    int state;
    uint32_t wsync;             /* warp-synchronisation epoch: changes at bar.warp.sync and barriers */
    emu_simt *stack; int sp, capstack;
    emu_frame *frames; int nframes, capframes;
    uint64_t *regs; size_t regtop, capregs;
    uint32_t *preds; size_t predtop, cappreds;
    uint8_t *local; uint32_t local_cap;   /* lane l's local memory is local[l*local_cap ...] */
    const emu_insn *bar_red;    /* a bar.red waiting for its result */
    int bar_pc;                 /* where the warp waits at a barrier (for messages) */
    uint32_t bar_id;            /* which of the block's 16 barriers it waits at */
    uint32_t cbar_arrived;      /* lanes that arrived at the cluster barrier's phase cbar_for */
    uint32_t cbar_for;          /* the phase they arrived for: once it completed, their wait does not block */
    uint32_t spin_pc;           /* where it last stopped at a strong load so that other blocks run (+ 1) */
    uint64_t spin_hash, spin_addr;   /* what that load read there, and the first lane's address */
    uint32_t spin_lane;         /* that first lane */
    /* Per lane, its cp.async groups (emu_exec_async.c): committed so far, complete (those below), complete
     * before its last wait, and the barrier interval of that wait. Counted modulo 2^16. */
    uint16_t cp_committed[32], cp_done[32], cp_done_before[32];
    uint32_t cp_wait_interval[32];
} emu_warp;

/* Shadow of one 4-byte word of shared memory, for races and never-written reads. Intervals number the
 * barrier intervals of the whole launch, so a record older than the block's first interval is empty and
 * nothing needs clearing between blocks. Accesses are tracked per byte: a lane that touches only its
 * own byte of a word shared with other lanes' bytes does not race with them. */
typedef struct emu_sword {
    uint32_t w_interval;        /* barrier interval of the last write */
    uint32_t w_wsync;           /* the writer warp's epoch at the write */
    uint32_t r_interval;        /* interval of the reads recorded here */
    uint32_t r_wsync;           /* the reading warp's epoch at its reads in r_lane */
    uint16_t w_warp, r_warp;    /* r_warp: the first warp that read in r_interval */
    uint8_t w_lane[4];          /* per byte: the lane of w_warp that wrote it in w_wsync */
    uint8_t r_lane[4];          /* per byte: the lane of r_warp that read it in r_wsync, EMU_SWORD_NONE or _LANES */
    uint8_t w_bytes;            /* bytes written by w_warp in w_wsync (one bit per byte) */
    uint8_t r_bytes;            /* bytes read in r_interval, by any warp */
    uint8_t written;            /* bytes written in this block (valid when w_interval is this block's) */
    uint8_t r_multi;            /* another warp than r_warp read in r_interval too */
    /* The lines of the last write, of r_warp's last read, and of the last read of another warp (r_multi): a
     * race names both sides. */
    uint32_t w_loc, r_loc, m_loc;
    uint16_t cp_thread;         /* the last write was a cp.async of this thread (linear, + 1; 0: a plain write) */
    uint16_t cp_group;          /* ... in that thread's group of this number */
} emu_sword;
#define EMU_SWORD_LANES 0xff    /* several lanes */
#define EMU_SWORD_NONE  0xfe    /* no lane */
#define EMU_SWORD_REMOTE 0xffff /* w_warp of bytes another block of the cluster wrote (emu_exec_dsmem.c) */

/* What a shared tag stands for in this launch (see emu_svar): where its bytes start in the block's
 * shared memory and how many there are (0: not this kernel's), and its name as declared. */
typedef struct emu_stag { uint32_t base, size; const char *name; } emu_stag;

/* A read of a never-written shared word, reported at the next barrier unless another thread's write of
 * it before then shows that the cause is a missing barrier (then reported as a race). */
#define EMU_PENDING_READS 64
typedef struct emu_pending {
    uint32_t word, off;         /* the word in the shadow, and the byte read (for the variable's name) */
    uint16_t warp; uint8_t lane, size;   /* the first reader */
    uint32_t loc, reads;        /* its line; how many reads of the word there were */
} emu_pending;

/* What one word of a block's shared memory saw from the other blocks of its cluster in the cluster
 * barrier's current phase (distributed shared memory, emu_exec_dsmem.c): the last write and the last read
 * through a shared::cluster address, each with the phase it happened in (emu_ctx.cbar_phase; 0: none). */
typedef struct emu_daccess {
    uint32_t phase, loc;
    uint16_t thread;
    uint8_t rank, bytes;
    uint8_t atomic;             /* w: an atomic */
    uint8_t strong;             /* an atomic, volatile, or .acquire/.release/.relaxed access at cluster scope or
                                 * wider: two strong accesses do not race (a flag, atomics of several blocks) */
    uint8_t early;              /* r: it read bytes nobody had written yet: kept in emu_ctx.dearly */
} emu_daccess;
typedef struct emu_dword {
    emu_daccess w, r;           /* the other blocks' last write and read */
    uint32_t own_w, own_r;      /* the phases of the owner's own last strong write and read */
} emu_dword;

/* A read of another block's shared memory that nobody had written yet, while its owner still ran: if the
 * owner (or another block) writes it later in the phase, the read came too early (a race across a missing
 * cluster barrier); if nobody does, it read garbage. Said at the first write or at the phase's end. */
#define EMU_DSMEM_EARLY 16
typedef struct emu_dearly {
    uint32_t block, word, off, loc;   /* the owner (index in emu_ctx.blocks), the word, the byte read */
    uint32_t reader, thread, size;    /* the reading block (index) and thread, the access's size */
} emu_dearly;

/* One block of a launch whose blocks run together (a cluster, or every block of a cooperative launch,
 * emu_exec_group.c): while another block runs, the fields emu_ctx holds for the running block wait here. */
typedef struct emu_block {
    emu_dim3 ctaid;
    uint32_t rank;              /* its place in its cluster (%cluster_ctarank) */
    uint32_t cluster;           /* which cluster of the group it belongs to */
    int done;                   /* every warp has finished */
    emu_warp *warps;
    uint8_t *shared; emu_sword *shadow;
    emu_dword *dshadow;         /* what the other blocks of the cluster did to its shared memory */
    uint32_t interval, block_interval, phase_interval;
    uint32_t dsmem_phase;       /* the phase in which another block last touched its shared memory */
    uint32_t synced, synced_phase;   /* ranks whose strong write a strong read of this block saw in that phase:
                                      * what they did before it is ordered before what this block does after */
    uint32_t bar_popc, bar_and, bar_or, bar_arrived[16], bar_expected[16];
    emu_pending pend[EMU_PENDING_READS]; int npend; unsigned long pend_more;
    uint32_t race_block, race_acquired, race_fence_seq, race_fence_sys_seq;
} emu_block;

/* Races on global memory (emu_exec_race.c): what a launch knows about its blocks' orderings. */
#define EMU_RACE_SHADOWS 64     /* allocations written in one launch that get a record (more go unchecked) */
enum { EMU_RACE_READ, EMU_RACE_WRITE, EMU_RACE_ATOMIC };
typedef struct emu_race_shadow emu_race_shadow;
typedef struct emu_race {
    uint32_t block;             /* the running block, linear, + 1 */
    uint32_t acquired;          /* the sync words this block acquired, a bit per id */
    uint32_t fence_seq;         /* the order of the block's last fence (0: none) */
    uint32_t fence_sys_seq;     /* and of its last fence at system scope (__threadfence_system()) */
    uint32_t seq;               /* the launch's order of memory events so far */
    emu_race_shadow *shadows; int nshadows;
    struct emu_release *releases;   /* per block: its last release */
    uint64_t sync[31]; int nsync;   /* the sync words: targets of atomics and releases */
} emu_race;

/* Kernels of several devices that run together (emu_launch_together): what one knows of the others, for the
 * order between them (emu_exec_peers.c). A flag is a word that a kernel writes with a strong store or an
 * atomic; a write of another device is ordered before a read of this one when this one has read (with a
 * strong load) a flag that the writer released after the write, at system scope. */
#define EMU_PEERS_MAX 16     /* kernels in a set, one per device */
#define EMU_PEER_FLAGS 64    /* flags kept per kernel; past them its writes are not checked (lenient) */
enum { EMU_PEER_RELEASED, EMU_PEER_UNFENCED, EMU_PEER_GPU_SCOPE, EMU_PEER_PLAIN };
typedef struct emu_peer_flag {
    uint64_t word;              /* its address, 4-byte aligned */
    uint32_t seq;               /* its last write, in the writer's order of memory events (emu_race.seq) */
    uint32_t released;          /* the writer's writes before this order are released by it (0: none) */
    uint32_t loc;               /* the write's line */
    uint8_t how;                /* EMU_PEER_*: a release at system scope, or what it lacked */
} emu_peer_flag;
typedef struct emu_peers {
    struct emu_ctx *all; int n, self;    /* the set's launches, and this one's index */
    emu_peer_flag flags[EMU_PEER_FLAGS]; int nflags, overflow;   /* this kernel's flags */
    uint32_t acquired[EMU_PEERS_MAX];    /* per other kernel: its writes before this order are ordered */
    uint32_t relaxed[EMU_PEERS_MAX];     /* the same, read by a relaxed load: ordered once a system fence follows */
    uint64_t relaxed_word[EMU_PEERS_MAX];   /* that load's flag and line, for the finding */
    uint32_t relaxed_loc[EMU_PEERS_MAX];
    emu_peer_flag seen[EMU_PEERS_MAX];   /* per other kernel: its last flag write this one read (seq 0: none) */
} emu_peers;

typedef struct emu_ctx {
    const emu_func *k;
    const emu_module *m;
    uint32_t where_loc;         /* the location of the last emu_where, and the function that ran it: a */
    const emu_func *where_func; /* second place (emu_where_other) is named beside it */
    emu_dim3 grid, block, ctaid;
    uint32_t nthreads;          /* per block */
    uint8_t *params;
    uint8_t *shared; uint32_t shared_size, mod_base, dyn_base, dyn_size;
    emu_stag *stags; uint32_t nstags;   /* indexed by tag, 1..nstags */
    emu_sword *shadow;
    uint32_t interval, block_interval;  /* the running block's barrier interval, and its first */
    uint32_t interval_top;              /* the last interval handed out: each block's are its own */
    emu_warp *warps; int nwarps;
    int *order;
    uint64_t budget, executed;
    int error, stop;
    int endless;                /* a warp went round a loop that never ends (emu_exec.c) */
    emu_metrics *met;
    emu_alloc *last_alloc;      /* the allocation the last global access hit (most accesses hit it again) */
    int last_full;              /* every byte of last_alloc is written: reads need no check */
    emu_race_shadow *last_shadow;   /* last_alloc's record of races, NULL while nothing wrote it in this launch */
    emu_race race;
    uint64_t stride_last[256];  /* last address per (load instruction, warp): grid-stride loops get prefetched */
    uint32_t bar_popc, bar_and, bar_or;
    /* Per barrier (0..15): threads that arrived without waiting (bar.arrive) and the thread count the
     * barrier completes at (0: every thread of the block), from the instructions that arrived so far. */
    uint32_t bar_arrived[16], bar_expected[16];
    emu_pending *pend; int npend;       /* EMU_PENDING_READS of them: the running block's */
    unsigned long pend_more;    /* reads of never-written words beyond those kept in pend */
    emu_pending pend_own[EMU_PENDING_READS];   /* pend of a launch whose blocks run one after another */
    /* Blocks that run together (emu_exec_group.c): a cluster's, or a cooperative launch's; NULL when the
     * blocks run one after another. cur is the running one; its fields above are its own. */
    emu_block *blocks; int nblocks; emu_block *cur;
    emu_dim3 cluster;           /* blocks per cluster in each dimension ({1,1,1}: none) */
    uint32_t cluster_size;      /* their product: %cluster_nctarank */
    int explicit_cluster;       /* launched with cluster dimensions (%is_explicit_cluster) */
    int cooperative;            /* cudaLaunchCooperativeKernel: every block runs together, grid.sync() works */
    int device;                 /* the device it runs on (another's memory needs peer access) */
    uint64_t grid_ws;           /* the grid workspace cooperative groups find in %envreg1/2 (0: none) */
    uint32_t *cbar_phase;       /* per cluster of the group: the cluster barrier's current phase, a number of
                                 * the launch's (phase_top counts them), so that records of an earlier
                                 * phase or cluster never match one of this phase */
    uint32_t phase_top;
    uint32_t dsmem_hot;         /* the running block's shared memory was touched by another in this phase */
    uint32_t bad_rank;          /* the last rank mapa was given outside the cluster (for the finding) */
    int spin_progress;          /* a warp that stopped at a strong load read something new (emu_group_spin) */
    emu_peers *peers;           /* kernels of other devices that run with this one; NULL when none */
    uint64_t group_next, group_total;   /* the next cluster to start, and how many the launch has */
    int group_wave;             /* the group's blocks hold a wave of clusters that has not finished */
    emu_dearly dearly[EMU_DSMEM_EARLY]; int ndearly;   /* early reads of distributed shared memory */
    uint64_t clock0;
    unsigned seed;
    struct emu_trace *trace;    /* `make show`'s record of this launch (emu_trace.c), NULL unless asked */
} emu_ctx;

/* emu_exec_launch.c: a block's life. emu_block_start puts the block x->ctaid in place (shared memory
 * poisoned, every warp at the first instruction); emu_block_run runs its warps until none can move and says
 * why: every warp finished (or the launch stops), a warp stopped at a strong load so that the other blocks
 * of its group run (EMU_BLOCK_YIELD), or the warps that have not finished wait at the cluster barrier. */
enum { EMU_BLOCK_DONE, EMU_BLOCK_YIELD, EMU_BLOCK_WAIT };
void emu_block_start(emu_ctx *x);
int emu_block_run(emu_ctx *x, int shuffle);
void emu_warps_free(emu_warp *warps, int n);

/* emu_exec_group.c: blocks that run together. emu_group_launch runs the launch's clusters one after
 * another (or every block at once for a cooperative launch), switching blocks at the cluster barrier and
 * where a warp waits for another block (a strong load: grid.sync() spins on one). emu_cluster_of_one
 * completes the cluster barrier of a block that is its own cluster (0 after a finding: it cannot). */
void emu_group_launch(emu_ctx *x, int shuffle);
int emu_cluster_of_one(emu_ctx *x);
/* The same in steps, for kernels of several devices that take turns (emu_launch_together): open makes the
 * group (the clusters that fit in resident blocks, at least one; every block for a cooperative launch),
 * each step runs every block of the group once, as far as it can, and starts the next wave of clusters when
 * the group has finished; it says whether the launch is done (or stopped), moved, or only spun reading the
 * same values (calm: after EMU_SPIN_ROUNDS calm steps in a row, nothing will ever move). */
#define EMU_SPIN_ROUNDS 64
enum { EMU_GROUP_DONE, EMU_GROUP_MOVED, EMU_GROUP_CALM };
void emu_group_open(emu_ctx *x, uint32_t resident);
int emu_group_step(emu_ctx *x, int shuffle);
void emu_group_close(emu_ctx *x);
/* A warp of x's group that spins: its record r (of kind) at the load it spins on, and the name of the word
 * it reads into flag ("flags[1]"), with *device the device whose memory that is (-1: none known). 0 when no
 * warp spins. */
int emu_group_waiter(emu_ctx *x, int kind, emu_record *r, char *flag, size_t len, int *device);
/* The executor's part: lanes m arrive at the cluster barrier (0 after a fatal finding), or wait at it (0
 * after a fatal finding, 1 when the warp waits, 2 when the phase they arrived for has completed already);
 * a warp that stops at a strong load (or an atomic) at pc, in a group, after reading R's slots. */
int emu_cluster_arrive(emu_ctx *x, emu_warp *w, const emu_insn *in, uint32_t m);
int emu_cluster_wait(emu_ctx *x, emu_warp *w, const emu_insn *in, uint32_t m, int pc);
void emu_group_spin(emu_ctx *x, emu_warp *w, const emu_insn *in, const uint64_t *R, uint32_t m, int pc);
/* The finding for a trap in a kernel that uses grid.sync() and was not launched cooperatively (1 when it
 * is that case). */
int emu_group_trap(emu_ctx *x, emu_warp *w, const emu_insn *in, uint32_t m);

/* emu_exec_dsmem.c: distributed shared memory. A shared::cluster address of block r's variable t is a
 * shared address with a tag of its own (emu_dsmem_tag); emu_dsmem_resolve finds the bytes an access of
 * another block's shared memory lands on, checks it (bounds, the block alive, races across a missing
 * cluster barrier, never-written bytes) and records it: NULL after a fatal finding, else the bytes, with
 * *own set when the address is in the running block's own shared memory (then *off is its offset there). */
uint64_t emu_dsmem_mapa(emu_ctx *x, emu_warp *w, const emu_insn *in, int l, uint64_t addr, uint32_t rank);
uint32_t emu_dsmem_rank(emu_ctx *x, uint64_t shared_addr);
/* Where n bytes at a shared::cluster address lie, without checking or recording anything (make show's
 * trace): the block's rank in the cluster and the offset in its shared memory; 0 when they lie in none. */
int emu_dsmem_where(const emu_ctx *x, uint64_t addr, unsigned n, uint32_t *rank, uint32_t *off);
uint8_t *emu_dsmem_resolve(emu_ctx *x, emu_warp *w, const emu_insn *in, int l, uint64_t addr, unsigned n, int acc,
                           int *own, uint32_t *off);
/* A block's own access of its shared memory at off while another block touched it in this phase, or a strong
 * one (store: 0 a read, 1 a write, 2 an atomic). */
void emu_dsmem_local(emu_ctx *x, emu_warp *w, const emu_insn *in, int l, uint32_t off, unsigned n, int store);
/* The end of a phase of cluster c's barrier (of every cluster of the group when c is UINT32_MAX): early
 * reads that nobody's write followed read garbage. */
void emu_dsmem_phase_end(emu_ctx *x, uint32_t c);
/* The running block's rank in its cluster (%cluster_ctarank): x first. */
static inline uint32_t emu_cluster_rank(const emu_ctx *x)
{
    return x->ctaid.x % x->cluster.x +
           x->cluster.x * (x->ctaid.y % x->cluster.y + x->cluster.y * (x->ctaid.z % x->cluster.z));
}
/* Whether the tag of a shared address is another block's (a shared::cluster address from mapa). */
static inline int emu_dsmem_tag(const emu_ctx *x, uint32_t tag) { return tag > x->nstags && x->cluster_size; }

/* emu_exec.c */
int emu_exec_warp(emu_ctx *x, emu_warp *w);
void emu_exec_enter(emu_ctx *x, emu_warp *w);   /* the kernel's frame and the warp's first SIMT entry */
/* Starts record r of kind for lane l of w at location loc: the kernel, block and thread, and the places
 * (emu_loc_places; when the line is in a function of the learner's that the warp called, the call too).
 * emu_diag_report then adds what happened. */
void emu_where(emu_ctx *x, emu_warp *w, int lane, uint32_t loc, int kind, emu_record *r);
/* The same with the place given (a loop's line). */
void emu_where_at(emu_ctx *x, emu_warp *w, int lane, const emu_place *at, int kind, emu_record *r);
/* Sets r's second place: the other access of a race, made at loc by lane of warp (lane -1: several threads)
 * of the block block_lin (linear; -1: this one), and both places' labels (EMU_LABEL_*). */
void emu_where_other(emu_ctx *x, uint32_t loc, int at_label, int other_label, long long block_lin, unsigned warp,
                     int lane, emu_record *r);
void emu_fatal(emu_ctx *x, int error);
/* How a learner wrote a barrier instruction: "__syncthreads() (bar.sync)", "__syncthreads_count() ...". */
const char *emu_barrier_name(const emu_insn *in);
static inline const emu_frame *emu_top_frame(const emu_warp *w) { return &w->frames[w->nframes - 1]; }
/* The lanes m reach a barrier while the warp's other live lanes wait elsewhere: when all of those are on
 * their way out of the kernel (they only wait at its exit), they exit now and this returns 1. */
int emu_retire_exiting(emu_warp *w, uint32_t m);
/* Those of lanes (not running now) that are on their way out of the kernel: where they wait to resume,
 * every path leads to the exit and does nothing that other threads could wait for or see
 * (emu_func.leaving). A warp-synchronous instruction does not wait for them, as it does not for exited
 * threads. */
uint32_t emu_lanes_leaving(const emu_warp *w, uint32_t lanes);

/* The space an address of an instruction of space `space` lies in; a generic address is moved into its
 * window (shared and local addresses start at 0 there), a global one stays as it is. */
static inline int emu_space_of(int space, uint64_t *addr)
{
    if (space != EMU_SP_GENERIC) return space;
    if (*addr - EMU_SHARED_WINDOW < EMU_WINDOW_SIZE) { *addr -= EMU_SHARED_WINDOW; return EMU_SP_SHARED; }
    if (*addr - EMU_LOCAL_WINDOW < EMU_WINDOW_SIZE) { *addr -= EMU_LOCAL_WINDOW; return EMU_SP_LOCAL; }
    return EMU_SP_GLOBAL;
}

/* The byte of the block's shared memory that n bytes at shared address addr start at, when they lie
 * inside the variable the address belongs to (see emu_svar); 0 when they do not. */
static inline int emu_shared_offset(const emu_ctx *x, uint64_t addr, unsigned n, uint32_t *off)
{
    uint32_t tag = (uint32_t)(addr >> EMU_SHARED_TAG_SHIFT);
    uint64_t rel = addr - EMU_SHARED_TAG_ADDR(tag);   /* huge when before the start */
    if (tag < 1 || tag > x->nstags || rel >= x->stags[tag].size || n > x->stags[tag].size - rel) return 0;
    *off = x->stags[tag].base + (uint32_t)rel;
    return 1;
}

/* The lane that lane l of a shuffle of mode (EMU_SH_*) reads, given its lane operand b and its clamp and
 * segment operand c; -1 when the source lies outside l's segment, so that l keeps its own value. */
static inline int emu_shfl_lane(int mode, int l, uint32_t b, uint32_t c)
{
    uint32_t segmask = (c >> 8) & 31, cval = c & 31;
    int maxl = (int)((l & segmask) | (cval & ~segmask)), minl = (int)(l & segmask), j;
    b &= 31;
    switch (mode) {
    case EMU_SH_UP: j = l - (int)b; return j >= maxl ? j : -1;
    case EMU_SH_DOWN: j = l + (int)b; break;
    case EMU_SH_BFLY: j = l ^ (int)b; break;
    default: j = minl | (int)(b & ~segmask); break;
    }
    return j <= maxl ? j : -1;
}

/* emu_exec_mem.c: 0 when the launch must stop. */
int emu_ld(emu_ctx *x, emu_warp *w, const emu_insn *in, uint64_t *R, uint32_t m);
int emu_st(emu_ctx *x, emu_warp *w, const emu_insn *in, uint64_t *R, uint32_t m);
int emu_atom(emu_ctx *x, emu_warp *w, const emu_insn *in, uint64_t *R, uint32_t m);
/* ld.param [%rd+off] in a kernel: each lane reads the argument bytes at the offset its register holds. */
int emu_ld_param_at(emu_ctx *x, emu_warp *w, const emu_insn *in, uint64_t *R, uint32_t m, uint32_t param_bytes);
void emu_flush_pending(emu_ctx *x);   /* at each barrier and block end */
/* Names the shared access at byte off of a block's shared memory for a message: "sdata[5]" (the index in
 * elements of n bytes), "total" for a variable of one element. */
void emu_shared_what(emu_ctx *x, uint32_t off, unsigned n, char *buf, size_t len);
/* The bytes of shadow word k that an access of n bytes at byte off touches, one bit per byte. */
static inline unsigned emu_word_bytes(uint32_t k, uint32_t off, unsigned n)
{
    uint32_t first = off > k * 4 ? off - k * 4 : 0, end = off + n < k * 4 + 4 ? off + n - k * 4 : 4;
    return (0xfu >> (4 - (end - first))) << first;
}
/* The metrics' counts of one warp access of n bytes per lane: the bank conflicts of the shared accesses at
 * byte offsets off[] by lanes lane[] (cnt of them), and the 32-byte sectors of the global ones at addr[]. */
uint64_t emu_bank_conflicts(const uint32_t *off, const int *lane, int cnt, unsigned n);
uint64_t emu_sectors(const uint64_t *addr, int cnt, unsigned n);
/* cp.async's two halves for lane l (emu_exec_async.c): where n bytes at addr land, checked as a load
 * (store 0) or a store (store 1) of instruction in's space, NULL after a fatal finding; *space is the space
 * they are in, *soff their shared offset. A shared store is then checked against the shadow (and recorded)
 * by emu_shared_store. */
uint8_t *emu_resolve(emu_ctx *x, emu_warp *w, const emu_insn *in, int l, uint64_t addr, unsigned n, int store,
                     int *space, uint32_t *soff);
void emu_shared_store(emu_ctx *x, emu_warp *w, const emu_insn *in, int l, uint32_t off, unsigned n, int same);
/* Starts the record of a finding about two accesses of shared memory at byte off: this one of lane l
 * (at_label) and the other one, made at loc by lane of warp (other_label; EMU_SWORD_LANES: several
 * threads); what receives "sdata[5]", who "thread (3,0,0)" for the other one (NULL: not wanted). */
void emu_shared_race(emu_ctx *x, emu_warp *w, const emu_insn *in, int l, uint32_t off, int kind, int at_label,
                     int other_label, uint32_t loc, unsigned warp, int lane, emu_record *r, char *what, size_t whatlen,
                     char *who, size_t wholen);
/* emu_exec_async.c: cp.async, its groups and their waits (0 when the launch must stop); the check of a
 * shared read of a word whose last write was a cp.async that has not landed for this reader. */
int emu_cp_async(emu_ctx *x, emu_warp *w, const emu_insn *in, uint64_t *R, const uint32_t *P, uint32_t m);
void emu_cp_commit(emu_warp *w, uint32_t m);
void emu_cp_wait(emu_ctx *x, emu_warp *w, const emu_insn *in, uint32_t m);
void emu_cp_read(emu_ctx *x, emu_warp *w, const emu_insn *in, int l, const emu_sword *s, uint32_t off);
void *emu_local_ptr(emu_ctx *x, emu_warp *w, int lane, uint64_t addr, size_t size);
/* Read size bytes at a generic address for printf (NULL if not readable). */
const void *emu_generic_ptr(emu_ctx *x, emu_warp *w, int lane, uint64_t addr, size_t size);

/* emu_exec_race.c */
void emu_race_block(emu_ctx *x, uint32_t block_lin);   /* at each block's start */
void emu_race_end(emu_ctx *x);                         /* at the launch's end */
void emu_race_fence(emu_ctx *x, int sys);
/* Whether launch x wrote any of the n bytes at addr (of a) with a plain store: the latest such write's order
 * (emu_race.seq) and line, and whether it is the last write of its word (no strong write after it). */
int emu_race_plain_write(emu_ctx *x, const emu_alloc *a, uint64_t addr, unsigned n, uint32_t *seq, uint32_t *loc,
                         int *last);              /* __threadfence() and stronger; sys: system scope */
/* The cluster barrier orders the accesses of a cluster's blocks: an arrive releases what the block did
 * before it, the end of the wait acquires what the others did (through one sync word of its own). */
void emu_race_cluster_arrive(emu_ctx *x);
void emu_race_cluster_wait(emu_ctx *x);
/* a's record for this launch; with create, made when there is none (NULL when no more can be made) */
emu_race_shadow *emu_race_shadow_of(emu_ctx *x, const emu_alloc *a, int create);
/* Lane l's access of n bytes at addr (kind EMU_RACE_*) against the record sh (NULL: none, only the
 * orderings of atomics are noted); same: a write of the value the bytes already hold. */
void emu_race_access(emu_ctx *x, emu_warp *w, const emu_insn *in, int l, emu_race_shadow *sh, uint64_t addr,
                     unsigned n, int kind, int same);

/* emu_exec_peers.c: the order between kernels of several devices that run together (x->peers set). A strong
 * write or an atomic of lane l at addr, the seq-th memory event of its kernel, may be a flag; a read of n
 * bytes at addr of allocation a acquires the flags it reads (a strong load), or is checked against the other
 * kernels' plain writes (a plain one). " (memory of device 1)" for messages. */
void emu_peers_write(emu_ctx *x, const emu_insn *in, uint64_t addr, uint32_t seq);
void emu_peers_fence(emu_ctx *x);   /* __threadfence_system(): what relaxed loads of flags read is acquired */
void emu_peers_read(emu_ctx *x, emu_warp *w, const emu_insn *in, int l, const emu_alloc *a, uint64_t addr, unsigned n);
void emu_peers_memory_text(int device, char *buf, size_t len);
void emu_peers_name(emu_ctx *x, const emu_alloc *a, uint64_t addr, unsigned n, char *buf, size_t len);

/* emu_exec_names.c: global memory in findings. emu_global_name: "d_out[3]" for n bytes at addr of a.
 * emu_global_before: a sentence for an address before the start of what a pointer parameter points into,
 * when it is one (else 0). */
void emu_global_name(emu_ctx *x, const emu_alloc *a, uint64_t addr, unsigned n, char *buf, size_t len);
int emu_global_before(emu_ctx *x, uint64_t addr, unsigned n, char *buf, size_t len);

/* emu_trace.c: `make show`'s record of a run (EMU_TRACE names its file). emu_trace_launch gives a launch its
 * trace, or NULL when none was asked for; emu_exec_warp calls emu_trace_insn before each instruction a warp
 * issues (mask: the lanes running, m: those of them its guard lets execute it; R: the registers). */
struct emu_trace *emu_trace_launch(emu_ctx *x);
void emu_trace_insn(emu_ctx *x, emu_warp *w, const emu_insn *in, int pc, uint32_t mask, uint32_t m, const uint64_t *R);
void emu_trace_end(emu_ctx *x);
/* A launch that ran interleaved with others (kernels of several devices together): its launch and end records
 * only, every block and instruction of it counted as not written. */
void emu_trace_untraced(emu_ctx *x);

/* emu_exec_warp.c */
void emu_shfl(emu_ctx *x, emu_warp *w, const emu_insn *in, uint64_t *R, uint32_t *P, uint32_t m, uint32_t mask);
void emu_vote(emu_ctx *x, emu_warp *w, const emu_insn *in, uint64_t *R, uint32_t *P, uint32_t m);
void emu_redux(emu_ctx *x, emu_warp *w, const emu_insn *in, uint64_t *R, uint32_t m);
void emu_match(emu_ctx *x, emu_warp *w, const emu_insn *in, uint64_t *R, uint32_t *P, uint32_t m);
int emu_check_members(emu_ctx *x, emu_warp *w, const emu_insn *in, const uint64_t *R, uint32_t m, const char *what);

/* emu_exec_alu.c: one lane of a generic instruction. */
uint64_t emu_alu(const emu_insn *in, uint64_t a, uint64_t b, uint64_t c, uint64_t e);
int emu_compare(int cmp, int t, uint64_t a, uint64_t b, int ftz);
uint64_t emu_cvt(const emu_insn *in, uint64_t a);
/* cvt.rnd.{f16x2,bf16x2}.f32 d, a, b: a rounded into the upper half, b into the lower. */
uint64_t emu_cvt_pair(const emu_insn *in, uint64_t a, uint64_t b);
int emu_testp(int which, int t, uint64_t a);
void emu_round_begin(const emu_insn *in);
void emu_round_end(const emu_insn *in);

/* emu_exec_half.c: the 16-bit float formats (t is EMU_T_F16 or EMU_T_BF16). */
double emu_half_value(int t, uint16_t bits);   /* exact */
/* v + err (err: what a double left out of an exact result, or 0) rounded once to format t, in mode rnd
 * (EMU_RND_RN, RZ, RM or RP); a NaN gives the canonical 0x7fff. */
uint16_t emu_half_round(int t, double v, double err, int rnd);
/* add sub mul fma neg abs min max on in->nvec packed values of format in->t, each rounded once */
uint64_t emu_half_ops(const emu_insn *in, uint64_t a, uint64_t b, uint64_t c);

/* emu_printf.c */
/* loc: the call's place in the source, for a finding about the format. */
void emu_vprintf(emu_ctx *x, emu_warp *w, int lane, uint32_t loc, uint64_t fmt, uint64_t args);

/* emu_diag.c: one finding per kind and launch, plus a count. The kinds (EMU_FD_*) and their nouns are
 * emu_record.h's and emu_record.c's: a new kind is one enum value there and one noun in its table. */
void emu_diag_begin(void);
int emu_diag_first(int kind);      /* counts; 1 only for the first of its kind in this launch */
int emu_diag_add(int kind, unsigned long times);   /* emu_diag_first for several at once */
/* Files r (started by emu_where) with fmt's text: what happened, a sentence (the place, kernel and thread
 * are r's fields, said by whoever puts the record into words). */
void emu_diag_report(emu_record *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void emu_diag_end(const char *kernel);
/* A kernel that spent its budget is remembered for the later tests of the same run (EMU_ENDLESS_FILE);
 * emu_diag_endless_known reports it again and returns 1 when an earlier process recorded it. */
void emu_diag_endless_record(const char *kernel);
int emu_diag_endless_known(const char *kernel, const char *pretty);

#endif
