/* emu_ptx.h - the engine's internal model: decoded instructions, functions, modules, and the opcode table. */
#ifndef EMU_PTX_H
#define EMU_PTX_H

#include <stddef.h>
#include <stdint.h>

#include "emu.h"
#include "emu_text.h"

/* ---- The instruction set ---------------------------------------------------------------------------
 *
 * Every PTX instruction the engine runs, decoded once into one of these opcodes. The operation's type
 * sits in emu_insn.t (and t2 for a second type); "a b c" are source slots, "d" the destination slot.
 * Predicates live in their own per-warp bit masks (one bit per lane), so "pd"/"pa" name predicate
 * indexes. An opcode ending in a type (ADD_I32...) is a fast path the decoder picks when nothing else
 * (ftz, sat, rounding) is asked for; the generic opcode handles every other type and modifier.
 *
 *   opcode          PTX                                meaning
 */
#define EMU_OPCODES(X) \
    X(NOP,          "membar.cta fence.cta pragma griddepcontrol", "no effect in a sequential emulator") \
    X(FENCE,        "membar.gl/sys, fence.sc/acq_rel.gpu/sys", "orders the block's global accesses for other blocks (races)") \
    X(UNSUPPORTED,  "anything else",                  "a finding naming the instruction, then error 715") \
    /* control */ \
    X(BRA,          "bra[.uni] L",                     "branch; divergence pushes the SIMT stack, lanes meet at the post-dominator") \
    X(CALL,         "call[.uni] (ret), f, (args)",     "call a .func: new register frame, params copied per lane") \
    X(CALL_PRINTF,  "call vprintf",                    "printf from the lanes in order") \
    X(CALL_ASSERT,  "call __assertfail",               "a failed device assert: finding, error 710") \
    X(RET,          "ret",                             "leave the .func (exit in a kernel)") \
    X(EXIT,         "exit",                            "the lanes end") \
    X(TRAP,         "trap, brkpt",                     "a finding, error 719") \
    X(BAR,          "bar.sync/barrier.sync a[, b]",    "block barrier a: the warp waits until b threads (all by default) arrived") \
    X(BAR_ARRIVE,   "bar.arrive/barrier.arrive a, b",  "counts the warp's arrival at barrier a without waiting") \
    X(BAR_RED,      "bar.red.popc/and/or",             "barrier that also reduces a predicate over the block") \
    X(WARPSYNC,     "bar.warp.sync m",                 "warp barrier: orders shared accesses between lanes") \
    X(CBAR_ARRIVE,  "barrier.cluster.arrive[.release/.relaxed][.aligned]", "the lanes arrive at their cluster's barrier") \
    X(CBAR_WAIT,    "barrier.cluster.wait[.acquire][.aligned]", "the warp waits until every thread of the cluster arrived") \
    /* moves and addresses */ \
    X(MOV,          "mov d, a",                        "copy a slot (registers, immediates, specials are all slots)") \
    X(MOV_PRED,     "mov.pred",                        "copy a predicate") \
    X(PRED_CONST,   "mov.pred p, imm",                 "set a predicate to a constant: 0 false, any other true (imm)") \
    X(SREG_DYN,     "mov d, %clock...",                "a special register that changes while running") \
    X(PACK,         "mov.b64 d, {a,b}",                "pack 2 or 4 parts into one register") \
    X(UNPACK,       "mov.b64 {a,b}, d",                "split a register into 2 or 4 parts") \
    X(CVTA,         "cvta[.to].space",                 "between a window's address and a generic address") \
    X(MAPA,         "mapa[.shared::cluster].T d, a, r", "the same shared variable in block r of the cluster (mod 1: shared::cluster)") \
    X(GETCTARANK,   "getctarank[.shared::cluster].T d, a", "the cluster rank of the block whose shared memory a is in") \
    X(ISSPACEP,     "isspacep.space p, a",             "whether generic address a is in the space (mod: EMU_SP_*; 6 shared::cluster)") \
    /* integer fast paths */ \
    X(ADD_I32,      "add.{s,u}32",                     "") X(ADD_I64, "add.{s,u}64", "") \
    X(SUB_I32,      "sub.{s,u}32",                     "") X(SUB_I64, "sub.{s,u}64", "") \
    X(MUL_LO_I32,   "mul.lo.{s,u}32",                  "") X(MUL_LO_I64, "mul.lo.{s,u}64", "") \
    X(MUL_WIDE_S32, "mul.wide.s32",                    "32x32 -> 64 signed") X(MUL_WIDE_U32, "mul.wide.u32", "") \
    X(MAD_LO_I32,   "mad.lo.{s,u}32",                  "") X(MAD_LO_I64, "mad.lo.{s,u}64", "") \
    X(AND_B,        "and.b{16,32,64}",                 "64-bit wide; readers take the bits they need") \
    X(OR_B,         "or.b*",                           "") X(XOR_B, "xor.b*", "") \
    X(SHL_B32,      "shl.b32",                         "amounts >= 32 give 0") X(SHL_B64, "shl.b64", "") \
    X(SHR_U32,      "shr.u32/b32",                     "") X(SHR_S32, "shr.s32", "arithmetic") \
    X(SHR_U64,      "shr.u64",                         "") X(SHR_S64, "shr.s64", "") \
    X(SETP_S32,     "setp.cmp.s32",                    "compare into a predicate") X(SETP_U32, "setp.cmp.u32/b32", "") \
    X(SETP_S64,     "setp.cmp.s64",                    "") X(SETP_U64, "setp.cmp.u64", "") \
    X(SELP,         "selp.T d, a, b, p",               "d = p ? a : b") \
    X(CVT_S64_S32,  "cvt.s64.s32",                     "sign extension") X(CVT_U64_U32, "cvt.u64.u32", "") \
    /* float fast paths (no ftz, no sat, round to nearest) */ \
    X(ADD_F32,      "add[.rn].f32",                    "") X(SUB_F32, "sub[.rn].f32", "") X(MUL_F32, "mul[.rn].f32", "") \
    X(FMA_F32,      "fma.rn.f32 / mad.rn.f32",         "one rounding (fmaf)") \
    X(MIN_F32,      "min.f32",                         "NaN loses; -0 < +0") X(MAX_F32, "max.f32", "") \
    X(ADD_F64,      "add[.rn].f64",                    "") X(MUL_F64, "mul[.rn].f64", "") X(FMA_F64, "fma.rn.f64", "") \
    X(SETP_F32,     "setp.cmp.f32",                    "ordered and unordered comparisons") X(SETP_F64, "setp.cmp.f64", "") \
    /* generic arithmetic: any type, any modifier (one C function per lane); .f16, .bf16 and their pairs \
     * .f16x2, .bf16x2 for add sub mul fma neg abs min max (nvec values per register), each rounded once \
     * (emu_exec_half.c). The .approx functions (rcp sqrt rsqrt ex2 lg2 sin cos tanh, div.approx) give the \
     * special values PTX defines exactly and are otherwise computed in double and rounded once: the GPU's \
     * results lie within PTX's bound of them, which `make gpu-compare` checks (checker/gpu/README.md): \
     * ex2, rsqrt, div.approx (|b| <= 2^126) within 2 ulps; lg2 within 2 ulps outside [0.5, 2], 2^-22 \
     * inside; div.approx with 2^126 < |b| < inf gives 0 (NaN for an infinite a), bit for bit */ \
    X(ADD,  "add",  "") X(SUB,  "sub",  "") X(MUL,  "mul.lo/.hi/.wide, mul.f", "") \
    X(MAD,  "mad.lo/.hi/.wide, mad.f", "") X(FMA, "fma.rn/rz/rm/rp", "") \
    X(MUL24, "mul24.lo/.hi.{s,u}32", "24-bit operands; .hi gives bits 47..16 of the product") \
    X(MAD24, "mad24.lo/.hi[.sat].{s,u}32", "mul24, then + c") \
    X(DIV,  "div",  "integer division by zero gives all ones (as the hardware)") X(REM, "rem", "") \
    X(NEG,  "neg",  "") X(ABS,  "abs",  "") X(MIN,  "min",  "") X(MAX,  "max", "") \
    X(NOT,  "not",  "") X(CNOT, "cnot", "") X(SHL,  "shl",  "") X(SHR,  "shr", "") \
    X(POPC, "popc", "") X(CLZ,  "clz",  "") X(BREV, "brev", "") X(BFIND, "bfind[.shiftamt]", "mod 1: .shiftamt") \
    X(BFE,  "bfe",  "") X(BFI,  "bfi",  "") X(PRMT, "prmt", "byte permute (default mode)") \
    X(LOP3, "lop3.b32 d, a, b, c, lut", "any 3-input bitwise function") \
    X(SHF,  "shf.{l,r}.{wrap,clamp}.b32", "funnel shift (mod: 1 left, 2 clamp)") \
    X(SAD,  "sad",  "") X(COPYSIGN, "copysign", "") \
    X(RCP,  "rcp.rn/approx",  "approx computed exactly") X(SQRT, "sqrt.rn/approx", "") \
    X(RSQRT, "rsqrt.approx", "") X(EX2, "ex2.approx", "") X(LG2, "lg2.approx", "") \
    X(SIN,  "sin.approx", "") X(COS,  "cos.approx", "") X(TANH, "tanh.approx", "") \
    X(TESTP, "testp.op.f", "finite/infinite/number/notanumber/normal/subnormal into a predicate") \
    X(CVT,  "cvt.rnd.sat.D.S", "conversions with rounding and saturation (NaN to int gives 0); .relu, .satfinite to f16/bf16") \
    X(CVT_PAIR, "cvt.rnd.{f16x2,bf16x2}.f32 d, a, b", "two floats rounded to 16-bit floats: a into the upper half, b the lower") \
    X(SETP, "setp.cmp[.bool].T p[|q], a, b[, c]", "generic compare with a boolean combine") \
    X(SET,  "set.cmp.D.S", "compare into a register (all ones / 1.0f)") \
    X(SLCT, "slct.D.S d, a, b, c", "d = c >= 0 ? a : b") \
    X(PRED_AND, "and.pred", "") X(PRED_OR, "or.pred", "") X(PRED_XOR, "xor.pred", "") X(PRED_NOT, "not.pred", "") \
    /* what the library kernels (CUB, Thrust) use beyond the course's own */ \
    X(BMSK, "bmsk.{clamp,wrap}.b32 d, a, b", "a mask of b bits from bit a (mod 1: .clamp; radix sort's digits)") \
    /* memory */ \
    X(LD,       "ld[.space][.volatile][.vN].T",  "load, with bounds and initialisation checks") \
    X(LD_STRONG, "ld.volatile, ld.acquire/.relaxed.{cluster,gpu,sys}", "a load that may wait for another block: in a group of blocks, they run next") \
    X(LD_PARAM, "ld.param (kernel)",             "read the launch's argument bytes (mod 1: at a register's offset)") \
    X(ST,       "st[.space][.volatile][.vN].T",  "store, with bounds and race checks") \
    X(ATOM,     "atom[.space].op.T",             "add inc dec min max and or xor exch cas, lanes in order") \
    X(RED,      "red[.space].op.T",              "atom without a result") \
    /* asynchronous copies into shared memory (emu_exec_async.c): done at issue, waited for by groups */ \
    X(CP_ASYNC, "cp.async.{ca,cg}.shared.global [d], [s], n[, src-size][, ignore-src]", \
                "n bytes (mod) into the thread's open group; bytes past src-size (c) are zeros; ignore-src (pc) reads none") \
    X(CP_COMMIT, "cp.async.commit_group",        "closes the thread's open group") \
    X(CP_WAIT,  "cp.async.wait_group N, cp.async.wait_all", "every group of the thread but the newest N (imm) has landed (mod 1: wait_all)") \
    /* warp-wide */ \
    X(SHFL,     "shfl.sync.mode.b32 d[|p], a, b, c, m", "up/down/bfly/idx with the clamp and segment operand") \
    X(VOTE,     "vote.sync.{all,any,uni,ballot}", "") \
    X(REDUX,    "redux.sync.op.T d, a, m",   "add/min/max/and/or/xor over the member lanes") \
    X(ACTIVEMASK, "activemask.b32",          "the active lanes") \
    X(MATCH,    "match.{any,all}.sync.b32/b64", "lanes holding the same value")

