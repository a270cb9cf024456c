// Lanes of one warp meeting at a shared word with no barrier between them, and the correct forms.
// One warp per block, so only the warp-level finding can apply.

// A block-wide tree with no barrier after the load and none after each step.
__global__ void tree_no_sync(const int *in, int *out)
{
    __shared__ int sdata[32];
    unsigned tid = threadIdx.x;
    sdata[tid] = in[tid];
    for (unsigned s = 1; s < blockDim.x; s *= 2)
        if (tid % (2 * s) == 0) sdata[tid] += sdata[tid + s];
    if (tid == 0) *out = sdata[0];
}

// Each lane takes its right neighbour's value: with sync = 0 it writes its own word while the lane on
// its left may still be about to read it (read, then write by another lane).
__global__ void rotate(int *out, int sync)
{
    __shared__ int ring[32];
    unsigned tid = threadIdx.x;
    ring[tid] = tid;
    __syncwarp();
    int v = ring[(tid + 1) % 32];
    if (sync) __syncwarp();
    ring[tid] = v;
    __syncwarp();
    out[tid] = ring[tid];
}

// Two lanes write one word: with k = 1 two different values (write, then write by another lane);
// with k = 0 the same value, which is no conflict.
__global__ void two_writers(int *out, int k)
{
    __shared__ int flag;
    unsigned tid = threadIdx.x;
    if (tid < 2) flag = tid * k;
    __syncwarp();
    out[tid] = flag;
}
