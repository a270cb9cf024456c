// test_warp_size.cu - warpSize (PTX's WARP_SZ) is 32, in arithmetic and as a loop bound, as on a GPU.
#include <cstdio>
__global__ void k(int *out)
{
    int v = 0;
    for (int s = warpSize / 2; s > 0; s /= 2) v += s;   // 16 + 8 + 4 + 2 + 1
    out[threadIdx.x] = threadIdx.x % warpSize + 100 * (threadIdx.x / warpSize) + 1000 * v;
}
int main()
{
    int h[64], *d;
    cudaMalloc(&d, sizeof h);
    k<<<1, 64>>>(d);
    cudaError_t e = cudaDeviceSynchronize();
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    printf("%s %d %d %d %d\n", cudaGetErrorString(e), h[0], h[31], h[32], h[63]);
}
