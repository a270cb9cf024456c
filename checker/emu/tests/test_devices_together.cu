// test_devices_together.cu - kernels of several devices that wait for each other run together, as on a GPU
// machine: a one-shot all-reduce whose kernel on each device publishes its buffer with a flag in every peer's
// memory and spins until the peers' flags arrive (2, 3 and 4 devices, calls repeated with a new epoch);
// events recorded after such kernels order what follows them; a peer's input copied in on its stream is ordered
// before a reader by the peer's flag, and a rank's next copy over its input after its kernel by the peers' "done
// reading" flags (and without them it races with their reads); kernels that wait for a flag nobody writes
// (all of them, or one whose peers have finished) are a deadlock that names each device, line and flag; a
// kernel of one device alone still runs at its launch.
#include <cstdio>
#include <cstring>
#include <cuda/atomic>

#include "findings_step.h"

#define N 300
#define MAXR 4

struct Peers {
    float *buf[MAXR];   // each rank's copy of its input, in its own memory
    int *flag[MAXR];    // flag[r][s]: in rank r's memory, written by rank s when its buffer is ready
};

__device__ void publish(int *flag, int epoch)
{
    asm volatile("st.release.sys.global.u32 [%0], %1;" ::"l"(flag), "r"(epoch) : "memory");
}

__device__ int observe(const int *flag)
{
    int v;
    asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(flag) : "memory");
    return v;
}

// One block per device: copy the input into this rank's buffer, tell every peer, wait for every peer, add.
__global__ void oneshot(Peers p, int rank, int nranks, const float *in, float *out, int n, int epoch)
{
    for (int i = threadIdx.x; i < n; i += blockDim.x) p.buf[rank][i] = in[i];
    __syncthreads();
    if (threadIdx.x < nranks && threadIdx.x != rank) publish(&p.flag[threadIdx.x][rank], epoch);
    if (threadIdx.x < nranks && threadIdx.x != rank)
        while (observe(&p.flag[rank][threadIdx.x]) != epoch) {}
    __syncthreads();
    for (int i = threadIdx.x; i < n; i += blockDim.x) {
        float s = 0;
        for (int r = 0; r < nranks; r++) s += p.buf[r][i];
        out[i] = s;
    }
}

// Each rank reads the peers' inputs where they are (p.buf, filled by the caller on the rank's stream), then,
// when done_flags, tells every peer it has finished reading and waits until they all have: only then may a
// rank's stream overwrite its input.
__global__ void oneshot_inputs(Peers p, int rank, int nranks, float *out, int n, int epoch, int done_flags)
{
    if (threadIdx.x < nranks && threadIdx.x != rank) {
        publish(&p.flag[threadIdx.x][rank], epoch);
        while (observe(&p.flag[rank][threadIdx.x]) != epoch) {}
    }
    __syncthreads();
    for (int i = threadIdx.x; i < n; i += blockDim.x) {
        float s = 0;
        for (int r = 0; r < nranks; r++) s += p.buf[r][i];
        out[i] = s;
    }
    __syncthreads();
    if (done_flags && threadIdx.x < nranks && threadIdx.x != rank) {
        publish(&p.flag[threadIdx.x][MAXR + rank], epoch);
        while (observe(&p.flag[rank][MAXR + threadIdx.x]) != epoch) {}
    }
}

// The same with cuda::atomic_ref at system scope, and the wait before the flag is set: a deadlock when
// wait_first, as every rank waits before it tells the others.
__global__ void oneshot_ref(Peers p, int rank, int nranks, const float *in, float *out, int n, int epoch, int wait_first)
{
    for (int i = threadIdx.x; i < n; i += blockDim.x) p.buf[rank][i] = in[i];
    __syncthreads();
    int peer = threadIdx.x;
    bool mine = peer < nranks && peer != rank;
    if (mine && !wait_first) {
        cuda::atomic_ref<int, cuda::thread_scope_system> f(p.flag[peer][rank]);
        f.store(epoch, cuda::memory_order_release);
    }
    if (mine) {
        cuda::atomic_ref<int, cuda::thread_scope_system> f(p.flag[rank][peer]);
        while (f.load(cuda::memory_order_acquire) != epoch) {}
    }
    __syncthreads();
    for (int i = threadIdx.x; i < n; i += blockDim.x) {
        float s = 0;
        for (int r = 0; r < nranks; r++) s += p.buf[r][i];
        out[i] = s;
    }
}


static Peers p;
static float *in[MAXR], *out[MAXR];
static cudaStream_t s[MAXR];

// Whether every rank's out holds the sum of the first nranks inputs (in[r][i] = r + i / 64).
static bool sums_right(int nranks)
{
    float h[N];
    bool ok = true;
    for (int r = 0; r < nranks; r++) {
        cudaSetDevice(r);
        cudaMemcpy(h, out[r], sizeof h, cudaMemcpyDeviceToHost);
        for (int i = 0; i < N; i++) {
            float want = 0;
            for (int q = 0; q < nranks; q++) want += q + i / 64.0f;
            ok &= h[i] == want;
        }
    }
    return ok;
}

