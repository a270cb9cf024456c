/* cases.h - what same_answers.cu and the extra kernels in kernels/*.cu share: the recorder and the inputs.
 *
 * A case runs kernels on inputs drawn from a fixed seed, copies every output buffer back, and records it
 * as one line of the answers file:   name kind tol count hex hex ...
 *   kind  u32 | u64 (integers: must be identical) | f32 | f64 (floats: identical, or within tol ulps)
 *         | f64n (doubles identical, but any NaN answers a NaN: results of operations with several NaN
 *         operands, whose payload comes from the operand that ptxas places last in the SASS instruction)
 *   tol   0 for every case but those marked contraction-sensitive: the number of mul+add pairs a GPU
 *         may fuse into one fma on the way to each output word, each allowed one ulp; and the approximate
 *         instructions (kernels/half_ops.cu): the ulps PTX allows, or, negative, an absolute bound 2^tol.
 * The same program is built for the GPU and for the emulator; compare.py reads both files.
 */
#ifndef CASES_H
#define CASES_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cuda_runtime.h>

/* Record one output buffer (host memory) under a case name. */
void record(const char *name, const char *kind, int tol, const void *data, size_t count);
/* Record a case that could not run, with the reason (a CUDA error string). */
void record_error(const char *name, const char *what);
/* Record a case whose solution is not linked in (not written yet, or not compiling). */
void record_missing(const char *name, const char *function);

/* Checks a CUDA call inside a case function (which returns void): on failure records the case as an
 * error and leaves the function, so one case that fails does not hide the others. */
#define CK(name, expr)                                                                              \
    do {                                                                                            \
        cudaError_t err_ = (expr);                                                                  \
        if (err_ != cudaSuccess) {                                                                  \
            char what_[256];                                                                        \
            snprintf(what_, sizeof what_, "%s: %s", #expr, cudaGetErrorString(err_));               \
            record_error(name, what_);                                                              \
            return;                                                                                 \
        }                                                                                           \
    } while (0)

/* After a launch: the launch, then the run. */
#define CK_LAUNCH(name)                                                                             \
    do {                                                                                            \
        CK(name, cudaGetLastError());                                                               \
        CK(name, cudaDeviceSynchronize());                                                          \
    } while (0)

/* ---- Inputs: splitmix64 from a fixed seed, so both builds see the same bits --------------------- */

static inline uint64_t rng_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static inline uint32_t rng_u32(uint64_t *s) { return (uint32_t)(rng_next(s) >> 32); }

/* An int in [lo, hi]. */
static inline int rng_int(uint64_t *s, int lo, int hi)
{
    return lo + (int)(rng_next(s) % (uint64_t)((int64_t)hi - lo + 1));
}

static inline float f32_from_bits(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static inline double f64_from_bits(uint64_t u) { double d; memcpy(&d, &u, 8); return d; }

/* Floats worth testing: the specials first (0, -0, the subnormal edges, 1, the largest, inf, -inf,
 * NaN), then random bit patterns with exponents spread over the whole range (subnormals included). */
void fill_special_floats(float *h, int n, uint64_t seed);
void fill_special_doubles(double *h, int n, uint64_t seed);

/* Device buffers for a case: allocate and copy in, or allocate and poison. */
void *dev_copy(const void *h, size_t bytes);
void *dev_poisoned(size_t bytes);
/* Copy back and free. */
int dev_take(void *h, void *d, size_t bytes);

/* The groups of extra cases, one per file in kernels/. */
void run_float_cases(void);
void run_int_cases(void);
void run_warp_cases(void);
void run_warp_partial_cases(void);
void run_atomic_cases(void);
void run_printf_cases(void);
void run_library_cases(void);   /* exercise 12: bmsk, CUB, Thrust and the ex12 solution */
void run_half_cases(void);   /* kernels/half_ops.cu: Part III's 16-bit floats and approximate instructions */
void run_cluster_cases(void);   /* kernels/clusters.cu: clusters, distributed shared memory, the device's limits */
void run_coop_cases(void);      /* kernels/cooperative.cu: grid.sync(), rows shared by the parts of a warp */
void run_async_cases(void);     /* kernels/async_copy.cu: cp.async in groups and stages, 16-byte PTX accesses */

#endif
