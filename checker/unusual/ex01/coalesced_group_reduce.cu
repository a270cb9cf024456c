// Unusual: warp-aggregated atomics with cooperative groups: the lanes still inside the input form a coalesced group, cg::reduce adds their values, and its first lane does one atomicAdd.

// The CPU reference: a plain loop, in 64 bits so that the reference itself cannot overflow.
extern "C" long long reduce_cpu(const int *h_in, int n)
{
    long long sum = 0;
    for (int i = 0; i < n; i++)
        sum += h_in[i];
    return sum;
}

#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

__global__ void reduce_atomic_kernel(const int *d_in, int *d_out, unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        cg::coalesced_group active = cg::coalesced_threads();
        int warp_sum = cg::reduce(active, d_in[i], cg::plus<int>());
        if (active.thread_rank() == 0)
            atomicAdd(d_out, warp_sum);
    }
}

extern "C" void reduce_atomic(const int *d_in, int *d_out, int n)
{
    const int block = 256;
    cudaMemset(d_out, 0, sizeof(int));          // the total starts at zero
    int grid = (n + block - 1) / block;         // enough blocks to cover every element
    reduce_atomic_kernel<<<grid, block>>>(d_in, d_out, n);
}
