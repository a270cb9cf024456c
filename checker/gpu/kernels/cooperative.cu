// cooperative.cu - what Part III's fast row-wise kernels use besides clusters: cooperative launches
// (grid.sync()), rows shared by the parts of a warp, and copies into shared memory with cp.async.
//
//   coop_two_phase  a grid-stride sum into per-block partials, grid.sync(), block 0 adds them (ints)
//   coop_rounds     rounds of a ring through the whole grid, a grid.sync() after each
//   rows_per_warp   rows of 8 lanes (4 rows per warp), the lanes of rows past the last one returning before
//                   the loop while the others shuffle with a full mask; and a grid-stride loop over rows that
//                   the groups of one warp run a different number of times
//   cp_async        16-byte cp.async copies into shared memory, with source sizes 0 to 16 (the rest of the 16
//                   bytes zero-filled), read back after cp.async.wait_group
// Grids are small enough to be resident on any GPU and on the emulator (whose SM count is its own).

#include <cooperative_groups.h>
#include <vector>
#include "../cases.h"

namespace cg = cooperative_groups;

__global__ void k_coop_two_phase(const int *in, int *partial, int *out, int n)
{
    cg::grid_group grid = cg::this_grid();
    int s = 0;
    for (int i = grid.thread_rank(); i < n; i += grid.size()) s += in[i];
    for (int o = 16; o > 0; o /= 2) s += __shfl_down_sync(0xffffffffu, s, o);
    if (threadIdx.x % 32 == 0) atomicAdd(&partial[blockIdx.x], s);
    grid.sync();
    if (grid.thread_rank() == 0) {
        int t = 0;
        for (unsigned b = 0; b < gridDim.x; b++) t += partial[b] * (int)(b + 1);
        *out = t;
    }
}

__global__ void k_coop_rounds(int *a, int *b, int rounds)
{
    cg::grid_group grid = cg::this_grid();
    unsigned i = grid.thread_rank(), n = grid.size();
    for (int r = 0; r < rounds; r++) {
        b[i] = a[i] * 3 + a[(i + n - 1) % n] - a[(i + 5) % n];
        grid.sync();
        int *t = a; a = b; b = t;
    }
}

static void case_two_phase(int grid, int n)
{
    char name[64];
    snprintf(name, sizeof name, "coop_two_phase(grid=%d,n=%d)", grid, n);
    std::vector<int> in(n);
    uint64_t s = 99 + n;
    for (int &v : in) v = rng_int(&s, -100, 100);
    int *d_in = (int *)dev_copy(in.data(), n * sizeof(int)), *d_part, *d_out = (int *)dev_poisoned(sizeof(int));
    CK(name, cudaMalloc(&d_part, grid * sizeof(int)));
    CK(name, cudaMemset(d_part, 0, grid * sizeof(int)));
    void *args[] = { &d_in, &d_part, &d_out, &n };
    CK(name, cudaLaunchCooperativeKernel((void *)k_coop_two_phase, grid, 256, args, 0, 0));
    CK(name, cudaDeviceSynchronize());
    std::vector<int> h(grid + 1);
    cudaFree(d_in);
    if (dev_take(h.data(), d_out, sizeof(int)) && dev_take(h.data() + 1, d_part, grid * sizeof(int)))
        record(name, "u32", 0, h.data(), h.size());
}

static void case_rounds(int grid, int block, int rounds)
{
    char name[64];
    snprintf(name, sizeof name, "coop_rounds(grid=%d,block=%d,rounds=%d)", grid, block, rounds);
    int n = grid * block;
    std::vector<int> h(n);
    uint64_t s = 5 + n;
    for (int &v : h) v = rng_int(&s, -9, 9);
    int *a = (int *)dev_copy(h.data(), n * sizeof(int)), *b = (int *)dev_poisoned(n * sizeof(int));
    cudaLaunchAttribute attr;
    attr.id = cudaLaunchAttributeCooperative;
    attr.val.cooperative = 1;
    cudaLaunchConfig_t c = {};
    c.gridDim = dim3(grid); c.blockDim = dim3(block); c.attrs = &attr; c.numAttrs = 1;
    CK(name, cudaLaunchKernelEx(&c, k_coop_rounds, a, b, rounds));
    CK(name, cudaDeviceSynchronize());
    int *last = rounds % 2 ? b : a;
    cudaFree(rounds % 2 ? a : b);
    if (dev_take(h.data(), last, n * sizeof(int))) record(name, "u32", 0, h.data(), n);
}

// ---- Rows shared by the parts of a warp --------------------------------------------------------------

