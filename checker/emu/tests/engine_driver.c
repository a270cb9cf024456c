/* engine_driver.c - runs one kernel of a .ptx file on the engine and prints its outputs and metrics.
 *
 * usage: engine_driver [--bench] [--metrics] [--all] FILE.ptx KERNEL GX BX SHARED ARG...
 *   GX, BX: grid and block sizes in x (or "X,Y,Z")      SHARED: dynamic shared bytes
 *   ARG:  i=N  u=N  l=N  f=X             a scalar parameter (int, unsigned, long long, float)
 *         in:T:N:P                        a device buffer of N elements of T (i32 u32 i64 f32 f64),
 *                                         filled with P: iota, ones, neg (-(i+1)), alt (+-1), rand, nan (floats
 *                                         with a NaN and infinities), uninit (never written)
 *         out:T:N[:V]                     an output buffer set to V (default 0), printed after the run
 * Prints "error E", then each output buffer ("out0: v v v ..." up to 40 values, then "sum=S"; with --all
 * every value),
 * then with --metrics the launch's counters; --bench prints warp instructions per second.
 */
#define _ISOC11_SOURCE
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../emu.h"

typedef struct buf { char type[8]; size_t n; void *mem; int is_out; } buf;

static size_t tsize(const char *t) { return (!strcmp(t, "i64") || !strcmp(t, "f64")) ? 8 : 4; }

static void fill(buf *b, const char *pat)
{
    unsigned seed = 42;
    static const char *pats[] = { "iota", "ones", "neg", "alt", "rand", "frand", "nan" };
    int p = -1, t = !strcmp(b->type, "i32") ? 0 : !strcmp(b->type, "u32") ? 1 : !strcmp(b->type, "i64") ? 2 : !strcmp(b->type, "f32") ? 3 : 4;
    for (int i = 0; i < 7; i++) if (!strcmp(pat, pats[i])) p = i;
    double c = atof(pat);
    for (size_t i = 0; i < b->n; i++) {
        double v;
        switch (p) {
        case 0: v = (double)i; break;
        case 1: v = 1; break;
        case 2: v = -(double)(i + 1); break;
        case 3: v = (i & 1) ? -1 : 1; break;
        case 4: seed = seed * 1103515245u + 12345u; v = (double)((seed >> 16) % 1000) - 500; break;
        case 5: seed = seed * 1103515245u + 12345u; v = ((seed >> 8) % 100000) / 1000.0 + 0.001; break;
        case 6: v = i == 3 ? NAN : i == 5 ? INFINITY : i == 7 ? -INFINITY : (double)i; break;
        default: v = c;
        }
        switch (t) {
        case 0: ((int32_t *)b->mem)[i] = (int32_t)v; break;
        case 1: ((uint32_t *)b->mem)[i] = (uint32_t)(int64_t)v; break;
        case 2: ((int64_t *)b->mem)[i] = (int64_t)v; break;
        case 3: ((float *)b->mem)[i] = (float)v; break;
        default: ((double *)b->mem)[i] = v;
        }
    }
}

static int print_all;

static void print_buf(int k, const buf *b)
{
    printf("out%d:", k);
    double sum = 0;
    for (size_t i = 0; i < b->n; i++) {
        char s[64];
        if (!strcmp(b->type, "i32")) { int32_t v = ((int32_t *)b->mem)[i]; sum += v; snprintf(s, sizeof s, "%d", v); }
        else if (!strcmp(b->type, "u32")) { uint32_t v = ((uint32_t *)b->mem)[i]; sum += v; snprintf(s, sizeof s, "%u", v); }
        else if (!strcmp(b->type, "i64")) { int64_t v = ((int64_t *)b->mem)[i]; sum += (double)v; snprintf(s, sizeof s, "%lld", (long long)v); }
        else if (!strcmp(b->type, "f32")) { float v = ((float *)b->mem)[i]; sum += v; snprintf(s, sizeof s, "%.9g", v); }
        else { double v = ((double *)b->mem)[i]; sum += v; snprintf(s, sizeof s, "%.17g", v); }
        if (i < 40 || print_all) printf(" %s", s);
    }
    if (b->n > 40 && !print_all) printf(" ... sum=%.17g", sum);
    printf("\n");
}

static emu_dim3 dim(const char *s)
{
    emu_dim3 d = { 1, 1, 1 };
    sscanf(s, "%u,%u,%u", &d.x, &d.y, &d.z);
    return d;
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    if (!s || fread(s, 1, (size_t)n, f) != (size_t)n) { fclose(f); free(s); return NULL; }
    fclose(f);
    s[n] = 0;
    *len = (size_t)n;
    return s;
}

