/* emu_runtime.c - what nvcc's host stubs call: registration of fat binaries, kernels and variables,
 * the <<<...>>> call configuration, and launches (checked against the device's limits, then run). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu_rt.h"

/* ---- Messages ----------------------------------------------------------------------------------------- */

static const char emu_msg_no_image[] = N_("kernel %s cannot run: %s");
static const char emu_msg_bad_ptx[] = N_("the emulator cannot load this program's PTX: %s");
static const char emu_msg_not_in_ptx[] =
    N_("kernel %s is registered by the host code but missing from the program's PTX");
static const char emu_msg_unknown_fn[] =
    N_("a kernel launch named %p, which is not a __global__ function of this program");
static const char emu_msg_block_zero[] =
    N_("kernel %s was launched with %s = (%u, %u, %u): every dimension must be at least 1");
static const char emu_msg_block_dim[] =
    N_("kernel %s was launched with blockDim.%c = %u; the limit is %u");
static const char emu_msg_block_threads[] =
    N_("kernel %s was launched with %llu threads per block (%u x %u x %u); a block holds at most %d threads");
static const char emu_msg_grid_dim[] =
    N_("kernel %s was launched with gridDim.%c = %u; the limit is %u");
static const char emu_msg_shared[] =
    N_("kernel %s needs %zu bytes of shared memory per block (%zu static + %zu dynamic); the limit is %zu%s");
static const char emu_msg_shared_optin[] =
    N_(" (a kernel may opt in to up to %u with cudaFuncSetAttribute(kernel, "
    "cudaFuncAttributeMaxDynamicSharedMemorySize, bytes))");
static const char emu_msg_bad_stream[] =
    N_("kernel %s was launched on a stream that was never created or is already destroyed");
static const char emu_msg_stream_device[] =
    N_("kernel %s was launched on a stream of device %d while the current device is %d: a kernel runs on the "
    "current device, on one of its own streams (call cudaSetDevice(%d) before the launch)");
static const char emu_msg_kernel_op[] = N_("kernel %s");
static const char emu_msg_no_args[] =
    N_("kernel %s takes %d parameters but the launch passed no argument array");
static const char emu_msg_config_overflow[] =
    N_("too many nested <<<...>>> configurations: the emulator keeps %d");
static const char emu_msg_unknown_symbol[] =
    N_("%p is not a __device__ or __constant__ variable of this program (pass the variable itself, "
    "not its address or a pointer to it)");
static const char emu_msg_symbol_missing[] =
    N_("variable %s is registered by the host code but missing from the program's PTX");
static const char emu_msg_managed_missing[] =
    N_("__managed__ variable %s has no storage in the program's PTX; host code sees a zeroed stand-in");

/* ---- The registry ------------------------------------------------------------------------------------- */

/* One fat binary: one per translation unit, its module loaded on first use. */
typedef struct emu_rt_binary {
    const void *wrapper;
    emu_module *module;
    int tried;                 /* a load was attempted; its outcome is cached */
    cudaError_t load_error;
    char load_message[512];
    struct emu_rt_binary *next;
} emu_rt_binary;

#define EMU_FUNCTION_MAGIC 0x6b65726eu  /* "kern": tells a real cudaKernel_t from garbage */

struct emu_rt_function {
    unsigned magic;
    const void *host_fun;      /* the host stub: what <<<>>> and cudaLaunchKernel name */
    const char *entry;         /* the mangled PTX entry name */
    emu_rt_binary *bin;
    const emu_kernel *kernel;  /* NULL until the module is loaded */
    int max_dynamic_shared;    /* cudaFuncAttributeMaxDynamicSharedMemorySize, 0 when unset */
    emu_rt_cluster_attrs cluster;
    struct emu_rt_function *next;
};

typedef struct emu_rt_var {
    const void *host_var;      /* the host shadow: what cudaMemcpyToSymbol names */
    const char *name;
    size_t size;
    void **managed_ptr;        /* __managed__ variables: where host code looks for the storage */
    emu_rt_binary *bin;
    struct emu_rt_var *next;
} emu_rt_var;

static emu_rt_binary *emu_binaries;
static emu_rt_function *emu_functions;
static emu_rt_var *emu_vars;

