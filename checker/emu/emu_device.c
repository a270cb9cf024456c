/* emu_device.c - an emulated device: its properties and attributes, kernel attributes, the
 * occupancy estimate, and device-wide calls (synchronise, reset). Limits come from emu_rt.h. */
#include <string.h>

#include "emu_rt.h"

#define EMU_RESERVED_SHARED_PER_BLOCK 1024  /* what sm_80 and later keep back from each block */

static const char emu_msg_optin[] =
    N_("cudaFuncSetAttribute(%s, cudaFuncAttributeMaxDynamicSharedMemorySize, %d): with %zu bytes of static "
    "shared memory the most a kernel may opt in to is %zu");
static const char emu_msg_not_kernel[] = N_("%s was given %p, which is not a __global__ function of this program");

/* ---- The device ------------------------------------------------------------------------------------ */

/* cudaGetDeviceCount, cudaGetDevice and cudaSetDevice are emu_devices.c's. */

cudaError_t cudaSetDeviceFlags(unsigned flags) { (void)flags; return cudaSuccess; }

cudaError_t cudaGetDeviceFlags(unsigned *flags)
{
    if (!flags) return emu_rt_fail(cudaErrorInvalidValue);
    *flags = cudaDeviceScheduleAuto;
    return cudaSuccess;
}

cudaError_t cudaDriverGetVersion(int *v)
{
    if (!v) return emu_rt_fail(cudaErrorInvalidValue);
    *v = CUDART_VERSION;
    return cudaSuccess;
}

cudaError_t cudaRuntimeGetVersion(int *v) { return cudaDriverGetVersion(v); }

cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *p, int device)
{
    if (!p) return emu_rt_fail(cudaErrorInvalidValue);
    cudaError_t err = emu_rt_device_check(device, "cudaGetDeviceProperties");
    if (err != cudaSuccess) return err;
    memset(p, 0, sizeof *p);
    strcpy(p->name, EMU_DEVICE_NAME);
    p->totalGlobalMem = emu_rt_mem_total();
    p->sharedMemPerBlock = EMU_SHARED_PER_BLOCK;
    p->regsPerBlock = EMU_REGS_PER_SM;
    p->warpSize = EMU_WARP_SIZE;
    p->memPitch = 2147483647;
    p->maxThreadsPerBlock = EMU_MAX_THREADS_PER_BLOCK;
    p->maxThreadsDim[0] = EMU_MAX_BLOCK_X;
    p->maxThreadsDim[1] = EMU_MAX_BLOCK_Y;
    p->maxThreadsDim[2] = EMU_MAX_BLOCK_Z;
    p->maxGridSize[0] = (int)EMU_MAX_GRID_X;
    p->maxGridSize[1] = (int)EMU_MAX_GRID_YZ;
    p->maxGridSize[2] = (int)EMU_MAX_GRID_YZ;
    p->totalConstMem = EMU_CONST_MEM;
    p->major = EMU_CC_MAJOR;
    p->minor = EMU_CC_MINOR;
    p->textureAlignment = 512;
    p->texturePitchAlignment = 32;
    p->multiProcessorCount = emu_rt_sm_count();
    p->canMapHostMemory = 1;
    p->concurrentKernels = 1;
    p->unifiedAddressing = 1;
    p->memoryBusWidth = 5120;
    p->l2CacheSize = (int)EMU_L2_BYTES;
    p->maxThreadsPerMultiProcessor = EMU_THREADS_PER_SM;
    p->globalL1CacheSupported = 1;
    p->localL1CacheSupported = 1;
    p->sharedMemPerMultiprocessor = EMU_SHARED_PER_SM;
    p->regsPerMultiprocessor = EMU_REGS_PER_SM;
    p->managedMemory = 1;
    p->cooperativeLaunch = 1;
    p->sharedMemPerBlockOptin = EMU_SHARED_PER_BLOCK_OPTIN;
    p->maxBlocksPerMultiProcessor = EMU_BLOCKS_PER_SM;
    p->reservedSharedMemPerBlock = EMU_RESERVED_SHARED_PER_BLOCK;
    p->persistingL2CacheMaxSize = (int)(EMU_L2_BYTES / 4 * 3);
    p->accessPolicyMaxWindowSize = 134213632;
    return cudaSuccess;
}

