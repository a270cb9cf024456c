/* test_repeated_input.c - emu_device_repeated: device memory that holds one chunk over and over, read as
 * the whole (through the emulator's view: the program's address is not the host's to read), written page
 * by page without the other copies seeing it, bounded and freed like cudaMalloc. */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <string.h>

#include "../emu.h"

#define CHECK(cond, what) do { if (!(cond)) { fprintf(stderr, "FAIL: %s\n", what); return 1; } } while (0)

int main(void)
{
    static int chunk[4096];   /* 16 KiB: four pages */
    for (int i = 0; i < 4096; i++) chunk[i] = i;
    const size_t total = 10 * 4096 * sizeof(int) + 12;   /* ten chunks and three ints */
    int *p = emu_device_repeated(chunk, sizeof chunk, total);
    CHECK(p != NULL, "the mapping is made");
    int *d = emu_mem_view(p);
    CHECK(d != p, "the emulator's view is not the program's address");
    CHECK(d[0] == 0 && d[4095] == 4095 && d[4096] == 0 && d[9 * 4096 + 7] == 7 && d[10 * 4096 + 2] == 2,
          "every chunk holds the chunk's values");
    emu_alloc *a = emu_mem_lookup((uintptr_t)p, total);
    CHECK(a && a->size == total && emu_alloc_written(a, 0, total), "registered whole, as written");
    CHECK(!emu_mem_lookup((uintptr_t)p, total + 1), "not one byte more");
    d[4096 + 5] = -1;   /* the second chunk's copy of page 0 */
    CHECK(d[5] == 5 && d[2 * 4096 + 5] == 5 && chunk[5] == 5, "a write stays in its own page");
    CHECK(cudaFree(p) == cudaSuccess, "cudaFree frees it");
    CHECK(!emu_mem_lookup((uintptr_t)p, 4), "and unregisters it");
    CHECK(emu_device_repeated(chunk, 100, 1000) == NULL, "a chunk that is not whole pages is refused");
    printf("ok\n");
    return 0;
}
