// test_fresh_output_speed.cu - a kernel that fills never-written memory from its start costs one pass over
// the "written" record, not one pass per store. When each switch between the input and the output
// rescanned the output's flags from the start, these 4 Mi ints took about 16 s of CPU; now well under 1 s.
// The test fails above 3 s of CPU (measured around one launch, so a busy machine does not count).
#include <cstdio>
#include <ctime>

__global__ void copy(const int *in, int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i];
}

static double cpu_seconds()
{
    timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main()
{
    const int n = 4 << 20;
    int *in, *out;
    cudaMalloc(&in, n * sizeof(int));
    cudaMalloc(&out, n * sizeof(int));
    cudaMemset(in, 0, n * sizeof(int));
    double t0 = cpu_seconds();
    copy<<<n / 256, 256>>>(in, out, n);
    cudaError_t e = cudaDeviceSynchronize();
    double secs = cpu_seconds() - t0;
    printf("%s\n", cudaGetErrorString(e));
    if (secs > 3.0) {
        fprintf(stderr, "copying %d ints into fresh memory took %.1f s of CPU: the written flags are rescanned\n",
                n, secs);
        return 1;
    }
    return 0;
}
