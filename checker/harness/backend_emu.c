/* backend_emu.c - the backend hooks for the emulator: its diagnostics become test failures. */
#include "harness.h"
#include "../emu/emu.h"

int backend_take_findings(char *buf, size_t len)
{
    return emu_findings_take(buf, len);
}

int backend_is_emulator(void) { return 1; }

void backend_guard(const void *base, size_t bytes, const char *name, size_t elem_size)
{
    emu_mem_guard(base, bytes, name, elem_size);
}

int backend_take_metrics(emu_metrics *out)
{
    emu_metrics_take(out);
    return 1;
}
