/* emu_check.h - the assertion the emulator's own tests use: a failed check prints what was expected,
 * what happened and where, and the test's exit status counts the failures. */
#ifndef EMU_CHECK_H
#define EMU_CHECK_H

#include <stdio.h>

static int emu_check_failures;

/* CHECK(condition, "what should hold: %d", value) */
#define CHECK(cond, ...)                                                         \
    do {                                                                         \
        if (!(cond)) {                                                           \
            emu_check_failures++;                                                \
            fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                        \
            fputc('\n', stderr);                                                 \
        }                                                                        \
    } while (0)

#define CHECK_DONE() (emu_check_failures ? 1 : 0)

#endif
