/* harness_large.c - inputs too large to copy in one piece (exercise 08's n = 2^31 - 1, 8 GiB of ints), on
 * a GPU and on the emulator alike. */
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>

void *dev_input_repeated(const void *chunk, size_t chunk_bytes, size_t total_bytes, char *why, size_t len)
{
    void *d = backend_repeated(chunk, chunk_bytes, total_bytes);
    if (d) return d;
    size_t free_bytes = 0, device_bytes = 0;
    CUDA_OK(cudaMemGetInfo(&free_bytes, &device_bytes));
    if (free_bytes < total_bytes + ((size_t)512 << 20)) {
        snprintf(why, len,
                 backend_is_emulator() ? _("because the emulator has %.1f GiB free and the input needs %.1f GiB")
                                       : _("because the GPU has %.1f GiB free and the input needs %.1f GiB"),
                 (double)free_bytes / (1u << 30), (double)total_bytes / (1u << 30));
        return NULL;
    }
    CUDA_OK(cudaMalloc(&d, total_bytes));
    for (size_t from = 0; from < total_bytes; from += chunk_bytes) {
        size_t count = total_bytes - from < chunk_bytes ? total_bytes - from : chunk_bytes;
        harness_copy_in((char *)d + from, chunk, count);
    }
    return d;
}

void harness_budget_for(size_t n)
{
    if (!backend_is_emulator()) return;
    const char *now = getenv("EMU_BUDGET");
    double want = 16.0 * (double)n;
    if (now && *now && atof(now) >= want) return;
    char budget[32];
    snprintf(budget, sizeof budget, "%.0f", want);
    setenv("EMU_BUDGET", budget, 1);
}
