// host_checks.cu - the learner's host code, checked (test_host_checks.sh builds it with EMU_HOST_CHECKS and
// runs each case): device memory has two addresses, and host code that touches the program's one faults
// with a finding at its line; undefined behaviour in host code is a finding at its line, then SIGTRAP.
#include <csignal>
#include <numeric>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sys/mman.h>
#include <ucontext.h>

extern "C" {
#include "../emu.h"   // a C header without extern "C" of its own
}

__global__ void fill(int *p, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] = 3 * i;
}

// Prints what the emulator made of the signal, then ends the program (with 0: the case's output is checked).
static void on_signal(int sig, siginfo_t *info, void *context)
{
    int claimed = 0;
    if (sig == SIGSEGV) {
#if defined(__x86_64__)
        const ucontext_t *uc = (const ucontext_t *)context;
        claimed = emu_host_fault(info->si_addr, (const void *)uc->uc_mcontext.gregs[REG_RIP],
                                 (uc->uc_mcontext.gregs[REG_ERR] & 2) != 0);
#else
        (void)context;
        claimed = emu_host_fault(info->si_addr, NULL, -1);
#endif
    }
    static char findings[16384];
    emu_findings_take(findings, sizeof findings);
    printf("signal %s, %s\n%s\n", sig == SIGSEGV ? "SIGSEGV" : sig == SIGTRAP ? "SIGTRAP" : "other",
           claimed ? "device memory" : "not device memory", findings);
    fflush(stdout);
    _exit(0);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_signal;
    sa.sa_flags = SA_SIGINFO;
    sigaction(SIGSEGV, &sa, NULL);
    sigaction(SIGTRAP, &sa, NULL);

    const int n = 1000;
    int *d = NULL, *h = NULL;
    if (cudaMalloc(&d, n * sizeof(int)) != cudaSuccess || cudaMallocHost(&h, n * sizeof(int)) != cudaSuccess) return 1;
    fill<<<(n + 255) / 256, 256>>>(d, n);
    if (cudaDeviceSynchronize() != cudaSuccess) return 1;

    if (!strcmp(mode, "views")) {
        // The kernel's writes reach the host through cudaMemcpy; pinned host memory is the host's to use.
        if (cudaMemcpy(h, d, n * sizeof(int), cudaMemcpyDeviceToHost) != cudaSuccess) return 1;
        int ok = h[999] == 2997 && emu_mem_view(d) != (void *)d && emu_mem_view(h) == (void *)h;
        cudaMemset(d, 0, sizeof(int));
        int first = -1;
        cudaMemcpy(&first, d, sizeof first, cudaMemcpyDeviceToHost);
        printf("views %s\n", ok && first == 0 ? "ok" : "wrong");
    } else if (!strcmp(mode, "read")) {
        volatile int v = d[7];   // HOST READ
        printf("read %d without a fault\n", v);
    } else if (!strcmp(mode, "write")) {
        d[0] = 5;   // HOST WRITE
        printf("wrote without a fault\n");
    } else if (!strcmp(mode, "past")) {
        volatile int v = d[n];   // HOST READ PAST
        printf("read %d without a fault\n", v);
    } else if (!strcmp(mode, "accumulate")) {
        int total = std::accumulate(d, d + n, 0);   // HOST CALL
        printf("summed %d without a fault\n", total);
    } else if (!strcmp(mode, "printf")) {
        printf("d[3] is %d\n", d[3]);   // HOST PRINTF
    } else if (!strcmp(mode, "memcpy")) {
        memcpy(h, d, (size_t)atoi(argc > 2 ? argv[2] : "4"));   // HOST LIBRARY CALL
        printf("copied without a fault\n");
    } else if (!strcmp(mode, "other")) {
        // An address that is not device memory: the emulator must not claim it.
        volatile int *p = (volatile int *)mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        printf("read %d without a fault\n", p[0]);
    } else if (!strcmp(mode, "overflow")) {
        int big = atoi(argc > 2 ? argv[2] : "0");
        int grid = (big + 255) / 256;   // HOST OVERFLOW
        printf("grid %d without a finding\n", grid);
    } else if (!strcmp(mode, "header")) {
        // The same overflow, as if in a toolkit header: not the learner's, so nothing is said.
        int big = atoi(argc > 2 ? argv[2] : "0");
#line 1 "/usr/local/cuda/include/a_header.h"
        int grid = (big + 255) / 256;
        printf("header overflow passed silently: %s\n", grid < 0 ? "wrapped" : "folded");
    }
    return 0;
}
