// Clusters whose blocks synchronise through distributed shared memory without a cluster barrier in
// between: a flag written with st.release.cluster that the owner reads with ld.acquire.cluster (the data
// written before the flag is then ordered before the reads after it), and atomics of every block on one
// word; and the split cluster barrier (arrive, work, wait). Correct code: no finding. __cluster_dims__
// makes the engine run the blocks as clusters.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__device__ unsigned shared_addr(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }

// Block 1 writes data into block 0's shared memory, then raises block 0's flag; block 0 spins on it.
__global__ void __cluster_dims__(2, 1, 1) flag_handoff(int *out)
{
    __shared__ int flag, data[32];
    cg::cluster_group c = cg::this_cluster();
    if (threadIdx.x == 0) flag = 0;
    c.sync();
    if (c.block_rank() == 1) {
        c.map_shared_rank(data, 0)[threadIdx.x] = 100 + threadIdx.x;
        __syncwarp();
        if (threadIdx.x == 0)
            asm volatile("st.release.cluster.shared::cluster.u32 [%0], %1;" ::"r"(shared_addr(c.map_shared_rank(&flag, 0))),
                         "r"(1) : "memory");
    } else {
        int f = 0;
        if (threadIdx.x == 0)
            do asm volatile("ld.acquire.cluster.shared::cta.u32 %0, [%1];" : "=r"(f) : "r"(shared_addr(&flag)) : "memory");
            while (!f);
        __syncwarp();
        out[threadIdx.x] = data[threadIdx.x];
    }
    c.sync();
}

// Every thread of every block adds into block 0's counters; read after the cluster barrier.
__global__ void __cluster_dims__(4, 1, 1) atomic_counters(int *out)
{
    __shared__ int counters[8];
    cg::cluster_group c = cg::this_cluster();
    if (threadIdx.x < 8) counters[threadIdx.x] = 0;
    c.sync();
    atomicAdd(c.map_shared_rank(&counters[threadIdx.x % 8], 0), (int)c.block_rank() + 1);
    c.sync();
    if (c.block_rank() == 0 && threadIdx.x < 8) out[blockIdx.x / 4 * 8 + threadIdx.x] = counters[threadIdx.x];
}

// The split barrier: each block arrives, does work of its own, then waits; warp 0 of each block arrives
// early and works longest, so the phase may complete before it waits. Then each block reads its neighbour's.
__global__ void __cluster_dims__(2, 1, 1) split_barrier(int *out)
{
    __shared__ int part[64];
    cg::cluster_group c = cg::this_cluster();
    part[threadIdx.x] = threadIdx.x * 10 + (int)c.block_rank();
    auto token = c.barrier_arrive();
    int local = 0;
    for (int i = 0; i < (threadIdx.x < 32 ? 200 : 1); i++) local += i % 7;
    c.barrier_wait(std::move(token));
    out[blockIdx.x * 64 + threadIdx.x] = *c.map_shared_rank(&part[threadIdx.x], (c.block_rank() + 1) % 2) + local * 0;
    c.sync();
}