/* Host code reaches a __managed__ variable through a pointer the runtime sets. It must never be
 * NULL once host code asks (that would crash the learner's program), so a failed load gets a stand-in. */
static void emu_bind_managed(emu_rt_binary *b)
{
    for (emu_rt_var *v = emu_vars; v; v = v->next) {
        if (v->bin != b || !v->managed_ptr) continue;
        void *p = b->module ? emu_module_global(b->module, v->name, NULL) : NULL;
        if (!p) {
            if (b->module) emu_finding(emu_msg_managed_missing, v->name);
            p = calloc(1, v->size ? v->size : 1);
        }
        *v->managed_ptr = p;
    }
}

static int emu_binary_has_managed(const emu_rt_binary *b)
{
    for (emu_rt_var *v = emu_vars; v; v = v->next)
        if (v->bin == b && v->managed_ptr) return 1;
    return 0;
}

/* Loads the binary's module once; afterwards returns the cached outcome. */
static cudaError_t emu_binary_load(emu_rt_binary *b)
{
    if (b->tried) return b->load_error;
    b->tried = 1;
    const char *ptx;
    size_t len;
    char err[400];
    if (emu_fatbin_ptx(b->wrapper, &ptx, &len, err, sizeof err) != 0) {
        snprintf(b->load_message, sizeof b->load_message, "%s", err);
        emu_bind_managed(b);
        return b->load_error = cudaErrorNoKernelImageForDevice;
    }
    err[0] = '\0';
    b->module = emu_module_load(ptx, len, err, sizeof err);
    if (!b->module) {
        snprintf(b->load_message, sizeof b->load_message, emu_text(emu_msg_bad_ptx),
                 err[0] ? err : emu_text("no reason given"));
        emu_bind_managed(b);
        return b->load_error = cudaErrorInvalidPtx;
    }
    b->load_error = cudaSuccess;
    emu_bind_managed(b);
    return cudaSuccess;
}

void emu_modules_load(void)
{
    for (emu_rt_binary *b = emu_binaries; b; b = b->next)
        if (!emu_binary_has_managed(b)) emu_binary_load(b);
}

void emu_rt_modules_reset(void)
{
    for (emu_rt_function *f = emu_functions; f; f = f->next) f->kernel = NULL;
    for (emu_rt_binary *b = emu_binaries; b; b = b->next) {
        if (b->module) emu_module_free(b->module);
        b->module = NULL;
        b->tried = 0;
        /* Host code reads a __managed__ variable's pointer at every use: give it the new storage now. */
        if (emu_binary_has_managed(b)) emu_binary_load(b);
    }
}

emu_rt_function *emu_rt_function_find(const void *host_fun)
{
    for (emu_rt_function *f = emu_functions; f; f = f->next)
        if (f->host_fun == host_fun) return f;
    return NULL;
}

const emu_kernel *emu_rt_function_kernel(emu_rt_function *f, cudaError_t *err)
{
    if (f->kernel) return f->kernel;
    *err = emu_binary_load(f->bin);
    if (*err != cudaSuccess) {
        if (*err == cudaErrorNoKernelImageForDevice) emu_finding(emu_msg_no_image, f->entry, f->bin->load_message);
        else emu_finding("%s", f->bin->load_message);
        return NULL;
    }
    f->kernel = emu_module_kernel(f->bin->module, f->entry);
    if (!f->kernel) {
        emu_finding(emu_msg_not_in_ptx, f->entry);
        *err = cudaErrorInvalidDeviceFunction;
    }
    return f->kernel;
}

emu_rt_cluster_attrs *emu_rt_function_cluster(emu_rt_function *f) { return &f->cluster; }

int emu_rt_kernel_cluster(emu_rt_function *f, const emu_kernel *k, dim3 *dims)
{
    emu_dim3 d;
    if (emu_kernel_cluster(k, &d, NULL, NULL)) { *dims = (dim3){ d.x, d.y, d.z }; return 1; }
    const int *r = f->cluster.required;
    if (r[0] > 0 && r[1] > 0 && r[2] > 0) { *dims = (dim3){ (unsigned)r[0], (unsigned)r[1], (unsigned)r[2] }; return 1; }
    return 0;
}

