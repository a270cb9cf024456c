/* emu_mem.c - the registry of device memory: allocations sorted by address, each with a record of the
 * bytes written, so the engine can tell valid, out-of-bounds and never-written accesses apart; and the two
 * addresses of device memory, the program's (which the host cannot touch) and the emulator's view. */
#define _GNU_SOURCE      /* sysconf(_SC_PHYS_PAGES), madvise, memfd_create */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "emu_rt.h"

#define EMU_ALIGN       256   /* cudaMalloc's alignment guarantee */
#define EMU_GUARD       256   /* unregistered bytes after each allocation: a small overrun hits nothing */
#define EMU_FRESH_BYTE  0xCD  /* what new device memory holds, so a missing initialisation shows */
#define EMU_HUGE_PAGE   ((size_t)2 << 20)

static const char emu_msg_too_big[] =
    N_("%s of %zu bytes failed: the emulator holds at most %zu bytes of device memory and %zu are in use");
static const char emu_msg_host_oom[] =
    N_("%s of %zu bytes failed: this computer has not enough free memory for it");
static const char emu_msg_bad_free[] =
    N_("%s(%p): that pointer is not the start of memory from %s");

typedef struct emu_rec {
    emu_alloc a;
    enum emu_mem_kind kind;
    void *raw;      /* what to free(), NULL for memory someone else owns: the emulator's view */
    size_t mapped;  /* when not 0, raw is a mapping of this many bytes, to munmap() instead */
    size_t reserved; /* when not 0, the program's address (a.base) starts this many bytes of address
                      * space that nothing may touch, to munmap() too */
    size_t counted; /* the bytes counted against the emulator's total */
} emu_rec;

static emu_rec **emu_recs;     /* sorted by a.base */
static size_t emu_nrecs, emu_caprecs;
/* Accesses come in runs on the same allocation, so each thread remembers its last hit. The engine may
 * look up from several threads during a launch; the registry itself changes only between launches,
 * and every change bumps the generation, which makes every thread's remembered hit stale. */
static _Thread_local emu_rec *emu_last_hit;
static _Thread_local unsigned long emu_last_generation;
static unsigned long emu_generation = 1;
static size_t emu_used;

static const char *emu_kind_allocator(enum emu_mem_kind k)
{
    switch (k) {
    case EMU_MEM_DEVICE: return "cudaMalloc";
    case EMU_MEM_HOST: return "cudaMallocHost";
    case EMU_MEM_MANAGED: return "cudaMallocManaged";
    default: return emu_text("a module");
    }
}

/* Index of the last record with base <= addr, or -1. */
static long emu_find_index(uintptr_t addr)
{
    size_t lo = 0, hi = emu_nrecs;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (emu_recs[mid]->a.base <= addr) lo = mid + 1;
        else hi = mid;
    }
    return (long)lo - 1;
}

static int emu_rec_holds(const emu_rec *r, uintptr_t addr, size_t len)
{
    if (addr < r->a.base) return 0;
    size_t off = addr - r->a.base;
    if (len == 0) return off < r->a.size || (off == 0);
    return off < r->a.size && len <= r->a.size - off;
}

emu_alloc *emu_mem_lookup(uintptr_t addr, size_t len)
{
    if (emu_last_hit && emu_last_generation == emu_generation && emu_rec_holds(emu_last_hit, addr, len))
        return &emu_last_hit->a;
    long i = emu_find_index(addr);
    if (i < 0 || !emu_rec_holds(emu_recs[i], addr, len)) return NULL;
    emu_last_hit = emu_recs[i];
    emu_last_generation = emu_generation;
    return &emu_last_hit->a;
}

int emu_mem_guard(const void *base, size_t bytes, const char *name, size_t elem_size)
{
    emu_alloc *a = emu_mem_lookup((uintptr_t)base, bytes);
    if (!a) return 0;
    a->open_lo = (uintptr_t)base;
    a->open_hi = (uintptr_t)base + bytes;
    a->guard_elem = elem_size ? elem_size : 1;
    snprintf(a->guard_name, sizeof a->guard_name, "%s", name && *name ? name : emu_text("the array"));
    return 1;
}

