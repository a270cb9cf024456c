/* emu_exec_names.c - how findings name global memory: by the kernel's parameters as the learner's file
 * names them ("d_out[3]"), by a __device__ variable's name, or by its allocation. */
#include <stdio.h>
#include <string.h>

#include "emu_exec.h"

/* The index'th pointer parameter of the kernel that points into allocation a: its value and its name
 * ("d_in", or "the kernel's argument 1" when the learner's file cannot tell). 0 when there is none. */
static int param_into(emu_ctx *x, const emu_alloc *a, int *from, uint64_t *value, char *name, size_t len)
{
    const emu_func *f = x->k;
    for (int i = *from; i < f->nparams; i++) {
        uint64_t p = 0;
        if (f->param_size[i] != 8) continue;
        memcpy(&p, x->params + f->param_off[i], 8);
        if (p < a->base || p >= a->base + a->size) continue;
        if (!emu_param_name(x->m, f, i, name, len)) snprintf(name, len, emu_text("the kernel's argument %d"), i + 1);
        *value = p;
        *from = i + 1;
        return 1;
    }
    return 0;
}

void emu_global_name(emu_ctx *x, const emu_alloc *a, uint64_t addr, unsigned n, char *buf, size_t len)
{
    char name[128];
    uint64_t p;
    for (int from = 0; param_into(x, a, &from, &p, name, sizeof name);)
        if (addr >= p && (addr - p) % n == 0) {
            snprintf(buf, len, "%s[%llu]", name, (unsigned long long)((addr - p) / n));
            return;
        }
    if (strcmp(a->what, "cudaMalloc") && strcmp(a->what, "cudaMallocManaged") && strcmp(a->what, "cudaMallocHost")) {
        emu_var_name(a->what, name, sizeof name);
        if (a->size <= n) snprintf(buf, len, "%s", name);
        else snprintf(buf, len, "%s[%llu]", name, (unsigned long long)((addr - a->base) / n));
        return;
    }
    snprintf(buf, len, emu_text("byte %llu of a %zu-byte %s allocation"), (unsigned long long)(addr - a->base), a->size,
             a->what);
}

int emu_global_before(emu_ctx *x, uint64_t addr, unsigned n, char *buf, size_t len)
{
    const emu_func *f = x->k;
    for (int i = 0; i < f->nparams; i++) {
        uint64_t p = 0;
        if (f->param_size[i] != 8) continue;
        memcpy(&p, x->params + f->param_off[i], 8);
        const emu_alloc *a = p ? emu_mem_lookup((uintptr_t)p, 1) : NULL;
        if (!a || addr >= a->base || a->base - addr > a->size + ((uint64_t)1 << 20)) continue;
        char name[128];
        int from = i;
        uint64_t value;
        if (!param_into(x, a, &from, &value, name, sizeof name)) continue;
        snprintf(buf, len, emu_text("%s[%lld] lies %llu bytes before the start of the %zu-byte %s that %s points "
                                    "into: a negative index (an int index or count that passed INT_MAX and wrapped "
                                    "around?)"),
                 name,
                 (long long)((int64_t)(addr - value) / (int64_t)n), (unsigned long long)(a->base - addr), a->size,
                 a->what, name);
        return 1;
    }
    return 0;
}
