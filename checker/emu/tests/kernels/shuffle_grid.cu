// v6: warp shuffle and a grid-stride loop.
__inline__ __device__ int warp_sum(int v) {
    for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffff, v, off);
    return v;
}
__global__ void reduce_v6(const int *in, int *out, unsigned n) {
    __shared__ int warp_sums[32];
    int sum = 0;
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) sum += in[i];
    sum = warp_sum(sum);
    unsigned lane = threadIdx.x % 32, wid = threadIdx.x / 32;
    if (lane == 0) warp_sums[wid] = sum;
    __syncthreads();
    if (wid == 0) {
        sum = (lane < blockDim.x / 32) ? warp_sums[lane] : 0;
        for (int off = 16; off > 0; off >>= 1) sum += __shfl_xor_sync(0xffffffff, sum, off);
        if (lane == 0) atomicAdd(out, sum);
    }
}