int emu_rt_config_cluster(emu_rt_function *f, const emu_kernel *k, const cudaLaunchConfig_t *c, dim3 *dims)
{
    for (unsigned i = 0; c && i < c->numAttrs && c->attrs; i++)
        if (c->attrs[i].id == cudaLaunchAttributeClusterDimension) {
            *dims = (dim3){ c->attrs[i].val.clusterDim.x, c->attrs[i].val.clusterDim.y, c->attrs[i].val.clusterDim.z };
            return 1;
        }
    return emu_rt_kernel_cluster(f, k, dims);
}

int emu_rt_function_max_dynamic_shared(const emu_rt_function *f) { return f->max_dynamic_shared; }
void emu_rt_function_set_max_dynamic_shared(emu_rt_function *f, int bytes) { f->max_dynamic_shared = bytes; }

void *emu_rt_symbol(const void *symbol, size_t *size, const char **name, cudaError_t *err)
{
    emu_rt_var *v = emu_vars;
    while (v && v->host_var != symbol) v = v->next;
    if (!v) {
        emu_finding(emu_msg_unknown_symbol, symbol);
        *err = cudaErrorInvalidSymbol;
        return NULL;
    }
    *err = emu_binary_load(v->bin);
    if (*err != cudaSuccess) {
        emu_finding("%s", v->bin->load_message);
        return NULL;
    }
    size_t sz = 0;
    void *p = emu_module_global(v->bin->module, v->name, &sz);
    if (!p) {
        emu_finding(emu_msg_symbol_missing, v->name);
        *err = cudaErrorInvalidSymbol;
        return NULL;
    }
    if (size) *size = sz ? sz : v->size;
    if (name) *name = v->name;
    return p;
}

/* ---- Registration: called by constructors that nvcc puts in every object with device code -------- */

void **__cudaRegisterFatBinary(void *fat_cubin)
{
    emu_rt_binary *b = calloc(1, sizeof *b);
    if (!b) { fprintf(stderr, "emulator: out of host memory at program start\n"); exit(1); }
    b->wrapper = fat_cubin;
    b->next = emu_binaries;
    emu_binaries = b;
    return (void **)b;  /* the handle: host code only passes it back */
}

void __cudaRegisterFatBinaryEnd(void **handle) { (void)handle; }

void __cudaUnregisterFatBinary(void **handle)
{
    emu_rt_binary *b = (emu_rt_binary *)handle;
    if (!b) return;
    if (b->module) emu_module_free(b->module);
    b->module = NULL;
    b->tried = 1;  /* the program is ending: do not reload */
    b->load_error = cudaErrorCudartUnloading;
    snprintf(b->load_message, sizeof b->load_message, "%s", emu_text("the program is exiting"));
    for (emu_rt_function *f = emu_functions; f; f = f->next)
        if (f->bin == b) f->kernel = NULL;
}

void __cudaRegisterFunction(void **handle, const char *host_fun, char *device_fun, const char *device_name,
                            int thread_limit, uint3 *tid, uint3 *bid, dim3 *bdim, dim3 *gdim, int *wsize)
{
    (void)device_fun; (void)thread_limit; (void)tid; (void)bid; (void)bdim; (void)gdim; (void)wsize;
    emu_rt_function *f = calloc(1, sizeof *f);
    if (!f) return;
    f->magic = EMU_FUNCTION_MAGIC;
    f->host_fun = host_fun;
    f->entry = device_name;
    f->bin = (emu_rt_binary *)handle;
    f->next = emu_functions;
    emu_functions = f;
}

static void emu_register_var(void **handle, const void *host_var, const char *name, size_t size,
                             void **managed_ptr)
{
    emu_rt_var *v = calloc(1, sizeof *v);
    if (!v) return;
    v->host_var = host_var;
    v->name = name;
    v->size = size;
    v->managed_ptr = managed_ptr;
    v->bin = (emu_rt_binary *)handle;
    v->next = emu_vars;
    emu_vars = v;
}

void __cudaRegisterVar(void **handle, char *host_var, char *device_address, const char *device_name,
                       int ext, size_t size, int constant, int global)
{
    (void)device_address; (void)ext; (void)constant; (void)global;
    emu_register_var(handle, host_var, device_name, size, NULL);
}

