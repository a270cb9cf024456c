/* harness_report.c - failing a test with a message a learner can act on: what was expected, what came
 * back, for which input, and a hint. */
#include "harness.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Findings about the guards around the arrays (the emulator's EMU_KIND_GUARD_READ and _WRITE): a kernel
 * that reads past n still gives a result, so they wait here for the test's own check, whose failure then
 * says where the stray access was (harness_fail_at appends them). A test whose results were right anyway
 * fails at its end (harness_expect_no_pending_findings). */
static char pending[16384];

static int is_guard_finding(const char *line)
{
    return !strncmp(line, "[" EMU_KIND_GUARD_READ, strlen("[" EMU_KIND_GUARD_READ)) ||
           !strncmp(line, "[" EMU_KIND_GUARD_WRITE, strlen("[" EMU_KIND_GUARD_WRITE));
}

/* Moves the guard findings of buf (lines) to pending; returns how many other findings stay in buf. */
static int keep_guard_findings(char *buf)
{
    int others = 0;
    char *out = buf;
    for (char *line = buf; *line;) {
        char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        if (is_guard_finding(line)) {
            size_t used = strlen(pending);
            if (used + len + 2 < sizeof pending)
                snprintf(pending + used, sizeof pending - used, "%s%.*s", used ? "\n" : "", (int)len, line);
        } else if (len) {
            if (out != buf) *out++ = '\n';
            memmove(out, line, len);
            out += len;
            others++;
        }
        line = end ? end + 1 : line + len;
    }
    *out = '\0';
    return others;
}

void harness_fail_at(const char *file, int line, const char *hint, const char *fmt, ...)
{
    char msg[32768];
    va_list ap;
    va_start(ap, fmt);
    int used = vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (used < 0) used = 0;
    if ((size_t)used < sizeof msg && pending[0])
        used += snprintf(msg + used, sizeof msg - (size_t)used, "\n%s", pending);
    pending[0] = '\0';
    if ((size_t)used < sizeof msg && hint && *hint)
        used += snprintf(msg + used, sizeof msg - (size_t)used, "\nHint: %s", hint);
    /* The evidence last, one "evidence: ..." line each: for the TAP file and `make hint`, not the report. */
    const char *evidence = harness_evidence_lines();
    if ((size_t)used < sizeof msg && *evidence)
        snprintf(msg + used, sizeof msg - (size_t)used, "\n%.*s", (int)strlen(evidence) - 1, evidence);
    _ck_assert_failed(file, line, "Failed", "%s", msg);
    for (;;) {} /* not reached: Check ends the test above */
}

void harness_expect_no_pending_findings(void)
{
    if (pending[0])
        harness_fail(_("A GPU reads (or writes) whatever lies outside an array without an error: check every "
                       "index against n before it is used."),
                     "%s", _("The results were right, but the emulator saw accesses outside the arrays the kernel "
                             "was given:"));
}

/* 1 when a result that is off by guard values may be blamed on them: on the emulator, only when it saw an
 * access outside [0, n); on a GPU, which cannot see accesses, whenever the numbers fit. */
static int guard_read_possible(void)
{
    return !backend_is_emulator() || strstr(pending, "[" EMU_KIND_GUARD_READ) != NULL;
}

int harness_guard_read_seen(void) { return guard_read_possible(); }

