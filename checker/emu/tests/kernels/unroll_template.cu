// v5: complete unroll with the block size as a template parameter.
template <unsigned B>
__global__ void reduce_v5(const int *in, int *out, unsigned n) {
    __shared__ int sdata[B];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * (B * 2) + tid;
    int v = (i < n) ? in[i] : 0;
    if (i + B < n) v += in[i + B];
    sdata[tid] = v;
    __syncthreads();
    if (B >= 1024) { if (tid < 512) sdata[tid] = v = v + sdata[tid + 512]; __syncthreads(); }
    if (B >= 512) { if (tid < 256) sdata[tid] = v = v + sdata[tid + 256]; __syncthreads(); }
    if (B >= 256) { if (tid < 128) sdata[tid] = v = v + sdata[tid + 128]; __syncthreads(); }
    if (B >= 128) { if (tid < 64) sdata[tid] = v = v + sdata[tid + 64]; __syncthreads(); }
    if (tid < 32) {
        if (B >= 64) v += sdata[tid + 32];
        for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffff, v, off);
    }
    if (tid == 0) out[blockIdx.x] = v;
}
template __global__ void reduce_v5<32>(const int *, int *, unsigned);
template __global__ void reduce_v5<64>(const int *, int *, unsigned);
template __global__ void reduce_v5<256>(const int *, int *, unsigned);
template __global__ void reduce_v5<1024>(const int *, int *, unsigned);
