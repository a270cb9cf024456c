/* emu_api.c - the public memory calls: allocation, copies, memsets and __device__ symbols, each
 * checking that device pointers are real allocations and sizes fit before touching a byte. */
#include <string.h>

#include "emu_rt.h"

static const char emu_msg_null[] = N_("%s was given a NULL %s pointer");
static const char emu_msg_not_device[] =
    N_("%s: the %s pointer %p is not device memory (it does not point into any allocation from cudaMalloc)%s");
static const char emu_msg_swapped[] =
    N_("; are the arguments the wrong way round? cudaMemcpy takes (destination, source, bytes, kind)");
static const char emu_msg_overrun[] =
    N_("%s: %zu bytes at the %s %p run %zu bytes past the end of its %zu-byte allocation from %s "
    "(the range starts at byte %zu of it)");
static const char emu_msg_direction[] = N_("%s was given %d as the copy direction, which is not a cudaMemcpyKind");
static const char emu_msg_symbol_fit[] =
    N_("%s: %zu bytes at offset %zu do not fit in the variable %s, which holds %zu bytes");
static const char emu_msg_symbol_kind[] =
    N_("%s: a copy to or from a variable must be cudaMemcpyHostToDevice/DeviceToHost, DeviceToDevice or Default");

/* ---- Checks --------------------------------------------------------------------------------------- */

/* The allocation holding all of [p, p+count), or NULL after a finding that says what is wrong. */
static emu_alloc *emu_device_range(const void *p, size_t count, const char *who, const char *role,
                                   const void *other)
{
    emu_alloc *a = emu_mem_lookup((uintptr_t)p, count);
    if (a) return a;
    emu_alloc *start = emu_mem_lookup((uintptr_t)p, 1);
    if (start) {
        size_t off = (uintptr_t)p - start->base;
        emu_finding(emu_msg_overrun, who, count, emu_text(role), p, count - (start->size - off), start->size,
                    start->what, off);
    } else {
        int swapped = other && emu_mem_lookup((uintptr_t)other, 1) != NULL;
        emu_finding(emu_msg_not_device, who, emu_text(role), p, swapped ? emu_text(emu_msg_swapped) : "");
    }
    return NULL;
}

/* The copy behind every cudaMemcpy flavour. Device sides are checked by kind; Default infers them. */
cudaError_t emu_rt_copy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind, const char *who,
                        cudaStream_t stream)
{
    cudaError_t err = emu_rt_status();
    if (err != cudaSuccess) return err;
    if (count == 0) return cudaSuccess;
    if (!dst || !src) {
        emu_finding(emu_msg_null, who, !dst ? emu_text("destination") : emu_text("source"));
        return emu_rt_fail(cudaErrorInvalidValue);
    }
    int dst_dev, src_dev;
    switch (kind) {
    case cudaMemcpyHostToHost: dst_dev = 0; src_dev = 0; break;
    case cudaMemcpyHostToDevice: dst_dev = 1; src_dev = 0; break;
    case cudaMemcpyDeviceToHost: dst_dev = 0; src_dev = 1; break;
    case cudaMemcpyDeviceToDevice: dst_dev = 1; src_dev = 1; break;
    case cudaMemcpyDefault:
        dst_dev = emu_mem_lookup((uintptr_t)dst, 1) != NULL;
        src_dev = emu_mem_lookup((uintptr_t)src, 1) != NULL;
        break;
    default:
        emu_finding(emu_msg_direction, who, (int)kind);
        return emu_rt_fail(cudaErrorInvalidMemcpyDirection);
    }
    emu_alloc *d = NULL, *s = NULL;
    if (dst_dev && !(d = emu_device_range(dst, count, who, N_("destination"), src)))
        return emu_rt_fail(cudaErrorInvalidValue);
    if (src_dev && !(s = emu_device_range(src, count, who, N_("source"), dst)))
        return emu_rt_fail(cudaErrorInvalidValue);

    /* On the stream's queue: its order against the other streams' and devices' work is checked. */
    int device, queue = emu_rt_stream_queue(stream, &device);
    emu_order_begin(queue, device, who);
    emu_order_range(s, (uintptr_t)src, count, 0);
    emu_order_range(d, (uintptr_t)dst, count, 1);
    if (emu_rt_stream_is_default(stream)) emu_rt_activity.default_stream_copies++;
    /* The bytes move between the emulator's views: the program's device addresses cannot be touched. A
     * pointer that the kind calls a host pointer is looked up too, as a GPU's runtime with unified
     * addressing does. */
    memmove(d ? emu_alloc_view(d, (uintptr_t)dst) : emu_mem_view(dst),
            s ? emu_alloc_view(s, (uintptr_t)src) : emu_mem_view(src), count);
    emu_order_end();
    /* Device-to-device copies carry "never written" along; anything from the host counts as written. */
    if (d && s) emu_rt_mem_copy_marks(d, (uintptr_t)dst, s, (uintptr_t)src, count);
    else if (d) emu_rt_mem_mark(d, (uintptr_t)dst, count);
    return cudaSuccess;
}

