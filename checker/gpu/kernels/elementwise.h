/* elementwise.h - one kernel per operation, out[i] = EXPR(a[i], b[i], c[i]), and the host code that runs
 * it on given inputs and records out[] as one case. One kernel per operation, so that an instruction the
 * emulator does not know fails its own case only. */
#ifndef ELEMENTWISE_H
#define ELEMENTWISE_H

#include <vector>
#include "../cases.h"

/* Defines kernel k_ID: Out out[i] = EXPR, with In a, b, c in scope. */
#define ELEMENTWISE_KERNEL(ID, In, Out, EXPR)                                                       \
    __global__ void k_##ID(const In *A, const In *B, const In *C, Out *O, int n)                  \
    {                                                                                               \
        int i = blockIdx.x * blockDim.x + threadIdx.x;                                              \
        if (i < n) {                                                                                \
            In a = A[i], b = B[i], c = C[i];                                                        \
            (void)a; (void)b; (void)c;                                                              \
            O[i] = (EXPR);                                                                          \
        }                                                                                           \
    }

template <class In, class Out>
static void run_elementwise(const char *name, const char *kind, int tol,
                            void (*kernel)(const In *, const In *, const In *, Out *, int),
                            const std::vector<In> &a, const std::vector<In> &b, const std::vector<In> &c)
{
    int n = (int)a.size();
    In *d_a = (In *)dev_copy(a.data(), n * sizeof(In));
    In *d_b = (In *)dev_copy(b.data(), n * sizeof(In));
    In *d_c = (In *)dev_copy(c.data(), n * sizeof(In));
    Out *d_o = (Out *)dev_poisoned(n * sizeof(Out));
    if (!d_a || !d_b || !d_c || !d_o) {
        record_error(name, "cudaMalloc failed");
        return;
    }
    kernel<<<(n + 127) / 128, 128>>>(d_a, d_b, d_c, d_o, n);
    CK_LAUNCH(name);
    std::vector<Out> h(n);
    CK(name, cudaMemcpy(h.data(), d_o, n * sizeof(Out), cudaMemcpyDeviceToHost));
    cudaFree(d_a);
    cudaFree(d_b);
    cudaFree(d_c);
    cudaFree(d_o);
    record(name, kind, tol, h.data(), n);
}

#endif
