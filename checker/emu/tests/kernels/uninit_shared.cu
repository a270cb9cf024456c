// A tree over shared memory whose threads past n skip their store: every n that leaves a block partly
// filled reads slots nobody wrote (they hold the poison 0xCDCDCDCD), whatever the order of the reads.
__global__ void tree_store_guarded(const int *in, int *out, unsigned n)
{
    extern __shared__ int sdata[];
    unsigned tid = threadIdx.x, i = blockIdx.x * blockDim.x + tid;
    if (i < n) sdata[tid] = in[i];
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = sdata[0];
}
