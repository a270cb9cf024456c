// test_cp_async.cu - cp.async (__pipeline_memcpy_async): copies of 4, 8 and 16 bytes from global into shared
// memory, the zero fill past a source size, groups committed and waited for, two stages filled while the other is
// read; and the findings: a thread that reads its copy before waiting for it, a thread that reads another's copy
// with no barrier after that thread's wait, a wait that leaves the newest group in flight, a misaligned copy.
#include <cstdio>
#include <cuda_pipeline_primitives.h>

#define N 256

// Every thread copies 16 bytes (4 ints) into shared memory, waits, and after a barrier thread t sums the ints of
// thread (t + 1) % N: out[t] = the sum of in[4 (t + 1) % N ..] (4 of them).
__global__ void copy16(const int *in, int *out)
{
    __shared__ __align__(16) int s[4 * N];
    int t = threadIdx.x;
    __pipeline_memcpy_async(&s[4 * t], &in[4 * t], 16);
    __pipeline_commit();
    __pipeline_wait_prior(0);
    __syncthreads();
    int u = (t + 1) % N;
    out[t] = s[4 * u] + s[4 * u + 1] + s[4 * u + 2] + s[4 * u + 3];
}

// 4- and 8-byte copies, and a 16-byte copy of which only the first 8 bytes come from global memory (zfill 8).
__global__ void small_copies(const int *in, int *out)
{
    __shared__ __align__(16) int s[8];
    if (threadIdx.x == 0) {
        s[1] = 7;
        __pipeline_memcpy_async(&s[0], &in[0], 4);
        __pipeline_memcpy_async(&s[2], &in[2], 8);
        __pipeline_memcpy_async(&s[4], &in[4], 16, 8);
        __pipeline_commit();
        __pipeline_wait_prior(0);
        for (int i = 0; i < 8; i++) out[i] = s[i];
    }
}

// Rows of N ints, two stages: row r + 1 is copied while row r is summed; each thread reads only its own copies.
__global__ void two_stages(const int *in, int *out, int rows)
{
    __shared__ __align__(16) int s[2][4 * N];
    int t = threadIdx.x;
    __pipeline_memcpy_async(&s[0][4 * t], &in[4 * t], 16);
    __pipeline_commit();
    for (int r = 0; r < rows; r++) {
        if (r + 1 < rows) __pipeline_memcpy_async(&s[(r + 1) & 1][4 * t], &in[(size_t)(r + 1) * 4 * N + 4 * t], 16);
        __pipeline_commit();
        __pipeline_wait_prior(1);
        const int *mine = &s[r & 1][4 * t];
        out[r * N + t] = mine[0] + mine[1] + mine[2] + mine[3];
    }
}

// Bug: the copy is read before the wait.
__global__ void read_before_wait(const int *in, int *out)
{
    __shared__ __align__(16) int s[4 * N];
    int t = threadIdx.x;
    __pipeline_memcpy_async(&s[4 * t], &in[4 * t], 16);
    __pipeline_commit();
    out[t] = s[4 * t];
    __pipeline_wait_prior(0);
}

// Bug: two stages, but the wait leaves both groups in flight (wait_prior(2) where 1 is needed).
__global__ void wait_too_little(const int *in, int *out, int rows)
{
    __shared__ __align__(16) int s[2][4 * N];
    int t = threadIdx.x;
    __pipeline_memcpy_async(&s[0][4 * t], &in[4 * t], 16);
    __pipeline_commit();
    for (int r = 0; r < rows; r++) {
        if (r + 1 < rows) __pipeline_memcpy_async(&s[(r + 1) & 1][4 * t], &in[(size_t)(r + 1) * 4 * N + 4 * t], 16);
        __pipeline_commit();
        __pipeline_wait_prior(2);
        out[r * N + t] = s[r & 1][4 * t];
    }
}

// Bug: every thread waits for its own copy, but reads its neighbour's with no barrier between.
__global__ void no_barrier_after_wait(const int *in, int *out)
{
    __shared__ __align__(16) int s[4 * N];
    int t = threadIdx.x;
    __pipeline_memcpy_async(&s[4 * t], &in[4 * t], 16);
    __pipeline_commit();
    __pipeline_wait_prior(0);
    out[t] = s[4 * ((t + 32) % N)];
}

// Bug: a 16-byte copy from an address 4 bytes past a 16-byte boundary.
__global__ void misaligned(const int *in, int *out)
{
    __shared__ __align__(16) int s[4 * N];
    int t = threadIdx.x;
    __pipeline_memcpy_async(&s[4 * t], &in[4 * t + 1], 16);
    __pipeline_commit();
    __pipeline_wait_prior(0);
    out[t] = s[4 * t];
}

static int *h_in, *h_out, *d_in, *d_out;

static void run(const char *name, cudaError_t launched)
{
    cudaError_t e = cudaDeviceSynchronize();
    printf("%s: %s, %s\n", name, cudaGetErrorName(launched), cudaGetErrorName(e));
    cudaGetLastError();
}

int main()
{
    const int rows = 5, n = rows * 4 * N;
    h_in = new int[n + 4];
    h_out = new int[rows * N];
    for (int i = 0; i < n + 4; i++) h_in[i] = i % 1000 - 300;
    cudaMalloc(&d_in, (n + 4) * sizeof(int));
    cudaMalloc(&d_out, rows * N * sizeof(int));
    cudaMemcpy(d_in, h_in, (n + 4) * sizeof(int), cudaMemcpyHostToDevice);

    copy16<<<1, N>>>(d_in, d_out);
    run("copy16", cudaGetLastError());
    cudaMemcpy(h_out, d_out, N * sizeof(int), cudaMemcpyDeviceToHost);
    int bad = 0;
    for (int t = 0; t < N; t++) {
        int u = (t + 1) % N, want = h_in[4 * u] + h_in[4 * u + 1] + h_in[4 * u + 2] + h_in[4 * u + 3];
        bad += h_out[t] != want;
    }
    printf("  sums of the neighbour's copy: %d wrong\n", bad);

    small_copies<<<1, 32>>>(d_in, d_out);
    run("small_copies", cudaGetLastError());
    cudaMemcpy(h_out, d_out, 8 * sizeof(int), cudaMemcpyDeviceToHost);
    printf("  ");
    for (int i = 0; i < 8; i++) printf("%d ", h_out[i]);
    printf("(expected %d 7 %d %d %d %d 0 0)\n", h_in[0], h_in[2], h_in[3], h_in[4], h_in[5]);

    two_stages<<<1, N>>>(d_in, d_out, rows);
    run("two_stages", cudaGetLastError());
    cudaMemcpy(h_out, d_out, rows * N * sizeof(int), cudaMemcpyDeviceToHost);
    bad = 0;
    for (int r = 0; r < rows; r++)
        for (int t = 0; t < N; t++) {
            const int *v = &h_in[r * 4 * N + 4 * t];
            bad += h_out[r * N + t] != v[0] + v[1] + v[2] + v[3];
        }
    printf("  rows of two stages: %d wrong\n", bad);

    read_before_wait<<<1, N>>>(d_in, d_out);
    run("read_before_wait", cudaGetLastError());
    wait_too_little<<<1, N>>>(d_in, d_out, rows);
    run("wait_too_little", cudaGetLastError());
    no_barrier_after_wait<<<1, N>>>(d_in, d_out);
    run("no_barrier_after_wait", cudaGetLastError());
    misaligned<<<1, N>>>(d_in, d_out);
    run("misaligned", cudaGetLastError());
    return 0;
}
