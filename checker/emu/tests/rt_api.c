/* rt_api.c - the runtime's public calls without kernels: memory, copies and their checks, errors and
 * their texts, events, streams, the device's description, findings. */
#include <cuda_runtime_api.h>
#include <stdlib.h>
#include <string.h>

#include "../emu.h"
#include "emu_check.h"

static char findings[8192];

/* The findings since the last call must include one containing text. */
static void expect_finding(const char *text, const char *what)
{
    int n = emu_findings_take(findings, sizeof findings);
    CHECK(n >= 1 && strstr(findings, text), "%s: expected a finding with \"%s\", got %d: %s", what, text, n, findings);
}

static void test_errors_have_the_real_names_and_texts(void)
{
    CHECK(strcmp(cudaGetErrorString(cudaSuccess), "no error") == 0, "success");
    CHECK(strcmp(cudaGetErrorName(cudaErrorInvalidValue), "cudaErrorInvalidValue") == 0, "name");
    CHECK(strcmp(cudaGetErrorString(cudaErrorInvalidValue), "invalid argument") == 0, "text");
    CHECK(strcmp(cudaGetErrorString(cudaErrorIllegalAddress), "an illegal memory access was encountered") == 0, "700");
    CHECK(strcmp(cudaGetErrorString(cudaErrorInvalidConfiguration), "invalid configuration argument") == 0, "9");
    CHECK(strcmp(cudaGetErrorString((cudaError_t)12345), "unrecognized error code") == 0, "unknown");
}

static void test_malloc_and_free_check_their_arguments(void)
{
    void *p = NULL;
    CHECK(cudaMalloc(&p, (size_t)1 << 40) == cudaErrorMemoryAllocation, "1 TiB is refused");
    expect_finding("cudaMalloc of 1099511627776 bytes failed", "1 TiB");
    CHECK(cudaGetLastError() == cudaErrorMemoryAllocation, "and is the last error");
    CHECK(cudaGetLastError() == cudaSuccess, "which reading clears");
    CHECK(cudaMalloc(&p, 0) == cudaSuccess && p == NULL, "0 bytes: success and NULL");
    CHECK(cudaMalloc(NULL, 4) == cudaErrorInvalidValue, "NULL result pointer");
    CHECK(cudaFree(NULL) == cudaSuccess, "cudaFree(0)");
    CHECK(cudaMalloc(&p, 1000) == cudaSuccess && p, "1000 bytes");
    CHECK(((uintptr_t)p & 255) == 0, "256-byte aligned");
    CHECK(cudaFree((char *)p + 4) == cudaErrorInvalidValue, "not the start");
    expect_finding("is not the start of memory from cudaMalloc", "interior free");
    int host;
    CHECK(cudaFree(&host) == cudaErrorInvalidValue, "host pointer");
    CHECK(cudaFree(p) == cudaSuccess, "free");
    CHECK(cudaFree(p) == cudaErrorInvalidValue, "double free");
    expect_finding("cudaFree", "double free");
    void *h;
    CHECK(cudaMallocHost(&h, 64) == cudaSuccess, "pinned");
    CHECK(cudaFree(h) == cudaErrorInvalidValue, "cudaFree of pinned memory");
    CHECK(cudaFreeHost(h) == cudaSuccess, "cudaFreeHost");
    size_t free_b, total_b;
    CHECK(cudaMemGetInfo(&free_b, &total_b) == cudaSuccess && free_b <= total_b && total_b > 0, "mem info");
    cudaGetLastError();
    emu_findings_take(NULL, 0);
}

