/* test_endless_order.c - a kernel that never ended is remembered for the later tests of one run of the
 * harness (EMU_ENDLESS_FILE), by the test's place in the suite (EMU_TEST_ORDER): tests run ahead side by
 * side, so one found by a later test must not stop an earlier one, which finds the loop itself. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../emu.h"
#include "../emu_exec.h"
#include "emu_check.h"

static void test_an_endless_kernel_stops_only_the_later_tests(void)
{
    char path[] = "/tmp/emu-endless-XXXXXX";
    int fd = mkstemp(path), n;
    CHECK(fd >= 0, "a temporary file");
    close(fd);
    setenv("EMU_ENDLESS_FILE", path, 1);
    setenv("EMU_TEST_ORDER", "3", 1);
    emu_diag_endless_record("spin");
    setenv("EMU_TEST_ORDER", "2", 1);
    CHECK(!emu_diag_endless_known("spin", "spin"), "test 2 runs the kernel that test 3 found endless");
    setenv("EMU_TEST_ORDER", "3", 1);
    CHECK(emu_diag_endless_known("spin", "spin"), "test 3's own second launch stops at once");
    setenv("EMU_TEST_ORDER", "4", 1);
    CHECK(emu_diag_endless_known("spin", "spin"), "test 4 stops the kernel that test 3 found endless");
    CHECK(!emu_diag_endless_known("other", "other"), "another kernel runs");
    emu_record *taken = emu_records_take(&n);
    CHECK(n >= 1 && taken && taken[0].not_run, "a 'not run again' finding, got %d", n);
    free(taken);
    unlink(path);
}

int main(void)
{
    test_an_endless_kernel_stops_only_the_later_tests();
    return CHECK_DONE();
}