/* The name CUDA 12's headers map cudaGetDeviceProperties to; the same layout in this build. */
cudaError_t cudaGetDeviceProperties_v2(struct cudaDeviceProp *p, int device)
{
    return cudaGetDeviceProperties(p, device);
}

cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr, int device)
{
    if (!value) return emu_rt_fail(cudaErrorInvalidValue);
    cudaError_t err = emu_rt_device_check(device, "cudaDeviceGetAttribute");
    if (err != cudaSuccess) return err;
    int v;
    switch (attr) {
    case cudaDevAttrMaxThreadsPerBlock: v = EMU_MAX_THREADS_PER_BLOCK; break;
    case cudaDevAttrMaxBlockDimX: v = EMU_MAX_BLOCK_X; break;
    case cudaDevAttrMaxBlockDimY: v = EMU_MAX_BLOCK_Y; break;
    case cudaDevAttrMaxBlockDimZ: v = EMU_MAX_BLOCK_Z; break;
    case cudaDevAttrMaxGridDimX: v = (int)EMU_MAX_GRID_X; break;
    case cudaDevAttrMaxGridDimY: case cudaDevAttrMaxGridDimZ: v = (int)EMU_MAX_GRID_YZ; break;
    case cudaDevAttrMaxSharedMemoryPerBlock: v = EMU_SHARED_PER_BLOCK; break;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin: v = EMU_SHARED_PER_BLOCK_OPTIN; break;
    case cudaDevAttrMaxSharedMemoryPerMultiprocessor: v = EMU_SHARED_PER_SM; break;
    case cudaDevAttrReservedSharedMemoryPerBlock: v = EMU_RESERVED_SHARED_PER_BLOCK; break;
    case cudaDevAttrTotalConstantMemory: v = EMU_CONST_MEM; break;
    case cudaDevAttrWarpSize: v = EMU_WARP_SIZE; break;
    case cudaDevAttrMaxRegistersPerBlock: case cudaDevAttrMaxRegistersPerMultiprocessor: v = EMU_REGS_PER_SM; break;
    case cudaDevAttrMultiProcessorCount: v = emu_rt_sm_count(); break;
    case cudaDevAttrMaxThreadsPerMultiProcessor: v = EMU_THREADS_PER_SM; break;
    case cudaDevAttrMaxBlocksPerMultiprocessor: v = EMU_BLOCKS_PER_SM; break;
    case cudaDevAttrComputeCapabilityMajor: v = EMU_CC_MAJOR; break;
    case cudaDevAttrComputeCapabilityMinor: v = EMU_CC_MINOR; break;
    case cudaDevAttrL2CacheSize: v = (int)EMU_L2_BYTES; break;
    case cudaDevAttrGlobalMemoryBusWidth: v = 5120; break;
    case cudaDevAttrClockRate: v = 1980000; break;        /* kHz, as an H100 SXM reports it */
    case cudaDevAttrMemoryClockRate: v = 2619000; break;
    case cudaDevAttrUnifiedAddressing: case cudaDevAttrManagedMemory: case cudaDevAttrCanMapHostMemory:
    case cudaDevAttrConcurrentKernels: case cudaDevAttrGlobalL1CacheSupported:
    case cudaDevAttrLocalL1CacheSupported: case cudaDevAttrCooperativeLaunch: case cudaDevAttrClusterLaunch:
        v = 1; break;
    default: v = 0; break;  /* features the emulator does not have */
    }
    *value = v;
    return cudaSuccess;
}

cudaError_t cudaDeviceSynchronize(void)
{
    emu_rt_activity.host_waits++;
    emu_order_host_wait_device(emu_rt_device_current());
    return emu_rt_status();
}

cudaError_t cudaDeviceReset(void)
{
    /* A reset destroys the context: its memory, its modules (and so __device__ variables), its errors. */
    emu_rt_held_run();   /* after the work queued before it */
    emu_order_reset();
    emu_rt_mem_reset();
    emu_rt_modules_reset();
    emu_rt_errors_reset();
    emu_rt_devices_reset();
    return cudaSuccess;
}

cudaError_t cudaDeviceSetCacheConfig(enum cudaFuncCache c) { (void)c; return cudaSuccess; }

cudaError_t cudaDeviceGetCacheConfig(enum cudaFuncCache *c)
{
    if (!c) return emu_rt_fail(cudaErrorInvalidValue);
    *c = cudaFuncCachePreferNone;
    return cudaSuccess;
}