enum {
#define EMU_OP_ENUM(name, ptx, meaning) EMU_OP_##name,
    EMU_OPCODES(EMU_OP_ENUM)
#undef EMU_OP_ENUM
    EMU_OP_COUNT
};

/* Types: kind in the high nibble, log2 of the size in bytes in the low one. */
enum { EMU_K_B = 0x00, EMU_K_U = 0x10, EMU_K_S = 0x20, EMU_K_F = 0x30, EMU_K_PRED = 0x40 };
enum {
    EMU_T_NONE = 0xff,
    EMU_T_B8 = 0x00, EMU_T_B16 = 0x01, EMU_T_B32 = 0x02, EMU_T_B64 = 0x03, EMU_T_B128 = 0x04,
    EMU_T_U8 = 0x10, EMU_T_U16 = 0x11, EMU_T_U32 = 0x12, EMU_T_U64 = 0x13,
    EMU_T_S8 = 0x20, EMU_T_S16 = 0x21, EMU_T_S32 = 0x22, EMU_T_S64 = 0x23,
    EMU_T_F16 = 0x31, EMU_T_F32 = 0x32, EMU_T_F64 = 0x33,
    EMU_T_BF16 = 0x39,   /* a float of 2 bytes, told apart from .f16 by the 0x08 bit */
    EMU_T_PRED = 0x40,
};
#define EMU_TSIZE(t) (1u << ((t) & 0x07))
#define EMU_TKIND(t) ((t) & 0xf0)

