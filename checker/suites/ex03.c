/* ex03.c - hidden tests of exercise 03 (v2): a shared-memory tree with sequential addressing. */
#include "../harness/harness.h"
#include "../contracts/ex03.h"
#define HARNESS_SPACE_FILE "../spaces/ex03.def"
#include "../harness/harness_space_table.h"

#include <stdio.h>

static const partials_spec V2 = {
    .launch = reduce_v2,
    .name = "reduce_v2",
    .elems_per_thread = 1,
    .grid_hint = N_("v2 launches one block per blockDim.x elements, rounded up, exactly as v1 did."),
    .partial_hint = N_("Does the stride start at blockDim.x / 2 and halve down to 1, so that the first step "
                       "reaches the top half of sdata? Does every step end with __syncthreads()?"),
};

START_TEST(test_ex03_one_block)
{
    expect_block_partials(&V2, 256, 256, 1);
}
END_TEST

START_TEST(test_ex03_many_blocks)
{
    expect_block_partials(&V2, 64 * 256, 256, 2);
}
END_TEST

/* The declared input space (checker/spaces/ex03.def): each test below runs the cases of its concern, at every
 * block size. */

START_TEST(test_ex03_fewer_elements_than_the_block)
{
    harness_cover_run(&SPACE, partials_case_fewer, partials_case_run, 10, &V2);
}
END_TEST

START_TEST(test_ex03_not_a_multiple_of_the_block)
{
    harness_cover_run(&SPACE, partials_case_not_a_multiple, partials_case_run, 10, &V2);
}
END_TEST

START_TEST(test_ex03_whole_blocks)
{
    harness_cover_run(&SPACE, partials_case_whole_blocks, partials_case_run, 10, &V2);
}
END_TEST

/* ---- Concepts, graded by the emulator's counters ------------------------------------------------------
 * Each runs a correct-size launch through expect_block_partials (so a wrong sum fails as usual), with the
 * counters cleared before it and read after it. The input fills every block: 64 blocks of 256 threads,
 * 8 warps each. */

enum { CONCEPT_BLOCK = 256, CONCEPT_BLOCKS = 64, CONCEPT_WARPS = CONCEPT_BLOCK / 32 };

static emu_metrics run_for_metrics(uint64_t salt)
{
    emu_metrics m;
    backend_take_metrics(&m); /* drop whatever earlier calls counted */
    expect_block_partials(&V2, (size_t)CONCEPT_BLOCKS * CONCEPT_BLOCK, CONCEPT_BLOCK, salt);
    if (!backend_take_metrics(&m))
        ck_abort_msg(_("This test reads the emulator's counters, and this backend has none."));
    return m;
}

/* Sequential addressing: in every step lane k of a warp reads and writes word (32*w + k) and word
 * (32*w + k + s), 32 consecutive words each time, which sit in the 32 different banks. Any conflict at
 * all means some lanes of a warp share a bank: the strided index of Harris's middle step (lane k on word
 * 2*s*k) gives 2-way conflicts at s = 1, 4-way at s = 2, and so on. */
START_TEST(test_ex03_no_bank_conflicts)
{
    emu_metrics m = run_for_metrics(50);
    uint64_t conflicts = m.shared_load_bank_conflicts + m.shared_store_bank_conflicts;
    if (conflicts != 0)
        harness_fail(_("In the step of stride s, which word of sdata does lane k of a warp read and write? A word "
                       "w sits in bank w % 32: do two lanes of one warp land in the same bank?"),
                     _("reduce_v2(n = %d, block = %d) should cause no shared-memory bank conflicts, but it "
                       "caused %llu (%llu on loads, %llu on stores; %.1f per block): each one makes a warp "
                       "repeat its access, one bank at a time."),
                     CONCEPT_BLOCKS * CONCEPT_BLOCK, CONCEPT_BLOCK, (unsigned long long)conflicts,
                     (unsigned long long)m.shared_load_bank_conflicts,
                     (unsigned long long)m.shared_store_bank_conflicts, (double)conflicts / CONCEPT_BLOCKS);
}
END_TEST

