/* ex07.c - hidden tests of exercise 07 (v6): warp shuffles and a grid-stride loop. */
#include "../harness/harness.h"
#include "../contracts/ex07.h"
#define HARNESS_SPACE_FILE "../spaces/ex07.def"
#include "../harness/harness_space_table.h"

#include <stdio.h>
#include <stdlib.h>

#define MIN_ROOM 65536 /* d_out always has room for this many partials; the rest must stay poisoned */

static const char *SUM_HINT = N_("Is every element added exactly once? Which stride takes a thread from its "
                                 "element to the next one that no other thread of the whole grid takes? And "
                                 "does the sum of every warp, not only the first, reach the block's partial?");
static const char *SHAPE_HINT = N_("Each block writes one partial, to d_out[blockIdx.x], and the launcher returns "
                                   "the number of blocks it launched: do the two agree?");

/* d_out's size for n elements: MIN_ROOM, or more when a grid that grows with n would need it, so that
 * such a grid is reported as a grid, not as a crash. */
static size_t room_for(size_t n)
{
    size_t one_per_warp = n / 32 + 1;
    return one_per_warp > MIN_ROOM ? one_per_warp : MIN_ROOM;
}

/* Runs reduce_v6 on n fresh values from [lo, hi] with the given block size and checks the contract: a grid
 * of at least one block, partials d_out[0..grid) that add up to the sum, nothing written past them or outside
 * d_out, d_in unchanged. Returns the grid. */
static int expect_v6_in(size_t n, int block, int lo, int hi, uint64_t salt)
{
    int *h_in = malloc((n ? n : 1) * sizeof *h_in);
    ck_assert_msg(h_in != NULL, _("The checker ran out of host memory."));
    harness_random_ints(h_in, n, lo, hi, salt);
    int expected = (int)harness_sum_ints(h_in, 0, n);

    size_t room = room_for(n);
    dev_buffer in = dev_input_ints(h_in, n), out = dev_output_ints(room);
    char what[256];
    int used = snprintf(what, sizeof what, "reduce_v6(n = %zu, block = %d)", n, block);
    if (!harness_values_are_default(n, lo, hi))
        snprintf(what + used, sizeof what - (size_t)used, _(" on values from %d to %d"), lo, hi);
    int grid = reduce_v6(dev_ptr(&in), dev_ptr(&out), (int)n, block);
    harness_after_launch(what);
    if (grid < 1 || (size_t)grid > room)
        harness_fail(_("The launcher returns the number of blocks it launched: at least one, and a number "
                       "that depends on the device, not on n."),
                     _("%s returned a grid of %d blocks."), what, grid);

    int *h_out = malloc(room * sizeof *h_out);
    ck_assert_msg(h_out != NULL, _("The checker ran out of host memory."));
    dev_fetch(&out, h_out);
    for (size_t b = (size_t)grid; b < room; b++)
        if (h_out[b] != HARNESS_POISON_INT)
            harness_fail(_(SHAPE_HINT), _("%s launched %d blocks, so only d_out[0..%d) may be written, but d_out[%zu] "
                           "was written (it holds %d)."), what, grid, grid, b, h_out[b]);
    int64_t total = 0;
    for (int b = 0; b < grid; b++) {
        if (h_out[b] == HARNESS_POISON_INT)
            harness_fail(_(SHAPE_HINT), _("%s launched %d blocks, but d_out[%d] still holds the poison value %d: "
                           "block %d wrote no partial sum."), what, grid, b, HARNESS_POISON_INT, b);
        total += h_out[b];
    }
    if (total != expected) {
        char why[800];
        const char *rounded = NULL;
        if (!harness_explain_total(h_in, n, expected, (int)total, why, sizeof why))
            rounded = harness_explain_rounding(expected, (int)total, n, lo, hi, why, sizeof why);
        harness_fail(rounded ? rounded : _(SUM_HINT), _("%s: the %d partials in d_out[0..%d) should add up to %d, the sum of the input, "
                       "but they add up to %lld: %s."), what, grid, grid, expected, (long long)total, why);
    }
    dev_expect_guards_intact(&out, what);
    dev_expect_unchanged(&in, what);
    dev_free(&in);
    dev_free(&out);
    free(h_in);
    free(h_out);
    return grid;
}

static int expect_v6(size_t n, int block, uint64_t salt)
{
    int range = harness_safe_int_range(n);
    return expect_v6_in(n, block, -range, range, salt);
}

START_TEST(test_ex07_partials_add_up)
{
    expect_v6(65536, 256, 1);
}
END_TEST

START_TEST(test_ex07_one_block)
{
    expect_v6(256, 256, 2);
}
END_TEST

/* ---- The declared input space (checker/spaces/ex07.def): each test below runs the cases of its concern, at
 * every block size: fewer elements than a warp, at most one per thread of the grid, several per thread. */

/* The grid-stride of the grid the lesson chooses: every thread the device holds at once. */
static size_t lesson_grid_stride(void)
{
    int device = 0, sms = 0, threads_per_sm = 0;
    CUDA_OK(cudaGetDevice(&device));
    CUDA_OK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    CUDA_OK(cudaDeviceGetAttribute(&threads_per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, device));
    return (size_t)sms * (size_t)threads_per_sm;
}

