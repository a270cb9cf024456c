/* ex02.c - hidden tests of exercise 02 (v1): a shared-memory tree with interleaved addressing. */
#include "../harness/harness.h"
#include "../contracts/ex02.h"

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

START_TEST(test_ex02_fewer_elements_than_the_block)
{
    EXPECT_BLOCK_PARTIALS_EACH(&V1, 256, 10, 1, 2, 31, 32, 33, 255);
}
END_TEST

START_TEST(test_ex02_not_a_multiple_of_the_block)
{
    EXPECT_BLOCK_PARTIALS_EACH(&V1, 256, 20, 257, 511, 513, 1000, 4099, 65537);
}
END_TEST

START_TEST(test_ex02_other_block_sizes)
{
    static const int blocks[] = {32, 64, 128, 512, 1024};
    for (size_t k = 0; k < sizeof blocks / sizeof blocks[0]; k++)
        expect_block_partials(&V1, 3 * (size_t)blocks[k] + 5, blocks[k], 30 + k);
}
END_TEST

START_TEST(test_ex02_every_size)
{
    size_t sizes[64];
    int count = harness_sizes(harness_large_n(), sizes);
    expect_block_partials_each(&V1, sizes, (size_t)count, 256, 40);
}
END_TEST

int main(int argc, char **argv)
{
    const harness_test tests[] = {
        {N_("core: one block of 256 writes its sum"), test_ex02_one_block, NEEDS_DEVICE},
        {N_("core: 64 blocks each write their own sum"), test_ex02_many_blocks, NEEDS_DEVICE},
        {N_("sizes: fewer elements than one block (1 to 255)"), test_ex02_fewer_elements_than_the_block, NEEDS_DEVICE},
        {N_("sizes: n not a multiple of the block (257 to 65537)"), test_ex02_not_a_multiple_of_the_block, NEEDS_DEVICE},
        {N_("edges: blocks of 32, 64, 128, 512 and 1024 threads"), test_ex02_other_block_sizes, NEEDS_DEVICE},
        {N_("sizes: every edge size up to the large one"), test_ex02_every_size, NEEDS_DEVICE},
        {0},
    };
    const harness_exercise ex = {"02", N_("v1: a shared-memory tree with interleaved addressing"),
                                 "exercises/02-interleaved/lesson.md", tests, NULL};
    return harness_run(&ex, argc, argv);
}
