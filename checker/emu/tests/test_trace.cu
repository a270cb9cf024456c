// test_trace.cu - `make show`'s trace (emu_trace.c): a launch, its shared variable, a shared store with its
// bank conflicts, a strided global load with its sectors, a shuffle's source lanes and a named buffer, as
// written under EMU_TRACE; and the blocks past EMU_TRACE_BLOCKS, counted, not written.
#include <cstdio>
#include <cstdlib>
#include <cstring>

extern "C" int emu_mem_guard(const void *base, size_t bytes, const char *name, size_t elem_size);

__global__ void traced(const int *d_in, int *d_out)
{
    __shared__ int s[64];
    unsigned int tid = threadIdx.x;
    s[(2 * tid) % 64] = d_in[2 * tid];                  // lanes 0 and 16 share bank 0: 2-way; 8 sectors
    __syncthreads();
    int v = __shfl_down_sync(0xffffffffu, s[(2 * tid) % 64], 1);   // lane l reads lane l + 1; 31 its own
    if (tid == 0) d_out[blockIdx.x] = v;
}

int main()
{
    char path[] = "/tmp/emu_trace_test_XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) return 1;
    setenv("EMU_TRACE", path, 1);
    setenv("EMU_TRACE_BLOCKS", "1", 1);
    int h[128], *d_in, *d_out;
    for (int i = 0; i < 128; i++) h[i] = i;
    cudaMalloc(&d_in, sizeof h);
    cudaMalloc(&d_out, 3 * sizeof(int));
    cudaMemcpy(d_in, h, sizeof h, cudaMemcpyHostToDevice);
    emu_mem_guard(d_in, sizeof h, "d_in", sizeof(int));
    traced<<<3, 32>>>(d_in, d_out);
    cudaDeviceSynchronize();
    FILE *f = fopen(path, "r");
    char line[4096];
    while (f && fgets(line, sizeof line, f)) {
        char *detail;
        if (!strncmp(line, "launch ", 7) || !strncmp(line, "var ", 4) || !strncmp(line, "block ", 6) ||
            !strncmp(line, "buf ", 4) || !strncmp(line, "end ", 4))
            fputs(line, stdout);
        // The instructions with a detail: everything after "i W PC LOC", whose location ids depend on the PTX.
        else if (!strncmp(line, "i ", 2) && (detail = strstr(line, " ffffffff ffffffff ")) &&
                 (strstr(detail, " s ") || strstr(detail, " g ") || strstr(detail, " x ")))
            printf("i%s", detail);
    }
    if (f) fclose(f);
    remove(path);
    return 0;
}
