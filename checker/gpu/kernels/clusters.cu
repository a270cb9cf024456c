// clusters.cu - thread-block clusters and what the runtime answers about them (Part III's long rows: a
// cluster per row, its blocks combining their partial results through distributed shared memory).
//
//   cluster_regs     every cluster special register, for clusters of 2x2x1 and 2x1x2 blocks (and none)
//   cluster_exchange each block reads every other block's shared memory (cluster.map_shared_rank), adds into
//                    rank 0's with atomics through distributed shared memory; clusters of 2, 4, 8 and 16
//   cluster_ptx      mapa.shared::cluster, ld/st/red.shared::cluster, getctarank, isspacep as inline PTX
//   cluster_row_sum  a long row per cluster: each block caches its slice in dynamic shared memory (64 KB,
//                    above the default limit), then the blocks combine sum and max of their slices
//   limits           the device's limits, the occupancy with and without the opt-in to more than 48 KB of
//                    shared memory, each kernel's static shared memory, and the errors of launches the
//                    runtime refuses
// Integers only (and floats added in one fixed order with __fadd_rn), so every answer must be identical.
// Counts that depend on the number of SMs (the emulator reports 16, an H100 132) are recorded as whether
// they are positive.

#include <cooperative_groups.h>
#include <vector>
#include "../cases.h"

namespace cg = cooperative_groups;

// ---- Special registers ---------------------------------------------------------------------------------

