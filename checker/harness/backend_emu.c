/* backend_emu.c - the backend hooks for the emulator: its diagnostics become test failures. */
#include "harness.h"
#include "../emu/emu.h"

emu_record *backend_take_findings(int *count)
{
    return emu_records_take(count);
}

int backend_is_emulator(void) { return 1; }

void backend_emulate_sms(int sms) { emu_set_sm_count(sms); }

void backend_load_kernels(void) { emu_modules_load(); }

void backend_guard(const void *base, size_t bytes, const char *name, size_t elem_size)
{
    emu_mem_guard(base, bytes, name, elem_size);
}

int backend_take_metrics(emu_metrics *out)
{
    emu_metrics_take(out);
    return 1;
}

int backend_take_activity(emu_activity *out)
{
    emu_activity_take(out);
    return 1;
}

void *backend_repeated(const void *chunk, size_t chunk_bytes, size_t total_bytes)
{
    return emu_device_repeated(chunk, chunk_bytes, total_bytes);
}

int backend_host_fault(const void *addr, const void *pc, int write)
{
    return emu_host_fault(addr, pc, write);
}