/* What is counted: warp-level stores to shared memory per block. Each time a warp executes the body of a
 * tree step it executes exactly one store (sdata[tid] = ...), and each warp stores once in the load, so
 * this counts how many warps take part in each step, whatever the compiler does with the rest.
 *   v2: W stores for the load, then W/2 + W/4 + ... + 1 = W - 1 for the steps with s >= 32 (only the
 *       s/32 warps whose threads are all below s), then 5 for s = 16..1 (warp 0 alone): 2W + 4.
 *   v1: W for the load, every warp in the 5 steps with s < 32 (5W), then W/2 + ... + 1 = W - 1: 7W - 1.
 * With W = 8 warps: 20 for v2, 55 for v1. The bound is halfway, (9W + 3) / 2 = 37.5: a v2 that stores 0
 * before loading (one extra store per warp, 28) passes, v1 fails. The strided index of Harris's middle
 * step has v2's count (its warps go idle together too): its flaw is the bank conflicts, graded above.
 * Why not the average of active lanes per instruction (thread_instructions / 32 warp_instructions)? The
 * loop's compare, barrier and branch run on all 32 lanes of every warp in every step and outweigh the
 * body, so v1 still averages about 3/4 of its lanes and v2 about 0.95: too close a call, and one that
 * moves with the compiler's choices. */
START_TEST(test_ex03_idle_warps_skip_the_step)
{
    emu_metrics m = run_for_metrics(51);
    const double w = CONCEPT_WARPS;
    double per_block = (double)m.shared_store_instructions / CONCEPT_BLOCKS;
    double bound = (9 * w + 3) / 2;
    if (per_block > bound)
        harness_fail(_("In the step of stride s, which threads do the addition: are they spread over every "
                       "warp, or packed into the first s threads so that the other warps skip the step?"),
                     _("reduce_v2(n = %d, block = %d): warps executed %.1f stores to shared memory per block, "
                       "more than %.1f. With sequential addressing a block of %d warps needs %.0f (one per warp "
                       "for the load, then only the warps that hold busy threads in each step); v1's interleaved "
                       "addressing needs %.0f, because every warp has a few busy lanes in every step."),
                     CONCEPT_BLOCKS * CONCEPT_BLOCK, CONCEPT_BLOCK, per_block, bound, CONCEPT_WARPS,
                     2 * w + 4, 7 * w - 1);
}
END_TEST

/* Thread 0 alone writes the block's result: one global store request per block. When every thread writes
 * it, they all write the same value, so the sum is right, but a block issues one request per warp. */
START_TEST(test_ex03_one_thread_writes_the_result)
{
    emu_metrics m = run_for_metrics(52);
    if (m.global_store_requests != CONCEPT_BLOCKS)
        harness_fail(_("Which thread holds the block's sum at the end, and which threads need to write it?"),
                     _("reduce_v2(n = %d, block = %d) made %llu store requests to global memory; it should make "
                       "%d, one per block: only thread 0 writes d_out[blockIdx.x]."),
                     CONCEPT_BLOCKS * CONCEPT_BLOCK, CONCEPT_BLOCK, (unsigned long long)m.global_store_requests,
                     CONCEPT_BLOCKS);
}
END_TEST

int main(int argc, char **argv)
{
    const harness_test tests[] = {
        {N_("core: one block of 256 writes its sum"), test_ex03_one_block, NEEDS_DEVICE},
        {N_("core: 64 blocks each write their own sum"), test_ex03_many_blocks, NEEDS_DEVICE},
        {N_("sizes: fewer elements than one block, every block size"), test_ex03_fewer_elements_than_the_block,
         NEEDS_DEVICE},
        {N_("sizes: n not a multiple of the block, every block size"), test_ex03_not_a_multiple_of_the_block,
         NEEDS_DEVICE},
        {N_("edges: whole blocks of every size from 32 to 1024 threads"), test_ex03_whole_blocks, NEEDS_DEVICE},
        {N_("concept: no shared-memory bank conflicts"), test_ex03_no_bank_conflicts, NEEDS_EMULATOR},
        {N_("concept: far fewer warp instructions than v1 (idle warps skip the step)"),
         test_ex03_idle_warps_skip_the_step, NEEDS_EMULATOR},
        {N_("concept: one thread writes each block's result"), test_ex03_one_thread_writes_the_result, NEEDS_EMULATOR},
        {0},
    };
    const harness_exercise ex = {"03", N_("v2: sequential addressing: a short tree step, no bank conflicts"),
                                 "exercises/03-sequential/lesson.md", tests, &SPACE};
    return harness_run(&ex, argc, argv);
}
