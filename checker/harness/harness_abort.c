/* harness_abort.c - abort() in the learner's code becomes a failed test that says why and carries the
 * emulator's findings. A C++ exception that nothing catches ends in std::terminate, which prints the
 * exception's message to stderr and calls abort(): Thrust throws thrust::system_error whenever a CUDA call
 * inside it fails (its kernel read out of bounds, say). Without this the test is a bare crash, and the
 * findings that name the cause die with its process. */
#include "harness.h"

#include <signal.h>

static void on_abort(int sig)
{
    (void)sig;
    signal(SIGABRT, SIG_DFL);   /* an abort in what follows ends the process as before */
    /* The emulator's findings come first (harness_fail takes them): they say what the kernel did. */
    harness_fail(_("Does a library call get a range longer than the data, or a pointer it cannot use? Thrust "
                   "turns the CUDA error of its kernel into the exception; a finding of the emulator, when there "
                   "is one, says what the kernel did."),
                 _("Your code stopped the program with abort(): an exception that nothing caught (Thrust throws "
                   "one when a CUDA call inside it fails; its message is printed above this test's line), or a "
                   "failed assert()."));
}

void harness_catch_abort(void) { signal(SIGABRT, on_abort); }
