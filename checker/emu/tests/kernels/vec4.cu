// 16-byte vector loads: int4 and float4, with a scalar tail.
__global__ void reduce_int4(const int *in, long long *out, unsigned n) {
    long long sum = 0;
    unsigned n4 = n / 4;
    const int4 *in4 = reinterpret_cast<const int4 *>(in);
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += blockDim.x * gridDim.x) {
        int4 v = in4[i];
        sum += (long long)v.x + v.y + v.z + v.w;
    }
    for (unsigned i = n4 * 4 + blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) sum += in[i];
    for (int off = 16; off > 0; off >>= 1) sum += __shfl_down_sync(0xffffffff, sum, off);
    if ((threadIdx.x & 31) == 0) atomicAdd((unsigned long long *)out, (unsigned long long)sum);
}
__global__ void reduce_float4(const float4 *in, float *out, unsigned n4) {
    float sum = 0.f;
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += blockDim.x * gridDim.x) {
        float4 v = in[i];
        sum += v.x + v.y + v.z + v.w;
    }
    for (int off = 16; off > 0; off >>= 1) sum += __shfl_down_sync(0xffffffff, sum, off);
    if ((threadIdx.x & 31) == 0) atomicAdd(out, sum);
}