/* Memory spaces. */
enum { EMU_SP_GENERIC, EMU_SP_GLOBAL, EMU_SP_SHARED, EMU_SP_LOCAL, EMU_SP_CONST, EMU_SP_PARAM };

/* Comparisons (setp/set/slct) and sub-operations (atom, shfl, vote, redux, bool combine). */
enum { EMU_CMP_EQ, EMU_CMP_NE, EMU_CMP_LT, EMU_CMP_LE, EMU_CMP_GT, EMU_CMP_GE,
       EMU_CMP_EQU, EMU_CMP_NEU, EMU_CMP_LTU, EMU_CMP_LEU, EMU_CMP_GTU, EMU_CMP_GEU,
       EMU_CMP_NUM, EMU_CMP_NAN };
enum { EMU_AT_ADD, EMU_AT_MIN, EMU_AT_MAX, EMU_AT_AND, EMU_AT_OR, EMU_AT_XOR, EMU_AT_EXCH, EMU_AT_CAS,
       EMU_AT_INC, EMU_AT_DEC, EMU_AT_POPC };
enum { EMU_SH_UP, EMU_SH_DOWN, EMU_SH_BFLY, EMU_SH_IDX };
enum { EMU_VO_ALL, EMU_VO_ANY, EMU_VO_UNI, EMU_VO_BALLOT };
enum { EMU_BOOL_NONE, EMU_BOOL_AND, EMU_BOOL_OR, EMU_BOOL_XOR };
enum { EMU_RND_DEFAULT, EMU_RND_RN, EMU_RND_RZ, EMU_RND_RM, EMU_RND_RP,
       EMU_RND_RNI, EMU_RND_RZI, EMU_RND_RMI, EMU_RND_RPI };
