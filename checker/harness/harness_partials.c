/* harness_partials.c - the check shared by v1-v5: one launch, every block's partial sum compared. */
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Known mistakes of a block's tree: which of its threads' values a block's sum holds ------------------- */

typedef struct partials_case {
    const int *h;
    size_t n, per_block, grid;
    int block, elems_per_thread;
} partials_case;

/* Thread t's value after the load: its element, and for v3-v5 the one blockDim.x further on (0 past n). */
static int64_t thread_value(const partials_case *pc, size_t b, int t)
{
    size_t i = b * pc->per_block + (size_t)t;
    int64_t v = i < pc->n ? pc->h[i] : 0;
    if (pc->elems_per_thread == 2 && i + (size_t)pc->block < pc->n) v += pc->h[i + (size_t)pc->block];
    return v;
}

/* Each block's sum over some of its threads: param 0 the first half, 1 the even ones, 2 thread 0 alone. */
static int model_threads(const void *ctx, int which, double *out)
{
    const partials_case *pc = ctx;
    for (size_t b = 0; b < pc->grid; b++) {
        int64_t sum = 0;
        for (int t = 0; t < pc->block; t++)
            if (which == 0 ? t < pc->block / 2 : which == 1 ? t % 2 == 0 : t == 0) sum += thread_value(pc, b, t);
        out[b] = (int)sum;
    }
    return pc->block > 1;
}

static const harness_bug_model TREE_MODELS[] = {
    {"tree-without-upper-half", model_threads, 0,
     N_("it holds the values of the first half of the block's threads only: the step that adds the upper half "
        "of sdata to the lower (stride blockDim.x / 2) never ran"),
     N_("Which step of the tree adds sdata[blockDim.x / 2 ...] to sdata[0 ...], and does it run for this block "
        "size: is it your loop's first stride, or, with blockSize a template parameter, does the launcher start "
        "the instance for blockDim.x?"), 0},
    {"tree-without-odd-threads", model_threads, 1,
     N_("it holds the values of the block's even threads only: the step that adds each odd thread's value to "
        "its even neighbour (stride 1) never ran"),
     N_("Which step of the tree has stride 1, and does your loop run it, or stop before it?"), 0},
    {"no-tree", model_threads, 2,
     N_("it is thread 0's own value: the tree never added the other threads' values to it (no step ran, or "
        "thread 0 wrote before the steps were done)"),
     N_("Which thread writes the block's sum, and when: after every step of the tree, and after a barrier?"), 0},
    {0},
};

/* The hint for what was seen: a known mistake's own question, nothing written, elements past n read, or the
 * spec's question about the tree. */
static const char *partial_hint_for(const partials_spec *spec, const harness_diagnosis *d, int expected, int got)
{
    char why[256];
    if (d->seen == SEEN_MODEL && d->hint) return d->hint;
    if (got == HARNESS_POISON_INT)
        return _("Nothing was written there: does thread 0 of every block write the block's sum to "
                 "d_out[blockIdx.x]?");
    harness_explain_int(expected, got, why, sizeof why);
    if (strstr(why, P_("guard value")))   /* the words are the learner's language: so is the phrase */
        return _("Elements outside [0, n) were read: does every load from d_in check its index against n?");
    return _(spec->partial_hint);
}

void expect_block_partials(const partials_spec *spec, size_t n, int block, uint64_t salt)
{
    int range = harness_safe_int_range(n);
    expect_block_partials_in(spec, n, block, -range, range, salt);
}

void expect_block_partials_in(const partials_spec *spec, size_t n, int block, int lo, int hi, uint64_t salt)
{
    int *h_in = malloc((n ? n : 1) * sizeof *h_in);
    ck_assert_msg(h_in != NULL, _("The checker ran out of host memory."));
    harness_random_ints(h_in, n, lo, hi, salt);

    size_t per_block = (size_t)block * (size_t)spec->elems_per_thread;
    size_t grid = (n + per_block - 1) / per_block;
    dev_buffer in = dev_input_ints(h_in, n);
    dev_buffer out = dev_output_ints(grid);

    char what[200];
    int used = snprintf(what, sizeof what, "%s(n = %zu, block = %d)", spec->name, n, block);
    if (!harness_values_are_default(n, lo, hi))
        snprintf(what + used, sizeof what - (size_t)used, _(" on values from %d to %d"), lo, hi);

    int launched = spec->launch(dev_ptr(&in), dev_ptr(&out), (int)n, block);
    harness_after_launch(what);
    if ((size_t)launched != grid)
        harness_fail(_(spec->grid_hint),
                     _n("%s launched %d block; it should launch %zu (one per %zu elements).",
                        "%s launched %d blocks; it should launch %zu (one per %zu elements).", (unsigned long)launched),
                     what, launched, grid, per_block);

    int *h_out = malloc(grid * sizeof *h_out);
    ck_assert_msg(h_out != NULL, _("The checker ran out of host memory."));
    dev_fetch(&out, h_out);
    double *want = malloc(grid * sizeof *want), *have = malloc(grid * sizeof *have);
    unsigned char *unwritten = malloc(grid);
    ck_assert_msg(want && have && unwritten, _("The checker ran out of host memory."));
    size_t bad = grid;
    for (size_t b = 0; b < grid; b++) {
        size_t from = b * per_block, to = from + per_block < n ? from + per_block : n;
        want[b] = (int)harness_sum_ints(h_in, from, to);
        have[b] = h_out[b];
        unwritten[b] = h_out[b] == HARNESS_POISON_INT;
        if (bad == grid && h_out[b] != (int)want[b]) bad = b;
    }
    if (bad < grid) {
        /* What the blocks wrote, all of them: a known mistake of the tree, or which blocks are wrong; then
         * what the first wrong block's sum holds. */
        partials_case pc = {h_in, n, per_block, grid, block, spec->elems_per_thread};
        harness_output o = {1, grid, want, have, unwritten, NULL, 0, 0};
        harness_diagnosis d;
        harness_diagnose(&o, TREE_MODELS, &pc, &d);
        size_t from = bad * per_block, to = from + per_block < n ? from + per_block : n;
        int expected = (int)want[bad];
        char why[1600];
        const char *rounded = NULL;
        if (d.seen == SEEN_MODEL) snprintf(why, sizeof why, "%s", d.words);
        else if (!harness_explain_total(h_in + from, to - from, expected, h_out[bad], why, sizeof why))
            rounded = harness_explain_rounding(expected, h_out[bad], to - from, lo, hi, why, sizeof why);
        if (d.where[0] && d.seen != SEEN_MODEL) {
            size_t used = strlen(why);
            /* TRANSLATORS: after what the first wrong block's sum is: which partials of d_out are wrong. */
            snprintf(why + used, sizeof why - used, _(" (of the %zu partials, these are wrong: %s)"), grid, d.where);
        }
        harness_fail(rounded ? rounded : partial_hint_for(spec, &d, expected, h_out[bad]),
                     _("%s: block %zu should write %d, the sum of elements %zu to %zu, to d_out[%zu], "
                       "but d_out[%zu] is %d: %s."),
                     what, bad, expected, from, to - 1, bad, bad, h_out[bad], why);
    }
    free(want);
    free(have);
    free(unwritten);
    dev_expect_guards_intact(&out, what);
    dev_expect_unchanged(&in, what);
    dev_free(&in);
    dev_free(&out);
    free(h_in);
    free(h_out);
}

void expect_block_partials_each(const partials_spec *spec, const size_t *sizes, size_t count, int block,
                                uint64_t salt)
{
    for (size_t k = 0; k < count; k++) expect_block_partials(spec, sizes[k], block, salt + k);
}
