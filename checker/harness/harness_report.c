/* harness_report.c - failing a test with a message a learner can act on: what was expected, what came
 * back, for which input, and a hint. */
#include "harness.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Findings about the guards around the arrays (EMU_FD_GUARD_READ and _WRITE): a kernel that reads past n
 * still gives a result, so they wait here for the test's own check, whose failure then says where the stray
 * access was (harness_fail_at puts them after its message). A test whose results were right anyway fails at
 * its end (harness_expect_no_pending_findings). */
#define PENDING_MAX 16
static emu_record pending[PENDING_MAX];
static int npending;

static int is_guard_finding(const emu_record *r)
{
    return r->kind == EMU_FD_GUARD_READ || r->kind == EMU_FD_GUARD_WRITE;
}

/* The backend's findings since the last take, with the guard findings moved to pending: a malloc'ed array
 * of the others (*count of them; NULL when none). */
static emu_record *take_findings(int *count)
{
    int n = 0, others = 0;
    emu_record *r = backend_take_findings(&n);
    for (int i = 0; i < n; i++) {
        if (!is_guard_finding(&r[i])) r[others++] = r[i];
        else if (npending < PENDING_MAX) pending[npending++] = r[i];
    }
    *count = others;
    if (!others) { free(r); return NULL; }
    return r;
}

/* Appends n records to buf (used bytes of len), one line each ("\n" before each). */
static size_t add_records(char *buf, size_t len, size_t used, const emu_record *r, int n)
{
    for (int i = 0; i < n && used + 2 < len; i++) {
        buf[used++] = '\n';
        used += emu_record_encode(&r[i], EMU_ENCODE_ALL, buf + used, len - used);
        if (used >= len) used = len - 1;
    }
    buf[used] = '\0';
    return used;
}

/* The question of the first of n findings that names a line of the learner's code, in the learner's
 * language, or NULL. */
static const char *finding_question(const emu_record *r, int n)
{
    for (int i = 0; i < n; i++)
        if (r[i].at.line > 0 && emu_kind_question(r[i].kind)) return _(emu_kind_question(r[i].kind));
    return NULL;
}

int harness_findings_lines(char *buf, size_t len, const char **question)
{
    int n;
    emu_record *r = take_findings(&n);
    if (question) *question = finding_question(r, n);
    if (len) buf[0] = '\0';
    size_t used = len ? add_records(buf, len, 0, r, n) : 0;
    if (used) memmove(buf, buf + 1, used);   /* no newline before the first */
    free(r);
    return n;
}

/* Fails the test with msg between the records before (the findings that came before the failure and
 * caused it: said first) and the pending guard findings (they complete msg's explanation), then the hint.
 * after: records that msg announces, said right after it. */
static void fail_with(const char *file, int line, const char *hint, const emu_record *before, int nbefore,
                      const char *msg, const emu_record *after, int nafter) __attribute__((noreturn));
static void fail_with(const char *file, int line, const char *hint, const emu_record *before, int nbefore,
                      const char *msg, const emu_record *after, int nafter)
{
    static char text[65536];
    /* A finding at the learner's line is the strongest evidence the failure has: its question is the hint,
     * where the suite's (about the shape of what came back: which outputs, off by what) would point away. */
    const char *question = finding_question(before, nbefore);
    if (!question) question = finding_question(after, nafter);
    if (!question) question = finding_question(pending, npending);
    /* Then an output that is the poison partly overwritten: a memset or a copy of too few bytes, whatever the
     * error's other numbers say. */
    if (!question && strstr(harness_evidence_lines(), HARNESS_EVIDENCE_PREFIX "poison-partial "))
        question = harness_partial_poison_hint();
    if (question) hint = question;
    size_t used = add_records(text, sizeof text, 0, before, nbefore);
    used += (size_t)snprintf(text + used, sizeof text - used, "%s%s", used ? "\n" : "", msg);
    if (used >= sizeof text) used = sizeof text - 1;
    used = add_records(text, sizeof text, used, after, nafter);
    used = add_records(text, sizeof text, used, pending, npending);
    npending = 0;
    if (used < sizeof text && hint && *hint) used += (size_t)snprintf(text + used, sizeof text - used, "\nHint: %s", hint);
    /* The evidence last, one "evidence: ..." line each (harness_evidence.c): for the TAP file and `make hint`,
     * not the report. */
    const char *evidence = harness_evidence_lines();
    if (used < sizeof text && *evidence)
        snprintf(text + used, sizeof text - used, "\n%.*s", (int)strlen(evidence) - 1, evidence);
    /* The first character of text is a newline when records come first: none is wanted there. */
    _ck_assert_failed(file, line, "Failed", "%s", text[0] == '\n' ? text + 1 : text);
    for (;;) {} /* not reached: Check ends the test above */
}