static void test_lookup_finds_exactly_the_allocated_bytes(void)
{
    char *a, *b;
    cudaMalloc((void **)&a, 100);
    cudaMalloc((void **)&b, 1);
    emu_alloc *r = emu_mem_lookup((uintptr_t)a, 100);
    CHECK(r && r->base == (uintptr_t)a && r->size == 100, "the whole allocation");
    CHECK(emu_mem_lookup((uintptr_t)a + 99, 1) == r, "its last byte");
    CHECK(emu_mem_lookup((uintptr_t)a + 96, 8) == NULL, "a range running past the end");
    CHECK(emu_mem_lookup((uintptr_t)a + 100, 1) == NULL, "one past the end");
    CHECK(emu_mem_lookup((uintptr_t)a - 1, 1) == NULL, "one before the start");
    CHECK(emu_mem_lookup((uintptr_t)b, 1) != NULL && emu_mem_lookup((uintptr_t)b, 2) == NULL, "a 1-byte allocation");
    CHECK(!emu_alloc_written(r, 0, 1) && !emu_alloc_written(r, 99, 1), "fresh memory is unwritten");
    int var = 5;
    emu_mem_register(&var, sizeof var, "var", 1);
    emu_alloc *v = emu_mem_lookup((uintptr_t)&var, 4);
    CHECK(v && emu_alloc_written(v, 0, 4) && strcmp(v->what, "var") == 0, "a registered, initialised variable");
    emu_mem_unregister(&var);
    CHECK(emu_mem_lookup((uintptr_t)&var, 4) == NULL, "unregistered");
    /* Many allocations: lookups stay right as the sorted array grows and shrinks. */
    void *many[300];
    for (int i = 0; i < 300; i++) cudaMalloc(&many[i], (size_t)(i % 7 + 1) * 16);
    for (int i = 0; i < 300; i += 2) cudaFree(many[i]);
    for (int i = 0; i < 300; i++) {
        emu_alloc *m = emu_mem_lookup((uintptr_t)many[i], 16);
        CHECK((i % 2 == 0) == (m == NULL), "allocation %d after freeing the even ones", i);
    }
    for (int i = 1; i < 300; i += 2) cudaFree(many[i]);
    cudaFree(a);
    cudaFree(b);
}