int main(int argc, char **argv)
{
    int bench = 0, metrics = 0, a = 1;
    for (; a < argc && argv[a][0] == '-' && argv[a][1] == '-'; a++) {
        if (!strcmp(argv[a], "--bench")) bench = 1;
        if (!strcmp(argv[a], "--metrics")) metrics = 1;
        if (!strcmp(argv[a], "--all")) print_all = 1;
    }
    if (argc - a < 5) { fprintf(stderr, "usage: engine_driver [--bench] [--metrics] FILE.ptx KERNEL GRID BLOCK SHARED ARG...\n"); return 2; }
    size_t len;
    char *ptx = slurp(argv[a], &len);
    if (!ptx) { fprintf(stderr, "cannot read %s\n", argv[a]); return 2; }
    char err[512];
    emu_module *m = emu_module_load(ptx, len, err, sizeof err);
    if (!m) { printf("load failed: %s\n", err); return 3; }
    const emu_kernel *k = emu_module_kernel(m, argv[a + 1]);
    if (!k) { printf("no kernel %s\n", argv[a + 1]); return 3; }
    emu_dim3 grid = dim(argv[a + 2]), block = dim(argv[a + 3]);
    size_t shared = strtoul(argv[a + 4], NULL, 10);
    int nargs = argc - a - 5;
    buf bufs[16];
    int nbufs = 0;
    uint64_t scalars[16];
    void *args[16];
    for (int i = 0; i < nargs && i < 16; i++) {
        const char *s = argv[a + 5 + i];
        if (s[1] == '=') {
            uint64_t v = 0;
            if (s[0] == 'f') { float f = strtof(s + 2, NULL); memcpy(&v, &f, 4); }
            else if (s[0] == 'l') v = (uint64_t)strtoll(s + 2, NULL, 0);
            else { uint32_t u = (uint32_t)strtoll(s + 2, NULL, 0); v = u; }
            scalars[i] = v;
            args[i] = &scalars[i];
            continue;
        }
        buf *b = &bufs[nbufs++];
        char kind[8], pat[32] = "0";
        size_t n = 0;
        if (sscanf(s, "%7[a-z]:%7[a-z0-9]:%zu:%31s", kind, b->type, &n, pat) < 3) { fprintf(stderr, "bad argument %s\n", s); return 2; }
        b->n = n;
        b->is_out = !strcmp(kind, "out");
        size_t bytes = ((n ? n : 1) * tsize(b->type) + 255) / 256 * 256;   /* cudaMalloc aligns to 256 bytes */
        b->mem = aligned_alloc(256, bytes);
        if (!b->mem) return 2;
        memset(b->mem, 0, bytes);
        int init = strcmp(pat, "uninit") != 0;
        emu_mem_register(b->mem, n * tsize(b->type), "cudaMalloc", init);
        if (init) fill(b, pat);
        scalars[i] = (uint64_t)(uintptr_t)b->mem;
        args[i] = &scalars[i];
    }
    emu_launch_result r;
    struct timespec t0, t1, c0, c1;
    if (bench) emu_launch(k, grid, block, shared, args, &r);   /* warm-up: first touches of memory */
    clock_gettime(CLOCK_MONOTONIC, &t0);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
    emu_launch(k, grid, block, shared, args, &r);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    printf("error %d\n", r.error);
    for (int i = 0, o = 0; i < nbufs; i++) if (bufs[i].is_out) print_buf(o++, &bufs[i]);
    if (metrics) {
        emu_metrics *x = &r.metrics;
        printf("warp_instructions %llu\nthread_instructions %llu\ndivergent_branches %llu\n"
               "shared_loads %llu shared_stores %llu load_conflicts %llu store_conflicts %llu\n"
               "global_load_requests %llu sectors %llu global_store_requests %llu sectors %llu\n"
               "global_atomics %llu shared_atomics %llu barriers %llu blocks %llu threads_per_block %llu\n",
               (unsigned long long)x->warp_instructions, (unsigned long long)x->thread_instructions,
               (unsigned long long)x->divergent_branches, (unsigned long long)x->shared_load_instructions,
               (unsigned long long)x->shared_store_instructions, (unsigned long long)x->shared_load_bank_conflicts,
               (unsigned long long)x->shared_store_bank_conflicts, (unsigned long long)x->global_load_requests,
               (unsigned long long)x->global_load_sectors, (unsigned long long)x->global_store_requests,
               (unsigned long long)x->global_store_sectors, (unsigned long long)x->global_atomics,
               (unsigned long long)x->shared_atomics, (unsigned long long)x->barriers, (unsigned long long)x->blocks,
               (unsigned long long)x->threads_per_block);
    }
    if (bench) {
        double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
        double c = (double)(c1.tv_sec - c0.tv_sec) + (double)(c1.tv_nsec - c0.tv_nsec) * 1e-9;
        fprintf(stderr, "bench: %llu warp instructions in %.3f s (%.3f s of CPU) = %.1f million warp instructions per "
                "second of CPU\n", (unsigned long long)r.metrics.warp_instructions, s, c,
                (double)r.metrics.warp_instructions / c / 1e6);
    }
    for (int i = 0; i < nbufs; i++) { emu_mem_unregister(bufs[i].mem); free(bufs[i].mem); }
    emu_module_free(m);
    free(ptx);
    return 0;
}
