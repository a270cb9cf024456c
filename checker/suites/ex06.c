/* ex06.c - hidden tests of exercise 06 (v5): complete unroll with the block size as a template parameter. */
#include "../harness/harness.h"
#include "../contracts/ex06.h"
#define HARNESS_SPACE_FILE "../spaces/ex06.def"
#include "../harness/harness_space_table.h"

static const partials_spec V5 = {
    .launch = reduce_v5,
    .name = "reduce_v5",
    .elems_per_thread = 2,
    .grid_hint = N_("v5 launches the same grid as v3 and v4: one block per 2 * blockDim.x elements, rounded up. "
                    "Does every case of your switch launch, and return the grid?"),
    .partial_hint = N_("Is every stride step kept only when the block has values that far apart, and does the "
                       "instance you launch have the same blockSize as the block? For a block of 32 or 64 "
                       "threads, which of sdata[tid + 32] and sdata[tid + 64] exist?"),
};

static const int all_blocks[] = {32, 64, 128, 256, 512, 1024};
#define ALL_BLOCKS (sizeof all_blocks / sizeof all_blocks[0])

START_TEST(test_ex06_one_block)
{
    expect_block_partials(&V5, 512, 256, 1);
}
END_TEST

START_TEST(test_ex06_many_blocks)
{
    expect_block_partials(&V5, 64 * 512, 256, 2);
}
END_TEST

/* The declared input space (checker/spaces/ex06.def): each test below runs the cases of its concern, at every
 * block size. */

START_TEST(test_ex06_fewer_elements_than_the_block)
{
    harness_cover_run(&SPACE, partials_case_fewer, partials_case_run, 10, &V5);
}
END_TEST

START_TEST(test_ex06_not_a_multiple_of_the_block)
{
    harness_cover_run(&SPACE, partials_case_not_a_multiple, partials_case_run, 10, &V5);
}
END_TEST

START_TEST(test_ex06_whole_blocks)
{
    harness_cover_run(&SPACE, partials_case_whole_blocks, partials_case_run, 10, &V5);
}
END_TEST

static int log2_of(int x)
{
    int k = 0;
    while ((1 << k) < x) k++;
    return k;
}

/* Barriers per warp of one launch of n elements with the given block size, measured by the emulator. */
static double barriers_per_warp(size_t n, int block, uint64_t salt)
{
    emu_metrics m;
    backend_take_metrics(&m); /* start from zero */
    expect_block_partials(&V5, n, block, salt);
    backend_take_metrics(&m);
    if (m.blocks == 0)
        harness_fail(NULL, _("reduce_v5(n = %zu, block = %d) ran no block on the emulator."), n, block);
    return (double)m.barriers / (double)m.blocks / (double)(block / 32);
}

/* The concept of v4, kept at every block size: the strides 16 down to 1 belong to the last warp, so a
 * warp waits at most 1 + log2(block) - 5 times at __syncthreads() (see ex05.c). Too many barriers at a
 * block size, but not at 1024 (which has every stride), are those of strides the block does not have:
 * barriers outside their step's `if (blockSize >= ...)`. Too many at 1024 too are the last warp's. */
START_TEST(test_ex06_barriers_at_every_block_size)
{
    for (size_t k = 0; k < ALL_BLOCKS; k++) {
        int block = all_blocks[k];
        size_t n = 4 * 2 * (size_t)block;
        double per_warp = barriers_per_warp(n, block, 100 + k);
        int most = 1 + log2_of(block) - 5;
        if (per_warp <= most + 1e-9) continue;
        int biggest = all_blocks[ALL_BLOCKS - 1];
        int skipped_strides = block < biggest &&
                              barriers_per_warp(4 * 2 * (size_t)biggest, biggest, 200) <= 1 + log2_of(biggest) - 5 + 1e-9;
        harness_fail(skipped_strides
                         ? _("A block of this size has no work in the larger strides' steps, but it still waits "
                             "at their barriers: is each stride's __syncthreads() inside that stride's "
                             "if (blockSize >= ...), together with its addition?")
                         : _("The strides 32 and below are the last warp's, as in v4: do they still end with "
                             "__syncthreads() in some instance of your template?"),
                     _("reduce_v5(n = %zu, block = %d): each warp waited at %.2f __syncthreads() barriers; "
                       "with the last warp unrolled a warp waits at most %d (one after the load, one per "
                       "stride above 16)."), n, block, per_warp, most);
    }
}
END_TEST

int main(int argc, char **argv)
{
    const harness_test tests[] = {
        {N_("core: one block of 256 threads sums its 512 elements"), test_ex06_one_block, NEEDS_DEVICE},
        {N_("core: 64 blocks each write their own sum"), test_ex06_many_blocks, NEEDS_DEVICE},
        {N_("sizes: fewer elements than one block covers, every block size"),
         test_ex06_fewer_elements_than_the_block, NEEDS_DEVICE},
        {N_("sizes: n not a multiple of 2 x the block, every block size"), test_ex06_not_a_multiple_of_the_block,
         NEEDS_DEVICE},
        {N_("edges: correct for every power-of-two block from 32 to 1024"), test_ex06_whole_blocks, NEEDS_DEVICE},
        {N_("concept: the last warp needs no block barrier, at every block size"), test_ex06_barriers_at_every_block_size, NEEDS_EMULATOR},
        {0},
    };
    const harness_exercise ex = {"06", N_("v5: complete unroll with a template block size"),
                                 "exercises/06-complete-unroll/lesson.md", tests, &SPACE};
    return harness_run(&ex, argc, argv);
}
