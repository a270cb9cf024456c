// test_clusters.cu - thread-block clusters: a cluster's blocks run together, wait for each other at
// cluster.sync() and read each other's shared memory (distributed shared memory). A softmax of long rows with
// a cluster per row, each block keeping its slice in shared memory; the cluster's special registers; a
// kernel that declares its cluster (__cluster_dims__) launched with <<<>>>; a cluster of 16 blocks with the
// non-portable opt-in and 64 KB of dynamic shared memory each; the occupancy of clusters.
#include <cmath>
#include <cooperative_groups.h>
#include <cstdio>
#include <cstring>
namespace cg = cooperative_groups;

#define BLOCK 128

// The block's reduction of v with op: max or sum, every thread gets the result.
template <bool MAX>
__device__ float block_all_reduce(float v, float *scratch)
{
    for (int o = 16; o > 0; o /= 2) {
        float u = __shfl_xor_sync(0xffffffffu, v, o);
        v = MAX ? fmaxf(v, u) : v + u;
    }
    if (threadIdx.x % 32 == 0) scratch[threadIdx.x / 32] = v;
    __syncthreads();
    v = scratch[0];
    for (int w = 1; w < BLOCK / 32; w++) v = MAX ? fmaxf(v, scratch[w]) : v + scratch[w];
    __syncthreads();
    return v;
}

// Softmax of rows of n floats, one cluster per row (blockIdx.y): block r of the cluster keeps elements
// [r * slice, (r + 1) * slice) of the row in its dynamic shared memory and publishes its (max, sum) pair; after
// cluster.sync() each block combines every block's pair through distributed shared memory. The second
// cluster.sync() keeps each block's pair alive until every block has read it.
__global__ void cluster_softmax(const float *in, float *out, int n)
{
    extern __shared__ float slice[];
    __shared__ float scratch[BLOCK / 32];
    __shared__ float pair[2];
    cg::cluster_group cluster = cg::this_cluster();
    unsigned rank = cluster.block_rank(), blocks = cluster.num_blocks();
    int per = (n + blocks - 1) / blocks, lo = rank * per, hi = min(n, lo + per);
    const float *row = in + (size_t)blockIdx.y * n;
    float m = -INFINITY;
    for (int i = lo + threadIdx.x; i < hi; i += BLOCK) {
        slice[i - lo] = row[i];
        m = fmaxf(m, slice[i - lo]);
    }
    m = block_all_reduce<true>(m, scratch);
    float s = 0;
    for (int i = lo + threadIdx.x; i < hi; i += BLOCK) s += __expf(slice[i - lo] - m);
    s = block_all_reduce<false>(s, scratch);
    if (threadIdx.x == 0) { pair[0] = m; pair[1] = s; }
    cluster.sync();
    float gm = -INFINITY, gs = 0;
    for (unsigned r = 0; r < blocks; r++) {
        const float *p = cluster.map_shared_rank(pair, r);
        float pm = p[0], ps = p[1], nm = fmaxf(gm, pm);
        gs = gs * __expf(gm - nm) + ps * __expf(pm - nm);
        gm = nm;
    }
    for (int i = lo + threadIdx.x; i < hi; i += BLOCK) out[(size_t)blockIdx.y * n + i] = __expf(slice[i - lo] - gm) / gs;
    cluster.sync();
}

// What a block knows about its place: rank, cluster size, cluster id and the block's index in it.
__global__ void __cluster_dims__(2, 2, 1) where_am_i(unsigned *out)
{
    cg::cluster_group cluster = cg::this_cluster();
    if (threadIdx.x != 0) return;
    unsigned b = blockIdx.y * gridDim.x + blockIdx.x;
    dim3 idx = cluster.block_index(), dims = cluster.dim_blocks();
    out[4 * b + 0] = cluster.block_rank();
    out[4 * b + 1] = cluster.num_blocks() * 100 + dims.x * 10 + dims.y;
    out[4 * b + 2] = idx.x * 10 + idx.y;
    out[4 * b + 3] = cg::this_grid().cluster_rank();
}

// Each block of a cluster of 16 fills 64 KB of shared memory; block r then sums block (r + 1)'s.
__global__ void ring16(float *out)
{
    extern __shared__ float big[];
    cg::cluster_group cluster = cg::this_cluster();
    const int count = 64 * 1024 / sizeof(float);
    unsigned rank = cluster.block_rank();
    for (int i = threadIdx.x; i < count; i += blockDim.x) big[i] = (float)(rank * 1000 + i % 7);
    cluster.sync();
    const float *next = cluster.map_shared_rank(big, (rank + 1) % cluster.num_blocks());
    float s = 0;
    for (int i = threadIdx.x; i < count; i += blockDim.x) s += next[i];
    atomicAdd(&out[rank], s);
    cluster.sync();
}

// Without clusters each block is a cluster of one: cluster.sync() waits for its own threads, and rank 0 is
// itself. Threads that return before it are not waited for (the PTX ISA: non-exited threads).
__global__ void cluster_of_one(int *out)
{
    __shared__ int s[128];
    if (threadIdx.x >= 64) return;
    cg::cluster_group cluster = cg::this_cluster();
    s[threadIdx.x] = threadIdx.x;
    cluster.sync();
    out[blockIdx.x * 64 + threadIdx.x] = *cluster.map_shared_rank(&s[63 - threadIdx.x], 0) + 100 * cluster.num_blocks();
}

