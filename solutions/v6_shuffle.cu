// v6_shuffle.cu - reference kernel v6 (exercise 07): warp shuffles and a grid-stride loop.
//
// What changed since v5: two things, each its own step of the lesson.
//   1. A grid-stride loop: the launcher starts only enough blocks to fill the GPU with threads once, and
//      each thread adds up every (gridDim.x * blockDim.x)-th element in a register. The grid no longer
//      grows with n.
//   2. Warp shuffles: each warp sums its 32 registers with __shfl_down_sync, which moves a value from one
//      lane's register to another's without going through shared memory. Shared memory only carries one
//      int per warp (its sum) to the first warp, which sums those the same way.
// Why it is faster: the block-level reduction, with its barrier and its write, now runs once per block of
//   a fixed grid instead of once per 2 * blockDim.x elements; most additions happen in registers, with no
//   barrier at all. The loop's loads are coalesced (consecutive threads read consecutive ints), and each
//   step issues four that do not depend on each other, so four are in flight per thread: a reduction is
//   limited by how many bytes are on their way from memory at once. The
//   tree that v1-v5 ran in shared memory, a barrier or __syncwarp() per level, becomes five shuffles per
//   warp, one barrier, and five more shuffles in the first warp.
// The flaw that remains: one partial sum per block still has to be added up by a second pass or by
//   atomics (exercise 08), and the loads are 4 bytes each where 16 would mean fewer instructions
//   (exercise 11).
// Preconditions: blockDim.x is a multiple of 32, at most 1024 (so at most 32 warps); 0 <= n < 2^31 (so
//   i + 3 * stride cannot wrap around); no dynamic shared memory.
// Result: thread 0 writes the block's sum to d_out[blockIdx.x]; the launcher returns the number of blocks.

// The sum of v over the 32 lanes of a warp, in lane 0. All 32 lanes must call it (mask 0xffffffff).
// In the step of offset k, lane t adds the value of lane t + k; lanes t + k >= 32 get their own value
// back, which only the lanes whose result nobody uses add.
__device__ int warp_reduce(int v)
{
    for (int offset = 16; offset > 0; offset >>= 1)
        v += __shfl_down_sync(0xffffffff, v, offset);
    return v;
}

__global__ void reduce_v6_kernel(const int *d_in, int *d_out, unsigned int n)
{
    __shared__ int warp_sums[32];      // one per warp: at most 1024 / 32 warps
    unsigned int tid = threadIdx.x;
    unsigned int lane = tid % 32, warp_id = tid / 32;

    // Load into registers: a grid-stride loop, each thread adding every (gridDim.x * blockDim.x)-th element,
    // four per step: the four loads do not depend on each other, so all four are in flight at once.
    unsigned int stride = gridDim.x * blockDim.x, i = blockIdx.x * blockDim.x + tid;
    int sum = 0;
    for (; i + 3 * stride < n; i += 4 * stride)
        sum += (d_in[i] + d_in[i + stride]) + (d_in[i + 2 * stride] + d_in[i + 3 * stride]);
    for (; i < n; i += stride)
        sum += d_in[i];

    // Reduce in registers: each warp with shuffles; lane 0 of each warp hands its sum to the first warp
    // through shared memory; the first warp sums those with shuffles too.
    sum = warp_reduce(sum);
    if (lane == 0)
        warp_sums[warp_id] = sum;
    __syncthreads();
    if (warp_id == 0) {
        sum = (lane < blockDim.x / 32) ? warp_sums[lane] : 0;
        sum = warp_reduce(sum);
    }

    // Write the block's result.
    if (tid == 0)
        d_out[blockIdx.x] = sum;
}

// Enough blocks to fill the GPU with threads once (its multiprocessors times the blocks of this size whose
// threads one multiprocessor can hold), but never more blocks than there are blocks of elements.
extern "C" int reduce_v6(const int *d_in, int *d_out, int n, int block)
{
    int device = 0, sms = 1, threads_per_sm = 2048;
    cudaGetDevice(&device);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    cudaDeviceGetAttribute(&threads_per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, device);
    int grid = sms * (threads_per_sm / block);
    int blocks_of_elements = (int)(((long long)n + block - 1) / block);
    if (grid > blocks_of_elements) grid = blocks_of_elements;
    if (grid < 1) grid = 1;
    reduce_v6_kernel<<<grid, block>>>(d_in, d_out, n);
    return grid;
}
