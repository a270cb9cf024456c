// test_end_to_end.cu - a whole program through the real engine: a map kernel, an atomic count into
// device memory and into a __device__ variable, checked launches, events.
#include <cstdio>

#define CHECK(expr)                                                                        \
    do {                                                                                   \
        cudaError_t err_ = (expr);                                                         \
        if (err_ != cudaSuccess) {                                                         \
            printf("%s:%d: %s: %s\n", __FILE__, __LINE__, #expr, cudaGetErrorString(err_)); \
            return 1;                                                                      \
        }                                                                                  \
    } while (0)

__device__ int launches;

__global__ void twice(const int *in, int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i] * 2;
}

__global__ void count_positive(const int *in, int n, int *count)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && in[i] > 0) atomicAdd(count, 1);
    if (i == 0) atomicAdd(&launches, 1);
}

int main()
{
    const int n = 1000;  // not a multiple of the block
    static int h_in[n], h_out[n];
    for (int i = 0; i < n; i++) h_in[i] = (i * 37) % 101 - 50;
    int *d_in, *d_out, *d_count;
    CHECK(cudaMalloc(&d_in, n * sizeof(int)));
    CHECK(cudaMalloc(&d_out, n * sizeof(int)));
    CHECK(cudaMalloc(&d_count, sizeof(int)));
    CHECK(cudaMemcpy(d_in, h_in, n * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(d_count, 0, sizeof(int)));
    int zero = 0;
    CHECK(cudaMemcpyToSymbol(launches, &zero, sizeof zero));

    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    CHECK(cudaEventRecord(start));
    const int block = 128, grid = (n + block - 1) / block;
    twice<<<grid, block>>>(d_in, d_out, n);
    CHECK(cudaGetLastError());
    count_positive<<<grid, block>>>(d_in, n, d_count);
    CHECK(cudaGetLastError());
    count_positive<<<grid, block>>>(d_in, n, d_count);
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(stop));
    CHECK(cudaEventSynchronize(stop));
    CHECK(cudaDeviceSynchronize());
    float ms = -1;
    CHECK(cudaEventElapsedTime(&ms, start, stop));

    int count = 0, nlaunches = 0, expected_count = 0, wrong = 0;
    CHECK(cudaMemcpy(h_out, d_out, n * sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&count, d_count, sizeof count, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpyFromSymbol(&nlaunches, launches, sizeof nlaunches));
    for (int i = 0; i < n; i++) {
        if (h_out[i] != 2 * h_in[i]) wrong++;
        if (h_in[i] > 0) expected_count += 2;
    }
    printf("twice: %d of %d wrong\n", wrong, n);
    printf("count_positive: %s\n", count == expected_count ? "right" : "wrong");
    printf("launches: %d\n", nlaunches);
    printf("elapsed time: %s\n", ms >= 0 ? "measured" : "missing");
    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_out));
    CHECK(cudaFree(d_count));
    return 0;
}
