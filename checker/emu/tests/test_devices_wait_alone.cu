// test_devices_wait_alone.cu - a held kernel that waits runs alone when no other device's kernel comes
// (its flag was set before); and a kernel whose peer finished without setting the flag it waits for is a
// deadlock that names the flag and says that the others have finished.
#include <cstdio>
#include <cstring>

#include "findings_step.h"

__global__ void wait_for(int *flag, int epoch, int *out)
{
    if (threadIdx.x == 0) while (((volatile int *)flag)[0] != epoch) {}
    __syncthreads();
    out[threadIdx.x] = epoch;
}

__global__ void forget(int *out) { out[threadIdx.x] = -1; }


int main()
{
    int *flag, *out[2], one = 1;
    for (int r = 0; r < 2; r++) {
        cudaSetDevice(r);
        cudaMalloc(&out[r], 32 * sizeof(int));
    }
    cudaSetDevice(1);
    cudaMalloc(&flag, sizeof(int));
    cudaMemcpy(flag, &one, sizeof one, cudaMemcpyHostToDevice);
    wait_for<<<1, 32>>>(flag, 1, out[1]);
    int h = 0;
    cudaMemcpy(&h, out[1], sizeof h, cudaMemcpyDeviceToHost);
    printf("alone: out = %d\n", h);
    findings("alone", NULL);

    // Device 0 waits for epoch 2 in device 1's memory; device 1's kernel finishes without writing it.
    cudaSetDevice(0);
    cudaDeviceEnablePeerAccess(1, 0);
    wait_for<<<1, 32>>>(flag, 2, out[0]);
    cudaSetDevice(1);
    forget<<<1, 32>>>(out[1]);
    printf("peer finished: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
    findings("peer finished", "this kernel, on device 0, waits in a loop for flag[0] (memory of device 1), but the kernels of the other devices that ran with it have finished");
    return 0;
}
