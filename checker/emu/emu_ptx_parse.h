/* emu_ptx_parse.h - what the PTX parser shares with the instruction decoder: scopes, symbols, constants. */
#ifndef EMU_PTX_PARSE_H
#define EMU_PTX_PARSE_H

#include "emu_ptx.h"

/* What a name means inside a function. */
enum { EMU_SYM_REG, EMU_SYM_PRED, EMU_SYM_KPARAM, EMU_SYM_FRAME, EMU_SYM_SHARED, EMU_SYM_GLOBAL, EMU_SYM_FUNC };
typedef struct emu_sym { int kind; uint64_t value; uint32_t size; } emu_sym;

/* Find a name in the current scopes, then the module; 0 if unknown. */
int emu_ptx_lookup(emu_parser *p, const char *name, int len, emu_sym *out);
/* A constant slot (times 32) holding value for every lane, filled at frame creation as kind says. */
uint32_t emu_ptx_const(emu_parser *p, emu_func *f, uint32_t kind, uint64_t value);
/* Record that instruction idx of the current function branches to label name. */
void emu_ptx_label_ref(emu_parser *p, const char *name, int len, int idx);
/* Record that instruction idx calls the function called name (resolved when the module is complete). */
void emu_ptx_call_ref(emu_parser *p, const char *name, int len, int idx);
/* Allocate n argument words for a call instruction (owned by the function). */
uint32_t *emu_ptx_args(emu_parser *p, int n);
/* Notes that function f names the .shared variable of tag (a kernel's static shared memory counts only the
 * module's variables it or its callees name, as a GPU's does). */
void emu_ptx_shared_used(emu_func *f, uint32_t tag);
/* Report a parse error (the first one wins); returns 0. */
int emu_ptx_fail(emu_parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
