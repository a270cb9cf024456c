/* emu_bench.c - how fast the engine runs a real kernel: the course's v6 reference (solutions/v6_shuffle.cu)
 * on 2^24 ints, blocks of 256, launched BENCH_RUNS times. Prints the warp instructions it executed, the CPU
 * seconds the launches took and their ratio, on one line; exits 1 if the sum is wrong. Built and run by `make emu-bench`. */
#define _POSIX_C_SOURCE 200809L   /* clock_gettime */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "../emu.h"
#include "../../contracts/ex07.h"

#define BENCH_N     (1 << 24)
#define BENCH_BLOCK 256
#define BENCH_RUNS  3     /* launches timed together: one is short enough for a busy machine to blur it */

#define CHECK(expr) do { cudaError_t err_ = (expr); if (err_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #expr, cudaGetErrorString(err_)); return 1; } } while (0)

static double cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(void)
{
    int *h_in = malloc((size_t)BENCH_N * sizeof *h_in), *h_out;
    if (!h_in) return 1;
    long long want = 0;
    for (int i = 0; i < BENCH_N; i++) { h_in[i] = (int)((i * 2654435761u) >> 24) - 128; want += h_in[i]; }
    int *d_in, *d_out;
    CHECK(cudaMalloc((void **)&d_in, (size_t)BENCH_N * sizeof(int)));
    CHECK(cudaMalloc((void **)&d_out, (size_t)BENCH_N / BENCH_BLOCK * sizeof(int)));
    CHECK(cudaMemcpy(d_in, h_in, (size_t)BENCH_N * sizeof(int), cudaMemcpyHostToDevice));

    emu_metrics met;
    emu_metrics_take(&met);   /* start counting from zero */
    double t0 = cpu_seconds();
    int grid = 0;
    for (int r = 0; r < BENCH_RUNS; r++) {
        grid = reduce_v6(d_in, d_out, BENCH_N, BENCH_BLOCK);
        CHECK(cudaGetLastError());
        CHECK(cudaDeviceSynchronize());
    }
    double secs = cpu_seconds() - t0;
    emu_metrics_take(&met);

    h_out = malloc((size_t)grid * sizeof *h_out);
    if (!h_out) return 1;
    CHECK(cudaMemcpy(h_out, d_out, (size_t)grid * sizeof(int), cudaMemcpyDeviceToHost));
    long long got = 0;
    for (int b = 0; b < grid; b++) got += h_out[b];
    int sum_ok = (int)want == (int)got;   /* the kernel sums in int: compare modulo 2^32 */
    printf("emu-bench: v6_shuffle, n=2^24, block %d, grid %d, %d launches: %llu warp instructions in %.3f s CPU = "
           "%.1f M warp instructions/s%s\n", BENCH_BLOCK, grid, BENCH_RUNS, (unsigned long long)met.warp_instructions, secs,
           (double)met.warp_instructions / secs * 1e-6, sum_ok ? "" : " (WRONG SUM)");
    if (!sum_ok) fprintf(stderr, "emu-bench: the sum is %lld, expected %lld\n", got, want);
    cudaFree(d_in); cudaFree(d_out); free(h_in); free(h_out);
    return !sum_ok;
}
