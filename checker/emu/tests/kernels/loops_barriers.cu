// Loops that never end, named as loops (not as barriers), and threads that return before a barrier.

// s * 2 instead of s *= 2: s stays 1, nvcc drops the condition, no path leads out of the loop.
__global__ void step_not_assigned(const int *in, int *out)
{
    __shared__ int sdata[64];
    unsigned tid = threadIdx.x;
    sdata[tid] = in[tid];
    __syncthreads();
    for (unsigned s = 1; s < blockDim.x; s * 2) {
        if (tid % (2 * s) == 0)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0) *out = sdata[0];
}

// An unsigned s >= 0 is always true.
__global__ void unsigned_geq_zero(const int *in, int *out)
{
    __shared__ int sdata[64];
    unsigned tid = threadIdx.x;
    sdata[tid] = in[tid];
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s >= 0; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0) *out = sdata[0];
}

// Waits for a flag that only another block could set: the loop has a way out, which never comes.
__global__ void spin_wait(volatile int *flag, int *out)
{
    while (flag[0] == 0) { }
    out[0] = 1;
}

// Threads past n return before the barrier: with n = 40 the second warp splits.
__global__ void early_return(const int *in, int *out, int n)
{
    __shared__ int sdata[64];
    unsigned tid = threadIdx.x;
    if (tid >= n) return;
    sdata[tid] = in[tid];
    __syncthreads();
    if (tid == 0) {
        int t = 0;
        for (int k = 0; k < n; k++) t += sdata[k];
        *out = t;
    }
}

// The same guarded with an if: every thread reaches the barrier.
__global__ void guarded(const int *in, int *out, int n)
{
    __shared__ int sdata[64];
    unsigned tid = threadIdx.x;
    if (tid < n) sdata[tid] = in[tid];
    __syncthreads();
    if (tid == 0) {
        int t = 0;
        for (int k = 0; k < n; k++) t += sdata[k];
        *out = t;
    }
}

// __syncthreads_count() in divergent code is named as such.
__global__ void count_in_branch(int *out)
{
    int c = 0;
    if (threadIdx.x < 16) c = __syncthreads_count(threadIdx.x & 1);
    out[threadIdx.x] = c;
}