/* Dynamic special registers. */
enum { EMU_DYN_CLOCK, EMU_DYN_CLOCK64, EMU_DYN_GLOBALTIMER };
/* Mul/mad variants (emu_insn.mod for MUL/MAD on integers). */
enum { EMU_MW_LO, EMU_MW_HI, EMU_MW_WIDE };
/* emu_insn.mod for a float DIV: div.approx (a * (1/b)) is told apart from div.full and div.rn. */
enum { EMU_DIV_EXACT, EMU_DIV_APPROX };
/* emu_insn.mod bits for CVT and CVT_PAIR to a 16-bit float. */
#define EMU_CVT_RELU      0x01
#define EMU_CVT_SATFINITE 0x02

/* Flags. */
#define EMU_F_NEG_GUARD 0x01   /* @!%p */
#define EMU_F_FTZ       0x02
#define EMU_F_SAT       0x04
#define EMU_F_VOLATILE  0x08
#define EMU_F_NEG_C     0x10   /* setp's boolean source is negated (!%p) */
#define EMU_F_TO        0x20   /* cvta.to.space: generic -> space address */
#define EMU_F_APPROX    0x40
#define EMU_F_NAN       0x80   /* min/max.NaN */
#define EMU_F_ENDLESS   0x08   /* bra: a back edge of a loop that no path leads out of (set by emu_ptx_cfg) */
/* ld, st, atom, red: the memory model's strong accesses, which never race with each other (volatile and
 * .relaxed/.acquire/.release at gpu or system scope set EMU_F_VOLATILE), and their orderings. */
