/* harness_sizes.c - the sizes every suite tries: the ones where reductions break. */
#include "harness.h"

static const size_t edge_sizes[] = {
    1, 2, 31, 32, 33, 63, 64, 65, 127, 255, 256, 257, 511, 512, 513, 1000, 1023, 1024, 1025,
    2047, 2048, 2049, 4099, 8191, 65521, 65536, 65537, 100003, 262144, 1000003, 1u << 20,
    (1u << 20) + 7, 1u << 22, 1u << 24,
};

int harness_sizes(size_t limit, size_t *out)
{
    size_t large = harness_large_n();
    if (limit > large) limit = large;
    int count = 0;
    for (size_t i = 0; i < sizeof edge_sizes / sizeof edge_sizes[0] && count < 63; i++)
        if (edge_sizes[i] <= limit) out[count++] = edge_sizes[i];
    if (count == 0 || out[count - 1] != limit) out[count++] = limit;
    return count;
}
