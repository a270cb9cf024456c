/* emu_held.c - kernels held until the host waits, so that the kernels of several devices run together.
 *
 * On a GPU machine the kernels of several devices run at the same time, and a one-shot all-reduce's kernel
 * on each device spins on a flag that the kernel on another device writes. Run one at a time at its launch,
 * as the emulator runs everything else, the first would wait forever. So once a device other than 0 has been
 * made current, a kernel that may wait for another (emu_kernel_may_wait) is held, and so is every kernel
 * launched on another device while one is held; they run together (emu_launch_together) when the host waits
 * for one of them or queries it (emu_order.c's host waits), enqueues something that comes after one of them
 * in stream order (emu_order_begin), takes the findings, or exits. Their places in stream order are taken at the launch (emu_order_hold), so events recorded after
 * them cover them. A second kernel on a device that has one held runs the held ones first: the order on each
 * device stays what it was, and code of one device runs exactly as before. */
#include <stdlib.h>
#include <string.h>

#include "emu_rt.h"

typedef struct emu_held {
    const emu_kernel *k;
    emu_launch_config c;
    uint8_t *bytes;            /* copies of the arguments: the caller's may be gone when the kernel runs */
    void **args;               /* into bytes, one per parameter */
    int queue;
    uint32_t epoch;
} emu_held;

static emu_held held[EMU_MAX_DEVICES];
static int nheld;
static int running;            /* inside emu_rt_held_run: the set's own operations hold and run nothing */
static int several;            /* a device other than 0 was made current */
static int exit_hook;          /* emu_rt_held_run is registered with atexit */

void emu_rt_held_devices(void) { several = 1; }

static void hold_args(emu_held *h, const emu_kernel *k, void **args)
{
    int n = emu_kernel_param_count(k);
    size_t total = 0, count = n > 0 ? (size_t)n : 1;
    for (int i = 0; i < n; i++) total += (emu_kernel_param_size(k, i) + 15) & ~(size_t)15;
    h->bytes = malloc(total ? total : 1);
    h->args = calloc(count, sizeof *h->args);
    if (!h->bytes || !h->args) abort();
    size_t off = 0;
    for (int i = 0; i < n; i++) {
        size_t size = emu_kernel_param_size(k, i);
        h->args[i] = h->bytes + off;
        if (args && args[i]) memcpy(h->bytes + off, args[i], size);
        else memset(h->bytes + off, 0, size);
        off += (size + 15) & ~(size_t)15;
    }
}

int emu_rt_held_add(const emu_kernel *k, const emu_launch_config *c, void **args, int queue, const char *what)
{
    if (!several || running) return 0;
    for (int i = 0; i < nheld; i++)
        if (held[i].c.device == c->device) { emu_rt_held_run(); break; }
    if (nheld == EMU_MAX_DEVICES) emu_rt_held_run();   /* never: one each, and no more devices than that */
    if (!nheld && !emu_kernel_may_wait(k)) return 0;
    emu_held *h = &held[nheld];
    h->k = k;
    h->c = *c;
    h->queue = queue;
    hold_args(h, k, args);
    h->epoch = emu_order_hold(queue, c->device, what);
    nheld++;
    if (!exit_hook) exit_hook = atexit(emu_rt_held_run) == 0;
    return 1;
}

void emu_rt_held_run_covered(const uint32_t *clock)
{
    for (int i = 0; i < nheld && !running; i++)
        if (clock[held[i].queue] >= held[i].epoch) { emu_rt_held_run(); return; }
}

void emu_rt_held_run(void)
{
    if (nheld <= 0 || nheld > EMU_MAX_DEVICES || running) return;
    running = 1;
    int n = nheld, q[EMU_MAX_DEVICES];
    uint32_t epoch[EMU_MAX_DEVICES];
    const emu_kernel *k[EMU_MAX_DEVICES];
    emu_launch_config c[EMU_MAX_DEVICES];
    void **args[EMU_MAX_DEVICES];
    emu_launch_result r[EMU_MAX_DEVICES];
    for (int i = 0; i < n; i++) {
        k[i] = held[i].k;
        c[i] = held[i].c;
        args[i] = held[i].args;
        q[i] = held[i].queue;
        epoch[i] = held[i].epoch;
    }
    memset(r, 0, sizeof r);
    emu_order_set_begin(q, epoch, n);
    emu_launch_together(n, k, c, args, r);
    emu_order_set_end();
    for (int i = 0; i < n; i++) {
        emu_rt_metrics_add(&r[i].metrics);
        emu_rt_kernel_error((cudaError_t)r[i].error);
        free(held[i].bytes);
        free(held[i].args);
    }
    nheld = 0;
    running = 0;
}
