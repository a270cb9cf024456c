/* ex04.c - hidden tests of exercise 04 (v3): v2's tree with the first add done during the load. */
#include "../harness/harness.h"
#include "../contracts/ex04.h"

#include <stdio.h>
#include <stdlib.h>

static const char *GRID_HINT = N_("Each block of v3 covers 2 * block elements: how many blocks cover n of "
                                  "them, rounded up?");

static const partials_spec V3 = {
    .launch = reduce_v3,
    .name = "reduce_v3",
    .elems_per_thread = 2,
    .grid_hint = N_("v3 launches one block per 2 * blockDim.x elements, rounded up: half as many as v2."),
    .partial_hint = N_("Does thread tid of block b add elements b * 2 * blockDim.x + tid and blockDim.x further "
                       "on, each only when it is below n? Does every step of the tree end with __syncthreads()?"),
};

START_TEST(test_ex04_one_block)
{
    expect_block_partials(&V3, 512, 256, 1);
}
END_TEST

START_TEST(test_ex04_many_blocks)
{
    expect_block_partials(&V3, 64 * 512, 256, 2);
}
END_TEST

START_TEST(test_ex04_fewer_elements_than_the_block)
{
    EXPECT_BLOCK_PARTIALS_EACH(&V3, 256, 10, 1, 2, 31, 32, 33, 255, 256);
}
END_TEST

/* Sizes where some threads have their first element inside the input and their second one past its end.
 * Reading it shows as guard values in the sum, and the harness's hint then asks whether every load from
 * d_in is checked against n. */
START_TEST(test_ex04_second_element_past_the_end)
{
    static const size_t sizes[] = {257, 300, 384, 511, 512 + 257, 64 * 512 + 300};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
        expect_block_partials(&V3, sizes[k], 256, 20 + k);
}
END_TEST

START_TEST(test_ex04_not_a_multiple_of_two_blocks)
{
    EXPECT_BLOCK_PARTIALS_EACH(&V3, 256, 30, 513, 767, 1000, 1025, 4099, 65537);
}
END_TEST

START_TEST(test_ex04_other_block_sizes)
{
    static const int blocks[] = {32, 64, 128, 512, 1024};
    for (size_t k = 0; k < sizeof blocks / sizeof blocks[0]; k++)
        expect_block_partials(&V3, 5 * (size_t)blocks[k] + 7, blocks[k], 40 + k);
}
END_TEST

START_TEST(test_ex04_every_size)
{
    size_t sizes[64];
    int count = harness_sizes(harness_large_n(), sizes);
    expect_block_partials_each(&V3, sizes, (size_t)count, 256, 50);
}
END_TEST

/* The point of v3 in one number: the grid. The output has room for v2's grid, twice v3's, so that a
 * launcher that still starts one block per blockDim.x elements writes inside it and is told so, whatever
 * it returns. */
START_TEST(test_ex04_half_the_blocks)
{
    const size_t n = 64 * 512;
    const int block = 256;
    const size_t grid = (n + 2 * block - 1) / (2 * block), v2_grid = (n + block - 1) / block;
    int range = harness_safe_int_range(n);
    int *h_in = malloc(n * sizeof *h_in), *h_out = malloc(v2_grid * sizeof *h_out);
    ck_assert_msg(h_in != NULL && h_out != NULL, _("The checker ran out of host memory."));
    harness_random_ints(h_in, n, -range, range, 60);
    dev_buffer in = dev_input_ints(h_in, n), out = dev_output_ints(v2_grid);

    char what[256];
    snprintf(what, sizeof what, "reduce_v3(n = %zu, block = %d)", n, block);
    int launched = reduce_v3(dev_ptr(&in), dev_ptr(&out), (int)n, block);
    harness_after_launch(what);
    if ((size_t)launched != grid)
        harness_fail(_(GRID_HINT),
                     _("%s launched %d blocks; it should launch %zu. Each thread now loads two elements, so a "
                       "block of %d threads covers %d elements, and half as many blocks as v2's %zu cover the "
                       "input: that halving is where v3's speed comes from."),
                     what, launched, grid, block, 2 * block, v2_grid);
    dev_fetch(&out, h_out);
    for (size_t b = grid; b < v2_grid; b++)
        if (h_out[b] != HARNESS_POISON_INT)
            harness_fail(_(GRID_HINT),
                         _("%s returned %d, but blocks up to %zu ran: d_out[%zu] should be untouched (only %zu "
                           "blocks are needed), yet it holds %d. Does the <<<grid, ...>>> launch use the grid "
                           "that the function returns?"),
                         what, launched, b, b, grid, h_out[b]);
    dev_free(&in);
    dev_free(&out);
    free(h_in);
    free(h_out);
}
END_TEST