cudaError_t cudaDeviceSetLimit(enum cudaLimit limit, size_t value) { (void)limit; (void)value; return cudaSuccess; }

cudaError_t cudaDeviceGetLimit(size_t *value, enum cudaLimit limit)
{
    if (!value) return emu_rt_fail(cudaErrorInvalidValue);
    switch (limit) {
    case cudaLimitStackSize: *value = 1024; break;
    case cudaLimitPrintfFifoSize: *value = 1 << 20; break;
    case cudaLimitMallocHeapSize: *value = 8 << 20; break;
    default: *value = 0; break;
    }
    return cudaSuccess;
}

/* ---- Kernels' attributes and occupancy ------------------------------------------------------------------ */

/* The kernel behind a host stub, or NULL after recording why (err set). */
static const emu_kernel *emu_kernel_of(const void *func, emu_rt_function **fout, const char *who, cudaError_t *err)
{
    emu_rt_function *f = emu_rt_function_find(func);
    if (!f) {
        emu_finding(emu_msg_not_kernel, who, func);
        *err = cudaErrorInvalidDeviceFunction;
        return NULL;
    }
    if (fout) *fout = f;
    return emu_rt_function_kernel(f, err);
}

cudaError_t cudaFuncSetAttribute(const void *func, enum cudaFuncAttribute attr, int value)
{
    cudaError_t err = cudaSuccess;
    emu_rt_function *f = NULL;
    const emu_kernel *k = emu_kernel_of(func, &f, "cudaFuncSetAttribute", &err);
    if (!k) return emu_rt_fail(err);
    if (attr == cudaFuncAttributeMaxDynamicSharedMemorySize) {
        size_t stat = emu_kernel_static_shared(k);
        if (value < 0 || stat + (size_t)value > EMU_SHARED_PER_BLOCK_OPTIN) {
            emu_finding(emu_msg_optin, emu_kernel_name(k), value, stat,
                        stat < EMU_SHARED_PER_BLOCK_OPTIN ? EMU_SHARED_PER_BLOCK_OPTIN - stat : 0);
            return emu_rt_fail(cudaErrorInvalidValue);
        }
        emu_rt_function_set_max_dynamic_shared(f, value);
    } else if (attr == cudaFuncAttributePreferredSharedMemoryCarveout) {
        if (value < -1 || value > 100) return emu_rt_fail(cudaErrorInvalidValue);
    } else if (attr == cudaFuncAttributeNonPortableClusterSizeAllowed) {
        if (value != 0 && value != 1) return emu_rt_fail(cudaErrorInvalidValue);
        emu_rt_function_cluster(f)->non_portable = value;
    } else if (attr >= cudaFuncAttributeRequiredClusterWidth && attr <= cudaFuncAttributeRequiredClusterDepth) {
        /* a cluster the kernel declares (__cluster_dims__) cannot be changed at run time */
        if (emu_kernel_cluster(k, NULL, NULL, NULL)) return emu_rt_fail(cudaErrorNotPermitted);
        if (value < 0) return emu_rt_fail(cudaErrorInvalidValue);
        emu_rt_function_cluster(f)->required[attr - cudaFuncAttributeRequiredClusterWidth] = value;
    } else if (attr == cudaFuncAttributeClusterSchedulingPolicyPreference) {
        if (value < 0 || value > 2) return emu_rt_fail(cudaErrorInvalidValue);
        emu_rt_function_cluster(f)->policy = value;
    }
    return cudaSuccess;
}

cudaError_t cudaFuncSetCacheConfig(const void *func, enum cudaFuncCache c)
{
    (void)c;
    cudaError_t err = cudaSuccess;
    return emu_kernel_of(func, NULL, "cudaFuncSetCacheConfig", &err) ? cudaSuccess : emu_rt_fail(err);
}

cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *a, const void *func)
{
    if (!a) return emu_rt_fail(cudaErrorInvalidValue);
    cudaError_t err = cudaSuccess;
    emu_rt_function *f = NULL;
    const emu_kernel *k = emu_kernel_of(func, &f, "cudaFuncGetAttributes", &err);
    if (!k) return emu_rt_fail(err);
    memset(a, 0, sizeof *a);
    size_t stat = emu_kernel_static_shared(k);
    int optin = emu_rt_function_max_dynamic_shared(f);
    a->sharedSizeBytes = stat;
    a->maxThreadsPerBlock = EMU_MAX_THREADS_PER_BLOCK;
    a->numRegs = EMU_REGS_PER_THREAD;
    a->ptxVersion = EMU_CC_MAJOR * 10 + EMU_CC_MINOR;
    a->binaryVersion = a->ptxVersion;
    a->maxDynamicSharedSizeBytes = optin > 0 ? optin
                                 : stat < EMU_SHARED_PER_BLOCK ? (int)(EMU_SHARED_PER_BLOCK - stat) : 0;
    a->preferredShmemCarveout = -1;
    dim3 cl;
    emu_rt_cluster_attrs *c = emu_rt_function_cluster(f);
    int explicit_cluster = 0;
    emu_kernel_cluster(k, NULL, &explicit_cluster, NULL);
    if (emu_rt_kernel_cluster(f, k, &cl)) {
        a->requiredClusterWidth = (int)cl.x;
        a->requiredClusterHeight = (int)cl.y;
        a->requiredClusterDepth = (int)cl.z;
    }
    a->clusterDimMustBeSet = explicit_cluster;
    a->nonPortableClusterSizeAllowed = c->non_portable;
    a->clusterSchedulingPolicyPreference = c->policy;
    return cudaSuccess;
}

cudaError_t cudaFuncGetName(const char **name, const void *func)
{
    cudaError_t err = cudaSuccess;
    if (!name) return emu_rt_fail(cudaErrorInvalidValue);
    const emu_kernel *k = emu_kernel_of(func, NULL, "cudaFuncGetName", &err);
    if (!k) return emu_rt_fail(err);
    *name = emu_kernel_name(k);
    return cudaSuccess;
}

/* Blocks of this size that fit on one SM at once, limited by threads, registers (assumed
 * EMU_REGS_PER_THREAD each), shared memory and the SM's block slots: the same rules as the
 * CUDA occupancy calculator, with warps as the unit of allocation. */
static int emu_blocks_per_sm(int block_size, size_t shared_per_block)
{
    int warps = (block_size + EMU_WARP_SIZE - 1) / EMU_WARP_SIZE;
    int threads = warps * EMU_WARP_SIZE;
    int n = EMU_THREADS_PER_SM / threads;
    int by_regs = EMU_REGS_PER_SM / (EMU_REGS_PER_THREAD * threads);
    if (by_regs < n) n = by_regs;
    if (shared_per_block > 0) {
        size_t by_shared = EMU_SHARED_PER_SM / (shared_per_block + EMU_RESERVED_SHARED_PER_BLOCK);
        if (by_shared < (size_t)n) n = (int)by_shared;
    }
    return n < EMU_BLOCKS_PER_SM ? n : EMU_BLOCKS_PER_SM;
}

int emu_rt_blocks_per_sm(emu_rt_function *f, const emu_kernel *k, int block_size, size_t dynamic_shared)
{
    size_t stat = emu_kernel_static_shared(k);
    int optin = emu_rt_function_max_dynamic_shared(f);
    /* what the kernel may ask for: 48 KB in all, or the dynamic size it opted in to */
    size_t limit = optin > 0 ? (size_t)optin : stat < EMU_SHARED_PER_BLOCK ? EMU_SHARED_PER_BLOCK - stat : 0;
    if (block_size <= 0 || block_size > EMU_MAX_THREADS_PER_BLOCK || dynamic_shared > limit) return 0;
    return emu_blocks_per_sm(block_size, stat + dynamic_shared);
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *num_blocks, const void *func,
                                                                   int block_size, size_t dynamic_shared,
                                                                   unsigned flags)
{
    (void)flags;
    if (!num_blocks || block_size <= 0) return emu_rt_fail(cudaErrorInvalidValue);
    cudaError_t err = cudaSuccess;
    emu_rt_function *f = NULL;
    const emu_kernel *k = emu_kernel_of(func, &f, "cudaOccupancyMaxActiveBlocksPerMultiprocessor", &err);
    if (!k) return emu_rt_fail(err);
    *num_blocks = emu_rt_blocks_per_sm(f, k, block_size, dynamic_shared);
    return cudaSuccess;
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *num_blocks, const void *func, int block_size,
                                                          size_t dynamic_shared)
{
    return cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(num_blocks, func, block_size,
                                                                  dynamic_shared, 0);
}

