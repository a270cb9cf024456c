// test_cluster_bugs.cu - the mistakes of cluster kernels, each found with its cause (test_cluster_bugs.findings):
// a read of another block's shared memory before a cluster.sync(), a block that exits while another still
// reads its shared memory, a rank or an index outside the cluster's shared memory, a cluster.sync() in
// divergent code, one that a __syncthreads() keeps threads from, a write into another block's shared memory
// that its owner reads with no cluster barrier between, and a read of what no thread wrote.
#include <cooperative_groups.h>
#include <cstdio>
namespace cg = cooperative_groups;

enum { EARLY_READ, NO_FINAL_SYNC, BAD_RANK, BAD_INDEX, DIVERGENT, DEADLOCK, PUSH_RACE, NEVER_WRITTEN, CORRECT };

__global__ void bug(int which, int *out)
{
    __shared__ int part[64];
    cg::cluster_group cluster = cg::this_cluster();
    unsigned rank = cluster.block_rank(), other = (rank + 1) % cluster.num_blocks();
    int t = threadIdx.x;
    switch (which) {
    case EARLY_READ:   // no cluster.sync() between the writes and the other block's reads
        part[t] = t + 100 * rank;
        __syncthreads();
        out[rank * 64 + t] = *cluster.map_shared_rank(&part[t], other);
        cluster.sync();
        break;
    case NO_FINAL_SYNC:   // the last cluster.sync() is missing: block 0 exits while block 1 still reads
        part[t] = t + 100 * rank;
        cluster.sync();
        out[rank * 64 + t] = *cluster.map_shared_rank(&part[t], other);
        break;
    case BAD_RANK:
        part[t] = t;
        cluster.sync();
        out[t] = *cluster.map_shared_rank(&part[t], cluster.num_blocks());
        cluster.sync();
        break;
    case BAD_INDEX:
        part[t] = t;
        cluster.sync();
        out[t] = cluster.map_shared_rank(part, other)[t + 1];
        cluster.sync();
        break;
    case DIVERGENT:
        part[t] = t;
        if (t < 16) cluster.sync();
        out[t] = part[t];
        break;
    case DEADLOCK:   // warp 0 waits at the cluster barrier, warp 1 at a __syncthreads() warp 0 never reaches
        if (t < 32) cluster.sync();
        __syncthreads();
        if (t >= 32) cluster.sync();
        break;
    case PUSH_RACE:   // every block adds into block 0's part, which block 0 reads after a __syncthreads() only
        if (rank == 0) part[t] = 0;
        cluster.sync();
        atomicAdd(cluster.map_shared_rank(&part[t], 0), 1);
        __syncthreads();
        if (rank == 0) out[t] = part[t];
        cluster.sync();
        break;
    case NEVER_WRITTEN:   // only the first half of part is written
        if (t < 32) part[t] = t;
        cluster.sync();
        out[rank * 64 + t] = *cluster.map_shared_rank(&part[t], other);
        cluster.sync();
        break;
    default:   // the correct exchange
        part[t] = t + 100 * rank;
        cluster.sync();
        out[rank * 64 + t] = *cluster.map_shared_rank(&part[t], other);
        cluster.sync();
    }
}

static const char *const names[] = { "early read", "no final cluster.sync()", "rank outside the cluster",
                                     "index past the array", "cluster.sync() in divergent code",
                                     "cluster.sync() behind a __syncthreads()", "push without a cluster barrier",
                                     "never written", "correct" };

int main()
{
    for (int which = 0; which <= CORRECT; which++) {
        int *d, h[128];
        cudaMalloc(&d, sizeof h);
        cudaMemset(d, 0, sizeof h);
        cudaLaunchAttribute attr;
        attr.id = cudaLaunchAttributeClusterDimension;
        attr.val.clusterDim.x = 2; attr.val.clusterDim.y = 1; attr.val.clusterDim.z = 1;
        cudaLaunchConfig_t c = {};
        c.gridDim = dim3(2); c.blockDim = dim3(64); c.attrs = &attr; c.numAttrs = 1;
        cudaError_t launch = cudaLaunchKernelEx(&c, bug, which, d);
        cudaError_t run = cudaDeviceSynchronize();
        cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
        printf("%s: %s, %s", names[which], cudaGetErrorName(launch), cudaGetErrorName(run));
        if (which == CORRECT) printf(", block 0 read %d, block 1 read %d", h[5], h[64 + 5]);
        printf("\n");
        cudaDeviceReset();
    }
    return 0;
}
