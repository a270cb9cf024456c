/* emu_exec.h - the executor's state: a launch, its block, warps, SIMT stacks and register frames. */
#ifndef EMU_EXEC_H
#define EMU_EXEC_H

#include "emu_ptx.h"

#define EMU_MAX_CALL_DEPTH 64          /* deeper recursion is reported as a stack overflow */
#define EMU_DEFAULT_BUDGET 2000000000ull

/* EMU_IVDEP before a lane loop: its iterations are independent (an instruction's destination row may be
 * one of its source rows, but lane l only reads and writes element l), so the compiler may vectorise it
 * without checking at run time whether the rows overlap. */
#if defined(__GNUC__) && !defined(__clang__)
#define EMU_IVDEP _Pragma("GCC ivdep")
#else
#define EMU_IVDEP   /* clang checks the overlap at run time instead (and warns where a hint cannot apply) */
#endif

enum { EMU_W_RUN, EMU_W_BAR, EMU_W_DONE };
enum { EMU_S_NORMAL, EMU_S_CALL };

/* One SIMT stack entry: lanes in mask run from pc until pc == rpc, then rejoin the entry below.
 * A CALL entry marks a call: when it is on top again, the callee has returned. */
typedef struct emu_simt { int32_t pc, rpc; uint32_t mask; int32_t kind; } emu_simt;

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
} emu_warp;

/* Shadow of one 4-byte word of shared memory, for races and never-written reads. */
typedef struct emu_sword {
    uint32_t w_interval;        /* barrier interval of the last write; 0: never written in this block */
    uint32_t w_wsync;           /* the writer warp's epoch at the write */
    uint32_t r_interval;        /* interval of the reads recorded here */
    uint32_t r_wsync;           /* the reading warp's epoch at its last read (when one warp read) */
    uint16_t w_warp, r_warp;    /* r_warp: the first warp that read in r_interval */
    uint8_t w_lane, r_multi;    /* r_multi: another warp read too */
    uint8_t r_lane, pad;        /* the lane of r_warp that read in epoch r_wsync, or EMU_SWORD_LANES for several */
} emu_sword;
#define EMU_SWORD_LANES 0xff

typedef struct emu_ctx {
    const emu_func *k;
    const emu_module *m;
    emu_dim3 grid, block, ctaid;
    uint32_t nthreads;          /* per block */
    uint8_t *params;
    uint8_t *shared; uint32_t shared_size, mod_base, dyn_base, dyn_size;
    emu_sword *shadow;
    uint32_t interval;
    emu_warp *warps; int nwarps;
    int *order;
    uint64_t budget, executed;
    int error, stop;
    emu_metrics *met;
    emu_alloc *last_alloc;      /* the allocation the last global access hit (most accesses hit it again) */
    int last_full;              /* every byte of last_alloc is written: reads need no check */
    emu_alloc *full[8]; int nfull;   /* allocations found fully written during this launch */
    uint64_t stride_last[256];  /* last address per (load instruction, warp): grid-stride loops get prefetched */
    uint32_t bar_popc, bar_and, bar_or;
    /* Per barrier (0..15): threads that arrived without waiting (bar.arrive) and the thread count the
     * barrier completes at (0: every thread of the block), from the instructions that arrived so far. */
    uint32_t bar_arrived[16], bar_expected[16];
    /* A read of a never-written shared word waits until the barrier: if another warp writes the word
     * before it, the cause is a missing __syncthreads() (reported as a race), not a missing store. */
    int pend; uint32_t pend_word; char pend_msg[1024];
    uint64_t clock0;
    unsigned seed;
} emu_ctx;

/* emu_exec.c */
int emu_exec_warp(emu_ctx *x, emu_warp *w);
void emu_exec_enter(emu_ctx *x, emu_warp *w);   /* the kernel's frame and the warp's first SIMT entry */
void emu_where(emu_ctx *x, emu_warp *w, int lane, uint32_t loc, char *buf, size_t len);
void emu_fatal(emu_ctx *x, int error);
static inline const emu_frame *emu_top_frame(const emu_warp *w) { return &w->frames[w->nframes - 1]; }

/* emu_exec_mem.c: 0 when the launch must stop. */
int emu_ld(emu_ctx *x, emu_warp *w, const emu_insn *in, uint64_t *R, uint32_t m);
int emu_st(emu_ctx *x, emu_warp *w, const emu_insn *in, uint64_t *R, uint32_t m);
int emu_atom(emu_ctx *x, emu_warp *w, const emu_insn *in, uint64_t *R, uint32_t m);
void emu_flush_pending(emu_ctx *x);   /* at each barrier and block end */
void *emu_local_ptr(emu_ctx *x, emu_warp *w, int lane, uint64_t addr, size_t size);
/* Read size bytes at a generic address for printf (NULL if not readable). */
const void *emu_generic_ptr(emu_ctx *x, emu_warp *w, int lane, uint64_t addr, size_t size);

/* emu_exec_warp.c */
void emu_shfl(emu_ctx *x, emu_warp *w, const emu_insn *in, uint64_t *R, uint32_t *P, uint32_t m, uint32_t mask);
void emu_vote(emu_ctx *x, emu_warp *w, const emu_insn *in, uint64_t *R, uint32_t *P, uint32_t m);
void emu_redux(emu_ctx *x, emu_warp *w, const emu_insn *in, uint64_t *R, uint32_t m);
void emu_match(emu_ctx *x, emu_warp *w, const emu_insn *in, uint64_t *R, uint32_t *P, uint32_t m);
int emu_check_members(emu_ctx *x, emu_warp *w, const emu_insn *in, uint32_t members, uint32_t m, const char *what);

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
void emu_vprintf(emu_ctx *x, emu_warp *w, int lane, uint64_t fmt, uint64_t args);

/* emu_diag.c: one message per kind of finding and launch, plus a count. Each kind has a short noun (its
 * entry in emu_diag.c's table) that, with the file:line the message starts with, is how the harness tells
 * one finding from another: a new kind is one enum value here and one noun there. */
enum { EMU_FD_OOB_GLOBAL, EMU_FD_OOB_SHARED, EMU_FD_OOB_LOCAL, EMU_FD_MISALIGNED, EMU_FD_UNINIT_GLOBAL,
       EMU_FD_UNINIT_SHARED, EMU_FD_RACE, EMU_FD_WARP_RACE, EMU_FD_BAR_DIVERGENT, EMU_FD_BAR_EXITED,
       EMU_FD_MEMBERS, EMU_FD_UNSUPPORTED, EMU_FD_BUDGET, EMU_FD_STACK, EMU_FD_TRAP, EMU_FD_ASSERT,
       EMU_FD_LAUNCH, EMU_FD_GUARD_READ, EMU_FD_GUARD_WRITE, EMU_FD_COUNT };
void emu_diag_begin(void);
int emu_diag_first(int kind);      /* counts; 1 only for the first of its kind in this launch */
/* fmt's text starts with emu_where's "file:line: in kernel ..." (the place the finding is filed under). */
void emu_diag_report(int kind, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void emu_diag_end(const char *kernel);
/* A kernel that spent its budget is remembered for the later tests of the same run (EMU_ENDLESS_FILE);
 * emu_diag_endless_known reports it again and returns 1 when an earlier process recorded it. */
void emu_diag_endless_record(const char *kernel);
int emu_diag_endless_known(const char *kernel, const char *pretty);

#endif
