/* emu_host_ub.c - undefined behaviour in the learner's host code, found by gcc's sanitizer: the handlers
 * that code compiled with -fsanitize=signed-integer-overflow,integer-divide-by-zero,shift,bounds calls
 * (EMU_HOST_CHECKS in emu.mk); no sanitizer runtime is linked. A case in the learner's file becomes a
 * finding at its line, and then SIGTRAP stops the program there, as -fsanitize-trap would: what follows
 * undefined behaviour is no evidence of anything (ex08's wrapped grid asks cudaMalloc for 2^64 bytes), so
 * the harness (harness_fault.c) ends the test with the finding alone. A program that ignores SIGTRAP goes
 * on as it would without the check. A case inside a toolkit header is left alone.
 *
 * Why it matters: gcc at -O3 assumes that signed arithmetic never overflows, and folds
 * (n + BLOCK - 1) / BLOCK with n near 2^31 into an answer that happens to be right, so a test passes that
 * any other compiler, or the next version, may fail.
 *
 * The handlers' data is gcc's and clang's (libsanitizer's ubsan_handlers.h): a source location first, then
 * type descriptors; a value of 64 bits or fewer travels in the handle itself. */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "emu_rt.h"

/* The kinds of these findings are emu_record.c's EMU_FD_HOST_* (their nouns are its table's). */

static const char msg_overflow[] =
    N_("your host code computes %s in %s, and the result does not fit: %s holds %s to %s. Signed overflow "
       "is undefined behaviour: the compiler may assume it never happens, so what the program does next is "
       "anyone's guess, even where a test passes. Compute it in a 64-bit type (long long or size_t), or in an "
       "order that cannot pass the limit.");
static const char msg_divide[] =
    N_("your host code divides %s by zero (in %s): undefined behaviour, which stops the program on this "
       "CPU. Check the divisor first: can a count or a size be 0 here?");
static const char msg_shift[] =
    N_("your host code shifts %s by %s bits, in %s: a shift by a negative count or by the type's width or "
       "more, or one that pushes bits into or past the sign, is undefined behaviour. Shift an unsigned 64-bit "
       "value (1ull << k) by less than 64.");
static const char msg_bounds[] =
    N_("your host code uses index %s of an array of type %s, outside its bounds: undefined behaviour (the "
       "access lands on whatever lies beside the array). Check the index against the array's length, or size "
       "the array for the largest n.");

struct ub_location { const char *file; uint32_t line, column; };
struct ub_type { uint16_t kind, info; char name[]; };   /* kind 0: an integer; info: log2(bits) << 1 | signed */
struct ub_overflow { struct ub_location loc; const struct ub_type *type; };
struct ub_shift { struct ub_location loc; const struct ub_type *lhs, *rhs; };
struct ub_bounds { struct ub_location loc; const struct ub_type *array, *index; };

/* 1 the first time this place is seen: the column is set to ~0 after it, as libsanitizer does (the data
 * is writable for that), so that a loop reports once. 0 for a place outside the learner's file: a toolkit
 * header's own arithmetic is not the learner's mistake (and a correct program must never be blamed). */
static int ub_first(struct ub_location *loc, char *where, size_t len)
{
    if (!loc->file || loc->column == UINT32_MAX || !emu_source_is_learners(loc->file)) return 0;
    loc->column = UINT32_MAX;
    snprintf(where, len, "%s:%u", emu_source_path(loc->file), (unsigned)loc->line);
    return 1;
}

/* The type's name as the learner wrote it: gcc quotes it ('int'). */
static void ub_name(const struct ub_type *t, char *buf, size_t len)
{
    size_t n = strlen(t->name);
    if (n >= 2 && t->name[0] == '\'' && t->name[n - 1] == '\'') snprintf(buf, len, "%.*s", (int)(n - 2), t->name + 1);
    else snprintf(buf, len, "%s", t->name);
}

/* The finding is recorded: the program stops here (see above). */
static void ub_stop(void) { raise(SIGTRAP); }

static unsigned ub_bits(const struct ub_type *t) { return 1u << (t->info >> 1); }
static int ub_signed(const struct ub_type *t) { return t->info & 1; }

