/* harness_places.c - where a declared input space puts a special value (a NaN, an infinity) among n inputs: the
 * places a kernel can treat differently from the rest (checker/spaces/ex09.def, ex12.def). */
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t harness_place_floats(float *x, size_t n, const char *where, float v, uint64_t salt)
{
    size_t inside = 0;
    if (n == 0) return 0;
    if (n > 2) {
        int r;
        harness_random_ints(&r, 1, 1, (int)(n - 2), salt);
        inside = (size_t)r;
    }
    if (!strcmp(where, "first")) x[0] = v;
    else if (!strcmp(where, "last")) x[n - 1] = v;
    else if (!strcmp(where, "inside")) x[inside] = v;
    else if (!strcmp(where, "every-7")) for (size_t i = 3; i < n; i += 7) x[i] = v;
    else if (!strcmp(where, "thread-first")) for (size_t i = n > 32 ? 32 : 0; i < n; i += 32) x[i] = v;
    else if (!strcmp(where, "only")) for (size_t i = 0; i < n; i++) x[i] = v;
    else {
        fprintf(stderr, "checker: the suite asks for a place \"%s\" harness_place_floats does not know\n", where);
        abort();
    }
    return inside;
}
