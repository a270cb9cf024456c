// Unusual: the unrolled tree is a recursive template (tree_step<S> calls tree_step<S / 2>), ended by a specialisation.

// One block-wide step of stride S, kept only when the block has 2 * S values, then the next one down.
template <unsigned int blockSize, unsigned int S>
__device__ __forceinline__ void tree_step(int *sdata, unsigned int tid)
{
    if (blockSize >= 2 * S) {
        if (tid < S)
            sdata[tid] += sdata[tid + S];
        __syncthreads();
    }
    tree_step<blockSize, S / 2>(sdata, tid);
}

// Stride 32 and below belong to the last warp.
template <>
__device__ __forceinline__ void tree_step<1024, 32>(int *, unsigned int) {}
template <>
__device__ __forceinline__ void tree_step<512, 32>(int *, unsigned int) {}
template <>
__device__ __forceinline__ void tree_step<256, 32>(int *, unsigned int) {}
template <>
__device__ __forceinline__ void tree_step<128, 32>(int *, unsigned int) {}
template <>
__device__ __forceinline__ void tree_step<64, 32>(int *, unsigned int) {}
template <>
__device__ __forceinline__ void tree_step<32, 32>(int *, unsigned int) {}

template <unsigned int blockSize>
__global__ void reduce_v5_kernel(const int *d_in, int *d_out, unsigned int n)
{
    extern __shared__ int sdata[];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * (blockDim.x * 2) + threadIdx.x;

    // Load into shared memory: two elements per thread, added on the way; 0 for each past the end.
    int sum = (i < n) ? d_in[i] : 0;
    if (i + blockDim.x < n)
        sum += d_in[i + blockDim.x];
    sdata[tid] = sum;
    __syncthreads();

    tree_step<blockSize, 512>(sdata, tid);
    // ...then the last warp alone, as in v4: warp-wide barriers only. A block of 32 threads has no
    // sdata[32..64), so it starts at the stride 16.
    if (tid < 32) {
        if (blockSize >= 64) sdata[tid] += sdata[tid + 32];
        __syncwarp();
        if (tid < 16) sdata[tid] += sdata[tid + 16];
        __syncwarp();
        if (tid < 8) sdata[tid] += sdata[tid + 8];
        __syncwarp();
        if (tid < 4) sdata[tid] += sdata[tid + 4];
        __syncwarp();
        if (tid < 2) sdata[tid] += sdata[tid + 2];
        __syncwarp();
        if (tid < 1) sdata[tid] += sdata[tid + 1];
    }

    // Write the block's result.
    if (tid == 0)
        d_out[blockIdx.x] = sdata[0];
}

// One instance per block size: the template argument must be a constant, so the launcher switches on
// the run-time block size. A block size that is not a power of two from 32 to 1024 launches nothing.
extern "C" int reduce_v5(const int *d_in, int *d_out, int n, int block)
{
    int grid = (n + 2 * block - 1) / (2 * block);
    size_t shared = block * sizeof(int);
    switch (block) {
    case 1024: reduce_v5_kernel<1024><<<grid, block, shared>>>(d_in, d_out, n); break;
    case 512: reduce_v5_kernel<512><<<grid, block, shared>>>(d_in, d_out, n); break;
    case 256: reduce_v5_kernel<256><<<grid, block, shared>>>(d_in, d_out, n); break;
    case 128: reduce_v5_kernel<128><<<grid, block, shared>>>(d_in, d_out, n); break;
    case 64: reduce_v5_kernel<64><<<grid, block, shared>>>(d_in, d_out, n); break;
    case 32: reduce_v5_kernel<32><<<grid, block, shared>>>(d_in, d_out, n); break;
    default: return 0;
    }
    return grid;
}
