// ex01 form: one atomicAdd per element.
__global__ void atomic_sum(const int *in, int *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(out, in[i]);
}
