/* harness_space_table.h - turns an exercise's declared input space into data: a suite defines
 * HARNESS_SPACE_FILE ("../spaces/exNN.def") and includes this, and gets `static const harness_space SPACE`
 * for harness_cover_build and for its harness_exercise. */
#ifndef HARNESS_SPACE_FILE
#error "define HARNESS_SPACE_FILE before including harness_space_table.h"
#endif
#define dim(name, ...) {"dim", #name, #__VA_ARGS__},
#define interact(...) {"interact", "", #__VA_ARGS__},
static const harness_space_line SPACE_LINES[] = {
#include HARNESS_SPACE_FILE
    {0, 0, 0},
};
#undef dim
#undef interact
static const harness_space SPACE = {SPACE_LINES};
