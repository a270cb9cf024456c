/* ex02.c - hidden tests of exercise 02 (v1): a shared-memory tree with interleaved addressing. */
#include "../harness/harness.h"
#include "../contracts/ex02.h"
#define HARNESS_SPACE_FILE "../spaces/ex02.def"
#include "../harness/harness_space_table.h"

static const partials_spec V1 = {
    .launch = reduce_v1,
    .name = "reduce_v1",
    .elems_per_thread = 1,
    .grid_hint = N_("v1 launches one block per blockDim.x elements, rounded up."),
    .partial_hint = N_("Does every thread store its element (or 0 past the end) in shared memory before the "
                       "first __syncthreads()? Does every step of the tree end with __syncthreads()?"),
};

START_TEST(test_ex02_one_block)
{
    expect_block_partials(&V1, 256, 256, 1);
}
END_TEST

START_TEST(test_ex02_many_blocks)
{
    expect_block_partials(&V1, 64 * 256, 256, 2);
}
END_TEST

/* The declared input space (checker/spaces/ex02.def): each test below runs the cases of its concern, at every
 * block size. */

START_TEST(test_ex02_fewer_elements_than_the_block)
{
    harness_cover_run(&SPACE, partials_case_fewer, partials_case_run, 10, &V1);
}
END_TEST

START_TEST(test_ex02_not_a_multiple_of_the_block)
{
    harness_cover_run(&SPACE, partials_case_not_a_multiple, partials_case_run, 10, &V1);
}
END_TEST

START_TEST(test_ex02_whole_blocks)
{
    harness_cover_run(&SPACE, partials_case_whole_blocks, partials_case_run, 10, &V1);
}
END_TEST

int main(int argc, char **argv)
{
    const harness_test tests[] = {
        {N_("core: one block of 256 writes its sum"), test_ex02_one_block, NEEDS_DEVICE},
        {N_("core: 64 blocks each write their own sum"), test_ex02_many_blocks, NEEDS_DEVICE},
        {N_("sizes: fewer elements than one block, every block size"), test_ex02_fewer_elements_than_the_block,
         NEEDS_DEVICE},
        {N_("sizes: n not a multiple of the block, every block size"), test_ex02_not_a_multiple_of_the_block,
         NEEDS_DEVICE},
        {N_("edges: whole blocks of every size from 32 to 1024 threads"), test_ex02_whole_blocks, NEEDS_DEVICE},
        {0},
    };
    const harness_exercise ex = {"02", N_("v1: a shared-memory tree with interleaved addressing"),
                                 "exercises/02-interleaved/lesson.md", tests, &SPACE};
    return harness_run(&ex, argc, argv);
}