/* ---- Allocation ----------------------------------------------------------------------------------- */

static cudaError_t emu_alloc_checked(void **p, size_t size, enum emu_mem_kind kind, const char *who)
{
    cudaError_t err = emu_rt_status();
    if (err != cudaSuccess) return err;
    if (!p) {
        emu_finding(emu_msg_null, who, emu_text("result"));
        return emu_rt_fail(cudaErrorInvalidValue);
    }
    if (size == 0) { *p = NULL; return cudaSuccess; }
    err = emu_rt_mem_alloc(p, size, kind, who);
    if (err != cudaSuccess) return emu_rt_fail(err);
    if (kind == EMU_MEM_DEVICE || kind == EMU_MEM_MANAGED) {
        emu_rt_activity.allocations++;
        emu_rt_activity.allocated_bytes += size;
    }
    return cudaSuccess;
}

static cudaError_t emu_free_checked(void *p, enum emu_mem_kind kind, const char *who)
{
    cudaError_t err = emu_rt_status();
    if (err != cudaSuccess) return err;
    if (!p) return cudaSuccess;  /* cudaFree(0) is the classic way to start the runtime */
    err = emu_rt_mem_free(p, kind, who);
    if (err != cudaSuccess) return emu_rt_fail(err);
    if (kind == EMU_MEM_DEVICE) emu_rt_activity.frees++;
    return cudaSuccess;
}

cudaError_t cudaMalloc(void **p, size_t size) { return emu_alloc_checked(p, size, EMU_MEM_DEVICE, "cudaMalloc"); }

/* cudaFree waits for the device to finish what was queued before it (cudaFreeAsync does not). */
cudaError_t cudaFree(void *p)
{
    cudaError_t err = emu_free_checked(p, EMU_MEM_DEVICE, "cudaFree");
    if (err == cudaSuccess && p) {
        emu_rt_activity.host_waits++;
        emu_order_host_wait_device(emu_rt_device_current());
    }
    return err;
}
cudaError_t cudaMallocHost(void **p, size_t size) { return emu_alloc_checked(p, size, EMU_MEM_HOST, "cudaMallocHost"); }
cudaError_t cudaFreeHost(void *p) { return emu_free_checked(p, EMU_MEM_HOST, "cudaFreeHost"); }

cudaError_t cudaHostAlloc(void **p, size_t size, unsigned flags)
{
    (void)flags;
    return emu_alloc_checked(p, size, EMU_MEM_HOST, "cudaHostAlloc");
}

cudaError_t cudaMallocManaged(void **p, size_t size, unsigned flags)
{
    (void)flags;
    return emu_alloc_checked(p, size, EMU_MEM_MANAGED, "cudaMallocManaged");
}

cudaError_t cudaMallocAsync(void **p, size_t size, cudaStream_t s)
{
    if (!emu_rt_stream_valid(s)) return emu_rt_fail(cudaErrorInvalidResourceHandle);
    return emu_alloc_checked(p, size, EMU_MEM_DEVICE, "cudaMallocAsync");
}

cudaError_t cudaFreeAsync(void *p, cudaStream_t s)
{
    if (!emu_rt_stream_valid(s)) return emu_rt_fail(cudaErrorInvalidResourceHandle);
    return emu_free_checked(p, EMU_MEM_DEVICE, "cudaFreeAsync");
}

cudaError_t cudaMallocPitch(void **p, size_t *pitch, size_t width, size_t height)
{
    if (!pitch) return emu_rt_fail(cudaErrorInvalidValue);
    size_t row = (width + 511) / 512 * 512;  /* rows aligned as a GPU's texture pitch would be */
    if (height && row > (size_t)-1 / height) return emu_rt_fail(cudaErrorMemoryAllocation);
    *pitch = row;
    return emu_alloc_checked(p, row * height, EMU_MEM_DEVICE, "cudaMallocPitch");
}

cudaError_t cudaHostGetDevicePointer(void **dev, void *host, unsigned flags)
{
    (void)flags;
    emu_alloc *a = emu_mem_lookup((uintptr_t)host, 1);
    if (!dev || !a || emu_rt_mem_kind(a) != EMU_MEM_HOST) return emu_rt_fail(cudaErrorInvalidValue);
    *dev = host;  /* one address space: pinned memory is mapped at the same address */
    return cudaSuccess;
}

cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total_bytes)
{
    cudaError_t err = emu_rt_status();
    if (err != cudaSuccess) return err;
    if (free_bytes) *free_bytes = emu_rt_mem_total() - emu_rt_mem_used();
    if (total_bytes) *total_bytes = emu_rt_mem_total();
    return cudaSuccess;
}

/* ---- Copies and memsets ------------------------------------------------------------------------------ */

/* A copy without Async returns once it is done, behind the work queued before it: the host has waited
 * for the device. A copy from device to device is the exception: the host only queues it. */
static cudaError_t emu_count_wait(cudaError_t err, const void *dst, const void *src, enum cudaMemcpyKind kind)
{
    int device_to_device = kind == cudaMemcpyDeviceToDevice ||
        (kind == cudaMemcpyDefault && emu_mem_lookup((uintptr_t)dst, 1) && emu_mem_lookup((uintptr_t)src, 1));
    if (err == cudaSuccess && !device_to_device) {
        emu_rt_activity.host_waits++;
        emu_order_host_wait_queue(emu_order_legacy(emu_rt_device_current()));
    }
    return err;
}

cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind)
{
    return emu_count_wait(emu_rt_copy(dst, src, count, kind, "cudaMemcpy", NULL), dst, src, kind);
}

cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind, cudaStream_t s)
{
    if (!emu_rt_stream_valid(s)) return emu_rt_fail(cudaErrorInvalidResourceHandle);
    return emu_rt_copy(dst, src, count, kind, "cudaMemcpyAsync", s);
}

cudaError_t cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height,
                         enum cudaMemcpyKind kind)
{
    if (width > dpitch || width > spitch) return emu_rt_fail(cudaErrorInvalidPitchValue);
    for (size_t r = 0; r < height; r++) {
        cudaError_t err = emu_rt_copy((char *)dst + r * dpitch, (const char *)src + r * spitch, width, kind,
                                      "cudaMemcpy2D", NULL);
        if (err != cudaSuccess) return err;
    }
    return emu_count_wait(cudaSuccess, dst, src, kind);
}

static cudaError_t emu_memset(void *p, int value, size_t count, const char *who, cudaStream_t stream)
{
    cudaError_t err = emu_rt_status();
    if (err != cudaSuccess) return err;
    if (count == 0) return cudaSuccess;
    if (!p) {
        emu_finding(emu_msg_null, who, emu_text("destination"));
        return emu_rt_fail(cudaErrorInvalidValue);
    }
    emu_alloc *a = emu_device_range(p, count, who, N_("destination"), NULL);
    if (!a) return emu_rt_fail(cudaErrorInvalidValue);
    int device, queue = emu_rt_stream_queue(stream, &device);
    emu_order_begin(queue, device, who);
    emu_order_range(a, (uintptr_t)p, count, 1);
    if (emu_rt_stream_is_default(stream)) emu_rt_activity.default_stream_copies++;
    memset(emu_alloc_view(a, (uintptr_t)p), value, count);
    emu_order_end();
    emu_rt_mem_mark(a, (uintptr_t)p, count);
    return cudaSuccess;
}

cudaError_t cudaMemset(void *p, int value, size_t count) { return emu_memset(p, value, count, "cudaMemset", NULL); }

cudaError_t cudaMemsetAsync(void *p, int value, size_t count, cudaStream_t s)
{
    if (!emu_rt_stream_valid(s)) return emu_rt_fail(cudaErrorInvalidResourceHandle);
    return emu_memset(p, value, count, "cudaMemsetAsync", s);
}

/* ---- __device__ and __constant__ variables ------------------------------------------------------------- */

/* The device address of [offset, offset+count) of symbol, or NULL after a finding and a failure. */
static void *emu_symbol_range(const void *symbol, size_t count, size_t offset, const char *who, cudaError_t *err)
{
    size_t size = 0;
    const char *name = "?";
    char *p = emu_rt_symbol(symbol, &size, &name, err);
    if (!p) return NULL;
    if (offset > size || count > size - offset) {
        emu_finding(emu_msg_symbol_fit, who, count, offset, name, size);
        *err = cudaErrorInvalidValue;
        return NULL;
    }
    return p + offset;
}

static cudaError_t emu_symbol_copy(const void *symbol, void *host, size_t count, size_t offset,
                                   enum cudaMemcpyKind kind, int to_symbol, const char *who)
{
    cudaError_t err = emu_rt_status();
    if (err != cudaSuccess) return err;
    enum cudaMemcpyKind host_side = to_symbol ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost;
    if (kind != host_side && kind != cudaMemcpyDeviceToDevice && kind != cudaMemcpyDefault) {
        emu_finding(emu_msg_symbol_kind, who);
        return emu_rt_fail(cudaErrorInvalidMemcpyDirection);
    }
    void *dev = emu_symbol_range(symbol, count, offset, who, &err);
    if (!dev) return emu_rt_fail(err);
    return to_symbol ? emu_rt_copy(dev, host, count, kind, who, NULL) : emu_rt_copy(host, dev, count, kind, who, NULL);
}

