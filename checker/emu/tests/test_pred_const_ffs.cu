// test_pred_const_ffs.cu - mov.pred with a constant (nvcc's else-if) and bfind.shiftamt (__ffs) run as on a GPU.
#include <cstdio>
__global__ void k(const int *in, int *out){ int lane = threadIdx.x % 32; int v = in[threadIdx.x];
 if (lane % 2 == 0) { v += __shfl_down_sync(0x55555555u, v, 2); } else if (lane == 1) { v = __ffs(v); }
 out[threadIdx.x] = v; }
int main(){ int h[32], *d, *o; for(int i=0;i<32;i++) h[i]=(i+1)*12; cudaMalloc(&d,128); cudaMalloc(&o,128); cudaMemcpy(d,h,128,cudaMemcpyHostToDevice); k<<<1,32>>>(d,o); cudaError_t e=cudaDeviceSynchronize(); cudaMemcpy(h,o,128,cudaMemcpyDeviceToHost); printf("%s %d %d %d\n", cudaGetErrorString(e), h[0], h[1], h[3]); }
