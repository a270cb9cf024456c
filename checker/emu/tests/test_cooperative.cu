// test_cooperative.cu - cooperative launches: every block of the grid runs together, so that grid.sync()
// (cooperative groups) waits for all of them. A two-phase sum with one grid.sync(), a loop of grid.sync()s
// launched through cudaLaunchKernelEx's attribute, a grid too large to be resident, and the two mistakes:
// grid.sync() in a kernel launched with <<<>>>, and a block that returns before grid.sync().
#include <cooperative_groups.h>
#include <cstdio>
namespace cg = cooperative_groups;

// Phase 1: each block adds its grid-stride share into partial[blockIdx.x]; grid.sync(); phase 2: block 0's
// thread 0 adds the partials.
__global__ void two_phase_sum(const int *in, int *partial, int *out, int n)
{
    cg::grid_group grid = cg::this_grid();
    int s = 0;
    for (int i = grid.thread_rank(); i < n; i += grid.size()) s += in[i];
    for (int o = 16; o > 0; o /= 2) s += __shfl_down_sync(0xffffffffu, s, o);
    if (threadIdx.x % 32 == 0) atomicAdd(&partial[blockIdx.x], s);
    grid.sync();
    if (grid.thread_rank() == 0) {
        int t = 0;
        for (unsigned b = 0; b < gridDim.x; b++) t += partial[b];
        *out = t;
    }
}

// rounds of: every thread adds its left neighbour's value from the last round (a ring over the grid).
__global__ void ring_rounds(int *a, int *b, int rounds)
{
    cg::grid_group grid = cg::this_grid();
    unsigned i = grid.thread_rank(), n = grid.size();
    for (int r = 0; r < rounds; r++) {
        b[i] = a[i] + a[(i + n - 1) % n];
        grid.sync();
        int *t = a; a = b; b = t;
    }
}

// Bug: the blocks past the first two return before grid.sync().
__global__ void early_return(int *out)
{
    if (blockIdx.x >= 2) return;
    cg::this_grid().sync();
    out[blockIdx.x] = 1;
}

int main()
{
    const int n = 100003;
    int *h = (int *)malloc(n * sizeof(int)), *d_in, *d_part, *d_out, total = 0, got = -1;
    long long want = 0;
    for (int i = 0; i < n; i++) { h[i] = i % 19 - 9; want += h[i]; }
    cudaMalloc(&d_in, n * sizeof(int));
    cudaMemcpy(d_in, h, n * sizeof(int), cudaMemcpyHostToDevice);
    int sms = 0, per_sm = 0;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, two_phase_sum, 256, 0);
    int grid = sms * per_sm;
    cudaMalloc(&d_part, grid * sizeof(int));
    cudaMalloc(&d_out, sizeof(int));
    cudaMemset(d_part, 0, grid * sizeof(int));
    void *args[] = { &d_in, &d_part, &d_out, (void *)&n };
    cudaError_t launch = cudaLaunchCooperativeKernel((void *)two_phase_sum, grid, 256, args, 0, 0);
    cudaError_t run = cudaDeviceSynchronize();
    cudaMemcpy(&got, d_out, sizeof got, cudaMemcpyDeviceToHost);
    printf("two-phase sum, %d blocks (every SM full): %s, %s, %s\n", grid, cudaGetErrorString(launch),
           cudaGetErrorString(run), got == want ? "the sum is right" : "WRONG");
    launch = cudaLaunchCooperativeKernel((void *)two_phase_sum, grid + 1, 256, args, 0, 0);
    printf("one block more: %s\n", cudaGetErrorName(launch));

    const int threads = 4 * 64, rounds = 5;
    int ha[threads], *a, *b;
    for (int i = 0; i < threads; i++) ha[i] = i;
    cudaMalloc(&a, sizeof ha);
    cudaMalloc(&b, sizeof ha);
    cudaMemcpy(a, ha, sizeof ha, cudaMemcpyHostToDevice);
    cudaLaunchAttribute attr;
    attr.id = cudaLaunchAttributeCooperative;
    attr.val.cooperative = 1;
    cudaLaunchConfig_t c = {};
    c.gridDim = dim3(4); c.blockDim = dim3(64); c.attrs = &attr; c.numAttrs = 1;
    launch = cudaLaunchKernelEx(&c, ring_rounds, a, b, rounds);
    run = cudaDeviceSynchronize();
    cudaMemcpy(ha, rounds % 2 ? b : a, sizeof ha, cudaMemcpyDeviceToHost);
    for (int i = 0; i < threads; i++) total += ha[i];
    printf("%d rounds of a ring through %d blocks with grid.sync(): %s, %s, total %d (32 x the first)\n", rounds, 4,
           cudaGetErrorString(launch), cudaGetErrorString(run), total);

    two_phase_sum<<<grid, 256>>>(d_in, d_part, d_out, n);
    printf("grid.sync() with <<<>>>: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
    cudaDeviceReset();
    cudaMalloc(&d_out, 8 * sizeof(int));
    void *args2[] = { &d_out };
    launch = cudaLaunchCooperativeKernel((void *)early_return, 8, 32, args2, 0, 0);
    printf("blocks returning before grid.sync(): %s, %s\n", cudaGetErrorName(launch),
           cudaGetErrorName(cudaDeviceSynchronize()));
    return 0;
}
