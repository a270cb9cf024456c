// test_devices_order.cu - the order between kernels of several devices that run together: a rank's read of a
// peer's buffer is ordered after the peer's write only by a flag the peer released at system scope after the
// write (__threadfence_system() then a volatile store, st.release.sys, cuda::atomic_ref at system scope), and
// read with an acquire (cuda::atomic_ref's load, or a volatile load followed by __threadfence_system()). Each
// way of getting it wrong is one finding that says what was lacking: no fence, a fence at gpu scope, the flag
// set before the data, a flag written with a plain store, a flag read with a relaxed load and no fence after
// it; the right ways have none.
#include <cstdio>
#include <cstring>
#include <cuda/atomic>

#include "findings_step.h"

#define N 256

enum { FENCE_SYS, RELEASE_SYS, ATOMIC_REF, READ_FENCED, NO_FENCE, FENCE_GPU, FLAG_FIRST, PLAIN_FLAG, READ_RELAXED };

// Rank r fills its buffer, tells rank 1 - r through the flag in rank 1 - r's memory, waits for that rank's
// flag in its own memory, then adds the peer's buffer to its own.
__global__ void pair(float **buf, int **flag, int r, float *out, int epoch, int mode)
{
    int peer = 1 - r, i = threadIdx.x;
    if (mode != FLAG_FIRST) buf[r][i] = r + i;
    __syncthreads();
    if (i == 0) {
        volatile int *f = flag[peer];
        if (mode == FENCE_SYS || mode == FLAG_FIRST || mode == READ_FENCED || mode == READ_RELAXED) {
            __threadfence_system();
            *f = epoch;
        }
        if (mode == RELEASE_SYS) asm volatile("st.release.sys.global.u32 [%0], %1;" ::"l"(flag[peer]), "r"(epoch) : "memory");
        if (mode == ATOMIC_REF)
            cuda::atomic_ref<int, cuda::thread_scope_system>(*flag[peer]).store(epoch, cuda::memory_order_release);
        if (mode == NO_FENCE) *f = epoch;
        if (mode == FENCE_GPU) { __threadfence(); *f = epoch; }
        if (mode == PLAIN_FLAG) flag[peer][0] = epoch;
    }
    if (mode == FLAG_FIRST) buf[r][i] = r + i;
    if (i == 0 && mode != READ_RELAXED && mode != READ_FENCED)
        while (cuda::atomic_ref<int, cuda::thread_scope_system>(*flag[r]).load(cuda::memory_order_acquire) != epoch) {}
    if (i == 0 && (mode == READ_RELAXED || mode == READ_FENCED)) while (((volatile int *)flag[r])[0] != epoch) {}
    if (i == 0 && mode == READ_FENCED) __threadfence_system();
    __syncthreads();
    out[i] = buf[r][i] + buf[peer][i];
}


int main()
{
    float *buf[2], *out[2];
    int *flag[2];
    float **d_buf[2];
    int **d_flag[2];
    for (int r = 0; r < 2; r++) {
        cudaSetDevice(r);
        cudaDeviceEnablePeerAccess(1 - r, 0);
        cudaMalloc(&buf[r], N * sizeof(float));
        cudaMalloc(&out[r], N * sizeof(float));
        cudaMalloc(&flag[r], sizeof(int));
        cudaMemset(flag[r], 0, sizeof(int));
    }
    for (int r = 0; r < 2; r++) {
        cudaSetDevice(r);
        cudaMalloc(&d_buf[r], 2 * sizeof(float *));
        cudaMalloc(&d_flag[r], 2 * sizeof(int *));
        cudaMemcpy(d_buf[r], buf, sizeof buf, cudaMemcpyHostToDevice);
        cudaMemcpy(d_flag[r], flag, sizeof flag, cudaMemcpyHostToDevice);
        cudaDeviceSynchronize();
    }
    findings("set up", NULL);
    const char *name[] = { "__threadfence_system() then a volatile store", "st.release.sys", "cuda::atomic_ref",
                           "a volatile load, then __threadfence_system()", "no fence", "__threadfence()",
                           "the flag before the data", "a plain store", "a volatile load alone" };
    const char *key[] = { NULL, NULL, NULL, NULL, "without a release: no __threadfence_system() before its store",
                          "with a release at gpu scope", "the flag was set before the data it publishes",
                          "with a strong load, as a flag is read, and the kernel on device 0 wrote it at the other line with a plain store",
                          "with a relaxed load (volatile, or memory_order_relaxed) and no __threadfence_system() after it" };
    for (int mode = 0; mode <= READ_RELAXED; mode++) {
        for (int r = 0; r < 2; r++) {
            cudaSetDevice(r);
            pair<<<1, N>>>(d_buf[r], d_flag[r], r, out[r], mode + 1, mode);
        }
        for (int r = 0; r < 2; r++) { cudaSetDevice(r); cudaDeviceSynchronize(); }
        float h = -1;
        cudaMemcpy(&h, out[1] + 5, sizeof h, cudaMemcpyDeviceToHost);
        printf("%s: out[5] = %g, ", name[mode], h);
        findings(name[mode], key[mode]);
    }
    return 0;
}