__global__ void k_cluster_regs(unsigned *out)
{
    cg::cluster_group cluster = cg::this_cluster();
    if (threadIdx.x != 0) return;
    unsigned b = (blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
    dim3 idx = cluster.block_index(), dims = cluster.dim_blocks(), cid = __clusterIdx(), grid = __clusterGridDimInClusters();
    unsigned *o = out + 12 * b;
    o[0] = cluster.block_rank();
    o[1] = cluster.num_blocks();
    o[2] = idx.x | idx.y << 8 | idx.z << 16;
    o[3] = dims.x | dims.y << 8 | dims.z << 16;
    o[4] = cid.x | cid.y << 8 | cid.z << 16;
    o[5] = grid.x | grid.y << 8 | grid.z << 16;
    o[6] = __clusterDimIsSpecified();
    o[7] = cg::this_grid().cluster_rank();
    o[8] = cg::this_grid().num_clusters();
    o[9] = cluster.thread_rank();
    o[10] = cluster.num_threads();
    o[11] = __clusterRelativeBlockRank();
}

static void launch_clustered(const char *name, void (*k)(unsigned *), dim3 grid, dim3 cluster, unsigned *d)
{
    cudaLaunchAttribute attr;
    attr.id = cudaLaunchAttributeClusterDimension;
    attr.val.clusterDim.x = cluster.x; attr.val.clusterDim.y = cluster.y; attr.val.clusterDim.z = cluster.z;
    cudaLaunchConfig_t c = {};
    c.gridDim = grid; c.blockDim = dim3(64); c.attrs = &attr; c.numAttrs = cluster.x ? 1 : 0;
    CK(name, cudaLaunchKernelEx(&c, k, d));
    CK(name, cudaDeviceSynchronize());
}

static void case_regs(const char *name, dim3 grid, dim3 cluster)
{
    size_t n = 12 * (size_t)grid.x * grid.y * grid.z;
    unsigned *d = (unsigned *)dev_poisoned(n * sizeof(unsigned));
    launch_clustered(name, k_cluster_regs, grid, cluster, d);
    std::vector<unsigned> h(n);
    if (dev_take(h.data(), d, n * sizeof(unsigned))) record(name, "u32", 0, h.data(), n);
}

// ---- Distributed shared memory -------------------------------------------------------------------------

#define EX_THREADS 128

// Each block fills its shared array, then every thread reads the same slot of every block of the cluster,
// and adds 1 into rank 0's counter per block through distributed shared memory.
__global__ void k_cluster_exchange(const int *in, int *out)
{
    __shared__ int part[EX_THREADS];
    __shared__ int counter[4];
    cg::cluster_group cluster = cg::this_cluster();
    unsigned rank = cluster.block_rank(), blocks = cluster.num_blocks(), b = blockIdx.x, t = threadIdx.x;
    part[t] = in[b * EX_THREADS + t] * (int)(rank + 1);
    if (t < 4) counter[t] = 0;
    cluster.sync();
    int sum = 0, mx = -2147483647;
    for (unsigned r = 0; r < blocks; r++) {
        int v = *cluster.map_shared_rank(&part[(t + 7 * r) % EX_THREADS], r);
        sum += v;
        mx = max(mx, v);
    }
    atomicAdd(cluster.map_shared_rank(&counter[t % 4], 0), 1);
    cluster.sync();
    out[b * EX_THREADS * 2 + 2 * t] = sum;
    out[b * EX_THREADS * 2 + 2 * t + 1] = mx;
    if (rank == 0 && t < 4) out[gridDim.x * EX_THREADS * 2 + (b / blocks) * 4 + t] = counter[t];
}

static void case_exchange(unsigned cluster)
{
    char name[64];
    snprintf(name, sizeof name, "cluster_exchange(cluster=%u)", cluster);
    const unsigned grid = 32;
    std::vector<int> in(grid * EX_THREADS);
    uint64_t s = 77 + cluster;
    for (int &v : in) v = rng_int(&s, -1000, 1000);
    size_t n = grid * EX_THREADS * 2 + grid / cluster * 4;
    int *d_in = (int *)dev_copy(in.data(), in.size() * sizeof(int)), *d_out = (int *)dev_poisoned(n * sizeof(int));
    if (cluster > 8) CK(name, cudaFuncSetAttribute(k_cluster_exchange, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    cudaLaunchAttribute attr;
    attr.id = cudaLaunchAttributeClusterDimension;
    attr.val.clusterDim.x = cluster; attr.val.clusterDim.y = 1; attr.val.clusterDim.z = 1;
    cudaLaunchConfig_t c = {};
    c.gridDim = dim3(grid); c.blockDim = dim3(EX_THREADS); c.attrs = &attr; c.numAttrs = 1;
    CK(name, cudaLaunchKernelEx(&c, k_cluster_exchange, (const int *)d_in, d_out));
    CK(name, cudaDeviceSynchronize());
    std::vector<int> h(n);
    cudaFree(d_in);
    if (dev_take(h.data(), d_out, n * sizeof(int))) record(name, "u32", 0, h.data(), n);
}

// The same through inline PTX: a shared::cluster address from mapa, loads, stores and a reduction through
// it, the rank of the block an address is in, and which space a generic address is in.
__global__ void __cluster_dims__(4, 1, 1) k_cluster_ptx(unsigned *out)
{
    __shared__ unsigned s[64];
    unsigned t = threadIdx.x, rank = __clusterRelativeBlockRank(), other = rank ^ 1;
    s[t] = t * 3 + rank * 1000;
    cg::this_cluster().sync();
    unsigned local = (unsigned)__cvta_generic_to_shared(&s[t]), remote, val, owner, r2;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(local), "r"(other));
    asm volatile("ld.shared::cluster.u32 %0, [%1];" : "=r"(val) : "r"(remote));
    asm volatile("getctarank.shared::cluster.u32 %0, %1;" : "=r"(owner) : "r"(remote));
    void *generic = cg::this_cluster().map_shared_rank((void *)&s[t], (rank + 2) % 4);
    asm volatile("getctarank.u64 %0, %1;" : "=r"(r2) : "l"(generic));
    unsigned in_cluster, in_cta;
    asm volatile("{ .reg .pred p, q; isspacep.shared::cluster p, %2; isspacep.shared::cta q, %2;"
                 " selp.u32 %0, 1, 0, p; selp.u32 %1, 1, 0, q; }" : "=r"(in_cluster), "=r"(in_cta) : "l"(generic));
    cg::this_cluster().sync();
    asm volatile("st.shared::cluster.u32 [%0], %1;" :: "r"(remote), "r"(val + 1));
    cg::this_cluster().sync();
    asm volatile("red.shared::cluster.add.u32 [%0], %1;" :: "r"(remote), "r"(5u));
    cg::this_cluster().sync();
    unsigned *o = out + (blockIdx.x * 64 + t) * 6;
    o[0] = val; o[1] = owner; o[2] = r2; o[3] = in_cluster | in_cta << 1; o[4] = s[t];
    o[5] = __isClusterShared(generic) | __cluster_query_shared_rank(generic) << 4;
}

static void case_ptx(void)
{
    const char *name = "cluster_ptx";
    size_t n = 8 * 64 * 6;
    unsigned *d = (unsigned *)dev_poisoned(n * sizeof(unsigned));
    k_cluster_ptx<<<8, 64>>>(d);
    CK_LAUNCH(name);
    std::vector<unsigned> h(n);
    if (dev_take(h.data(), d, n * sizeof(unsigned))) record(name, "u32", 0, h.data(), n);
}

// A long row per cluster: block r caches its slice in dynamic shared memory, sums it in a fixed order
// (exact __fadd_rn of integer-valued floats), and the blocks combine the sums and maxima after cluster.sync().
#define ROW_THREADS 256
__global__ void k_cluster_row_sum(const float *in, float *out, int n)
{
    extern __shared__ float slice[];
    __shared__ float part[2][ROW_THREADS];
    cg::cluster_group cluster = cg::this_cluster();
    unsigned rank = cluster.block_rank(), blocks = cluster.num_blocks(), t = threadIdx.x;
    int per = (n + blocks - 1) / blocks, lo = rank * per, hi = min(n, lo + per);
    const float *row = in + (size_t)blockIdx.y * n;
    float s = 0, m = -INFINITY;
    for (int i = lo + t; i < hi; i += ROW_THREADS) {
        slice[i - lo] = row[i];
        s = __fadd_rn(s, slice[i - lo]);
        m = fmaxf(m, slice[i - lo]);
    }
    part[0][t] = s;
    part[1][t] = m;
    cluster.sync();
    if (t < 2) {
        float acc = t ? -INFINITY : 0.0f;
        for (unsigned r = 0; r < blocks; r++) {
            const float *p = cluster.map_shared_rank(&part[t][0], r);
            for (int k = 0; k < ROW_THREADS; k++) acc = t ? fmaxf(acc, p[k]) : __fadd_rn(acc, p[k]);
        }
        out[(blockIdx.y * blocks + rank) * 2 + t] = acc;
    }
    cluster.sync();
    for (int i = lo + t; i < hi; i += ROW_THREADS)   // the slice stayed in shared memory: written back doubled
        out[2 * gridDim.x * gridDim.y + (size_t)blockIdx.y * n + i] = __fadd_rn(slice[i - lo], slice[i - lo]);
}

static void case_row_sum(int rows, int n, unsigned cluster)
{
    char name[64];
    snprintf(name, sizeof name, "cluster_row_sum(rows=%d,n=%d,cluster=%u)", rows, n, cluster);
    std::vector<float> in((size_t)rows * n);
    uint64_t s = 1234 + n;
    for (float &v : in) v = (float)rng_int(&s, -500, 500);
    size_t nout = 2 * (size_t)rows * cluster + (size_t)rows * n;
    float *d_in = (float *)dev_copy(in.data(), in.size() * sizeof(float)), *d_out = (float *)dev_poisoned(nout * 4);
    size_t shared = (size_t)((n + cluster - 1) / cluster) * sizeof(float);
    CK(name, cudaFuncSetAttribute(k_cluster_row_sum, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shared));
    if (cluster > 8) CK(name, cudaFuncSetAttribute(k_cluster_row_sum, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    cudaLaunchAttribute attr;
    attr.id = cudaLaunchAttributeClusterDimension;
    attr.val.clusterDim.x = cluster; attr.val.clusterDim.y = 1; attr.val.clusterDim.z = 1;
    cudaLaunchConfig_t c = {};
    c.gridDim = dim3(cluster, rows); c.blockDim = dim3(ROW_THREADS); c.dynamicSmemBytes = shared;
    c.attrs = &attr; c.numAttrs = 1;
    CK(name, cudaLaunchKernelEx(&c, k_cluster_row_sum, (const float *)d_in, d_out, n));
    CK(name, cudaDeviceSynchronize());
    std::vector<float> h(nout);
    cudaFree(d_in);
    if (dev_take(h.data(), d_out, nout * 4)) record(name, "f32", 0, h.data(), nout);
}

// ---- What the runtime answers ----------------------------------------------------------------------------

__global__ void k_tiny(int *p)
{
    extern __shared__ int dyn[];
    if (p) p[threadIdx.x] = dyn[0];
}
__global__ void __cluster_dims__(2, 1, 1) k_tiny_declared(int *p) { if (p) p[0] = 1; }

// A launch's error code through cudaLaunchKernelEx with a cluster of cx blocks (0: no attribute).
static int launch_code(void (*k)(int *), unsigned grid, unsigned cx, size_t shared, int cooperative)
{
    cudaLaunchAttribute attr[2];
    int na = 0;
    if (cx) {
        attr[na].id = cudaLaunchAttributeClusterDimension;
        attr[na].val.clusterDim.x = cx; attr[na].val.clusterDim.y = 1; attr[na].val.clusterDim.z = 1;
        na++;
    }
    if (cooperative) { attr[na].id = cudaLaunchAttributeCooperative; attr[na].val.cooperative = 1; na++; }
    cudaLaunchConfig_t c = {};
    c.gridDim = dim3(grid); c.blockDim = dim3(128); c.dynamicSmemBytes = shared; c.attrs = attr; c.numAttrs = na;
    int code = (int)cudaLaunchKernelEx(&c, k, (int *)nullptr);
    int run = (int)cudaDeviceSynchronize();
    cudaGetLastError();
    return code * 1000 + run;
}

static int occupancy(void (*k)(int *), int threads, size_t shared)
{
    int n = -1;
    int code = (int)cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, k, threads, shared);
    cudaGetLastError();
    return code ? -code : n;
}

static int clusters_positive(void (*k)(int *), unsigned cx, size_t shared)
{
    cudaLaunchAttribute attr;
    attr.id = cudaLaunchAttributeClusterDimension;
    attr.val.clusterDim.x = cx; attr.val.clusterDim.y = 1; attr.val.clusterDim.z = 1;
    cudaLaunchConfig_t c = {};
    c.gridDim = dim3(cx); c.blockDim = dim3(128); c.dynamicSmemBytes = shared; c.attrs = &attr; c.numAttrs = 1;
    int n = -1, code = (int)cudaOccupancyMaxActiveClusters(&n, k, &c);
    cudaGetLastError();
    return code ? -code : n > 0;
}

static void case_limits(void)
{
    std::vector<int> v;
    cudaDeviceProp p;
    CK("limits", cudaGetDeviceProperties(&p, 0));
    int attrs[] = { cudaDevAttrMaxSharedMemoryPerBlock, cudaDevAttrMaxSharedMemoryPerBlockOptin,
                    cudaDevAttrMaxSharedMemoryPerMultiprocessor, cudaDevAttrReservedSharedMemoryPerBlock,
                    cudaDevAttrMaxThreadsPerMultiProcessor, cudaDevAttrMaxBlocksPerMultiprocessor,
                    cudaDevAttrMaxRegistersPerMultiprocessor, cudaDevAttrMaxRegistersPerBlock,
                    cudaDevAttrComputeCapabilityMajor, cudaDevAttrComputeCapabilityMinor, cudaDevAttrWarpSize,
                    cudaDevAttrClusterLaunch, cudaDevAttrCooperativeLaunch, cudaDevAttrMaxThreadsPerBlock };
    for (int a : attrs) {
        int x = -1;
        cudaDeviceGetAttribute(&x, (cudaDeviceAttr)a, 0);
        v.push_back(x);
    }
    v.push_back((int)p.sharedMemPerBlockOptin);
    v.push_back((int)p.sharedMemPerMultiprocessor);
    v.push_back(p.major * 10 + p.minor);
    record("limits:device", "u32", 0, v.data(), v.size());

    // Occupancy of 128-thread blocks of a kernel with few registers: shared memory decides.
    v.clear();
    size_t sizes[] = { 0, 1024, 48 * 1024, 48 * 1024 + 4, 64 * 1024, 100 * 1024 };
    for (size_t s : sizes) v.push_back(occupancy(k_tiny, 128, s));
    CK("limits:occupancy", cudaFuncSetAttribute(k_tiny, cudaFuncAttributeMaxDynamicSharedMemorySize, 227 * 1024));
    size_t opted[] = { 48 * 1024 + 4, 64 * 1024, 100 * 1024, 113 * 1024, 227 * 1024, 227 * 1024 + 4 };
    for (size_t s : opted) v.push_back(occupancy(k_tiny, 128, s));
    v.push_back((int)cudaFuncSetAttribute(k_tiny, cudaFuncAttributeMaxDynamicSharedMemorySize, 227 * 1024 + 4));
    cudaGetLastError();
    cudaFuncAttributes fa;
    CK("limits:occupancy", cudaFuncGetAttributes(&fa, k_tiny));
    v.push_back(fa.maxDynamicSharedSizeBytes);
    record("limits:occupancy", "u32", 0, v.data(), v.size());

    // Each kernel's static shared memory is its own variables', not every __shared__ of the file's.
    v.clear();
    void (*kernels[])(void) = { (void (*)(void))k_cluster_regs, (void (*)(void))k_cluster_exchange,
                                (void (*)(void))k_cluster_ptx, (void (*)(void))k_cluster_row_sum };
    for (auto k : kernels) {
        CK("limits:static_shared", cudaFuncGetAttributes(&fa, (const void *)k));
        v.push_back((int)fa.sharedSizeBytes);
    }
    record("limits:static_shared", "u32", 0, v.data(), v.size());

    // Launches: shared memory above the limits, clusters the runtime refuses, cooperative grids too large.
    v.clear();
    CK("limits:launch", cudaFuncSetAttribute(k_tiny, cudaFuncAttributeMaxDynamicSharedMemorySize, 64 * 1024));
    v.push_back(launch_code(k_tiny, 4, 0, 64 * 1024, 0));
    v.push_back(launch_code(k_tiny, 4, 0, 64 * 1024 + 4, 0));
    v.push_back(launch_code(k_tiny, 4, 0, 0, 0));
    v.push_back(launch_code(k_tiny, 8, 2, 0, 0));
    v.push_back(launch_code(k_tiny, 9, 3, 0, 0));      // 9 blocks in clusters of 3: fine
    v.push_back(launch_code(k_tiny, 8, 3, 0, 0));      // 8 blocks in clusters of 3
    v.push_back(launch_code(k_tiny, 16, 16, 0, 0));    // 16 without the non-portable opt-in
    v.push_back(clusters_positive(k_tiny, 16, 0));
    v.push_back(clusters_positive(k_tiny, 8, 0));
    CK("limits:launch", cudaFuncSetAttribute(k_tiny, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    v.push_back(launch_code(k_tiny, 16, 16, 0, 0));
    v.push_back(launch_code(k_tiny, 32, 32, 0, 0));    // more than 16
    v.push_back(clusters_positive(k_tiny, 16, 0));
    v.push_back(clusters_positive(k_tiny, 16, 64 * 1024));
    v.push_back(launch_code(k_tiny_declared, 4, 0, 0, 0));   // __cluster_dims__(2, 1, 1) with its own size
    v.push_back(launch_code(k_tiny_declared, 3, 0, 0, 0));   // with 3 blocks
    v.push_back(launch_code(k_tiny_declared, 4, 4, 0, 0));   // with another size at launch
    v.push_back(launch_code(k_tiny_declared, 4, 2, 0, 0));   // with the same size at launch
    v.push_back(launch_code(k_tiny, 64, 0, 0, 1));           // cooperative, small enough anywhere
    v.push_back(launch_code(k_tiny, 1 << 20, 0, 0, 1));      // cooperative, too large anywhere
    v.push_back(launch_code(k_tiny, 64, 2, 0, 1));           // cooperative in clusters
    record("limits:launch", "u32", 0, v.data(), v.size());
}

void run_cluster_cases(void)
{
    case_regs("cluster_regs(grid=4x4x2,cluster=2x2x1)", dim3(4, 4, 2), dim3(2, 2, 1));
    case_regs("cluster_regs(grid=4x2x4,cluster=2x1x2)", dim3(4, 2, 4), dim3(2, 1, 2));
    case_regs("cluster_regs(grid=3x2x1,cluster=none)", dim3(3, 2, 1), dim3(0, 0, 0));
    for (unsigned c : { 2u, 4u, 8u, 16u }) case_exchange(c);
    case_ptx();
    case_row_sum(3, 1000, 4);
    case_row_sum(2, 50257, 8);
    case_row_sum(1, 65536, 4);      // 64 KB slices: above the default 48 KB
    case_row_sum(1, 262144, 16);
    case_limits();
}
