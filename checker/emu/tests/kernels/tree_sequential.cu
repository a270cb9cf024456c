// v3/v4: first add during load, sequential addressing, last warp unrolled (volatile and syncwarp).
__device__ void warp_reduce_volatile(volatile int *s, unsigned tid) {
    s[tid] += s[tid + 32]; s[tid] += s[tid + 16]; s[tid] += s[tid + 8];
    s[tid] += s[tid + 4]; s[tid] += s[tid + 2]; s[tid] += s[tid + 1];
}
__global__ void reduce_v4_volatile(const int *in, int *out, unsigned n) {
    extern __shared__ int sdata[];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * (blockDim.x * 2) + threadIdx.x;
    int v = (i < n) ? in[i] : 0;
    if (i + blockDim.x < n) v += in[i + blockDim.x];
    sdata[tid] = v;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 32; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid < 32) warp_reduce_volatile(sdata, tid);
    if (tid == 0) out[blockIdx.x] = sdata[0];
}
__global__ void reduce_v4_syncwarp(const int *in, int *out, unsigned n) {
    extern __shared__ int sdata[];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * (blockDim.x * 2) + threadIdx.x;
    int v = (i < n) ? in[i] : 0;
    if (i + blockDim.x < n) v += in[i + blockDim.x];
    sdata[tid] = v;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 32; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid < 32) {
        int x = sdata[tid];
        for (int off = 32; off > 0; off >>= 1) {
            x += sdata[tid + off]; __syncwarp();
            sdata[tid] = x; __syncwarp();
        }
    }
    if (tid == 0) out[blockIdx.x] = sdata[0];
}
