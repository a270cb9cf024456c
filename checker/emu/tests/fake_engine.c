/* fake_engine.c - a stand-in for the PTX engine, so the runtime's tests (rt_*) run without it.
 * Kernels are found by ".entry NAME" in the PTX; a few known ones run natively in C. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../emu.h"

#define FAKE_MAX_KERNELS 32

struct emu_kernel { char name[128]; size_t static_shared; int nparams; };
struct emu_module {
    emu_kernel kernels[FAKE_MAX_KERNELS];
    int nkernels;
    int counter;           /* storage of a __device__ int "counter", if the PTX declares one */
    float coef[4];         /* storage of a __constant__ float "coef[4]" */
    int mx;                /* a __managed__ int "mx" */
    int has_counter, has_coef, has_mx;
};

int fake_modules_loaded;   /* for the tests: how many times the runtime loaded a module */

emu_module *emu_module_load(const char *ptx, size_t len, char *err, size_t errlen)
{
    if (strstr(ptx, "FAKE_BAD_PTX")) { snprintf(err, errlen, "line 1: unknown directive .bogus"); return NULL; }
    emu_module *m = calloc(1, sizeof *m);
    const char *end = ptx + len;
    for (const char *p = ptx; p < end && (p = strstr(p, ".entry ")) != NULL && m->nkernels < FAKE_MAX_KERNELS; p++) {
        emu_kernel *k = &m->kernels[m->nkernels++];
        sscanf(p + 7, "%127[A-Za-z0-9_$]", k->name);
        k->static_shared = strstr(k->name, "bigshared") ? 40000 : 0;
        k->nparams = 1;
    }
    if (strstr(ptx, " counter;")) { m->has_counter = 1; emu_mem_register(&m->counter, sizeof m->counter, "counter", 1); }
    if (strstr(ptx, " coef[16]")) { m->has_coef = 1; emu_mem_register(m->coef, sizeof m->coef, "coef", 0); }
    if (strstr(ptx, ".u32 mx;")) { m->has_mx = 1; emu_mem_register(&m->mx, sizeof m->mx, "mx", 1); }
    fake_modules_loaded++;
    return m;
}

void emu_module_free(emu_module *m)
{
    if (!m) return;
    if (m->has_counter) emu_mem_unregister(&m->counter);
    if (m->has_coef) emu_mem_unregister(m->coef);
    if (m->has_mx) emu_mem_unregister(&m->mx);
    free(m);
}

const emu_kernel *emu_module_kernel(const emu_module *m, const char *entry)
{
    for (int i = 0; i < m->nkernels; i++)
        if (strcmp(m->kernels[i].name, entry) == 0) return &m->kernels[i];
    return NULL;
}

const char *emu_kernel_name(const emu_kernel *k) { return k->name; }
int emu_kernel_param_count(const emu_kernel *k) { return k->nparams; }
size_t emu_kernel_param_size(const emu_kernel *k, int i) { (void)k; (void)i; return 8; }
size_t emu_kernel_static_shared(const emu_kernel *k) { return k->static_shared; }

void *emu_module_global(const emu_module *m, const char *name, size_t *size)
{
    emu_module *mm = (emu_module *)m;
    if (mm->has_counter && strcmp(name, "counter") == 0) { if (size) *size = sizeof mm->counter; return &mm->counter; }
    if (mm->has_coef && strcmp(name, "coef") == 0) { if (size) *size = sizeof mm->coef; return mm->coef; }
    if (mm->has_mx && strcmp(name, "mx") == 0) { if (size) *size = sizeof mm->mx; return &mm->mx; }
    return NULL;
}