static int emu_insert(emu_rec *r)
{
    if (emu_nrecs == emu_caprecs) {
        size_t cap = emu_caprecs ? emu_caprecs * 2 : 64;
        emu_rec **grown = realloc(emu_recs, cap * sizeof *grown);
        if (!grown) return -1;
        emu_recs = grown;
        emu_caprecs = cap;
    }
    size_t at = (size_t)(emu_find_index(r->a.base) + 1);
    memmove(emu_recs + at + 1, emu_recs + at, (emu_nrecs - at) * sizeof *emu_recs);
    emu_recs[at] = r;
    emu_nrecs++;
    emu_generation++;
    return 0;
}

/* Removes and returns the record starting exactly at base, or NULL. */
static emu_rec *emu_remove(uintptr_t base)
{
    long i = emu_find_index(base);
    if (i < 0 || emu_recs[i]->a.base != base) return NULL;
    emu_rec *r = emu_recs[i];
    memmove(emu_recs + i, emu_recs + i + 1, (emu_nrecs - (size_t)i - 1) * sizeof *emu_recs);
    emu_nrecs--;
    emu_generation++;
    return r;
}

/* size bytes aligned to align; from EMU_HUGE_PAGE up, on 2 MiB pages where the system allows it: a
 * kernel's grid-stride loop steps to another 4 KiB page at every load, and each step would cost a TLB miss. */
static void *emu_block_alloc(size_t align, size_t size)
{
    if (size < EMU_HUGE_PAGE) return aligned_alloc(align, (size + align - 1) / align * align);
    size_t rounded = (size + EMU_HUGE_PAGE - 1) / EMU_HUGE_PAGE * EMU_HUGE_PAGE;
    void *p = aligned_alloc(EMU_HUGE_PAGE, rounded);
#ifdef MADV_HUGEPAGE
    if (p) madvise(p, rounded, MADV_HUGEPAGE);   /* only advice: without it, ordinary pages */
#endif
    return p;
}

static emu_rec *emu_rec_new(void *base, size_t size, const char *what, int initialised)
{
    emu_rec *r = calloc(1, sizeof *r);
    if (!r) return NULL;
    r->a.base = (uintptr_t)base;
    r->a.size = size;
    r->a.written_upto = initialised ? size : 0;
    r->a.what = what;
    r->a.device = -1;   /* a module's variables; device memory gets its device below */
    return r;
}

size_t emu_alloc_settle(emu_alloc *a)
{
    if (a->written && a->written_upto < a->size) {
        const unsigned char *z = memchr(a->written + a->written_upto, 0, a->size - a->written_upto);
        a->written_upto = z ? (size_t)(z - a->written) : a->size;
    }
    return a->written_upto;
}

/* The flags, made on first use (calloc: the system hands out zero pages only where they are touched). */
static unsigned char *emu_alloc_flags(emu_alloc *a)
{
    if (!a->written && !(a->written = calloc(a->size ? a->size : 1, 1))) abort();
    return a->written;
}

void emu_alloc_mark(emu_alloc *a, size_t off, size_t n)
{
    if (off <= a->written_upto) {
        if (off + n > a->written_upto) {
            a->written_upto = off + n;
            emu_alloc_settle(a);
        }
        return;
    }
    memset(emu_alloc_flags(a) + off, 1, n);
}

static void emu_rec_free(emu_rec *r)
{
    emu_used -= r->counted;
    free(r->a.written);
    if (r->reserved) munmap((void *)r->a.base, r->reserved);
    if (r->mapped) munmap(r->raw, r->mapped);
    else free(r->raw);
    free(r);
}

void emu_mem_register(void *base, size_t size, const char *what, int initialised)
{
    emu_rec *r = emu_rec_new(base, size, what, initialised);
    if (!r) return;
    r->kind = EMU_MEM_MODULE;
    if (emu_insert(r) != 0) free(r);
}

void emu_mem_unregister(void *base)
{
    emu_rec *r = emu_remove((uintptr_t)base);
    if (r) emu_rec_free(r);
}