static void softmax_case(int rows, int n, int cluster)
{
    size_t bytes = (size_t)rows * n * sizeof(float);
    float *h_in = (float *)malloc(bytes), *h_out = (float *)malloc(bytes), *d_in, *d_out;
    for (int i = 0; i < rows * n; i++) h_in[i] = (float)((i * 7919) % 1000) / 100.0f - 5.0f;
    cudaMalloc(&d_in, bytes);
    cudaMalloc(&d_out, bytes);
    cudaMemcpy(d_in, h_in, bytes, cudaMemcpyHostToDevice);
    int per = (n + cluster - 1) / cluster;
    size_t shared = (size_t)per * sizeof(float);
    if (shared > 48 * 1024) cudaFuncSetAttribute(cluster_softmax, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shared);
    cudaLaunchAttribute attr;
    attr.id = cudaLaunchAttributeClusterDimension;
    attr.val.clusterDim.x = cluster; attr.val.clusterDim.y = 1; attr.val.clusterDim.z = 1;
    cudaLaunchConfig_t c = {};
    c.gridDim = dim3(cluster, rows); c.blockDim = dim3(BLOCK); c.dynamicSmemBytes = shared;
    c.attrs = &attr; c.numAttrs = 1;
    cudaError_t launch = cudaLaunchKernelEx(&c, cluster_softmax, (const float *)d_in, d_out, n);
    cudaError_t run = cudaDeviceSynchronize();
    cudaMemcpy(h_out, d_out, bytes, cudaMemcpyDeviceToHost);
    double worst = 0;
    for (int r = 0; r < rows; r++) {
        double m = -INFINITY, s = 0;
        for (int i = 0; i < n; i++) m = fmax(m, h_in[r * n + i]);
        for (int i = 0; i < n; i++) s += exp(h_in[r * n + i] - m);
        for (int i = 0; i < n; i++) worst = fmax(worst, fabs(h_out[r * n + i] - exp(h_in[r * n + i] - m) / s) * s);
    }
    printf("softmax of %d x %d in clusters of %d: %s, %s; %s\n", rows, n, cluster, cudaGetErrorString(launch),
           cudaGetErrorString(run), worst < 1e-4 ? "every output within 1e-4 of exp(x - max) / sum" : "WRONG");
    cudaFree(d_in); cudaFree(d_out); free(h_in); free(h_out);
}

int main()
{
    softmax_case(3, 1000, 4);
    softmax_case(2, 50257, 8);
    softmax_case(1, 262144 / 8, 2);   // 64 KB slices: above the default 48 KB, with the opt-in

    unsigned h[16 * 4], *d;
    cudaMalloc(&d, sizeof h);
    where_am_i<<<dim3(4, 2), 32>>>(d);
    printf("__cluster_dims__(2, 2, 1) with <<<(4, 2), 32>>>: %s\n", cudaGetErrorString(cudaDeviceSynchronize()));
    cudaMemcpy(h, d, 8 * 4 * sizeof(unsigned), cudaMemcpyDeviceToHost);
    for (int b = 0; b < 8; b++) printf("  block (%d,%d): rank %u, size/dims %u, index %02u, cluster %u\n", b % 4, b / 4,
                                       h[4 * b], h[4 * b + 1], h[4 * b + 2], h[4 * b + 3]);
    where_am_i<<<dim3(3, 2), 32>>>(d);
    printf("__cluster_dims__(2, 2, 1) with <<<(3, 2), 32>>>: %s\n", cudaGetErrorString(cudaGetLastError()));

    int one[128], *d_one;
    cudaMalloc(&d_one, sizeof one);
    cluster_of_one<<<2, 128>>>(d_one);
    cudaError_t one_run = cudaDeviceSynchronize();
    cudaMemcpy(one, d_one, sizeof one, cudaMemcpyDeviceToHost);
    printf("cluster.sync() without clusters, half the threads returned: %s, %d %d %d\n", cudaGetErrorString(one_run),
           one[0], one[63], one[64]);

    float *ring, sums[16];
    cudaMalloc(&ring, sizeof sums);
    cudaMemset(ring, 0, sizeof sums);
    cudaFuncSetAttribute(ring16, cudaFuncAttributeMaxDynamicSharedMemorySize, 64 * 1024);
    cudaLaunchAttribute attr;
    attr.id = cudaLaunchAttributeClusterDimension;
    attr.val.clusterDim.x = 16; attr.val.clusterDim.y = 1; attr.val.clusterDim.z = 1;
    cudaLaunchConfig_t c = {};
    c.gridDim = dim3(16); c.blockDim = dim3(256); c.dynamicSmemBytes = 64 * 1024; c.attrs = &attr; c.numAttrs = 1;
    int clusters = -1;
    cudaError_t occ = cudaOccupancyMaxActiveClusters(&clusters, ring16, &c);
    printf("clusters of 16 before the opt-in: %s", cudaGetErrorString(occ));
    printf(", launch %s\n", cudaGetErrorString(cudaLaunchKernelEx(&c, ring16, ring)));
    cudaGetLastError();
    cudaFuncSetAttribute(ring16, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
    cudaOccupancyMaxActiveClusters(&clusters, ring16, &c);
    cudaError_t launch = cudaLaunchKernelEx(&c, ring16, ring);
    printf("clusters of 16 after it: %d at once, launch %s, run %s\n", clusters, cudaGetErrorString(launch),
           cudaGetErrorString(cudaDeviceSynchronize()));
    cudaMemcpy(sums, ring, sizeof sums, cudaMemcpyDeviceToHost);
    printf("  block 0 read block 1's: %.0f, block 15 read block 0's: %.0f\n", sums[0], sums[15]);
    return 0;
}
