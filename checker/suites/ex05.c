/* ex05.c - hidden tests of exercise 05 (v4): v3 with the last warp's steps unrolled. */
#include "../harness/harness.h"
#include "../contracts/ex05.h"
#define HARNESS_SPACE_FILE "../spaces/ex05.def"
#include "../harness/harness_space_table.h"

#include <stdio.h>
#include <stdlib.h>

static const partials_spec V4 = {
    .launch = reduce_v4,
    .name = "reduce_v4",
    .elems_per_thread = 2,
    .grid_hint = N_("v4 launches the same grid as v3: one block per 2 * blockDim.x elements, rounded up."),
    .partial_hint = N_("Does the loop stop where the last warp takes over, without skipping or repeating a "
                       "stride? Does the last warp start with the stride 32, and does every one of its steps "
                       "end with __syncwarp() before the next one reads?"),
};

START_TEST(test_ex05_one_block)
{
    expect_block_partials(&V4, 512, 256, 1);
}
END_TEST

START_TEST(test_ex05_many_blocks)
{
    expect_block_partials(&V4, 64 * 512, 256, 2);
}
END_TEST

/* The declared input space (checker/spaces/ex05.def): each test below runs the cases of its concern, at every
 * block size. */

START_TEST(test_ex05_fewer_elements_than_the_block)
{
    harness_cover_run(&SPACE, partials_case_fewer, partials_case_run, 10, &V4);
}
END_TEST

START_TEST(test_ex05_not_a_multiple_of_the_block)
{
    harness_cover_run(&SPACE, partials_case_not_a_multiple, partials_case_run, 10, &V4);
}
END_TEST

START_TEST(test_ex05_whole_blocks)
{
    harness_cover_run(&SPACE, partials_case_whole_blocks, partials_case_run, 10, &V4);
}
END_TEST

/* log2 of a power of two. */
static int log2_of(int x)
{
    int k = 0;
    while ((1 << k) < x) k++;
    return k;
}

/* The concept: the tree's last five steps (strides 16, 8, 4, 2, 1) involve the lanes of warp 0 only, so
 * they need no block-wide barrier. v3 makes every warp wait 1 + log2(block) times (once after the load,
 * once per stride); with at least those five steps moved into the last warp, a warp waits at most
 * 1 + log2(block) - 5 = 1 + log2(block / 32) times. The reference waits 1 + log2(block / 64) times. */
START_TEST(test_ex05_fewer_barriers)
{
    static const int blocks[] = {64, 256, 1024};
    for (size_t k = 0; k < sizeof blocks / sizeof blocks[0]; k++) {
        int block = blocks[k], warps = block / 32;
        size_t n = 4 * 2 * (size_t)block;
        emu_metrics m;
        backend_take_metrics(&m); /* start from zero */
        expect_block_partials(&V4, n, block, 80 + k);
        backend_take_metrics(&m);
        if (m.blocks == 0)
            harness_fail(NULL, _("reduce_v4(n = %zu, block = %d) ran no block on the emulator."), n, block);
        double per_warp = (double)m.barriers / (double)m.blocks / (double)warps;
        int v3 = 1 + log2_of(block), most = v3 - 5;
        if (per_warp > most + 1e-9)
            harness_fail(_("Once the stride is 32 or less, only warp 0 adds anything: what does a block-wide "
                           "__syncthreads() buy there that a __syncwarp() among warp 0's lanes does not? Does "
                           "your loop stop at s > 32 and leave the rest to `if (tid < 32)`?"),
                         _("reduce_v4(n = %zu, block = %d): each warp waited at %.2f __syncthreads() barriers; "
                           "v3 waits at %d (one after the load, one per stride), and with the last warp "
                           "unrolled a warp waits at most %d."), n, block, per_warp, v3, most);
    }
}
END_TEST

/* The concept: the lanes of the last warp exchange values through shared memory, so they need
 * __syncwarp() between the steps; the emulator reports lanes that read what another lane of their warp
 * wrote with no __syncwarp() in between, and a __syncthreads() that not all the block's threads reach.
 * The same findings fail every other test too; this one names the concept. */
START_TEST(test_ex05_last_warp_synchronises)
{
    static const int blocks[] = {64, 256};
    for (size_t k = 0; k < sizeof blocks / sizeof blocks[0]; k++) {
        int block = blocks[k], n = 2 * block;
        int range = harness_safe_int_range((size_t)n), h_in[2048];
        harness_random_ints(h_in, (size_t)n, -range, range, 90 + k);
        dev_buffer in = dev_input_ints(h_in, (size_t)n), out = dev_output_ints(1);
        char findings[16384] = "";
        harness_findings_lines(findings, sizeof findings, NULL); /* start from none */
        reduce_v4(dev_ptr(&in), dev_ptr(&out), n, block);
        CUDA_OK(cudaGetLastError());
        cudaError_t run = cudaDeviceSynchronize();
        if (harness_findings_lines(findings, sizeof findings, NULL) > 0 || run != cudaSuccess)
            harness_fail(_("The lanes of a warp are not guaranteed to run in lockstep (independent thread "
                           "scheduling, since Volta), and `volatile` orders nothing between them; a "
                           "__syncthreads() inside `if (tid < 32)` is one that the other warps never reach. "
                           "Which call makes one lane's shared-memory write visible to the other lanes of its "
                           "warp, and to them only?"),
                         _("reduce_v4(n = %d, block = %d) %s%s, and the emulator found:\n%s"), n, block,
                         run == cudaSuccess ? _("ran") : _("failed while running: "),
                         run == cudaSuccess ? "" : cudaGetErrorName(run),
                         *findings ? findings : _("no diagnosis beyond that error."));
        int got;
        dev_fetch(&out, &got);
        int expected = (int)harness_sum_ints(h_in, 0, (size_t)n);
        if (got != expected) {
            char why[600];
            harness_explain_int(expected, got, why, sizeof why);
            harness_fail(_(V4.partial_hint), _("reduce_v4(n = %d, block = %d) should write %d to d_out[0], but "
                           "it wrote %d: %s."), n, block, expected, got, why);
        }
        dev_free(&in);
        dev_free(&out);
    }
}
END_TEST

int main(int argc, char **argv)
{
    const harness_test tests[] = {
        {N_("core: one block of 256 threads sums its 512 elements"), test_ex05_one_block, NEEDS_DEVICE},
        {N_("core: 64 blocks each write their own sum"), test_ex05_many_blocks, NEEDS_DEVICE},
        {N_("sizes: fewer elements than one block covers, every block size"),
         test_ex05_fewer_elements_than_the_block, NEEDS_DEVICE},
        {N_("sizes: n not a multiple of 2 x the block, every block size"), test_ex05_not_a_multiple_of_the_block,
         NEEDS_DEVICE},
        {N_("edges: whole blocks of every size from 64 to 1024 threads"), test_ex05_whole_blocks, NEEDS_DEVICE},
        {N_("concept: fewer barriers per block than v3"), test_ex05_fewer_barriers, NEEDS_EMULATOR},
        {N_("concept: the last warp's lanes synchronise with __syncwarp()"), test_ex05_last_warp_synchronises, NEEDS_EMULATOR},
        {0},
    };
    const harness_exercise ex = {"05", N_("v4: unroll the last warp"),
                                 "exercises/05-last-warp/lesson.md", tests, &SPACE};
    return harness_run(&ex, argc, argv);
}