#define EMU_F_ACQUIRE   0x20   /* .acquire or .acq_rel */
#define EMU_F_RELEASE   0x40   /* .release or .acq_rel */
/* ld, st, atom, red, fence, membar: at system scope (.sys; ld and st .volatile are .relaxed.sys), which orders
 * memory for the other devices' threads too; .gpu orders it for this device's only. */
#define EMU_F_SYS       0x80

/* Addresses of the shared and local windows inside the generic address space: above every user-space
 * host pointer, so a generic address tells its space by its top bits. */
#define EMU_SHARED_WINDOW 0xFFFF900000000000ull
#define EMU_LOCAL_WINDOW  0xFFFFA00000000000ull
#define EMU_WINDOW_SIZE   0x0000100000000000ull

/* One decoded instruction. Slots are pre-multiplied by 32 (slot*32 + lane indexes the register file). */
typedef struct emu_insn {
    uint8_t op, t, t2, mod;
    uint8_t flags, space, nvec, rnd;
    int16_t guard;          /* predicate index, or -1 */
    uint16_t pd, pq, pc;    /* predicate destinations / predicate source */
    uint32_t d, a, b, c, e; /* slots*32; e is shfl/vote/redux member mask */
    uint32_t v[4];          /* vector or pack parts (slots*32) */
    int64_t imm;            /* address offset */
    int32_t target;         /* branch target index; callee function index */
    uint32_t loc;           /* index into the module's location table */
    uint16_t nargs;         /* call: argument count */
    uint16_t text;          /* index into the function's unsupported-text table (UNSUPPORTED) */
    uint32_t *args;         /* call: caller-frame local offsets of ret (args[0]) and arguments */
} emu_insn;

/* How a constant slot is filled when a frame is made. */
enum { EMU_CI_IMM, EMU_CI_SREG, EMU_CI_LOCAL };
/* Constant special registers (EMU_CI_SREG values). */
enum { EMU_SR_TID_X, EMU_SR_TID_Y, EMU_SR_TID_Z, EMU_SR_NTID_X, EMU_SR_NTID_Y, EMU_SR_NTID_Z,
       EMU_SR_CTAID_X, EMU_SR_CTAID_Y, EMU_SR_CTAID_Z, EMU_SR_NCTAID_X, EMU_SR_NCTAID_Y, EMU_SR_NCTAID_Z,
       EMU_SR_LANEID, EMU_SR_WARPID, EMU_SR_NWARPID, EMU_SR_SMID, EMU_SR_NSMID, EMU_SR_GRIDID,
       EMU_SR_LANEMASK_EQ, EMU_SR_LANEMASK_LT, EMU_SR_LANEMASK_LE, EMU_SR_LANEMASK_GT, EMU_SR_LANEMASK_GE,
       EMU_SR_DYN_SMEM, EMU_SR_TOTAL_SMEM,
       /* clusters (emu_exec_group.c) */
       EMU_SR_CLUSTER_CTARANK, EMU_SR_CLUSTER_NCTARANK, EMU_SR_CLUSTERID_X, EMU_SR_CLUSTERID_Y, EMU_SR_CLUSTERID_Z,
       EMU_SR_NCLUSTERID_X, EMU_SR_NCLUSTERID_Y, EMU_SR_NCLUSTERID_Z, EMU_SR_CLUSTER_CTAID_X, EMU_SR_CLUSTER_CTAID_Y,
       EMU_SR_CLUSTER_CTAID_Z, EMU_SR_CLUSTER_NCTAID_X, EMU_SR_CLUSTER_NCTAID_Y, EMU_SR_CLUSTER_NCTAID_Z,
       EMU_SR_IS_EXPLICIT_CLUSTER,
       /* %envreg0..31: what the driver passes a kernel; cooperative groups' grid workspace in 1 and 2 */
       EMU_SR_ENVREG0 };