void __cudaRegisterManagedVar(void **handle, void **host_var_ptr, char *device_address,
                              const char *device_name, int ext, size_t size, int constant, int global)
{
    (void)device_address; (void)ext; (void)constant; (void)global;
    emu_register_var(handle, host_var_ptr, device_name, size, host_var_ptr);
}

/* Called before host code touches a __managed__ variable: its storage must exist by then. */
char __cudaInitModule(void **handle)
{
    return emu_binary_load((emu_rt_binary *)handle) == cudaSuccess;
}

cudaError_t __cudaGetKernel(cudaKernel_t *kernel, const void *host_fun)
{
    emu_rt_function *f = emu_rt_function_find(host_fun);
    if (kernel) *kernel = (cudaKernel_t)f;
    return f ? cudaSuccess : cudaErrorInvalidDeviceFunction;
}

/* ---- The call configuration: <<<grid, block, shared, stream>>> pushes, the stub pops ------------- */

#define EMU_CONFIG_DEPTH 8

typedef struct { dim3 grid, block; size_t shared; cudaStream_t stream; } emu_config;

static _Thread_local emu_config emu_configs[EMU_CONFIG_DEPTH];
static _Thread_local int emu_nconfigs;

unsigned __cudaPushCallConfiguration(dim3 grid, dim3 block, size_t shared, struct CUstream_st *stream)
{
    if (emu_nconfigs == EMU_CONFIG_DEPTH) {
        emu_finding(emu_msg_config_overflow, EMU_CONFIG_DEPTH);
        emu_rt_fail(cudaErrorLaunchFailure);
        return 1;  /* nonzero: the <<<>>> expression skips the call */
    }
    emu_configs[emu_nconfigs++] = (emu_config){grid, block, shared, stream};
    return 0;
}

cudaError_t __cudaPopCallConfiguration(dim3 *grid, dim3 *block, size_t *shared, void *stream)
{
    if (emu_nconfigs == 0) return emu_rt_fail(cudaErrorMissingConfiguration);
    emu_config c = emu_configs[--emu_nconfigs];
    *grid = c.grid;
    *block = c.block;
    *shared = c.shared;
    *(cudaStream_t *)stream = c.stream;
    return cudaSuccess;
}

/* ---- Launches ------------------------------------------------------------------------------------------ */

/* Checks the configuration against the device's limits; records a finding for the first broken one. */
static cudaError_t emu_check_config(const emu_rt_function *f, const emu_kernel *k, dim3 g, dim3 b,
                                    size_t dynamic_shared)
{
    const char *name = emu_kernel_name(k);
    if (!b.x || !b.y || !b.z) {
        emu_finding(emu_msg_block_zero, name, "blockDim", b.x, b.y, b.z);
        return cudaErrorInvalidConfiguration;
    }
    if (!g.x || !g.y || !g.z) {
        emu_finding(emu_msg_block_zero, name, "gridDim", g.x, g.y, g.z);
        return cudaErrorInvalidConfiguration;
    }
    const unsigned blim[3] = {EMU_MAX_BLOCK_X, EMU_MAX_BLOCK_Y, EMU_MAX_BLOCK_Z};
    const unsigned bval[3] = {b.x, b.y, b.z};
    for (int i = 0; i < 3; i++)
        if (bval[i] > blim[i]) {
            emu_finding(emu_msg_block_dim, name, "xyz"[i], bval[i], blim[i]);
            return cudaErrorInvalidConfiguration;
        }
    unsigned long long threads = (unsigned long long)b.x * b.y * b.z;
    if (threads > EMU_MAX_THREADS_PER_BLOCK) {
        emu_finding(emu_msg_block_threads, name, threads, b.x, b.y, b.z, EMU_MAX_THREADS_PER_BLOCK);
        return cudaErrorInvalidConfiguration;
    }
    const unsigned glim[3] = {EMU_MAX_GRID_X, EMU_MAX_GRID_YZ, EMU_MAX_GRID_YZ};
    const unsigned gval[3] = {g.x, g.y, g.z};
    for (int i = 0; i < 3; i++)
        if (gval[i] > glim[i]) {
            emu_finding(emu_msg_grid_dim, name, "xyz"[i], gval[i], glim[i]);
            return cudaErrorInvalidConfiguration;
        }
    size_t stat = emu_kernel_static_shared(k);
    size_t limit = EMU_SHARED_PER_BLOCK;
    if (f->max_dynamic_shared > 0 && stat + (size_t)f->max_dynamic_shared > limit)
        limit = stat + (size_t)f->max_dynamic_shared;
    if (stat + dynamic_shared > limit) {
        char optin[200] = "";
        if (stat + dynamic_shared <= EMU_SHARED_PER_BLOCK_OPTIN)
            snprintf(optin, sizeof optin, emu_text(emu_msg_shared_optin), EMU_SHARED_PER_BLOCK_OPTIN);
        emu_finding(emu_msg_shared, name, stat + dynamic_shared, stat, dynamic_shared, limit, optin);
        return cudaErrorInvalidValue;  /* what a GPU's runtime returns for too much shared memory */
    }
    return cudaSuccess;
}

