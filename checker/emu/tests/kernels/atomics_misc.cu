// Atomics of every kind, and last-block-done with atomicInc and __threadfence.
__device__ unsigned blocks_done = 0;
__global__ void atomics_all(const int *in, int *imax, int *imin, unsigned *cnt, int *exch, int *cas, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    atomicMax(imax, in[i]);
    atomicMin(imin, in[i]);
    atomicInc(cnt, 0xffffffffu);
    atomicExch(exch, in[i]);
    int old = *cas, assumed;
    do { assumed = old; old = atomicCAS(cas, assumed, assumed + in[i]); } while (old != assumed);
}
__global__ void last_block(const float *in, float *partial, float *out, unsigned n) {
    __shared__ bool am_last;
    __shared__ float s[256];
    unsigned tid = threadIdx.x, i = blockIdx.x * blockDim.x + tid;
    s[tid] = i < n ? in[i] : 0.f;
    __syncthreads();
    for (unsigned k = blockDim.x / 2; k > 0; k >>= 1) { if (tid < k) s[tid] += s[tid + k]; __syncthreads(); }
    if (tid == 0) {
        partial[blockIdx.x] = s[0];
        __threadfence();
        unsigned ticket = atomicInc(&blocks_done, gridDim.x);
        am_last = (ticket == gridDim.x - 1);
    }
    __syncthreads();
    if (am_last && tid == 0) {
        float t = 0.f;
        for (unsigned b = 0; b < gridDim.x; b++) t += partial[b];
        *out = t;
        blocks_done = 0;
    }
}