void harness_fail_at(const char *file, int line, const char *hint, const char *fmt, ...)
{
    char msg[32768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    /* Findings that nobody has collected yet (the suite stopped on an error the kernel's bug caused) come
     * first: the error code is what the finding led to. */
    int n;
    emu_record *found = take_findings(&n);
    fail_with(file, line, hint, found, n, msg, NULL, 0);
}

void harness_expect_no_pending_findings(void)
{
    int n;
    emu_record *found = take_findings(&n);
    if (n > 0)
        fail_with(__FILE__, __LINE__, NULL, NULL, 0,
                  _("The results were right, but the emulator found what a GPU can hide:"), found, n);
    if (npending)
        harness_fail(_("A GPU reads (or writes) whatever lies outside an array without an error: check every "
                       "index against n before it is used."),
                     "%s", _("The results were right, but the emulator saw accesses outside the arrays the kernel "
                             "was given:"));
}

/* 1 when a result that is off by guard values may be blamed on them: on the emulator, only when it saw an
 * access outside [0, n); on a GPU, which cannot see accesses, whenever the numbers fit. */
static int guard_read_possible(void)
{
    for (int i = 0; i < npending; i++)
        if (pending[i].kind == EMU_FD_GUARD_READ) return 1;
    return !backend_is_emulator();
}

int harness_guard_read_seen(void) { return guard_read_possible(); }

/* 1 when value is a quiet NaN with no payload, of a float of size bytes (fp16 or bf16 for 2): what arithmetic
 * gives for 0 / 0 on the host, and so on the emulator. A NaN poison with its low bytes cleared can be the same
 * bits, so they are no evidence of a short write: the report says NaN, not a guess. */
static int bare_nan(uint64_t value, size_t size)
{
    switch (size) {
    case 2: return (value & 0x7FFF) == 0x7E00 || (value & 0x7FFF) == 0x7FC0;
    case 4: return (value & 0x7FFFFFFFu) == 0x7FC00000u;
    case 8: return (value & 0x7FFFFFFFFFFFFFFFull) == 0x7FF8000000000000ull;
    default: return 0;
    }
}

int harness_poison_bytes_written(uint64_t value, uint64_t poison, size_t size)
{
    if (size < 2 || size > 8 || bare_nan(value, size)) return 0;
    uint64_t mask = size == 8 ? ~(uint64_t)0 : ((uint64_t)1 << (8 * size)) - 1, differs = (value ^ poison) & mask;
    int written = 0;
    while (differs >> (8 * written)) written++;
    if (written == 0 || (size_t)written >= size) return 0;
    if (size - (size_t)written < 2) {
        unsigned first = value & 0xFF;
        for (int k = 1; k < written; k++)
            if (((value >> (8 * k)) & 0xFF) != first) return 0;
        if (first == 0xFF) return 0;
    }
    return written;
}

void harness_explain_partial_poison(uint64_t value, uint64_t poison, size_t size, int written, char *buf,
                                    size_t len)
{
    int digits = 2 * (int)size;
    harness_evidence("poison-partial", "bytes=%d of=%zu", written, size);
    if (written == 1)
        snprintf(buf, len, _("it is 0x%0*llX, the poison 0x%0*llX that the checker put there with only its lowest "
                             "byte changed: 1 of the value's %zu bytes was written, as by a cudaMemset or "
                             "cudaMemcpy of fewer bytes than the element has"),
                 digits, (unsigned long long)value, digits, (unsigned long long)poison, size);
    else
        snprintf(buf, len, _("it is 0x%0*llX, the poison 0x%0*llX that the checker put there with only its low %d "
                             "bytes changed: %d of the value's %zu bytes were written, as by a cudaMemset or "
                             "cudaMemcpy of fewer bytes than the element has"),
                 digits, (unsigned long long)value, digits, (unsigned long long)poison, written, written, size);
}

const char *harness_partial_poison_hint(void)
{
    return _("How many bytes does the cudaMemset or cudaMemcpy write, and how many does the output have?");
}

/* 1 when the low written bytes of value are all alike, as one memset leaves them. */
static int memset_bytes(uint32_t value, int written)
{
    for (int k = 1; k < written; k++)
        if (((value >> (8 * k)) & 0xFF) != (value & 0xFF)) return 0;
    return 1;
}

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
    /* The poison partly overwritten: left so (the kernel wrote nothing), or the start of a sum the kernel added
     * to (cudaMemset(d_out, 0, 1), then atomicAdd). Where both fit, the one that a memset's bytes (all alike)
     * explain, else the one with fewer bytes written. */
    int left = harness_poison_bytes_written((uint32_t)actual, (uint32_t)HARNESS_POISON_INT, 4),
        started = harness_poison_bytes_written(diff, (uint32_t)HARNESS_POISON_INT, 4);
    if (left && started) {
        int left_memset = memset_bytes((uint32_t)actual, left), started_memset = memset_bytes(diff, started);
        if (left_memset != started_memset) left = left_memset ? left : 0;
        else if (started < left) left = 0;
    }
    if (left) {
        harness_explain_partial_poison((uint32_t)actual, (uint32_t)HARNESS_POISON_INT, 4, left, buf, len);
        return 1;
    }
    if (started) {
        char start[600];
        harness_explain_partial_poison(diff, (uint32_t)HARNESS_POISON_INT, 4, started, start, sizeof start);
        /* TRANSLATORS: %s: "it is 0x..., the poison ... with only its lowest byte changed: ..." about the value
           d_out held before the kernel added the sum to it. */
        snprintf(buf, len, _("it is the right sum plus what d_out held when the kernel began to add to it, and %s"),
                 start);
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

void harness_cuda_ok(cudaError_t err, const char *expr, const char *file, int line)
{
    if (err == cudaSuccess) return;
    harness_fail_at(file, line, NULL, _("%s returned %s (%s)."), expr, cudaGetErrorName(err), cudaGetErrorString(err));
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
    cudaError_t launch = cudaGetLastError();
    if (launch != cudaSuccess && is_launch_error(launch))
        harness_fail(_("Check the launch configuration: at least one block, at most 1024 threads per block, "
                       "and no more shared memory than the device has."),
                     _("%s did not launch: %s (%s)."), what, cudaGetErrorName(launch), cudaGetErrorString(launch));
    cudaError_t run = launch != cudaSuccess ? launch : cudaDeviceSynchronize();
    /* The findings first, then the error they caused (harness_fail takes them). */
    if (run != cudaSuccess)
        harness_fail(run_hint(run), _("%s failed while running: %s (%s)."), what, cudaGetErrorName(run),
                     cudaGetErrorString(run));
    int n;
    emu_record *found = take_findings(&n);
    if (n > 0) {
        char msg[1024];
        snprintf(msg, sizeof msg, _("%s gave its result, but the emulator found what a GPU can hide:"), what);
        fail_with(__FILE__, __LINE__, NULL, NULL, 0, msg, found, n);
    }
}