static size_t case_n(const harness_cover *c, size_t k)
{
    static size_t stride;
    if (!stride) stride = lesson_grid_stride();
    const size_t units[] = {(size_t)harness_case_number(c, k, "block"), stride};
    return harness_case_size(c, k, "n", "bs", units);
}

static void run_case(const harness_cover *c, size_t k, uint64_t salt, const void *ctx)
{
    (void)ctx;
    size_t n = case_n(c, k);
    int lo, hi;
    harness_value_range(harness_case_label(c, k, "values"), n, &lo, &hi);
    expect_v6_in(n, (int)harness_case_number(c, k, "block"), lo, hi, salt);
}

static int fewer_than_a_warp(const harness_cover *c, size_t k, const void *ctx)
{
    (void)ctx;
    return case_n(c, k) < 32;
}

static int at_most_one_per_thread(const harness_cover *c, size_t k, const void *ctx)
{
    (void)ctx;
    size_t n = case_n(c, k);
    return n >= 32 && n < lesson_grid_stride();
}

static int several_per_thread(const harness_cover *c, size_t k, const void *ctx)
{
    (void)ctx;
    return case_n(c, k) >= lesson_grid_stride();
}

START_TEST(test_ex07_less_than_a_warp)
{
    harness_cover_run(&SPACE, fewer_than_a_warp, run_case, 10, NULL);
}
END_TEST

START_TEST(test_ex07_at_most_one_element_per_thread)
{
    harness_cover_run(&SPACE, at_most_one_per_thread, run_case, 10, NULL);
}
END_TEST

START_TEST(test_ex07_several_elements_per_thread)
{
    harness_cover_run(&SPACE, several_per_thread, run_case, 10, NULL);
}
END_TEST

/* The concept: the grid is chosen from the device, and the grid-stride loop gives each thread more
 * elements when n grows. n / 4 and n both need far more blocks of 256 than a GPU (or the emulator's
 * device) keeps busy at once, so a grid chosen from the device is the same for both. */
START_TEST(test_ex07_grid_independent_of_n)
{
    size_t large = harness_large_n(), small = large / 4;
    int grid_small = expect_v6(small, 256, 100);
    int grid_large = expect_v6(large, 256, 101);
    if (grid_small != grid_large)
        harness_fail(_("Where does your launcher get the grid from? The device's multiprocessor count "
                       "(cudaDeviceGetAttribute with cudaDevAttrMultiProcessorCount) does not change with n; "
                       "the grid-stride loop lets a fixed grid cover any n."),
                     _("reduce_v6(n = %zu, block = 256) launched %d blocks, but reduce_v6(n = %zu, block = 256) "
                       "launched %d: the grid grew with n."), small, grid_small, large, grid_large);
}
END_TEST

/* The concept: shared memory carries one value per warp, not a tree. A tree over the block first stores
 * all blockDim.x values (at least one store per warp) and then stores again at each of its log2(blockDim.x)
 * levels; a shuffle reduction stores only each warp's sum, one store per warp (whether the emulator
 * counts per warp instruction or per lane, as only lane 0 stores). Allowed: one store per warp plus 2. */
START_TEST(test_ex07_no_shared_tree)
{
    static const int blocks[] = {64, 256, 1024};
    for (size_t k = 0; k < sizeof blocks / sizeof blocks[0]; k++) {
        int block = blocks[k], warps = block / 32;
        size_t n = 16 * (size_t)block;
        emu_metrics m;
        backend_take_metrics(&m); /* start from zero */
        expect_v6(n, block, 110 + k);
        backend_take_metrics(&m);
        if (m.blocks == 0)
            harness_fail(NULL, _("reduce_v6(n = %zu, block = %d) ran no block on the emulator."), n, block);
        double per_block = (double)m.shared_store_instructions / (double)m.blocks;
        int most = warps + 2;
        if (per_block > most + 1e-9)
            harness_fail(_("Within a warp, __shfl_down_sync passes values from register to register. Which "
                           "values still need to go through shared memory, and how many are there per block?"),
                         _("reduce_v6(n = %zu, block = %d): each block executed %.1f shared-memory stores; a "
                           "shuffle reduction needs one per warp (%d here), a shared-memory tree many more. "
                           "At most %d are allowed."), n, block, per_block, warps, most);
    }
}
END_TEST

int main(int argc, char **argv)
{
    const harness_test tests[] = {
        {N_("core: the blocks' partials add up to the sum"), test_ex07_partials_add_up, NEEDS_DEVICE},
        {N_("core: one block of 256 elements"), test_ex07_one_block, NEEDS_DEVICE},
        {N_("sizes: fewer elements than one warp (1 to 31), every block size"), test_ex07_less_than_a_warp, NEEDS_DEVICE},
        {N_("sizes: at most one element per thread of the grid, every block size"),
         test_ex07_at_most_one_element_per_thread, NEEDS_DEVICE},
        {N_("sizes: several elements per thread (the grid-stride loop), every block size"),
         test_ex07_several_elements_per_thread, NEEDS_DEVICE},
        {N_("concept: the grid does not grow with n"), test_ex07_grid_independent_of_n, NEEDS_DEVICE},
        {N_("concept: no shared-memory tree"), test_ex07_no_shared_tree, NEEDS_EMULATOR},
        {0},
    };
    const harness_exercise ex = {"07", N_("v6: warp shuffles and a grid-stride loop"),
                                 "exercises/07-shuffle/lesson.md", tests, &SPACE};
    return harness_run(&ex, argc, argv);
}
