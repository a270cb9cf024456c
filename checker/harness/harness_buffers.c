/* harness_buffers.c - device buffers wrapped in guard zones, so that reads past n change the answer and
 * writes outside the output are caught. */
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *checked_malloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p) ck_abort_msg(_("The checker ran out of host memory (%zu bytes)."), bytes);
    return p;
}

/* The value repeated over whole elements: one copy, then the filled part doubled (a 2^24-element buffer in a
 * few milliseconds, where a memcpy per element took tens). */
static void fill_pattern(unsigned char *dst, size_t bytes, const void *value, size_t size)
{
    size_t whole = bytes / size * size, done = whole ? size : 0;
    if (done) memcpy(dst, value, size);
    while (done < whole) {
        size_t step = done < whole - done ? done : whole - done;
        memcpy(dst + done, dst, step);
        done += step;
    }
}

void *dev_ptr(const dev_buffer *b)
{
    return b->d_base + b->guard_bytes + b->offset_bytes;
}

/* cudaMemcpy from pageable host memory may return before its DMA to the device has landed (CUDA's "API
 * synchronization behavior"); a learner's kernel on a stream made with cudaStreamNonBlocking does not wait
 * for the default stream's copy, and could read the bytes from before it, or see its output overwritten by
 * the poison afterwards (seen on H200s in exercise 18's tests: a NaN in place of a gradient). So on a GPU the
 * copy has landed before the test goes on; the emulator copies at once. */
void harness_copy_in(void *d, const void *h, size_t bytes)
{
    CUDA_OK(cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice));
    if (!backend_is_emulator()) CUDA_OK(cudaDeviceSynchronize());
}

static size_t total_bytes(const dev_buffer *b)
{
    return 2 * b->guard_bytes + b->offset_bytes + b->count * b->elem_size;
}

static dev_buffer make_buffer(size_t count, size_t elem_size, const void *fill, size_t offset_bytes)
{
    dev_buffer b = {0};
    b.count = count;
    b.elem_size = elem_size;
    b.guard_bytes = HARNESS_GUARD_ELEMS * elem_size;
    b.offset_bytes = offset_bytes;
    size_t bytes = total_bytes(&b);
    b.h_image = checked_malloc(bytes);
    fill_pattern(b.h_image, bytes, fill, elem_size);
    CUDA_OK(cudaMalloc((void **)&b.d_base, bytes));
    return b;
}

void dev_name(dev_buffer *b, const char *name)
{
    backend_guard(dev_ptr(b), b->count * b->elem_size, name, b->elem_size);
}

dev_buffer dev_input(const void *h_data, size_t count, size_t elem_size, const void *guard_value,
                     size_t offset_bytes)
{
    dev_buffer b = make_buffer(count, elem_size, guard_value, offset_bytes);
    dev_name(&b, "d_in");
    if (count) memcpy(b.h_image + b.guard_bytes + offset_bytes, h_data, count * elem_size);
    harness_copy_in(b.d_base, b.h_image, total_bytes(&b));
    return b;
}

dev_buffer dev_output(size_t count, size_t elem_size, const void *poison_value)
{
    return dev_output_at(count, elem_size, poison_value, 0);
}

dev_buffer dev_output_at(size_t count, size_t elem_size, const void *poison_value, size_t offset_bytes)
{
    dev_buffer b = make_buffer(count, elem_size, poison_value, offset_bytes);
    dev_name(&b, "d_out");
    harness_copy_in(b.d_base, b.h_image, total_bytes(&b));
    return b;
}

void dev_fetch(const dev_buffer *b, void *h_out)
{
    if (b->count)
        CUDA_OK(cudaMemcpy(h_out, dev_ptr(b), b->count * b->elem_size, cudaMemcpyDeviceToHost));
}

/* The first byte in [from, to) where the device copy differs from the image, or -1. */
static long first_difference(const unsigned char *now, const unsigned char *image, size_t from, size_t to)
{
    if (from >= to || memcmp(now + from, image + from, to - from) == 0) return -1;   /* the usual case, at once */
    for (size_t i = from; i < to; i++)
        if (now[i] != image[i]) return (long)i;
    return -1;
}

static unsigned char *fetch_whole(const dev_buffer *b)
{
    unsigned char *now = checked_malloc(total_bytes(b));
    CUDA_OK(cudaMemcpy(now, b->d_base, total_bytes(b), cudaMemcpyDeviceToHost));
    return now;
}

/* Element index of a byte, relative to the learner's pointer (negative before it). */
static long element_of(const dev_buffer *b, long byte)
{
    long rel = byte - (long)(b->guard_bytes + b->offset_bytes);
    return rel >= 0 ? rel / (long)b->elem_size : -((-rel + (long)b->elem_size - 1) / (long)b->elem_size);
}

void dev_expect_unchanged(const dev_buffer *b, const char *what)
{
    unsigned char *now = fetch_whole(b);
    long at = first_difference(now, b->h_image, 0, total_bytes(b));
    free(now);
    if (at < 0) return;
    long index = element_of(b, at);
    if (index >= 0 && (size_t)index < b->count)
        harness_fail(_("The input is read-only: keep partial sums in shared memory or registers, not in d_in."),
                     _("%s changed the input: element %ld of d_in is different after the run."), what, index);
    harness_fail(_("A write past the end of an array usually comes from an index that is not checked "
                   "against n."),
                 _("%s wrote outside the input array, at element %ld (the array has %zu elements)."), what,
                 index, b->count);
}

int dev_guard_written(const dev_buffer *b, long *element)
{
    unsigned char *now = fetch_whole(b);
    size_t start = b->guard_bytes + b->offset_bytes, end = start + b->count * b->elem_size;
    long before = first_difference(now, b->h_image, 0, start);
    long after = before >= 0 ? -1 : first_difference(now, b->h_image, end, total_bytes(b));
    free(now);
    if (before >= 0) *element = element_of(b, before);
    if (after >= 0) *element = element_of(b, after);
    return before >= 0 ? -1 : after >= 0 ? 1 : 0;
}

void dev_expect_guards_intact(const dev_buffer *b, const char *what)
{
    long element;
    int side = dev_guard_written(b, &element);
    if (side < 0)
        harness_fail(_("Which threads write d_out, and at which indices? Is each index checked against the size "
                       "of d_out?"),
                     _("%s wrote before the start of d_out (element %ld)."), what, element);
    if (side > 0)
        harness_fail(_("Which threads write d_out, and at which indices? Is each index checked against the size "
                       "of d_out?"),
                     _n("%s wrote past the end of d_out: element %ld, but only %zu element was expected.",
                        "%s wrote past the end of d_out: element %ld, but only %zu elements were expected.",
                        (unsigned long)b->count),
                     what, element, b->count);
}

void dev_free(dev_buffer *b)
{
    if (b->d_base) cudaFree(b->d_base);
    free(b->h_image);
    memset(b, 0, sizeof *b);
}
