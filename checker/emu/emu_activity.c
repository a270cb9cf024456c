/* emu_activity.c - what the host asked of the runtime: device allocations, waits for the device and
 * kernel launches, counted so that a test can grade how a program uses a library (exercise 12: CUB's
 * temporary storage allocated once, no host synchronisation inside an asynchronous call). */
#include <string.h>

#include "emu_rt.h"

emu_activity emu_rt_activity;

void emu_activity_take(emu_activity *out)
{
    if (out) *out = emu_rt_activity;
    memset(&emu_rt_activity, 0, sizeof emu_rt_activity);
}