/* Native versions of the test kernels, by a word in their names. */
void emu_launch(const emu_kernel *k, emu_dim3 grid, emu_dim3 block, size_t dynamic_shared, void **args,
                emu_launch_result *out)
{
    (void)dynamic_shared;
    unsigned long long threads = (unsigned long long)grid.x * grid.y * grid.z * block.x * block.y * block.z;
    memset(out, 0, sizeof *out);
    out->metrics.blocks = (uint64_t)grid.x * grid.y * grid.z;
    out->metrics.threads_per_block = (uint64_t)block.x * block.y * block.z;
    out->metrics.warp_instructions = 10 * out->metrics.blocks;
    if (strstr(k->name, "twice")) {          /* (const int *in, int *out, int n): out[i] = 2 in[i] */
        const int *in = *(const int **)args[0];
        int *o = *(int **)args[1];
        int n = *(int *)args[2];
        for (unsigned long long i = 0; i < threads && (long long)i < n; i++) {
            emu_alloc *a = emu_mem_lookup((uintptr_t)&o[i], sizeof(int));
            if (!a || !emu_mem_lookup((uintptr_t)&in[i], sizeof(int))) {
                emu_finding("kernel twice: thread %llu reads or writes outside any allocation", i);
                out->error = 700;
                return;
            }
            *(int *)emu_mem_view(&o[i]) = 2 * *(const int *)emu_mem_view(&in[i]);   /* the program's addresses fault */
            emu_alloc_mark(a, (uintptr_t)&o[i] - a->base, sizeof(int));
        }
    } else if (strstr(k->name, "count")) {    /* (int *c): atomicAdd(c, 1) per thread */
        int *c = emu_mem_view(*(int **)args[0]);
        *c += (int)threads;
        out->metrics.global_atomics = threads / 32;
    } else if (strstr(k->name, "bump")) {     /* (int *p): *p += 1 */
        *(int *)emu_mem_view(*(int **)args[0]) += 1;
    } else if (strstr(k->name, "crash")) {
        emu_finding("kernel crash: block 0 thread 0 read 4 bytes at 0x10, outside any allocation (fake.cu:1)");
        out->error = 700;
    } else if (strstr(k->name, "unsupported")) {
        emu_finding("kernel unsupported: the emulator does not support this instruction");
        out->error = 801;
    }
}

/* A kernel named "clustered..." declares clusters of 2 blocks (__cluster_dims__(2, 1, 1)). */
int emu_kernel_cluster(const emu_kernel *k, emu_dim3 *dims, int *explicit_cluster, unsigned *max_blocks)
{
    int declared = strstr(k->name, "clustered") != NULL;
    if (explicit_cluster) *explicit_cluster = declared;
    if (max_blocks) *max_blocks = 0;
    if (declared && dims) *dims = (emu_dim3){ 2, 1, 1 };
    return declared;
}

/* What the last launch asked for beyond emu_launch's arguments, for the tests. */
emu_launch_config fake_last_config;

void emu_launch_ex(const emu_kernel *k, const emu_launch_config *c, void **args, emu_launch_result *out)
{
    fake_last_config = *c;
    emu_launch(k, c->grid, c->block, c->dynamic_shared, args, out);
}

/* No fake kernel waits for another ("waits" in a name would): together is one after another, in order. */
int emu_kernel_may_wait(const emu_kernel *k) { return strstr(k->name, "waits") != NULL; }

void emu_launch_together(int n, const emu_kernel *const *k, const emu_launch_config *c, void **const *args,
                         emu_launch_result *out)
{
    for (int i = 0; i < n; i++) {
        emu_order_running(i);
        emu_launch_ex(k[i], &c[i], args[i], &out[i]);
    }
}

/* The engine's and the host fault handler's places, which the runtime's order checks name: none here. */
void emu_loc_places(const emu_module *m, uint32_t loc, emu_place *at, emu_place *call)
{
    (void)m; (void)loc;
    memset(at, 0, sizeof *at);
    memset(call, 0, sizeof *call);
}
int emu_source_is_system(const char *path) { (void)path; return 0; }
void emu_host_frames_line(void *const *frames, int nframes, char *where, size_t len)
{
    (void)frames; (void)nframes;
    if (len) where[0] = '\0';
}