#define EMU_SP_SHARED_CLUSTER 6   /* isspacep's mod for .shared::cluster */
typedef struct emu_cinit { uint32_t slot; uint32_t kind; uint64_t value; } emu_cinit;

/* A .shared variable: its name as declared in the PTX, where it lies in its area (the kernel's own
 * .shared, or the module's) and its tag, the number that its addresses carry.
 *
 * Every shared address is tag * 2^21 + 2^20 + the offset in its variable, so that an access is bounded by
 * the variable it was addressed from, not by the block's whole shared memory: an index a little past the
 * end (or before the start, a negative one) stays inside the variable's own window of 2 MiB and is seen.
 * Tag 1 is the dynamic shared memory (extern __shared__ arrays); the others number the module's .shared
 * variables. The launch maps each tag to the bytes of the block's shared memory that hold it. */
typedef struct emu_svar { char *name; uint32_t off, size, tag, align; } emu_svar;
#define EMU_SHARED_TAG_SHIFT 21
#define EMU_SHARED_TAG_MAX   2047u   /* tags fit in the 32 bits of a shared address */
#define EMU_SHARED_DYN_TAG   1u
#define EMU_SHARED_TAG_ADDR(tag) (((uint32_t)(tag) << EMU_SHARED_TAG_SHIFT) | (1u << (EMU_SHARED_TAG_SHIFT - 1)))

/* A source location (from .loc); parent is the location it was inlined at, or -1; func is the function the
 * location's code belongs to when it was inlined (function_name $L__info_stringN: N, an index into the
 * module's fnames), or -1. */
typedef struct emu_loc { int file, line, parent, func; } emu_loc;

typedef struct emu_func {
    struct emu_module *mod;
    char *name;             /* mangled */
    char *pretty;           /* demangled, for messages */
    int is_entry, is_extern, defined;
    int builtin;            /* 1 vprintf, 2 __assertfail */
    emu_insn *code; int ncode, capcode;
    char **texts; int ntexts;   /* source text of unsupported instructions */
    int32_t *ipdom;         /* per instruction: where lanes that diverge at a branch here meet again (-1 none) */
    uint8_t *leaving;       /* per instruction: 1 when every path from it reaches the kernel's exit doing nothing
                             * others could wait for or see; NULL until emu_ptx_leaving is first asked */
    uint32_t nslots;        /* registers + constants */
    uint32_t npreds;
    emu_cinit *cinit; int ncinit, capcinit;
    int nparams;
    uint32_t *param_off, *param_size;   /* entry: offsets in the argument buffer; func: frame offsets */
    uint32_t param_bytes;               /* entry: size of the argument buffer */
    uint32_t ret_off, ret_size; int has_ret;
    uint32_t local_size;                /* frame bytes: .local arrays and .param variables */
    uint32_t own_shared;                /* entry: bytes of .shared declared inside it */
    uint32_t own_shared_align;
    emu_svar *svars; int nsvars, capsvars;   /* entry: its own .shared variables */
    uint32_t reqnctapercluster[3];      /* entry: the cluster it declares (__cluster_dims__), 0s when none */
    int explicitcluster;                /* entry: .explicitcluster (it must be launched in clusters) */
    uint32_t maxclusterrank;            /* entry: .maxclusterrank, 0 when none */
    uint32_t *shared_used; int nshared_used, capshared_used;   /* the tags of the .shared variables it names */
    int64_t static_shared;              /* entry: emu_kernel_static_shared's answer, -1 until asked */
    char *callee_name_tmp;
} emu_func;

