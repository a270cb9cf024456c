/* emu_record.h - a finding as data: what kind it is, where (one place, or two: both sides of a race, a
 * callee's line and the learner's call), which kernel, block and thread, which array, how many times.
 *
 * The emulator fills records (emu_diag_report, emu_finding) and keeps them until a program takes them
 * (emu_records_take in emu.h). The harness carries them inside a failed test's message as one encoded line
 * each (emu_record_encode; a test runs in a process of its own), the report turns them into words once, at
 * the end (emu_record_words, in the learner's language), and a test's TAP or XML result lists them as one
 * line each for tools (emu_record_encode with EMU_ENCODE_TOOLS):
 *
 *   finding: kind="race between warps" at=FILE:LINE [other=FILE:LINE] [array=NAME] [count=N] ...
 *
 * checker/README.md documents the keys. A value is written as it is, or in double quotes (with \" \\ \n)
 * when it holds a space, a quote or a backslash. The kind's English noun is its stable name: tools match
 * it, and a language other than English only changes the words the report makes from it.
 *
 * This file's code (emu_record.c) is linked into the emulator and into the harness of both backends, so
 * that a GPU's report reads the records its emulator run wrote. */
#ifndef EMU_RECORD_H
#define EMU_RECORD_H

#include <stddef.h>
#include <stdint.h>

/* The kinds, one enum value here and one noun in emu_record.c's table each. EMU_FD_RUNTIME is the host's
 * misuse of the runtime (a copy past an allocation): it has no place in a kernel, and its words are its text. */
typedef enum emu_kind {
    EMU_FD_OOB_GLOBAL, EMU_FD_OOB_SHARED, EMU_FD_OOB_LOCAL, EMU_FD_MISALIGNED, EMU_FD_UNINIT_GLOBAL,
    EMU_FD_UNINIT_SHARED, EMU_FD_RACE, EMU_FD_WARP_RACE, EMU_FD_GLOBAL_RACE, EMU_FD_BAR_DIVERGENT,
    EMU_FD_BAR_EXITED, EMU_FD_MEMBERS, EMU_FD_SHFL_ABSENT, EMU_FD_UNSUPPORTED, EMU_FD_BUDGET, EMU_FD_ENDLESS,
    EMU_FD_STACK, EMU_FD_TRAP, EMU_FD_ASSERT, EMU_FD_LAUNCH, EMU_FD_GUARD_READ, EMU_FD_GUARD_WRITE,
    EMU_FD_OOB_PARAM, EMU_FD_PRINTF_FORMAT, EMU_FD_RUNTIME, EMU_FD_CLUSTER_BAR, EMU_FD_GRID_SYNC, EMU_FD_OOB_DSMEM,
    EMU_FD_DSMEM_RACE, EMU_FD_DSMEM_EXITED, EMU_FD_CP_ASYNC,
    /* the learner's host code (emu_host_fault.c, emu_host_ub.c): at its line, in no kernel */
    EMU_FD_HOST_READ, EMU_FD_HOST_WRITE, EMU_FD_HOST_OVERFLOW, EMU_FD_HOST_DIVIDE, EMU_FD_HOST_SHIFT,
    EMU_FD_HOST_BOUNDS,
    /* work on two streams or devices that touches the same bytes in no order (emu_order.c) */
    EMU_FD_STREAM_RACE,
    /* a kernel's access of another device's memory without peer access */
    EMU_FD_PEER_ACCESS,
    /* a call of the emulator's NCCL against NCCL's rules (emu_nccl.c), at the learner's line; one rank's call of
     * several in one thread, outside a group */
    EMU_FD_NCCL, EMU_FD_NCCL_GROUP,
    /* kernels of several devices that run together: a read no flag orders after another device's write
     * (emu_exec_peers.c) */
    EMU_FD_PEER_RACE, EMU_FD_COUNT
} emu_kind;

