// test_devices.cu - several devices: their count, the current one, memory that knows its device, streams and
// events per device, peer access, peer copies; and the order between devices that streams and events define,
// checked from their clocks and not from the order the emulator ran things in: a read of a peer's buffer not
// ordered after the write that filled it, a write over a buffer that another device's copy may still read, a
// kernel on a stream of another device, an event recorded on another device's stream.
#include <cstdio>
#include <cstring>

#include "findings_step.h"

#define N 1000

__global__ void fill(float *x, float v, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = v + i;
}

__global__ void add(float *x, const float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += y[i];
}


static float first(const float *d, int device)
{
    float v = -1;
    cudaSetDevice(device);
    cudaMemcpy(&v, d, sizeof v, cudaMemcpyDeviceToHost);
    return v;
}

int main()
{
    int count = 0, device = -1;
    cudaGetDeviceCount(&count);
    printf("devices: %d\n", count);
    printf("cudaSetDevice(%d): %s\n", count, cudaGetErrorName(cudaSetDevice(count)));
    cudaGetLastError();
    findings("no such device", "the emulator has 4 devices");
    cudaSetDevice(2);
    cudaGetDevice(&device);
    printf("current: %d\n", device);

    float *d[2];
    cudaStream_t s[2];
    cudaEvent_t e[2];
    for (int r = 0; r < 2; r++) {
        cudaSetDevice(r);
        cudaMalloc(&d[r], N * sizeof(float));
        cudaStreamCreate(&s[r]);
        cudaEventCreateWithFlags(&e[r], cudaEventDisableTiming);
        cudaPointerAttributes a;
        cudaPointerGetAttributes(&a, d[r]);
        printf("buffer %d is on device %d\n", r, a.device);
    }
    int can = -1;
    cudaDeviceCanAccessPeer(&can, 0, 1);
    printf("0 can access 1: %d\n", can);
    cudaDeviceCanAccessPeer(&can, 1, 1);
    printf("1 can access 1: %d\n", can);

    // Ordered: device 0 fills its buffer, device 1 copies it after an event, then adds it to its own.
    cudaSetDevice(1);
    fill<<<4, 256, 0, s[1]>>>(d[1], 1000.0f, N);
    cudaSetDevice(0);
    fill<<<4, 256, 0, s[0]>>>(d[0], 0.0f, N);
    cudaEventRecord(e[0], s[0]);
    cudaSetDevice(1);
    float *tmp;
    cudaMalloc(&tmp, N * sizeof(float));
    cudaStreamWaitEvent(s[1], e[0], 0);
    cudaMemcpyPeerAsync(tmp, 1, d[0], 0, N * sizeof(float), s[1]);
    add<<<4, 256, 0, s[1]>>>(d[1], tmp, N);
    cudaStreamSynchronize(s[1]);
    printf("ordered: d1[0] = %g\n", first(d[1], 1));
    findings("ordered", NULL);

    // Device 0 has not waited for device 1's copy (which read d[0]) when it overwrites d[0]: the host knows that
    // s[1] is done, and s[0] never learnt it from an event, but the host's wait orders what it enqueues next.
    cudaSetDevice(0);
    fill<<<4, 256, 0, s[0]>>>(d[0], 5.0f, N);
    cudaDeviceSynchronize();
    findings("host waited in between", NULL);

    // A copy not ordered after the write that filled its source.
    cudaSetDevice(0);
    fill<<<4, 256, 0, s[0]>>>(d[0], 7.0f, N);
    cudaSetDevice(1);
    cudaMemcpyPeerAsync(tmp, 1, d[0], 0, N * sizeof(float), s[1]);
    findings("copy before the event", "reads byte 0 of the 4000 bytes from cudaMalloc, which kernel fill on device 0 wrote");

    // The other way round: device 0 writes over d[0] while device 1's copy may still read it.
    cudaSetDevice(0);
    fill<<<4, 256, 0, s[0]>>>(d[0], 9.0f, N);
    findings("write while a peer reads", "writes byte 0 of the 4000 bytes from cudaMalloc, which cudaMemcpyPeerAsync on device 1 reads");
    for (int r = 0; r < 2; r++) { cudaSetDevice(r); cudaDeviceSynchronize(); }

    // cudaMemcpyAsync with cudaMemcpyDefault between devices, ordered by an event recorded after it.
    cudaSetDevice(1);
    cudaMemcpyAsync(tmp, d[0], N * sizeof(float), cudaMemcpyDefault, s[1]);
    cudaEventRecord(e[1], s[1]);
    cudaSetDevice(0);
    cudaStreamWaitEvent(s[0], e[1], 0);
    fill<<<4, 256, 0, s[0]>>>(d[0], 11.0f, N);
    cudaStreamSynchronize(s[0]);
    cudaEventSynchronize(e[1]);
    printf("default copy: tmp[0] = %g\n", first(tmp, 1));
    findings("cudaMemcpyDefault ordered", NULL);

    // Peer access: a kernel on device 1 adds device 0's buffer in place, once access is enabled.
    cudaSetDevice(1);
    printf("enable: %s\n", cudaGetErrorName(cudaDeviceEnablePeerAccess(0, 0)));
    printf("again: %s\n", cudaGetErrorName(cudaDeviceEnablePeerAccess(0, 0)));
    cudaGetLastError();
    add<<<4, 256, 0, s[1]>>>(d[1], d[0], N);
    cudaStreamSynchronize(s[1]);
    printf("peer load: d1[0] = %g\n", first(d[1], 1));
    findings("peer access enabled", NULL);

    // Mistakes of the host: a kernel on another device's stream, an event recorded on another device's stream.
    cudaSetDevice(0);
    add<<<4, 256, 0, s[1]>>>(d[1], d[0], N);
    printf("kernel on device 1's stream from device 0: %s\n", cudaGetErrorName(cudaGetLastError()));
    findings("stream of another device", "was launched on a stream of device 1 while the current device is 0");
    printf("record e1 on s0: %s\n", cudaGetErrorName(cudaEventRecord(e[1], s[0])));
    cudaGetLastError();
    findings("event of another device", "the event was created on device 1 and the stream belongs to device 0");
    return 0;
}