struct emu_kernel { emu_func f; };

typedef struct emu_gvar { char *name; void *mem; size_t size; int space; } emu_gvar;

struct emu_module {
    emu_func **funcs; int nfuncs, capfuncs;
    emu_gvar *gvars; int ngvars, capgvars;
    emu_loc *locs; int nlocs, caplocs;
    char **files; int nfiles;           /* indexed by the .file number */
    char **fnames; int nfnames;         /* .debug_str's $L__info_stringN, demangled, indexed by N (or NULL) */
    uint32_t mod_shared;                /* module-scope and .func-scope .shared bytes */
    emu_svar *svars; int nsvars, capsvars;   /* the variables in those bytes */
    char *dyn_name;                     /* the extern unsized .shared array (dynamic shared memory), if any */
    uint32_t shared_tags;               /* the highest tag given to a .shared variable (see emu_svar) */
    int reads_envreg;                   /* reads %envreg: cooperative groups' grid workspace (grid.sync()) */
};

/* Parser and decoder (emu_ptx_parse.c, emu_ptx_decode.c, emu_ptx_cfg.c). */
typedef struct emu_parser emu_parser;
int emu_ptx_decode(emu_parser *p, emu_func *f, const char **tok, const int *toklen, int ntok, uint32_t loc);
void emu_ptx_cfg(emu_func *f);
/* f->leaving, made at the first call (emu_ptx_cfg.c). */
const uint8_t *emu_ptx_leaving(const emu_func *f);

/* Diagnostics (emu_diag.c). */
/* "file:line" of location loc in the learner's code, "(in header:line)" after it inside a toolkit header. */
const char *emu_loc_text(const emu_module *m, uint32_t loc, char *buf, size_t len);
/* The places of location loc in the learner's code (emu_record.h): at, the innermost line of the learner's
 * (following inlined_at out of the toolkit's headers); call, when that line lies in a function of the
 * learner's that was inlined, the line that calls it (call->line 0 when there is none). */
void emu_loc_places(const emu_module *m, uint32_t loc, emu_place *at, emu_place *call);
/* call, the learner's call of the inlined function that location loc lies in (emu_loc_places), named
 * instead by the innermost line of loc's inlined chain inside the body of f, the function that ran it, when
 * the call named is itself inside another helper: "the call of load_pack" in the kernel, not "the call of
 * load_words" in load_pack. */
void emu_call_in_body(const emu_module *m, const struct emu_func *f, uint32_t loc, emu_place *call);
/* A finding's two places (at and other, from locations at_loc and other_loc) whose lines lie in different
 * functions (a read inside a helper, the copy it reads too early in the kernel's own code): each named
 * instead by the innermost line of its inlined chain that lies in the body of f, the function that ran
 * them, so that both are lines of the kernel where the two meet. Left as they are otherwise. */
void emu_places_in_body(const emu_module *m, const struct emu_func *f, uint32_t at_loc, uint32_t other_loc,
                        emu_place *at, emu_place *other);
/* The place of the loop made of f's instructions first..last (a back edge's target and source): the line of
 * its for, while or do in the learner's file (line 0 when unknown). */
void emu_loop_place(const emu_module *m, const emu_func *f, int first, int last, emu_place *at);
char *emu_demangle(const char *mangled);
/* The name of kernel f's parameter index (from 0) as the learner's file declares it ("d_out"): 0 (and
 * an empty buf) when the file cannot be read or its declaration not found. */
int emu_param_name(const emu_module *m, const emu_func *f, int index, char *buf, size_t len);
/* The source name of a variable: "sdata" for a function's static "_ZZ...E5sdata"; others as they are. */
void emu_var_name(const char *ptx_name, char *buf, size_t len);

#endif
