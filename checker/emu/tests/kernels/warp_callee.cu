// A warp sum in a __device__ function of the learner's, called by only some lanes of a warp: the finding
// names the line inside the function and the call that the other lanes never make.

__device__ int warp_sum(int v)
{
    for (int offset = 16; offset > 0; offset >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, offset);
    return v;
}

// The same function, not inlined: the call is a call instruction, and the warp has a frame for it.
__device__ __noinline__ int warp_sum_called(int v)
{
    for (int offset = 16; offset > 0; offset >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, offset);
    return v;
}

__global__ void sum_in_branch(const int *in, int *out)
{
    int v = in[threadIdx.x];
    if (threadIdx.x < 8)
        v = warp_sum(v);
    if (threadIdx.x == 0) *out = v;
}

__global__ void called_in_branch(const int *in, int *out)
{
    int v = in[threadIdx.x];
    if (threadIdx.x < 8)
        v = warp_sum_called(v);
    if (threadIdx.x == 0) *out = v;
}

// Every lane calls this one, and the branch that leaves lanes out of the shuffle is inside it: the call is
// not what to move.
__device__ int half_step(int v)
{
    if (threadIdx.x % 32 < 16)
        v += __shfl_down_sync(0xffffffffu, v, 8);
    return v;
}

__global__ void branch_in_callee(const int *in, int *out)
{
    int v = half_step(in[threadIdx.x]);
    if (threadIdx.x == 0) *out = v;
}
