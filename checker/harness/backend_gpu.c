/* backend_gpu.c - the backend hooks for a real GPU: the CUDA runtime reports errors; there are no
 * emulator findings. */
#include "harness.h"

#include <string.h>

emu_record *backend_take_findings(int *count)
{
    *count = 0;
    return NULL;
}

int backend_is_emulator(void) { return 0; }

void backend_guard(const void *base, size_t bytes, const char *name, size_t elem_size)
{
    (void)base, (void)bytes, (void)name, (void)elem_size;
}

int backend_take_metrics(emu_metrics *out)
{
    (void)out;
    return 0;
}

int backend_take_activity(emu_activity *out)
{
    if (out) memset(out, 0, sizeof *out);
    return 0;
}

void *backend_repeated(const void *chunk, size_t chunk_bytes, size_t total_bytes)
{
    (void)chunk; (void)chunk_bytes; (void)total_bytes;
    return NULL;
}

int backend_host_fault(const void *addr, const void *pc, int write)
{
    (void)addr; (void)pc; (void)write;
    return 0;
}

/* On a GPU machine the learner's file is compiled once for both backends, so its host code carries the
 * emulator's undefined-behaviour checks (emu.mk's EMU_HOST_CHECKS). Here they say nothing and the program
 * goes on as it would without them: the emulator's run of the same object names the case at its line
 * (emu_host_ub.c). */
#include <stdint.h>
void __ubsan_handle_add_overflow(void *d, uintptr_t a, uintptr_t b) { (void)d, (void)a, (void)b; }
void __ubsan_handle_sub_overflow(void *d, uintptr_t a, uintptr_t b) { (void)d, (void)a, (void)b; }
void __ubsan_handle_mul_overflow(void *d, uintptr_t a, uintptr_t b) { (void)d, (void)a, (void)b; }
void __ubsan_handle_negate_overflow(void *d, uintptr_t a) { (void)d, (void)a; }
void __ubsan_handle_divrem_overflow(void *d, uintptr_t a, uintptr_t b) { (void)d, (void)a, (void)b; }
void __ubsan_handle_shift_out_of_bounds(void *d, uintptr_t a, uintptr_t b) { (void)d, (void)a, (void)b; }
void __ubsan_handle_out_of_bounds(void *d, uintptr_t index) { (void)d, (void)index; }
