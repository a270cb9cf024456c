/* harness_partials.c - the check shared by v1-v5: one launch, every block's partial sum compared. */
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The hint for the usual cause of this symptom: nothing written, elements past n read, or the tree. */
static const char *partial_hint_for(const partials_spec *spec, int expected, int got)
{
    char why[256];
    if (got == HARNESS_POISON_INT)
        return _("Nothing was written there: does thread 0 of every block write the block's sum to "
                 "d_out[blockIdx.x]?");
    harness_explain_int(expected, got, why, sizeof why);
    if (strstr(why, "guard value"))
        return _("Elements outside [0, n) were read: does every load from d_in check its index against n?");
    return _(spec->partial_hint);
}

void expect_block_partials(const partials_spec *spec, size_t n, int block, uint64_t salt)
{
    int range = harness_safe_int_range(n);
    int *h_in = malloc(n * sizeof *h_in);
    ck_assert_msg(h_in != NULL, _("The checker ran out of host memory."));
    harness_random_ints(h_in, n, -range, range, salt);

    size_t per_block = (size_t)block * (size_t)spec->elems_per_thread;
    size_t grid = (n + per_block - 1) / per_block;
    dev_buffer in = dev_input_ints(h_in, n);
    dev_buffer out = dev_output_ints(grid);

    char what[160];
    snprintf(what, sizeof what, "%s(n = %zu, block = %d)", spec->name, n, block);
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
    for (size_t b = 0; b < grid; b++) {
        size_t from = b * per_block, to = from + per_block < n ? from + per_block : n;
        int expected = (int)harness_sum_ints(h_in, from, to);
        if (h_out[b] != expected) {
            char why[256];
            harness_explain_int(expected, h_out[b], why, sizeof why);
            harness_fail(partial_hint_for(spec, expected, h_out[b]),
                         _("%s: block %zu should write %d, the sum of elements %zu to %zu, to d_out[%zu], "
                           "but d_out[%zu] is %d: %s."),
                         what, b, expected, from, to - 1, b, b, h_out[b], why);
        }
    }
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