size_t emu_rt_mem_total(void)
{
    /* Never promise more than a third of the host's RAM: data and its shadow both live there. */
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    size_t cap = EMU_MEM_CAP;
    if (pages > 0 && page > 0 && (size_t)pages / 3 < cap / (size_t)page)
        cap = (size_t)pages / 3 * (size_t)page;
    return cap;
}

size_t emu_rt_mem_used(void) { return emu_used; }

/* The program's address for device memory of bytes (its guard included): address space that the host cannot
 * read or write, with no memory behind it, so that host code that reads a device pointer faults as it does
 * beside a GPU. Sets r's base, shift and reserved; where the system refuses, the program gets the view's
 * address itself, as a plain host pointer (nothing is caught then, and nothing breaks). */
static void emu_rec_reserve(emu_rec *r, void *view, size_t bytes)
{
    long page = sysconf(_SC_PAGESIZE);
    size_t rounded = page > 0 ? (bytes + (size_t)page - 1) / (size_t)page * (size_t)page : bytes;
    void *p = mmap(NULL, rounded, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    r->a.base = p == MAP_FAILED ? (uintptr_t)view : (uintptr_t)p;
    r->a.shift = (intptr_t)((uintptr_t)view - r->a.base);
    r->reserved = p == MAP_FAILED ? 0 : rounded;
}

void emu_alloc_describe(const emu_alloc *a, uintptr_t addr, char *buf, size_t len)
{
    if (a->guard_name[0] && addr >= a->open_lo && addr < a->open_hi && a->guard_elem)
        snprintf(buf, len, "%s[%llu]", a->guard_name, (unsigned long long)((addr - a->open_lo) / a->guard_elem));
    else if (addr - a->base < a->size)
        snprintf(buf, len, emu_text("byte %llu of the %zu bytes from %s"), (unsigned long long)(addr - a->base), a->size,
                 a->what);
    else
        snprintf(buf, len, emu_text("%llu bytes past the end of the %zu bytes from %s"),
                 (unsigned long long)(addr - a->base - a->size), a->size, a->what);
}

void *emu_mem_view(const void *p)
{
    emu_alloc *a = emu_mem_lookup((uintptr_t)p, 1);
    return a ? emu_alloc_view(a, (uintptr_t)p) : (void *)p;
}

const emu_alloc *emu_rt_mem_device_near(uintptr_t addr)
{
    long i = emu_find_index(addr);
    if (i < 0) return NULL;
    const emu_rec *r = emu_recs[i];
    return r->reserved && addr - r->a.base < r->reserved ? &r->a : NULL;
}

cudaError_t emu_rt_mem_alloc(void **out, size_t size, enum emu_mem_kind kind, const char *who)
{
    size_t total = emu_rt_mem_total();
    if (size > total - emu_used) {
        emu_finding(emu_msg_too_big, who, size, total, emu_used);
        return cudaErrorMemoryAllocation;
    }
    size_t padded = (size + EMU_ALIGN - 1) / EMU_ALIGN * EMU_ALIGN + EMU_GUARD;
    void *raw = emu_block_alloc(EMU_ALIGN, padded);
    /* Host memory is written by host code the emulator cannot see: count it as written. */
    int initialised = kind == EMU_MEM_HOST || kind == EMU_MEM_MANAGED;
    emu_rec *r = raw ? emu_rec_new(raw, size, emu_kind_allocator(kind), initialised) : NULL;
    if (r && kind == EMU_MEM_DEVICE) emu_rec_reserve(r, raw, padded);
    if (!r || emu_insert(r) != 0) {
        if (r && r->reserved) munmap((void *)r->a.base, r->reserved);
        free(r);
        free(raw);
        emu_finding(emu_msg_host_oom, who, size);
        return cudaErrorMemoryAllocation;
    }
    memset(raw, initialised ? 0 : EMU_FRESH_BYTE, size);
    r->kind = kind;
    if (kind == EMU_MEM_DEVICE) r->a.device = emu_rt_device_current();
    r->raw = raw;
    r->counted = size;
    emu_used += size;
    *out = (void *)r->a.base;
    return cudaSuccess;
}

void *emu_device_repeated(const void *chunk, size_t chunk_bytes, size_t total_bytes)
{
    long page = sysconf(_SC_PAGESIZE);
    if (!chunk_bytes || page <= 0 || chunk_bytes % (size_t)page || chunk_bytes > emu_rt_mem_total() - emu_used)
        return NULL;
    int fd = memfd_create("emu-repeated-input", MFD_CLOEXEC);
    if (fd < 0) return NULL;
    size_t chunks = (total_bytes + chunk_bytes - 1) / chunk_bytes, mapped = chunks * chunk_bytes + (size_t)page;
    char *base = MAP_FAILED;
    if (ftruncate(fd, (off_t)chunk_bytes) == 0 && pwrite(fd, chunk, chunk_bytes, 0) == (ssize_t)chunk_bytes)
        /* the whole range first, unreadable: its last page stays so, past the end */
        base = mmap(NULL, mapped, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    for (size_t k = 0; base != MAP_FAILED && k < chunks; k++)
        if (mmap(base + k * chunk_bytes, chunk_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED, fd, 0) == MAP_FAILED) {
            munmap(base, mapped);
            base = MAP_FAILED;
        }
    close(fd);   /* the mappings keep the chunk's pages */
    if (base == MAP_FAILED) return NULL;
    emu_rec *r = emu_rec_new(base, total_bytes, emu_kind_allocator(EMU_MEM_DEVICE), 1);
    if (r) emu_rec_reserve(r, base, mapped);
    if (!r || emu_insert(r) != 0) {
        if (r && r->reserved) munmap((void *)r->a.base, r->reserved);
        free(r);
        munmap(base, mapped);
        return NULL;
    }
    r->kind = EMU_MEM_DEVICE;
    r->a.device = emu_rt_device_current();
    r->raw = base;
    r->mapped = mapped;
    r->counted = chunk_bytes;
    emu_used += chunk_bytes;
    return (void *)r->a.base;
}

cudaError_t emu_rt_mem_free(void *p, enum emu_mem_kind kind, const char *who)
{
    long i = emu_find_index((uintptr_t)p);
    emu_rec *r = i >= 0 ? emu_recs[i] : NULL;
    int managed_ok = kind == EMU_MEM_DEVICE && r && r->kind == EMU_MEM_MANAGED; /* cudaFree frees both */
    if (!r || r->a.base != (uintptr_t)p || (r->kind != kind && !managed_ok)) {
        emu_finding(emu_msg_bad_free, who, p, emu_kind_allocator(kind));
        return cudaErrorInvalidValue;
    }
    emu_order_forget(&r->a);
    emu_rec_free(emu_remove((uintptr_t)p));
    return cudaSuccess;
}

enum emu_mem_kind emu_rt_mem_kind(const emu_alloc *a)
{
    return ((const emu_rec *)a)->kind;  /* a is the first member of its record */
}

void emu_rt_mem_mark(emu_alloc *a, uintptr_t addr, size_t len)
{
    emu_alloc_mark(a, addr - a->base, len);
}

void emu_rt_mem_copy_marks(emu_alloc *dst, uintptr_t daddr, const emu_alloc *src, uintptr_t saddr,
                           size_t len)
{
    size_t doff = daddr - dst->base, soff = saddr - src->base;
    if (emu_alloc_written(src, soff, len)) { emu_alloc_mark(dst, doff, len); return; }
    /* Some source bytes were never written: the destination's prefix ends before the copy, and each
     * destination byte takes its source byte's state. */
    unsigned char *state = malloc(len), *flags = emu_alloc_flags(dst);
    if (!state) abort();
    for (size_t i = 0; i < len; i++) state[i] = (unsigned char)emu_alloc_written(src, soff + i, 1);
    if (doff < dst->written_upto) {
        memset(flags + doff, 1, dst->written_upto - doff);
        dst->written_upto = doff;
    }
    memcpy(flags + doff, state, len);
    free(state);
    emu_alloc_settle(dst);
}

void emu_rt_mem_reset(void)
{
    size_t kept = 0;
    for (size_t i = 0; i < emu_nrecs; i++) {
        if (emu_recs[i]->kind == EMU_MEM_MODULE) emu_recs[kept++] = emu_recs[i];
        else emu_rec_free(emu_recs[i]);
    }
    emu_nrecs = kept;
    emu_generation++;
}