/* What a launch asks for: <<<>>>'s four, and the attributes of cudaLaunchKernelEx that change how its
 * blocks run. */
typedef struct emu_rt_launch {
    dim3 grid, block;
    size_t shared;
    cudaStream_t stream;
    int has_cluster;           /* cudaLaunchAttributeClusterDimension */
    dim3 cluster;
    int cooperative;           /* cudaLaunchCooperativeKernel, cudaLaunchAttributeCooperative */
} emu_rt_launch;

static const char emu_msg_cluster_size[] =
    N_("kernel %s was launched in clusters of (%u, %u, %u) = %u blocks; a cluster holds at most %u%s");
static const char emu_msg_cluster_nonportable[] =
    N_(" (16 after cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1))");
static const char emu_msg_cluster_grid[] =
    N_("kernel %s was launched with gridDim = (%u, %u, %u), which clusters of (%u, %u, %u) blocks do not tile: "
    "each dimension of the grid must be a multiple of the cluster's");
static const char emu_msg_cluster_declared[] =
    N_("kernel %s declares clusters of (%u, %u, %u) blocks (__cluster_dims__), and the launch asks for (%u, %u, %u)");
static const char emu_msg_cluster_missing[] =
    N_("kernel %s must be launched in clusters: give cudaLaunchKernelEx the attribute "
    "cudaLaunchAttributeClusterDimension");
static const char emu_msg_cluster_resident[] =
    N_("kernel %s was launched in clusters of %u blocks, but at most %d blocks of %u threads with %zu bytes of "
    "dynamic shared memory fit at once on the %d SMs a cluster may use");
static const char emu_msg_coop_too_large[] =
    N_("cooperative launch of kernel %s asks for %llu blocks, but only %d x %d SMs = %d can be resident at once");

/* The launch's cluster, checked as a GPU's runtime checks it: *out is {0,0,0} when it has none. */
static cudaError_t emu_check_cluster(emu_rt_function *f, const emu_kernel *k, const emu_rt_launch *l, dim3 *out)
{
    const char *name = emu_kernel_name(k);
    dim3 declared, c;
    int has_declared = emu_rt_kernel_cluster(f, k, &declared), explicit_cluster = 0;
    unsigned max_rank = 0;   /* .maxclusterrank: __launch_bounds__'s third value */
    emu_kernel_cluster(k, NULL, &explicit_cluster, &max_rank);
    *out = (dim3){ 0, 0, 0 };
    if (l->has_cluster && has_declared &&
        (l->cluster.x != declared.x || l->cluster.y != declared.y || l->cluster.z != declared.z)) {
        emu_finding(emu_msg_cluster_declared, name, declared.x, declared.y, declared.z, l->cluster.x, l->cluster.y,
                    l->cluster.z);
        return cudaErrorInvalidClusterSize;
    }
    if (l->has_cluster) c = l->cluster;
    else if (has_declared) c = declared;
    else if (explicit_cluster) { emu_finding(emu_msg_cluster_missing, name); return cudaErrorInvalidClusterSize; }
    else return cudaSuccess;
    unsigned size = c.x * c.y * c.z, limit = f->cluster.non_portable ? EMU_CLUSTER_MAX : EMU_CLUSTER_PORTABLE;
    if (max_rank && max_rank < limit) limit = max_rank;
    if (!c.x || !c.y || !c.z || size > limit) {
        emu_finding(emu_msg_cluster_size, name, c.x, c.y, c.z, size, limit,
                    limit == EMU_CLUSTER_PORTABLE && !f->cluster.non_portable ? emu_text(emu_msg_cluster_nonportable) : "");
        return cudaErrorInvalidClusterSize;
    }
    if (l->grid.x % c.x || l->grid.y % c.y || l->grid.z % c.z) {
        emu_finding(emu_msg_cluster_grid, name, l->grid.x, l->grid.y, l->grid.z, c.x, c.y, c.z);
        return cudaErrorInvalidClusterSize;
    }
    unsigned threads = l->block.x * l->block.y * l->block.z;
    int fit = emu_rt_blocks_per_sm(f, k, (int)threads, l->shared) * emu_rt_sms_per_gpc();
    if ((int)size > fit) {
        emu_finding(emu_msg_cluster_resident, name, size, fit, threads, l->shared, emu_rt_sms_per_gpc());
        return cudaErrorInvalidClusterSize;
    }
    *out = c;
    return cudaSuccess;
}