/* A kind's English noun ("race between warps"), short enough for "The same %s as above": its stable name.
 * "problem" for a number that is no kind. */
const char *emu_kind_noun(int kind);
/* The question a kind of finding asks about its line (English, the caller translates it), or NULL. */
const char *emu_kind_question(int kind);
/* The kind whose noun is the len bytes at noun, or -1. */
int emu_kind_of(const char *noun, size_t len);

/* What a place is, in the finding: its label. Stable names (in finding: lines) in emu_record.c. */
typedef enum emu_label {
    EMU_LABEL_NONE,
    EMU_LABEL_READ,      /* a read of the word the finding is about */
    EMU_LABEL_WRITE,     /* a write of it */
    EMU_LABEL_ATOMIC,    /* an atomic update of it */
    EMU_LABEL_CALLEE,    /* a line inside a function of the learner's (func), called from the other place */
    EMU_LABEL_CALL,      /* the learner's call of func, which the other place is inside */
    EMU_LABEL_COPY,      /* a cp.async that copies into the word (read before its wait) */
    EMU_LABEL_COUNT
} emu_label;
const char *emu_label_name(int label);

typedef struct emu_place {
    char file[256];      /* as the learner's editor shows it (relative to the directory the program ran in) */
    int line;            /* 0: no place */
    int label;           /* emu_label */
    char func[96];       /* the function a CALLEE or CALL label names ("warp_reduce"), else "" */
    int has_thread;      /* the thread that made the access (the other side of a race) */
    unsigned block[3], thread[3];
} emu_place;

typedef struct emu_record {
    int kind;            /* emu_kind */
    emu_place at;        /* where it happened: in the learner's code, also when it happened in a CUDA header
                          * the learner's line called (the header's line is no place a learner can change) */
    emu_place other;     /* a second place, other.line > 0: the other access of a race, or the learner's
                          * call of the function `at` lies in */
    char kernel[128];    /* demangled; "" for a finding of the host's runtime calls */
    int has_thread;      /* block and thread of the first thread that did it */
    unsigned block[3], thread[3];
    char array[64];      /* the array it concerns ("sdata", "d_out"), "" when none */
    unsigned long count; /* how many times it happened in the launch that showed it (0 and 1: once) */
    uint32_t lanes;      /* the lanes of the warp it concerns (a warp instruction's missing members), or 0 */
    int not_run;         /* the kernel was stopped before it ran: it never finished in an earlier test */
    char text[2048];     /* what happened, a sentence in the learner's language (the emulator's words) */
} emu_record;

/* A record of kind with nothing else in it. */
void emu_record_init(emu_record *r, int kind);

/* "FILE:LINE" of p, or "" when it has no place. Returns buf. */
const char *emu_place_text(const emu_place *p, char *buf, size_t len);

/* The record as one line (no newline): "finding: kind=... at=..." with every field (EMU_ENCODE_ALL, read
 * back by emu_record_decode), or only what tools read (EMU_ENCODE_TOOLS: no text). Returns the length. */
enum { EMU_ENCODE_ALL, EMU_ENCODE_TOOLS };
size_t emu_record_encode(const emu_record *r, int what, char *buf, size_t len);
/* Reads the len bytes of line (one line of emu_record_encode's) into r. Returns 0 when it is no record. */
int emu_record_decode(const char *line, size_t len, emu_record *r);
/* 1 when the len bytes at line start a record's line. */
int emu_record_is_line(const char *line, size_t len);

/* The record in words, in the learner's language. head: "FILE:LINE (label): Kind: in kernel K, block (b),
 * thread (t): TEXT It happened N times in this launch; only the first is described." (with_noun 0: no
 * "Kind: ", as the emulator prints on stderr; no place, kernel or thread where the record has none).
 * second: "FILE:LINE: label" for the other place, or "" when there is none. */
void emu_record_words(const emu_record *r, int with_noun, char *head, size_t headlen, char *second,
                      size_t secondlen);

#endif