/* A value of type t from its handle, as text. */
static void ub_value(const struct ub_type *t, uintptr_t handle, char *buf, size_t len)
{
    unsigned bits = ub_bits(t);
    if (t->kind != 0 || bits > 64) { snprintf(buf, len, "?"); return; }
    uint64_t v = (uint64_t)handle;
    if (bits < 64) v &= (1ull << bits) - 1;
    if (ub_signed(t) && bits < 64 && (v >> (bits - 1)) & 1) v |= ~0ull << bits;
    if (ub_signed(t)) snprintf(buf, len, "%lld", (long long)v);
    else snprintf(buf, len, "%llu", (unsigned long long)v);
}

/* The smallest and largest values of the integer type t, as text. */
static void ub_limits(const struct ub_type *t, char *lo, char *hi, size_t len)
{
    unsigned bits = ub_bits(t);
    if (bits > 64) bits = 64;
    if (ub_signed(t)) {
        snprintf(lo, len, "%lld", bits == 64 ? (long long)INT64_MIN : -(1ll << (bits - 1)));
        snprintf(hi, len, "%lld", bits == 64 ? (long long)INT64_MAX : (1ll << (bits - 1)) - 1);
    } else {
        snprintf(lo, len, "0");
        snprintf(hi, len, "%llu", bits == 64 ? (unsigned long long)UINT64_MAX : (1ull << bits) - 1);
    }
}

static void ub_overflow_found(struct ub_overflow *d, uintptr_t a, uintptr_t b, const char *op)
{
    char where[600], va[32], vb[32], expr[80], lo[32], hi[32], type[64];
    if (!ub_first(&d->loc, where, sizeof where)) return;
    ub_name(d->type, type, sizeof type);
    ub_value(d->type, a, va, sizeof va);
    if (op) {
        ub_value(d->type, b, vb, sizeof vb);
        snprintf(expr, sizeof expr, "%s %s %s", va, op, vb);
    } else {
        snprintf(expr, sizeof expr, "-(%s)", va);
    }
    ub_limits(d->type, lo, hi, sizeof lo);
    emu_finding_at(EMU_FD_HOST_OVERFLOW, where, msg_overflow, expr, type, type, lo, hi);
    ub_stop();
}

void __ubsan_handle_add_overflow(struct ub_overflow *d, uintptr_t a, uintptr_t b) { ub_overflow_found(d, a, b, "+"); }
void __ubsan_handle_sub_overflow(struct ub_overflow *d, uintptr_t a, uintptr_t b) { ub_overflow_found(d, a, b, "-"); }
void __ubsan_handle_mul_overflow(struct ub_overflow *d, uintptr_t a, uintptr_t b) { ub_overflow_found(d, a, b, "*"); }
void __ubsan_handle_negate_overflow(struct ub_overflow *d, uintptr_t a) { ub_overflow_found(d, a, 0, NULL); }

/* Division by zero, or the one quotient that overflows: the most negative value divided by -1. */
void __ubsan_handle_divrem_overflow(struct ub_overflow *d, uintptr_t a, uintptr_t b)
{
    char va[32], vb[32];
    ub_value(d->type, b, vb, sizeof vb);
    if (vb[0] != '0' || vb[1]) { ub_overflow_found(d, a, b, "/"); return; }
    char where[600], type[64];
    if (!ub_first(&d->loc, where, sizeof where)) return;
    ub_value(d->type, a, va, sizeof va);
    ub_name(d->type, type, sizeof type);
    emu_finding_at(EMU_FD_HOST_DIVIDE, where, msg_divide, va, type);
    ub_stop();
}

void __ubsan_handle_shift_out_of_bounds(struct ub_shift *d, uintptr_t a, uintptr_t b)
{
    char where[600], va[32], vb[32], type[64];
    if (!ub_first(&d->loc, where, sizeof where)) return;
    ub_value(d->lhs, a, va, sizeof va);
    ub_value(d->rhs, b, vb, sizeof vb);
    ub_name(d->lhs, type, sizeof type);
    emu_finding_at(EMU_FD_HOST_SHIFT, where, msg_shift, va, vb, type);   /* << and >> share the handler */
    ub_stop();
}

void __ubsan_handle_out_of_bounds(struct ub_bounds *d, uintptr_t index)
{
    char where[600], vi[32], type[64];
    if (!ub_first(&d->loc, where, sizeof where)) return;
    ub_value(d->index, index, vi, sizeof vi);
    ub_name(d->array, type, sizeof type);
    emu_finding_at(EMU_FD_HOST_BOUNDS, where, msg_bounds, vi, type);
    ub_stop();
}
