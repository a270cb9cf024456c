/* ex04.c - hidden tests of exercise 04 (v3): v2's tree with the first add done during the load. */
#include "../harness/harness.h"
#include "../contracts/ex04.h"
#define HARNESS_SPACE_FILE "../spaces/ex04.def"
#include "../harness/harness_space_table.h"

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

/* ---- The declared input space (checker/spaces/ex04.def): each test below runs the cases of its concern, at
 * every block size. Where n stops inside a block's 2 x block elements says which: at most one element per
 * thread, a thread's second element past the end, a partial last block whose threads have both or neither. */

/* n and b (the block) of case k. */
static size_t case_n(const harness_cover *c, size_t k, size_t *b)
{
    *b = (size_t)partials_case_block(c, k);
    return partials_case_n(c, k);
}

static int at_most_one_element_per_thread(const harness_cover *c, size_t k, const void *spec)
{
    (void)spec;
    size_t b, n = case_n(c, k, &b);
    return n <= b;
}

/* Some thread of the last block has its first element below n and its second one at or past it. */
static int second_element_past_the_end(const harness_cover *c, size_t k, const void *spec)
{
    (void)spec;
    size_t b, n = case_n(c, k, &b);
    return n > b && n % (2 * b) > b;
}

/* More than one block, and the last one's threads have both elements or neither. */
static int not_a_multiple_of_two_blocks(const harness_cover *c, size_t k, const void *spec)
{
    (void)spec;
    size_t b, n = case_n(c, k, &b);
    return n > 2 * b && n % (2 * b) && n % (2 * b) <= b;
}

START_TEST(test_ex04_fewer_elements_than_the_block)
{
    harness_cover_run(&SPACE, at_most_one_element_per_thread, partials_case_run, 10, &V3);
}
END_TEST

/* Reading a second element past the end shows as guard values in the sum, and the harness's hint then asks
 * whether every load from d_in is checked against n. */
START_TEST(test_ex04_second_element_past_the_end)
{
    harness_cover_run(&SPACE, second_element_past_the_end, partials_case_run, 10, &V3);
}
END_TEST

START_TEST(test_ex04_not_a_multiple_of_two_blocks)
{
    harness_cover_run(&SPACE, not_a_multiple_of_two_blocks, partials_case_run, 10, &V3);
}
END_TEST

START_TEST(test_ex04_whole_blocks)
{
    harness_cover_run(&SPACE, partials_case_whole_blocks, partials_case_run, 10, &V3);
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

/* Coalescing, judged by its outcome: the sectors the loads moved against the bytes their lanes asked for. A
 * warp's load of 32 consecutive ints asks for 128 bytes and moves four 32-byte sectors, 128 bytes; both of
 * v3's loads are like that (lane k reads i and i + blockDim.x), and so is a load of two neighbours as one
 * int2 (256 bytes asked, 8 sectors moved). A thread that reads two neighbours one int at a time (elements
 * 2k and 2k + 1 of its block) spreads each of its warp's requests over 256 bytes: 8 sectors moved for 128
 * bytes asked, twice what it uses. The input fills every warp and starts 16-byte aligned. */
START_TEST(test_ex04_coalesced_loads)
{
    const int block = 256, blocks = 64;
    emu_metrics m;
    backend_take_metrics(&m); /* drop whatever earlier calls counted */
    expect_block_partials(&V3, (size_t)blocks * 2 * block, block, 61);
    if (!backend_take_metrics(&m))
        ck_abort_msg(_("This test reads the emulator's counters, and this backend has none."));
    uint64_t moved = 32 * m.global_load_sectors, asked = m.global_read_bytes;
    if (asked == 0 || moved > asked)
        harness_fail(_("In one load instruction, which elements do lanes 0, 1, 2, ... of a warp read: neighbours "
                       "in memory, or every other element?"),
                     _("reduce_v3(n = %d, block = %d): the warps' loads from global memory moved %llu bytes "
                       "(%llu sectors of 32 bytes, %.2f per request) for the %llu bytes their lanes asked for, "
                       "%.2f times as many; a coalesced load moves only the bytes it asks for (32 lanes x 4 bytes "
                       "= 128 bytes, 4 sectors)."),
                     blocks * 2 * block, block, (unsigned long long)moved,
                     (unsigned long long)m.global_load_sectors,
                     m.global_load_requests ? (double)m.global_load_sectors / m.global_load_requests : 0.0,
                     (unsigned long long)asked, asked ? (double)moved / (double)asked : 0.0);
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
        {N_("sizes: at most one element per thread, every block size"),
         test_ex04_fewer_elements_than_the_block, NEEDS_DEVICE},
        {N_("edges: a thread's second element past the end of the input"), test_ex04_second_element_past_the_end,
         NEEDS_DEVICE},
        {N_("sizes: n not a multiple of 2 x the block, every block size"), test_ex04_not_a_multiple_of_two_blocks,
         NEEDS_DEVICE},
        {N_("edges: whole blocks of every size from 32 to 1024 threads"), test_ex04_whole_blocks, NEEDS_DEVICE},
        {N_("concept: half the blocks, one per 2 x blockDim.x elements"), test_ex04_half_the_blocks, NEEDS_DEVICE},
        {N_("concept: the loads are coalesced"), test_ex04_coalesced_loads, NEEDS_EMULATOR},
        {N_("concept: one thread writes each block's result"), test_ex04_one_thread_writes_the_result, NEEDS_EMULATOR},
        {0},
    };
    const harness_exercise ex = {"04", N_("v3: first add during load, half the blocks"),
                                 "exercises/04-first-add/lesson.md", tests, &SPACE};
    return harness_run(&ex, argc, argv);
}
