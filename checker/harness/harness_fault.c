/* harness_fault.c - a crash in the learner's host code becomes a failed test that says why. On the emulator,
 * device memory has no memory behind the program's address (checker/emu/emu_mem.c), so host code that reads
 * d_out[0] faults there as it does beside a GPU, and the emulator names the line (emu_host_fault); and
 * undefined behaviour in host code (a signed overflow) is a finding, after which the emulator stops the
 * program with SIGTRAP (emu_host_ub.c). Another crash after findings fails with them; any other crash
 * stays the crash it was. */
#include "harness.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <ucontext.h>

/* The faulting instruction, and whether the access was a write (1), a read (0) or unknown (-1). */
static const void *fault_pc(const void *context, int *write)
{
    const ucontext_t *uc = context;
    *write = -1;
#if defined(__x86_64__)
    *write = (uc->uc_mcontext.gregs[REG_ERR] & 2) != 0;   /* the page fault's error code: bit 1, a write */
    return (const void *)uc->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
    return (const void *)uc->uc_mcontext.pc;
#else
    (void)uc;
    return NULL;
#endif
}

static void on_fault(int sig, siginfo_t *info, void *context)
{
    /* What follows runs once: a second fault ends the process as before. */
    signal(SIGSEGV, SIG_DFL);
    signal(SIGBUS, SIG_DFL);
    signal(SIGTRAP, SIG_DFL);
    int write = -1;
    const void *pc = fault_pc(context, &write);
    int device = sig != SIGTRAP && backend_host_fault(info->si_addr, pc, write);
    /* The findings, as records' lines, come first in the failure's message; the report words them. */
    char findings[16384] = "";
    const char *question;   /* the finding's own, where it names the learner's line */
    int n = harness_findings_lines(findings, sizeof findings, &question);
    if (device)
        harness_fail(_("Which pointers of your host code hold device memory? The host reaches it only through the "
                       "runtime's calls (cudaMemcpy, cudaMemset) and kernels."),
                     "%s\n%s", findings, _("The test's program crashed in your host code."));
    if (sig == SIGTRAP && n)
        harness_fail(question, "%s\n%s", findings,
                     _("Your host code did something that C++ leaves undefined, so the test stops there."));
    if (n) {
        char said[256];
        snprintf(said, sizeof said, _("The test's program stopped with signal %d (%s), after what the emulator had "
                                      "found above."), sig, strsignal(sig));
        harness_fail(question, "%s\n%s", findings, said);
    }
    /* Returning runs the faulting instruction again, which now ends the process with the signal. */
}

void harness_catch_faults(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, NULL);
    sigaction(SIGBUS, &sa, NULL);
    sigaction(SIGTRAP, &sa, NULL);
}
