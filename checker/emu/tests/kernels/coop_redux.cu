// Cooperative groups reduce and __reduce_add_sync (redux.sync).
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;
__global__ void reduce_cg(const int *in, int *out, unsigned n) {
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    int sum = 0;
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) sum += in[i];
    sum = cg::reduce(warp, sum, cg::plus<int>());
    if (warp.thread_rank() == 0) atomicAdd(out, sum);
}
__global__ void reduce_redux(const unsigned *in, unsigned *out, unsigned n) {
    unsigned sum = 0;
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) sum += in[i];
    sum = __reduce_add_sync(0xffffffff, sum);
    if ((threadIdx.x & 31) == 0) atomicAdd(out, sum);
}
