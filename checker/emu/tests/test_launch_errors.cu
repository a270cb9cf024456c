// test_launch_errors.cu - launch errors through both halves: bad configurations are refused at the
// launch and forgotten once read; an out-of-bounds write succeeds at the launch, fails the
// synchronisation, and stays until cudaDeviceReset, as on a GPU.
#include <cstdio>

__global__ void fill(int *out) { int i = blockIdx.x * blockDim.x + threadIdx.x; out[i] = i; }
__global__ void copy_shared(int *out)
{
    extern __shared__ int s[];
    s[threadIdx.x] = threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = s[blockDim.x - 1 - threadIdx.x];
}

static void show(const char *what, cudaError_t err) { printf("%s: %s\n", what, cudaGetErrorName(err)); }

int main()
{
    int *d;
    show("cudaMalloc", cudaMalloc(&d, 100 * sizeof(int)));
    copy_shared<<<1, 2000>>>(d);
    show("2000 threads per block", cudaGetLastError());
    show("read again", cudaGetLastError());
    copy_shared<<<1, 32, 70000>>>(d);
    show("70000 bytes of shared memory", cudaGetLastError());
    copy_shared<<<1, 32, 32 * sizeof(int)>>>(d);
    show("a good launch", cudaGetLastError());
    show("its run", cudaDeviceSynchronize());
    int h[32];
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    printf("out[0] = %d, out[31] = %d\n", h[0], h[31]);
    fill<<<1, 128>>>(d);  // 28 threads too many
    show("an out-of-bounds launch", cudaGetLastError());
    show("its run", cudaDeviceSynchronize());
    show("read again", cudaGetLastError());
    show("cudaMemcpy after it", cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    show("cudaDeviceReset", cudaDeviceReset());
    show("after the reset", cudaGetLastError());
    return 0;
}