static cudaError_t emu_launch_function(emu_rt_function *f, const emu_rt_launch *l, void **args)
{
    /* After a fatal kernel error the context is gone: no further kernel runs. */
    cudaError_t err = emu_rt_status();
    if (err != cudaSuccess) return err;
    if (!f || f->magic != EMU_FUNCTION_MAGIC) {
        emu_finding(emu_msg_unknown_fn, (const void *)f);
        return emu_rt_fail(cudaErrorInvalidDeviceFunction);
    }
    const emu_kernel *k = emu_rt_function_kernel(f, &err);
    if (!k) return emu_rt_fail(err);
    if (!emu_rt_stream_valid(l->stream)) {
        emu_finding(emu_msg_bad_stream, emu_kernel_name(k));
        return emu_rt_fail(cudaErrorInvalidResourceHandle);
    }
    int device, queue = emu_rt_stream_queue(l->stream, &device);
    if (device != emu_rt_device_current()) {
        emu_finding(emu_msg_stream_device, emu_kernel_name(k), device, emu_rt_device_current(), device);
        return emu_rt_fail(cudaErrorInvalidResourceHandle);
    }
    err = emu_check_config(f, k, l->grid, l->block, l->shared);
    if (err != cudaSuccess) return emu_rt_fail(err);
    dim3 cluster;
    err = emu_check_cluster(f, k, l, &cluster);
    if (err != cudaSuccess) return emu_rt_fail(err);
    if (l->cooperative) {
        /* A cooperative launch must fit on the device at once, so that grid.sync() can wait for every block. */
        int per_sm = emu_rt_blocks_per_sm(f, k, (int)(l->block.x * l->block.y * l->block.z), l->shared);
        unsigned long long blocks = (unsigned long long)l->grid.x * l->grid.y * l->grid.z;
        int sms = emu_rt_sm_count();
        if (blocks > (unsigned long long)per_sm * sms) {
            emu_finding(emu_msg_coop_too_large, emu_kernel_name(k), blocks, per_sm, sms, per_sm * sms);
            return emu_rt_fail(cudaErrorCooperativeLaunchTooLarge);
        }
    }
    int nparams = emu_kernel_param_count(k);
    if (nparams > 0 && !args) {
        emu_finding(emu_msg_no_args, emu_kernel_name(k), nparams);
        return emu_rt_fail(cudaErrorInvalidValue);
    }

    emu_rt_activity.launches++;
    if (l->stream == NULL || l->stream == cudaStreamLegacy || l->stream == cudaStreamPerThread)
        emu_rt_activity.default_stream_launches++;
    emu_launch_result r;
    memset(&r, 0, sizeof r);
    unsigned threads = l->block.x * l->block.y * l->block.z;
    emu_launch_config c = { { l->grid.x, l->grid.y, l->grid.z }, { l->block.x, l->block.y, l->block.z }, l->shared,
                            { cluster.x, cluster.y, cluster.z }, l->cooperative, device,
                            (unsigned)(emu_rt_blocks_per_sm(f, k, (int)threads, l->shared) * emu_rt_sm_count()) };
    char what[200];
    snprintf(what, sizeof what, emu_text(emu_msg_kernel_op), emu_kernel_name(k));
    /* it may wait for a kernel of another device: it runs with them when the host waits (emu_held.c) */
    if (emu_rt_held_add(k, &c, args, queue, what)) return cudaSuccess;
    emu_order_begin(queue, device, what);
    emu_launch_ex(k, &c, args, &r);
    emu_order_end();
    emu_rt_metrics_add(&r.metrics);
    return emu_rt_kernel_error((cudaError_t)r.error);
}

cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 grid, dim3 block, void **args, size_t shared,
                               cudaStream_t stream)
{
    emu_rt_launch l = { grid, block, shared, stream, 0, { 0, 0, 0 }, 0 };
    return emu_launch_function((emu_rt_function *)kernel, &l, args);
}

cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 grid, dim3 block, void **args, size_t shared,
                                    cudaStream_t stream)
{
    return __cudaLaunchKernel(kernel, grid, block, args, shared, stream);
}

/* The kernel behind a host function, or NULL after recording why. */
static emu_rt_function *emu_function_of(const void *func, cudaError_t *err)
{
    emu_rt_function *f = emu_rt_function_find(func);
    if (f) return f;
    *err = emu_rt_status();
    if (*err != cudaSuccess) return NULL;
    emu_finding(emu_msg_unknown_fn, func);
    *err = emu_rt_fail(cudaErrorInvalidDeviceFunction);
    return NULL;
}

cudaError_t cudaLaunchKernel(const void *func, dim3 grid, dim3 block, void **args, size_t shared,
                             cudaStream_t stream)
{
    cudaError_t err = cudaSuccess;
    emu_rt_function *f = emu_function_of(func, &err);
    emu_rt_launch l = { grid, block, shared, stream, 0, { 0, 0, 0 }, 0 };
    return f ? emu_launch_function(f, &l, args) : err;
}

cudaError_t cudaLaunchKernel_ptsz(const void *func, dim3 grid, dim3 block, void **args, size_t shared,
                                  cudaStream_t stream)
{
    return cudaLaunchKernel(func, grid, block, args, shared, stream);
}

cudaError_t cudaLaunchCooperativeKernel(const void *func, dim3 grid, dim3 block, void **args, size_t shared,
                                        cudaStream_t stream)
{
    cudaError_t err = cudaSuccess;
    emu_rt_function *f = emu_function_of(func, &err);
    emu_rt_launch l = { grid, block, shared, stream, 0, { 0, 0, 0 }, 1 };
    return f ? emu_launch_function(f, &l, args) : err;
}

/* The extensible launch (cudaLaunchKernelEx in C++): clusters and cooperative launches change how the blocks
 * run; the attributes that only change scheduling (CUB's programmatic dependent launch) change nothing, as
 * launches run one after another here. */
cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t *config, const void *func, void **args)
{
    if (!config) return emu_rt_fail(cudaErrorInvalidValue);
    emu_rt_launch l = { config->gridDim, config->blockDim, config->dynamicSmemBytes, config->stream, 0, { 0, 0, 0 }, 0 };
    for (unsigned i = 0; i < config->numAttrs && config->attrs; i++) {
        const cudaLaunchAttribute *a = &config->attrs[i];
        if (a->id == cudaLaunchAttributeCooperative) l.cooperative = a->val.cooperative != 0;
        if (a->id == cudaLaunchAttributeClusterDimension) {
            l.has_cluster = 1;
            l.cluster = (dim3){ a->val.clusterDim.x, a->val.clusterDim.y, a->val.clusterDim.z };
        }
    }
    cudaError_t err = cudaSuccess;
    emu_rt_function *f = emu_function_of(func, &err);
    return f ? emu_launch_function(f, &l, args) : err;
}

cudaError_t cudaLaunchKernelExC_ptsz(const cudaLaunchConfig_t *config, const void *func, void **args)
{
    return cudaLaunchKernelExC(config, func, args);
}