int main()
{
    for (int r = 0; r < MAXR; r++) {
        cudaSetDevice(r);
        cudaStreamCreate(&s[r]);
        for (int q = 0; q < MAXR; q++)
            if (q != r) cudaDeviceEnablePeerAccess(q, 0);
        cudaMalloc(&p.buf[r], N * sizeof(float));
        cudaMalloc(&p.flag[r], 2 * MAXR * sizeof(int));
        cudaMemset(p.flag[r], 0, 2 * MAXR * sizeof(int));
        cudaMalloc(&in[r], N * sizeof(float));
        cudaMalloc(&out[r], N * sizeof(float));
        float h[N];
        for (int i = 0; i < N; i++) h[i] = r + i / 64.0f;
        cudaMemcpy(in[r], h, sizeof h, cudaMemcpyHostToDevice);
    }
    for (int r = 0; r < MAXR; r++) { cudaSetDevice(r); cudaDeviceSynchronize(); }
    findings("set up", NULL);

    // 2, 3 and 4 ranks, two calls each: the second call's epoch tells its flags from the first's.
    int epoch = 0;
    for (int nranks = 2; nranks <= MAXR; nranks++)
        for (int call = 0; call < 2; call++) {
            epoch++;
            for (int r = 0; r < nranks; r++) {
                cudaSetDevice(r);
                oneshot<<<1, 128, 0, s[r]>>>(p, r, nranks, in[r], out[r], N, epoch);
            }
            cudaError_t err = cudaSuccess;
            for (int r = 0; r < nranks; r++) {
                cudaSetDevice(r);
                cudaError_t e = cudaStreamSynchronize(s[r]);
                if (e != cudaSuccess) err = e;
            }
            printf("%d ranks, call %d: %s, sums %s\n", nranks, call + 1, cudaGetErrorName(err),
                   sums_right(nranks) ? "right" : "wrong");
        }
    findings("one-shot", NULL);

    // Inputs copied in on each rank's stream, no host wait: the kernels' flags order the copies before the
    // peers' reads, and the "done reading" flags the next copies after them.
    float h_in[MAXR][N];
    for (int r = 0; r < MAXR; r++)
        for (int i = 0; i < N; i++) h_in[r][i] = r + i / 64.0f;
    for (int done_flags = 1; done_flags >= 0; done_flags--) {
        for (int call = 0; call < 2; call++) {
            epoch++;
            for (int r = 0; r < 2; r++) {
                cudaSetDevice(r);
                cudaMemcpyAsync(p.buf[r], h_in[r], sizeof h_in[r], cudaMemcpyHostToDevice, s[r]);
                oneshot_inputs<<<1, 64, 0, s[r]>>>(p, r, 2, out[r], N, epoch, done_flags);
            }
        }
        for (int r = 0; r < 2; r++) { cudaSetDevice(r); cudaDeviceSynchronize(); }
        printf("inputs on the streams, %s: sums %s\n", done_flags ? "done flags" : "no done flags",
               sums_right(2) ? "right" : "wrong");
        findings(done_flags ? "inputs on the streams, done flags" : "inputs on the streams, no done flags",
                 done_flags ? NULL : "writes byte 0 of the 1200 bytes from cudaMalloc, which kernel oneshot_inputs on device");
    }

    // cuda::atomic_ref at system scope; an event recorded after each kernel orders rank 0's copy of rank 1's
    // result after rank 1's kernel.
    cudaEvent_t done[2];
    float *copy;
    cudaSetDevice(0);
    cudaMalloc(&copy, N * sizeof(float));
    epoch++;
    for (int r = 0; r < 2; r++) {
        cudaSetDevice(r);
        cudaEventCreateWithFlags(&done[r], cudaEventDisableTiming);
        oneshot_ref<<<1, 64, 0, s[r]>>>(p, r, 2, in[r], out[r], N, epoch, 0);
        cudaEventRecord(done[r], s[r]);
    }
    cudaSetDevice(0);
    cudaStreamWaitEvent(s[0], done[1], 0);
    cudaMemcpyAsync(copy, out[1], N * sizeof(float), cudaMemcpyDefault, s[0]);
    printf("atomic_ref: %s, sums %s\n", cudaGetErrorName(cudaStreamSynchronize(s[0])), sums_right(2) ? "right" : "wrong");
    findings("atomic_ref, copy after the event", NULL);

    // Without the event, the copy may read rank 1's result before its kernel wrote it.
    epoch++;
    for (int r = 0; r < 2; r++) {
        cudaSetDevice(r);
        oneshot_ref<<<1, 64, 0, s[r]>>>(p, r, 2, in[r], out[r], N, epoch, 0);
    }
    cudaSetDevice(0);
    cudaMemcpyAsync(copy, out[1], N * sizeof(float), cudaMemcpyDefault, s[0]);
    for (int r = 0; r < 2; r++) { cudaSetDevice(r); cudaDeviceSynchronize(); }
    findings("copy without the event", "reads byte 0 of the 1200 bytes from cudaMalloc, which kernel oneshot_ref");

    // Every rank waits before it tells the others: a deadlock that names both devices and their flags.
    epoch++;
    for (int r = 0; r < 2; r++) {
        cudaSetDevice(r);
        oneshot_ref<<<1, 64, 0, s[r]>>>(p, r, 2, in[r], out[r], N, epoch, 1);
    }
    cudaSetDevice(1);
    printf("wait before telling: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
    findings("wait before telling", "the kernels of 2 devices wait for each other forever: this one, on device 0");
    return 0;
}
