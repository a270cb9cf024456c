// Classic bugs the emulator must diagnose.
__global__ void oob(const int *in, int *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = in[i];          // no bounds check
}
__global__ void missing_sync(const int *in, int *out) {
    __shared__ int s[256];
    unsigned tid = threadIdx.x;
    s[tid] = in[tid];
    // missing __syncthreads()
    if (tid == 0) { int t = 0; for (int k = 0; k < blockDim.x; k++) t += s[k]; *out = t; }
}
__global__ void divergent_barrier(int *out) {
    if (threadIdx.x < 16) __syncthreads();
    out[threadIdx.x] = 1;
}
__global__ void endless(int *out) {
    int x = 0;
    while (out[0] == 0) x++;
    out[1] = x;
}
__global__ void uninit_read(const int *in, int *out) { out[threadIdx.x] = in[threadIdx.x]; }
__global__ void shared_oob(int *out, int k) {
    __shared__ int s[32];
    s[threadIdx.x] = threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = s[threadIdx.x + k];
}
__global__ void shfl_partial(int *out) {
    int v = threadIdx.x;
    if (threadIdx.x < 16) v += __shfl_down_sync(0xffffffff, v, 1);
    out[threadIdx.x] = v;
}
__global__ void bank_conflicts(int *out) {
    __shared__ int s[32 * 32];
    s[threadIdx.x * 32] = threadIdx.x;   // 32-way conflict
    __syncthreads();
    out[threadIdx.x] = s[threadIdx.x * 32] + s[0];
}
