/* harness_report.c - failing a test with a message a learner can act on: what was expected, what came
 * back, for which input, and a hint. */
#include "harness.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void harness_fail_at(const char *file, int line, const char *hint, const char *fmt, ...)
{
    char msg[6144];
    va_list ap;
    va_start(ap, fmt);
    int used = vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (used < 0) used = 0;
    if ((size_t)used < sizeof msg && hint && *hint)
        snprintf(msg + used, sizeof msg - (size_t)used, "\nHint: %s", hint);
    _ck_assert_failed(file, line, "Failed", "%s", msg);
    for (;;) {} /* not reached: Check ends the test above */
}

void harness_explain_int(int expected, int actual, char *buf, size_t len)
{
    uint32_t diff = (uint32_t)actual - (uint32_t)expected;
    if (actual == HARNESS_POISON_INT) {
        snprintf(buf, len, "it still holds the poison value %d that the checker put there: nothing was "
                 "written to it", HARNESS_POISON_INT);
        return;
    }
    if (diff == (uint32_t)HARNESS_POISON_INT) {
        snprintf(buf, len, "it is the right sum plus the poison value %d that d_out held before the run: "
                 "the accumulator was added to without being set to 0 first", HARNESS_POISON_INT);
        return;
    }
    for (int64_t k = -2 * HARNESS_GUARD_ELEMS; k <= 2 * HARNESS_GUARD_ELEMS; k++) {
        if (k != 0 && diff == (uint32_t)(k * HARNESS_GUARD_INT)) {
            snprintf(buf, len, "it is off by %" PRId64 " x %d, the guard value the checker keeps just "
                     "outside the input: %" PRId64 " element%s outside [0, n) %s read", k,
                     HARNESS_GUARD_INT, k < 0 ? -k : k, (k == 1 || k == -1) ? "" : "s",
                     (k == 1 || k == -1) ? "was" : "were");
            return;
        }
    }
    snprintf(buf, len, "it is off by %" PRId64, (int64_t)actual - (int64_t)expected);
}

void harness_times(uint64_t count, char *buf, size_t len)
{
    if (count == 1) snprintf(buf, len, "once");
    else if (count == 2) snprintf(buf, len, "twice");
    else snprintf(buf, len, "%" PRIu64 " times", count);
}

static const char *findings_suffix(char *buf, size_t len)
{
    int n = backend_take_findings(buf, len);
    return n > 0 ? buf : "";
}

void harness_cuda_ok(cudaError_t err, const char *expr, const char *file, int line)
{
    if (err == cudaSuccess) return;
    char findings[4096] = "";
    findings_suffix(findings, sizeof findings);
    harness_fail_at(file, line, NULL, "%s returned %s (%s).%s%s", expr, cudaGetErrorName(err),
                    cudaGetErrorString(err), *findings ? "\n" : "", findings);
}

/* Errors that a launch itself returns (its configuration or its image), as opposed to errors of a kernel
 * that ran: the latter also surface through cudaGetLastError when the learner's code synchronised. */
static int is_launch_error(cudaError_t err)
{
    switch (err) {
    case cudaErrorInvalidConfiguration:
    case cudaErrorInvalidValue:
    case cudaErrorLaunchOutOfResources:
    case cudaErrorInvalidDeviceFunction:
    case cudaErrorNoKernelImageForDevice:
    case cudaErrorInvalidPitchValue:
        return 1;
    default:
        return 0;
    }
}

/* A question towards the usual cause of an error that came back after the launch. */
static const char *run_hint(cudaError_t err)
{
    switch (err) {
    case cudaErrorMemoryAllocation:
        return "The code asked for more device memory than there is: how many bytes does each cudaMalloc "
               "really need?";
    case cudaErrorLaunchTimeout:
        return "Which loop's condition never changes, or which __syncthreads() is not reached by every "
               "thread of the block?";
    case cudaErrorMisalignedAddress:
        return "A 16-byte load (int4, float4) needs an address that is a multiple of 16: is the pointer "
               "aligned before the vector loop?";
    default:
        return "An illegal address usually means an index that is not checked against n, or a host "
               "pointer passed to a kernel.";
    }
}

void harness_after_launch(const char *what)
{
    char findings[4096] = "";
    cudaError_t launch = cudaGetLastError();
    if (launch != cudaSuccess && is_launch_error(launch)) {
        findings_suffix(findings, sizeof findings);
        harness_fail("Check the launch configuration: at least one block, at most 1024 threads per block, "
                     "and no more shared memory than the device has.",
                     "%s did not launch: %s (%s).%s%s", what, cudaGetErrorName(launch),
                     cudaGetErrorString(launch), *findings ? "\n" : "", findings);
    }
    cudaError_t run = launch != cudaSuccess ? launch : cudaDeviceSynchronize();
    int n = backend_take_findings(findings, sizeof findings);
    if (run != cudaSuccess)
        harness_fail(run_hint(run), "%s failed while running: %s (%s).%s%s", what, cudaGetErrorName(run),
                     cudaGetErrorString(run), n ? "\n" : "", findings);
    if (n > 0)
        harness_fail(NULL, "%s gave its result, but the emulator found %s:\n%s", what,
                     n == 1 ? "a problem that a GPU can hide" : "problems that a GPU can hide", findings);
}