static void test_memcpy_checks_device_pointers_and_sizes(void)
{
    int h[64];
    for (int i = 0; i < 64; i++) h[i] = i;
    int *d;
    cudaMalloc((void **)&d, 32 * sizeof(int));
    emu_findings_take(NULL, 0);
    CHECK(cudaMemcpy(d, h, 32 * sizeof(int), cudaMemcpyHostToDevice) == cudaSuccess, "H2D fits");
    emu_alloc *a = emu_mem_lookup((uintptr_t)d, 4);
    CHECK(a && emu_alloc_written(a, 0, 128), "copied bytes are marked written");
    CHECK(cudaMemcpy(d, h, 64 * sizeof(int), cudaMemcpyHostToDevice) == cudaErrorInvalidValue, "H2D too big");
    expect_finding("run 128 bytes past the end of its 128-byte allocation", "overrun");
    CHECK(cudaMemcpy(d + 16, h, 17 * sizeof(int), cudaMemcpyHostToDevice) == cudaErrorInvalidValue, "offset overrun");
    CHECK(cudaMemcpy(h, h + 1, 4, cudaMemcpyHostToDevice) == cudaErrorInvalidValue, "host as device");
    expect_finding("is not device memory", "host dst");
    CHECK(cudaMemcpy(h, d, 4, cudaMemcpyHostToDevice) == cudaErrorInvalidValue, "swapped arguments");
    expect_finding("the wrong way round", "swapped");
    CHECK(cudaMemcpy(d, h, 4, (enum cudaMemcpyKind)7) == cudaErrorInvalidMemcpyDirection, "bad kind");
    CHECK(cudaMemcpy(NULL, h, 4, cudaMemcpyHostToDevice) == cudaErrorInvalidValue, "NULL");
    CHECK(cudaMemcpy(NULL, NULL, 0, cudaMemcpyHostToDevice) == cudaSuccess, "0 bytes need no pointers");

    int back[32] = {0};
    CHECK(cudaMemcpy(back, d, sizeof back, cudaMemcpyDefault) == cudaSuccess, "Default infers D2H");
    CHECK(back[31] == 31, "D2H data");
    int *d2;
    cudaMalloc((void **)&d2, 32 * sizeof(int));
    CHECK(cudaMemcpy(d2, d, 16 * sizeof(int), cudaMemcpyDeviceToDevice) == cudaSuccess, "D2D");
    emu_alloc *a2 = emu_mem_lookup((uintptr_t)d2, 4);
    CHECK(emu_alloc_written(a2, 0, 64) && !emu_alloc_written(a2, 64, 1), "D2D marks what it copied");
    /* d2's bytes 0..64 are written and 64..128 not: copying them over d's start leaves d's bytes 64..128
     * unwritten although d was whole, and the written state of every byte follows its source. */
    CHECK(cudaMemcpy(d + 16, d2 + 8, 16 * sizeof(int), cudaMemcpyDeviceToDevice) == cudaSuccess, "D2D of a half-written range");
    CHECK(emu_alloc_written(a, 0, 96) && !emu_alloc_written(a, 96, 1) && !emu_alloc_written(a, 127, 1),
          "D2D carries never-written bytes along");
    CHECK(emu_alloc_settle(a) == 96, "the written prefix ends at the first byte copied from unwritten memory");
    CHECK(cudaMemcpy(d + 24, h, 8 * sizeof(int), cudaMemcpyHostToDevice) == cudaSuccess, "H2D over the gap");
    CHECK(emu_alloc_settle(a) == 128, "writing the gap makes the allocation whole again");
    CHECK(cudaMemcpy(d2, d, 33 * sizeof(int), cudaMemcpyDefault) == cudaErrorInvalidValue, "Default still checks sizes");
    CHECK(cudaMemcpyAsync(back, d, 8, cudaMemcpyDeviceToHost, 0) == cudaSuccess, "async");

    CHECK(cudaMemset(d2, 0, 32 * sizeof(int)) == cudaSuccess, "memset");
    CHECK(emu_alloc_written(a2, 0, 128), "memset marks written");
    CHECK(cudaMemset(d2 + 1, 0, 32 * sizeof(int)) == cudaErrorInvalidValue, "memset past the end");
    CHECK(cudaMemset(h, 0, 4) == cudaErrorInvalidValue, "memset of host memory");
    int *m;
    CHECK(cudaMallocManaged((void **)&m, 8, cudaMemAttachGlobal) == cudaSuccess, "managed");
    m[0] = 42;  /* host code uses managed memory directly */
    CHECK(cudaMemcpy(back, m, 4, cudaMemcpyDefault) == cudaSuccess && back[0] == 42, "Default from managed");
    cudaFree(m);
    cudaFree(d);
    cudaFree(d2);
    cudaGetLastError();
    emu_findings_take(NULL, 0);
}

static void test_events_and_streams(void)
{
    cudaEvent_t a, b;
    CHECK(cudaEventCreate(&a) == cudaSuccess && cudaEventCreate(&b) == cudaSuccess, "create");
    float ms = -1;
    CHECK(cudaEventElapsedTime(&ms, a, b) == cudaErrorInvalidResourceHandle, "never recorded");
    cudaGetLastError();
    CHECK(cudaEventRecord(a, 0) == cudaSuccess, "record");
    volatile double x = 0;
    for (int i = 0; i < 1000000; i++) x += i;
    CHECK(cudaEventRecord(b, 0) == cudaSuccess && cudaEventSynchronize(b) == cudaSuccess, "record, sync");
    CHECK(cudaEventElapsedTime(&ms, a, b) == cudaSuccess && ms >= 0 && ms < 10000, "elapsed %g ms", ms);
    CHECK(cudaEventDestroy(a) == cudaSuccess, "destroy");
    CHECK(cudaEventRecord(a, 0) == cudaErrorInvalidResourceHandle, "a destroyed event");
    cudaEventDestroy(b);
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s) == cudaSuccess, "stream");
    CHECK(cudaStreamSynchronize(s) == cudaSuccess, "sync stream");
    CHECK(cudaStreamDestroy(s) == cudaSuccess, "destroy stream");
    CHECK(cudaStreamSynchronize(s) == cudaErrorInvalidResourceHandle, "destroyed stream");
    CHECK(cudaStreamSynchronize(0) == cudaSuccess, "the default stream");
    cudaGetLastError();
    emu_findings_take(NULL, 0);
}

