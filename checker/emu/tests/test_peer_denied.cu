// test_peer_denied.cu - a kernel on device 1 that loads device 0's memory through a peer pointer without
// cudaDeviceEnablePeerAccess: the launch fails with cudaErrorIllegalAddress and the finding names the line.
#include <cstdio>

__global__ void add(float *x, const float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += y[i];
}

int main()
{
    float *d0, *d1;
    cudaSetDevice(0);
    cudaMalloc(&d0, 256 * sizeof(float));
    cudaMemset(d0, 0, 256 * sizeof(float));
    cudaSetDevice(1);
    cudaMalloc(&d1, 256 * sizeof(float));
    cudaMemset(d1, 0, 256 * sizeof(float));
    add<<<1, 256>>>(d1, d0, 256);
    printf("without peer access: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
    return 0;
}
