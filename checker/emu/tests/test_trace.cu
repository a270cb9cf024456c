// test_trace.cu - `make show`'s trace (emu_trace.c): a launch, its shared variable, a shared store with its
// bank conflicts, a strided global load with its sectors, a shuffle's source lanes and a named buffer, as
// written under EMU_TRACE; and the blocks past EMU_TRACE_BLOCKS, counted, not written. Then a cluster of 2
// (Part III's cluster path): cp.async's read and where it lands, its commit and wait, the cluster barrier,
// a read of the other block's shared memory (rank:offset), each block written once however often the
// blocks of the cluster take turns.
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

// Each block copies 4 ints into its stage with cp.async, waits, publishes lane 0's through the cluster barrier,
// and lane 0 reads the other block's.
__global__ void clustered(const int *d_in, int *d_out)
{
    __shared__ __align__(16) int stage[4 * 32];
    unsigned tid = threadIdx.x, rank, other;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
    unsigned dst = (unsigned)__cvta_generic_to_shared(&stage[4 * tid]);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst), "l"(d_in + 4 * tid) : "memory");
    asm volatile("cp.async.commit_group;\n\tcp.async.wait_group 0;" ::: "memory");
    asm volatile("barrier.cluster.arrive.aligned;\n\tbarrier.cluster.wait.aligned;" ::: "memory");
    unsigned local = (unsigned)__cvta_generic_to_shared(&stage[0]);
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(other) : "r"(local), "r"(rank ^ 1));
    int v = 0;
    if (tid == 0) asm volatile("ld.shared::cluster.u32 %0, [%1];" : "=r"(v) : "r"(other));
    asm volatile("barrier.cluster.arrive.aligned;\n\tbarrier.cluster.wait.aligned;" ::: "memory");
    if (tid == 0) d_out[blockIdx.x] = v;
}

int main()
{
    char path[] = "/tmp/emu_trace_test_XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) return 1;
    setenv("EMU_TRACE", path, 1);
    setenv("EMU_TRACE_BLOCKS", "2", 1);
    int h[128], *d_in, *d_out;
    for (int i = 0; i < 128; i++) h[i] = i;
    cudaMalloc(&d_in, sizeof h);
    cudaMalloc(&d_out, 3 * sizeof(int));
    cudaMemcpy(d_in, h, sizeof h, cudaMemcpyHostToDevice);
    emu_mem_guard(d_in, sizeof h, "d_in", sizeof(int));
    traced<<<3, 32>>>(d_in, d_out);
    cudaDeviceSynchronize();
    cudaLaunchConfig_t c = {};
    cudaLaunchAttribute attr;
    attr.id = cudaLaunchAttributeClusterDimension;
    attr.val.clusterDim.x = 2; attr.val.clusterDim.y = 1; attr.val.clusterDim.z = 1;
    c.gridDim = dim3(2);
    c.blockDim = dim3(32);
    c.attrs = &attr;
    c.numAttrs = 1;
    cudaLaunchKernelEx(&c, clustered, (const int *)d_in, d_out);
    cudaDeviceSynchronize();
    FILE *f = fopen(path, "r");
    char line[4096];
    while (f && fgets(line, sizeof line, f)) {
        char *detail;
        if (!strncmp(line, "launch ", 7) || !strncmp(line, "var ", 4) || !strncmp(line, "block ", 6) ||
            !strncmp(line, "buf ", 4) || !strncmp(line, "end ", 4) || !strncmp(line, "cluster ", 8))
            fputs(line, stdout);
        // The instructions with a detail, and cp.async's and the cluster barrier's: everything after "i W PC
        // LOC", whose location ids depend on the PTX.
        else if (!strncmp(line, "i ", 2) && (detail = strchr(line + 2, ' ')) && (detail = strchr(detail + 1, ' ')) &&
                 (detail = strchr(detail + 1, ' ')) &&
                 (strstr(detail, " s ") || strstr(detail, " g ") || strstr(detail, " x ") || strstr(detail, " n ") ||
                  strstr(detail, " commit") || strstr(detail, " carrive") || strstr(detail, " cwait")))
            printf("i%s", detail);
    }
    if (f) fclose(f);
    remove(path);
    return 0;
}