static void test_the_device_describes_itself(void)
{
    int n = 0, v = 0;
    /* EMU_DEVICES devices, 4 unless set (emu_devices.c) */
    const char *set = getenv("EMU_DEVICES");
    int want = set && *set ? atoi(set) : 4;
    CHECK(cudaGetDeviceCount(&n) == cudaSuccess && n == want, "%d devices, not %d", want, n);
    CHECK(cudaSetDevice(0) == cudaSuccess, "device 0");
    CHECK(cudaSetDevice(n) == cudaErrorInvalidDevice, "device %d", n);
    cudaGetLastError();
    struct cudaDeviceProp p;
    CHECK(cudaGetDeviceProperties(&p, 0) == cudaSuccess, "properties");
    CHECK(strstr(p.name, "H100") && strstr(p.name, "emulator"), "name %s", p.name);
    CHECK(p.major == 9 && p.minor == 0 && p.warpSize == 32 && p.multiProcessorCount == 16, "cc and shape");
    /* an H100's limits (227 KB with the opt-in, 228 KB per SM), as it reports them */
    CHECK(p.maxThreadsPerBlock == 1024 && p.sharedMemPerBlock == 49152 && p.sharedMemPerBlockOptin == 232448,
          "block limits");
    CHECK(p.maxThreadsPerMultiProcessor == 2048 && p.sharedMemPerMultiprocessor == 233472 &&
          p.regsPerMultiprocessor == 65536 && p.totalGlobalMem > 0, "SM limits");
    CHECK(cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, 0) == cudaSuccess && v == 16, "SMs");
    CHECK(cudaDeviceGetAttribute(&v, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0) == cudaSuccess && v == 232448, "optin");
    CHECK(cudaDeviceGetAttribute(&v, cudaDevAttrClusterLaunch, 0) == cudaSuccess && v == 1, "clusters");
    CHECK(cudaDeviceSynchronize() == cudaSuccess, "sync");
    emu_findings_take(NULL, 0);
}

static void test_findings_print_once_and_are_taken_once(void)
{
    emu_findings_take(NULL, 0);
    emu_finding("kernel k: block %d thread %d wrote out of bounds (k.cu:%d)", 1, 2, 3);
    emu_finding("kernel k: block %d thread %d wrote out of bounds (k.cu:%d)", 1, 2, 3);
    emu_finding("another finding");
    CHECK(emu_findings_take(findings, sizeof findings) == 2, "two distinct findings");
    CHECK(strcmp(findings, "kernel k: block 1 thread 2 wrote out of bounds (k.cu:3)\nanother finding") == 0,
          "joined by newlines: %s", findings);
    CHECK(emu_findings_take(findings, sizeof findings) == 0 && findings[0] == 0, "taken once");
    emu_finding("another finding");
    char tiny[8];
    CHECK(emu_findings_take(tiny, sizeof tiny) == 1 && strcmp(tiny, "another") == 0, "cut to fit: %s", tiny);
}

int main(void)
{
    test_errors_have_the_real_names_and_texts();
    test_malloc_and_free_check_their_arguments();
    test_lookup_finds_exactly_the_allocated_bytes();
    test_memcpy_checks_device_pointers_and_sizes();
    test_events_and_streams();
    test_the_device_describes_itself();
    test_findings_print_once_and_are_taken_once();
    return CHECK_DONE();
}