cudaError_t cudaOccupancyAvailableDynamicSMemPerBlock(size_t *dynamic_smem, const void *func, int num_blocks,
                                                      int block_size)
{
    if (!dynamic_smem || num_blocks <= 0 || block_size <= 0) return emu_rt_fail(cudaErrorInvalidValue);
    cudaError_t err = cudaSuccess;
    emu_rt_function *f = NULL;
    const emu_kernel *k = emu_kernel_of(func, &f, "cudaOccupancyAvailableDynamicSMemPerBlock", &err);
    if (!k) return emu_rt_fail(err);
    size_t stat = emu_kernel_static_shared(k), per = EMU_SHARED_PER_SM / (size_t)num_blocks;
    size_t avail = per > stat + EMU_RESERVED_SHARED_PER_BLOCK ? per - stat - EMU_RESERVED_SHARED_PER_BLOCK : 0;
    int optin = emu_rt_function_max_dynamic_shared(f);
    size_t limit = optin > 0 ? (size_t)optin : stat < EMU_SHARED_PER_BLOCK ? EMU_SHARED_PER_BLOCK - stat : 0;
    *dynamic_smem = emu_blocks_per_sm(block_size, 0) < num_blocks ? 0 : avail < limit ? avail : limit;
    return cudaSuccess;
}

/* ---- Clusters ------------------------------------------------------------------------------------------ */

/* Clusters of size blocks, each block with per_sm of them fitting on an SM, that the device holds at once:
 * a cluster's blocks share one GPC (emu_rt_sms_per_gpc), and SMs past the last whole GPC take none. */
static int clusters_at_once(unsigned size, int per_sm)
{
    int gpc = emu_rt_sms_per_gpc(), blocks = per_sm * gpc;
    return size && (int)size <= blocks ? (emu_rt_sm_count() / gpc) * (blocks / (int)size) : 0;
}

cudaError_t cudaOccupancyMaxActiveClusters(int *num_clusters, const void *func, const cudaLaunchConfig_t *config)
{
    if (!num_clusters || !config) return emu_rt_fail(cudaErrorInvalidValue);
    cudaError_t err = cudaSuccess;
    emu_rt_function *f = NULL;
    const emu_kernel *k = emu_kernel_of(func, &f, "cudaOccupancyMaxActiveClusters", &err);
    if (!k) return emu_rt_fail(err);
    dim3 d;
    if (!emu_rt_config_cluster(f, k, config, &d)) d = (dim3){ 1, 1, 1 };
    unsigned size = d.x * d.y * d.z;
    unsigned limit = emu_rt_function_cluster(f)->non_portable ? EMU_CLUSTER_MAX : EMU_CLUSTER_PORTABLE;
    if (!size || size > limit) return emu_rt_fail(cudaErrorInvalidClusterSize);
    dim3 b = config->blockDim;
    int per_sm = emu_rt_blocks_per_sm(f, k, (int)(b.x * b.y * b.z), config->dynamicSmemBytes);
    *num_clusters = clusters_at_once(size, per_sm);
    return cudaSuccess;
}

cudaError_t cudaOccupancyMaxPotentialClusterSize(int *cluster_size, const void *func, const cudaLaunchConfig_t *config)
{
    if (!cluster_size || !config) return emu_rt_fail(cudaErrorInvalidValue);
    cudaError_t err = cudaSuccess;
    emu_rt_function *f = NULL;
    const emu_kernel *k = emu_kernel_of(func, &f, "cudaOccupancyMaxPotentialClusterSize", &err);
    if (!k) return emu_rt_fail(err);
    dim3 b = config->blockDim;
    int per_sm = emu_rt_blocks_per_sm(f, k, (int)(b.x * b.y * b.z), config->dynamicSmemBytes);
    int limit = emu_rt_function_cluster(f)->non_portable ? EMU_CLUSTER_MAX : EMU_CLUSTER_PORTABLE;
    int fits = per_sm * emu_rt_sms_per_gpc();
    *cluster_size = fits < limit ? fits : limit;
    return cudaSuccess;
}

/* cuda_profiler_api.h: nothing to profile on a CPU, so both succeed. */
cudaError_t cudaProfilerStart(void) { return cudaSuccess; }
cudaError_t cudaProfilerStop(void) { return cudaSuccess; }
