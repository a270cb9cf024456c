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

void backend_emulate_sms(int sms) { (void)sms; }

/* Nothing: CUDA must not be initialised in a process that later forks (harness_main.c). */
void backend_load_kernels(void) {}

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