/* Coalescing: a warp's load of 32 consecutive ints is one request for 128 bytes, four 32-byte sectors.
 * Both of v3's loads are like that (lane k reads i and i + blockDim.x, both consecutive across lanes),
 * so over a launch where every warp is full the loads average exactly 4 sectors per request. A thread
 * that reads two neighbours instead (elements 2k and 2k + 1 of its block) spreads a warp's request over
 * 256 bytes: 8 sectors, each only half used by that request. */
START_TEST(test_ex04_coalesced_loads)
{
    const int block = 256, blocks = 64;
    emu_metrics m;
    backend_take_metrics(&m); /* drop whatever earlier calls counted */
    expect_block_partials(&V3, (size_t)blocks * 2 * block, block, 61);
    if (!backend_take_metrics(&m))
        ck_abort_msg(_("This test reads the emulator's counters, and this backend has none."));
    double per_request = m.global_load_requests ? (double)m.global_load_sectors / m.global_load_requests : 0;
    if (m.global_load_requests == 0 || per_request > 4.0)
        harness_fail(_("In one load instruction, which elements do lanes 0, 1, 2, ... of a warp read: neighbours "
                       "in memory, or every other element?"),
                     _("reduce_v3(n = %d, block = %d): the warps' loads from global memory touched %.2f 32-byte "
                       "sectors per request (%llu sectors for %llu requests); a coalesced load of one int per "
                       "lane needs 4 (32 lanes x 4 bytes = 128 bytes)."),
                     blocks * 2 * block, block, per_request, (unsigned long long)m.global_load_sectors,
                     (unsigned long long)m.global_load_requests);
}
END_TEST

/* As in exercise 03: thread 0 alone writes the block's result, one global store request per block. */
START_TEST(test_ex04_one_thread_writes_the_result)
{
    const int block = 256, blocks = 64;
    emu_metrics m;
    backend_take_metrics(&m);
    expect_block_partials(&V3, (size_t)blocks * 2 * block, block, 62);
    if (!backend_take_metrics(&m))
        ck_abort_msg(_("This test reads the emulator's counters, and this backend has none."));
    if (m.global_store_requests != (uint64_t)blocks)
        harness_fail(_("Which thread holds the block's sum at the end, and which threads need to write it?"),
                     _("reduce_v3(n = %d, block = %d) made %llu store requests to global memory; it should make "
                       "%d, one per block: only thread 0 writes d_out[blockIdx.x]."),
                     blocks * 2 * block, block, (unsigned long long)m.global_store_requests, blocks);
}
END_TEST

int main(int argc, char **argv)
{
    const harness_test tests[] = {
        {N_("core: one block of 256 threads sums 512 elements"), test_ex04_one_block, NEEDS_DEVICE},
        {N_("core: 64 blocks each write the sum of their 512 elements"), test_ex04_many_blocks, NEEDS_DEVICE},
        {N_("sizes: fewer elements than one block has threads (1 to 256)"), test_ex04_fewer_elements_than_the_block,
         NEEDS_DEVICE},
        {N_("edges: a thread's second element past the end of the input"), test_ex04_second_element_past_the_end,
         NEEDS_DEVICE},
        {N_("sizes: n not a multiple of 2 x the block (513 to 65537)"), test_ex04_not_a_multiple_of_two_blocks,
         NEEDS_DEVICE},
        {N_("edges: blocks of 32, 64, 128, 512 and 1024 threads"), test_ex04_other_block_sizes, NEEDS_DEVICE},
        {N_("sizes: every edge size up to the large one"), test_ex04_every_size, NEEDS_DEVICE},
        {N_("concept: half the blocks, one per 2 x blockDim.x elements"), test_ex04_half_the_blocks, NEEDS_DEVICE},
        {N_("concept: the loads are coalesced"), test_ex04_coalesced_loads, NEEDS_EMULATOR},
        {N_("concept: one thread writes each block's result"), test_ex04_one_thread_writes_the_result, NEEDS_EMULATOR},
        {0},
    };
    const harness_exercise ex = {"04", N_("v3: first add during load, half the blocks"),
                                 "exercises/04-first-add/lesson.md", tests, NULL};
    return harness_run(&ex, argc, argv);
}
