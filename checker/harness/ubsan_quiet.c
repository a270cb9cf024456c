/* ubsan_quiet.c - the undefined-behaviour checks' handlers, saying nothing, for programs that run the
 * learner's object on a GPU.
 * On a GPU machine the learner's file is compiled once for both backends, so its host code carries the
 * emulator's undefined-behaviour checks (emu.mk's EMU_HOST_CHECKS). The GPU's suite and the speed line's
 * timing program link these: they say nothing and the program goes on as it would without the checks; the
 * emulator's run of the same object names the case at its line (emu_host_ub.c). */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

/* That a case happened is left as a file named by HARNESS_HOST_UB_FILE (the suite's runner sets it for each
 * test): a GPU that passed the test then still leaves it to the emulator to say (NEEDS_DEVICE_GPU_FIRST). */
static void seen(void)
{
    const char *path = getenv("HARNESS_HOST_UB_FILE");
    int fd = path && *path ? open(path, O_WRONLY | O_CREAT, 0600) : -1;
    if (fd >= 0) close(fd);
}

void __ubsan_handle_add_overflow(void *d, uintptr_t a, uintptr_t b) { (void)d, (void)a, (void)b, seen(); }
void __ubsan_handle_sub_overflow(void *d, uintptr_t a, uintptr_t b) { (void)d, (void)a, (void)b, seen(); }
void __ubsan_handle_mul_overflow(void *d, uintptr_t a, uintptr_t b) { (void)d, (void)a, (void)b, seen(); }
void __ubsan_handle_negate_overflow(void *d, uintptr_t a) { (void)d, (void)a, seen(); }
void __ubsan_handle_divrem_overflow(void *d, uintptr_t a, uintptr_t b) { (void)d, (void)a, (void)b, seen(); }
void __ubsan_handle_shift_out_of_bounds(void *d, uintptr_t a, uintptr_t b) { (void)d, (void)a, (void)b, seen(); }
void __ubsan_handle_out_of_bounds(void *d, uintptr_t index) { (void)d, (void)index, seen(); }