cudaError_t cudaMemcpyToSymbol(const void *symbol, const void *src, size_t count, size_t offset,
                               enum cudaMemcpyKind kind)
{
    cudaError_t err = emu_symbol_copy(symbol, (void *)src, count, offset, kind, 1, "cudaMemcpyToSymbol");
    return kind == cudaMemcpyDeviceToDevice ? err : emu_count_wait(err, NULL, src, kind);
}

cudaError_t cudaMemcpyFromSymbol(void *dst, const void *symbol, size_t count, size_t offset,
                                 enum cudaMemcpyKind kind)
{
    cudaError_t err = emu_symbol_copy(symbol, dst, count, offset, kind, 0, "cudaMemcpyFromSymbol");
    return kind == cudaMemcpyDeviceToDevice ? err : emu_count_wait(err, dst, NULL, kind);
}

cudaError_t cudaMemcpyToSymbolAsync(const void *symbol, const void *src, size_t count, size_t offset,
                                    enum cudaMemcpyKind kind, cudaStream_t s)
{
    if (!emu_rt_stream_valid(s)) return emu_rt_fail(cudaErrorInvalidResourceHandle);
    return emu_symbol_copy(symbol, (void *)src, count, offset, kind, 1, "cudaMemcpyToSymbolAsync");
}

cudaError_t cudaMemcpyFromSymbolAsync(void *dst, const void *symbol, size_t count, size_t offset,
                                      enum cudaMemcpyKind kind, cudaStream_t s)
{
    if (!emu_rt_stream_valid(s)) return emu_rt_fail(cudaErrorInvalidResourceHandle);
    return emu_symbol_copy(symbol, dst, count, offset, kind, 0, "cudaMemcpyFromSymbolAsync");
}

cudaError_t cudaGetSymbolAddress(void **dev, const void *symbol)
{
    cudaError_t err = emu_rt_status();
    if (err != cudaSuccess) return err;
    if (!dev) return emu_rt_fail(cudaErrorInvalidValue);
    void *p = emu_rt_symbol(symbol, NULL, NULL, &err);
    if (!p) return emu_rt_fail(err);
    *dev = p;
    return cudaSuccess;
}

cudaError_t cudaGetSymbolSize(size_t *size, const void *symbol)
{
    cudaError_t err = emu_rt_status();
    if (err != cudaSuccess) return err;
    if (!size) return emu_rt_fail(cudaErrorInvalidValue);
    if (!emu_rt_symbol(symbol, size, NULL, &err)) return emu_rt_fail(err);
    return cudaSuccess;
}

/* ---- Unified memory: one address space here, so hints and prefetches have nothing to do ---------- */

cudaError_t cudaMemPrefetchAsync(const void *p, size_t count, struct cudaMemLocation location, unsigned flags,
                                 cudaStream_t s)
{
    (void)location; (void)flags;
    if (!emu_rt_stream_valid(s)) return emu_rt_fail(cudaErrorInvalidResourceHandle);
    if (count && !emu_device_range(p, count, "cudaMemPrefetchAsync", N_("range"), NULL))
        return emu_rt_fail(cudaErrorInvalidValue);
    return cudaSuccess;
}

cudaError_t cudaMemAdvise(const void *p, size_t count, enum cudaMemoryAdvise advice, struct cudaMemLocation location)
{
    (void)advice; (void)location;
    if (count && !emu_device_range(p, count, "cudaMemAdvise", N_("range"), NULL))
        return emu_rt_fail(cudaErrorInvalidValue);
    return cudaSuccess;
}

cudaError_t cudaPointerGetAttributes(struct cudaPointerAttributes *attr, const void *p)
{
    if (!attr) return emu_rt_fail(cudaErrorInvalidValue);
    memset(attr, 0, sizeof *attr);
    emu_alloc *a = emu_mem_lookup((uintptr_t)p, 1);
    if (!a) {
        attr->type = cudaMemoryTypeUnregistered;
        attr->hostPointer = (void *)p;
        return cudaSuccess;
    }
    switch (emu_rt_mem_kind(a)) {
    case EMU_MEM_HOST: attr->type = cudaMemoryTypeHost; break;
    case EMU_MEM_MANAGED: attr->type = cudaMemoryTypeManaged; break;
    default: attr->type = cudaMemoryTypeDevice; break;
    }
    attr->device = a->device >= 0 ? a->device : emu_rt_device_current();
    attr->devicePointer = (void *)p;
    attr->hostPointer = attr->type == cudaMemoryTypeDevice ? NULL : (void *)p;
    return cudaSuccess;
}