int harness_explain_int(int expected, int actual, char *buf, size_t len)
{
    uint32_t diff = (uint32_t)actual - (uint32_t)expected;
    if (actual == HARNESS_POISON_INT) {
        harness_evidence("poison", "index=all");
        snprintf(buf, len, _("it still holds the poison value %d that the checker put there: nothing was "
                             "written to it"),
                 HARNESS_POISON_INT);
        return 1;
    }
    if (diff == (uint32_t)HARNESS_POISON_INT) {
        harness_evidence("not-zeroed", NULL);
        snprintf(buf, len, _("it is the right sum plus the poison value %d that d_out held before the run: "
                             "the accumulator was added to without being set to 0 first"),
                 HARNESS_POISON_INT);
        return 1;
    }
    for (int64_t k = -2 * HARNESS_GUARD_ELEMS; k <= 2 * HARNESS_GUARD_ELEMS && guard_read_possible(); k++) {
        if (k != 0 && diff == (uint32_t)(k * HARNESS_GUARD_INT)) {
            int64_t count = k < 0 ? -k : k;
            harness_evidence("guard-reads", "count=%" PRId64, count);
            snprintf(buf, len,
                     _n("it is off by %" PRId64 " x %d, the guard value the checker keeps just outside the input: "
                        "%" PRId64 " element outside [0, n) was read%s",
                        "it is off by %" PRId64 " x %d, the guard value the checker keeps just outside the input: "
                        "%" PRId64 " elements outside [0, n) were read%s", (unsigned long)count),
                     k, HARNESS_GUARD_INT, count, backend_is_emulator() ? _(" (the first such read is below)") : "");
            return 1;
        }
    }
    snprintf(buf, len, _("it is off by %" PRId64), (int64_t)actual - (int64_t)expected);
    return 0;
}

int harness_explain_total(const int *h, size_t n, int expected, int actual, char *buf, size_t len)
{
    return harness_explain_int(expected, actual, buf, len) || harness_explain_subset(h, n, actual, buf, len);
}

void harness_times(uint64_t count, char *buf, size_t len)
{
    if (count == 1) snprintf(buf, len, "%s", _("once"));
    else if (count == 2) snprintf(buf, len, "%s", _("twice"));
    else snprintf(buf, len, _("%" PRIu64 " times"), count);
}

static const char *findings_suffix(char *buf, size_t len)
{
    int n = backend_take_findings(buf, len);
    return n > 0 ? buf : "";
}

void harness_cuda_ok(cudaError_t err, const char *expr, const char *file, int line)
{
    if (err == cudaSuccess) return;
    char findings[16384] = "";
    findings_suffix(findings, sizeof findings);
    harness_fail_at(file, line, NULL, _("%s returned %s (%s).%s%s"), expr, cudaGetErrorName(err),
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
        return _("The code asked for more device memory than there is: how many bytes does each cudaMalloc "
                 "really need?");
    case cudaErrorLaunchTimeout:
        return _("Which loop's condition never changes, or which __syncthreads() is not reached by every "
                 "thread of the block?");
    case cudaErrorMisalignedAddress:
        return _("A 16-byte load (int4, float4) needs an address that is a multiple of 16: is the pointer "
                 "aligned before the vector loop?");
    default:
        return _("An illegal address usually means an index that is not checked against n, or a host "
                 "pointer passed to a kernel.");
    }
}

void harness_after_launch(const char *what)
{
    char findings[16384] = "";
    cudaError_t launch = cudaGetLastError();
    if (launch != cudaSuccess && is_launch_error(launch)) {
        findings_suffix(findings, sizeof findings);
        harness_fail(_("Check the launch configuration: at least one block, at most 1024 threads per block, "
                       "and no more shared memory than the device has."),
                     _("%s did not launch: %s (%s).%s%s"), what, cudaGetErrorName(launch),
                     cudaGetErrorString(launch), *findings ? "\n" : "", findings);
    }
    cudaError_t run = launch != cudaSuccess ? launch : cudaDeviceSynchronize();
    backend_take_findings(findings, sizeof findings);
    int n = keep_guard_findings(findings);
    if (run != cudaSuccess)
        harness_fail(run_hint(run), _("%s failed while running: %s (%s).%s%s"), what, cudaGetErrorName(run),
                     cudaGetErrorString(run), n ? "\n" : "", findings);
    if (n > 0)
        harness_fail(NULL, _("%s gave its result, but the emulator found what a GPU can hide:\n%s"), what, findings);
}