#define WIDTH 8   // lanes per row: 4 rows per warp

__device__ void row_sum(const int *in, int *out, int row, int cols, int lane)
{
    int s = 0;
    for (int c = lane; c < cols; c += WIDTH) s += in[row * cols + c] * (c + 1);
    for (int o = WIDTH / 2; o > 0; o /= 2) s += __shfl_xor_sync(0xffffffffu, s, o, WIDTH);
    unsigned b = __ballot_sync(0xffffffffu, s > 0);
    if (lane == 0) { out[2 * row] = s; out[2 * row + 1] = (int)b; }
}

__global__ void k_rows_early_return(const int *in, int *out, int rows, int cols)
{
    int lane = threadIdx.x % WIDTH, row = (blockIdx.x * blockDim.x + threadIdx.x) / WIDTH;
    if (row >= rows) return;
    row_sum(in, out, row, cols, lane);
}

__global__ void k_rows_loop(const int *in, int *out, int rows, int cols)
{
    int lane = threadIdx.x % WIDTH, groups = gridDim.x * blockDim.x / WIDTH;
    for (int row = (blockIdx.x * blockDim.x + threadIdx.x) / WIDTH; row < rows; row += groups)
        row_sum(in, out, row, cols, lane);
}

static void case_rows(const char *shape, void (*k)(const int *, int *, int, int), int grid, int rows, int cols)
{
    char name[80];
    snprintf(name, sizeof name, "rows_per_warp:%s(grid=%d,rows=%d,cols=%d)", shape, grid, rows, cols);
    std::vector<int> in((size_t)rows * cols);
    uint64_t s = 3 + rows;
    for (int &v : in) v = rng_int(&s, -50, 50);
    int *d_in = (int *)dev_copy(in.data(), in.size() * sizeof(int)), *d_out = (int *)dev_poisoned(2 * rows * sizeof(int));
    k<<<grid, 64>>>(d_in, d_out, rows, cols);
    CK_LAUNCH(name);
    std::vector<int> h(2 * rows);
    cudaFree(d_in);
    if (dev_take(h.data(), d_out, h.size() * sizeof(int))) record(name, "u32", 0, h.data(), h.size());
}

// ---- cp.async --------------------------------------------------------------------------------------

// Thread t copies 16 bytes from in + 4t with a source size of (t % 5) * 4 bytes (0 to 16) into its slot;
// the slots are read back after the wait, each thread's and its neighbour's.
__global__ void k_cp_async(const unsigned *in, unsigned *out)
{
    __shared__ __align__(16) unsigned slots[4 * 128];
    unsigned t = threadIdx.x, d = (unsigned)__cvta_generic_to_shared(&slots[4 * t]), src = (t % 5) * 4;
    slots[4 * t] = slots[4 * t + 1] = slots[4 * t + 2] = slots[4 * t + 3] = 0xdeadbeefu;
    __syncthreads();
    asm volatile("cp.async.ca.shared.global [%0], [%1], 16, %2;\n\tcp.async.commit_group;\n\tcp.async.wait_group 0;"
                 ::"r"(d), "l"(in + 4 * t), "r"(src) : "memory");
    __syncthreads();
    for (int k = 0; k < 4; k++) out[8 * t + k] = slots[4 * t + k];
    for (int k = 0; k < 4; k++) out[8 * t + 4 + k] = slots[(4 * t + 4 + k) % (4 * 128)];
}

static void case_cp_async(void)
{
    const char *name = "cp_async(src-size=0..16)";
    std::vector<unsigned> in(4 * 128);
    uint64_t s = 17;
    for (unsigned &v : in) v = rng_u32(&s);
    unsigned *d_in = (unsigned *)dev_copy(in.data(), in.size() * 4), *d_out = (unsigned *)dev_poisoned(8 * 128 * 4);
    k_cp_async<<<1, 128>>>(d_in, d_out);
    CK_LAUNCH(name);
    std::vector<unsigned> h(8 * 128);
    cudaFree(d_in);
    if (dev_take(h.data(), d_out, h.size() * 4)) record(name, "u32", 0, h.data(), h.size());
}

void run_coop_cases(void)
{
    case_cp_async();
    case_two_phase(8, 100003);
    case_two_phase(32, 1 << 20);
    case_rounds(4, 64, 5);
    case_rounds(16, 128, 8);
    for (int rows : { 1, 3, 5, 13, 32 }) case_rows("early_return", k_rows_early_return, 2, rows, 37);
    for (int rows : { 3, 9, 21, 50 }) case_rows("loop", k_rows_loop, 1, rows, 64);
}
