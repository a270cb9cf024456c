// Races on global memory between threads, warps and blocks, and the orderings that prevent them.

// Every thread adds into one total without an atomic.
__global__ void plain_total(const int *in, int *out)
{
    *out += in[blockIdx.x * blockDim.x + threadIdx.x];
}

// One thread per block adds the block's partial into the total without an atomic: blocks race.
__global__ void block_rmw(const int *in, int *out)
{
    if (threadIdx.x == 0) out[0] += in[blockIdx.x];
}

// Block 0 zeroes the total while the other blocks may already be adding into it.
__global__ void zero_then_atomic(const int *in, int *out)
{
    if (blockIdx.x == 0 && threadIdx.x == 0) *out = 0;
    atomicAdd(out, in[blockIdx.x * blockDim.x + threadIdx.x]);
}

// Last block done: each block writes its partial, counts itself, and the last one adds the partials.
// With fence = 0 nothing makes a partial visible before the count: the last block may read stale ones.
__device__ unsigned blocks_done;
__global__ void last_block(const int *in, int *partial, int *out, int fence)
{
    __shared__ bool last;
    if (threadIdx.x == 0) {
        partial[blockIdx.x] = in[blockIdx.x];
        if (fence) __threadfence();
        last = atomicInc(&blocks_done, gridDim.x - 1) == gridDim.x - 1;
    }
    __syncthreads();
    if (last && threadIdx.x == 0) {
        int t = 0;
        for (unsigned b = 0; b < gridDim.x; b++) t += ((volatile int *)partial)[b];
        *out = t;
    }
}

// Correct forms: a compare-and-swap loop (its first read is plain), one byte per thread, one value
// written by many threads, and a total written after a __syncthreads() by another warp.
__global__ void correct_forms(const int *in, int *cas, unsigned char *flags, int *one, int *total)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    int old = *cas, assumed;
    do { assumed = old; old = atomicCAS(cas, assumed, assumed + in[i]); } while (old != assumed);
    flags[i] = 1;
    *one = 1;
    if (threadIdx.x == 0) total[blockIdx.x] = in[i];
    __syncthreads();
    if (threadIdx.x == 32) total[blockIdx.x] += 1;
}
