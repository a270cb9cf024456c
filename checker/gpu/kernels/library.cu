// library.cu - exercise 12's library code: bmsk in both modes (CUB's radix sort builds digit masks with it),
// CUB's block reduction (raking and warp reductions, a partial tile, ints and floats), its warp reduction
// over logical warps of 16 lanes, DeviceReduce, DeviceSelect (a kernel parameter read through its address),
// Thrust's reduce, transform_reduce, max_element and sort, and the reference solution of exercise 12.
//
// Device-wide float results are order-independent here (a max, or integer-valued sums that are exact), so
// that a grid that differs between the GPU and the emulator cannot change them; block- and warp-level
// float sums run in the order CUB fixes for the block, the same on both, and are compared bit for bit.
// pin_device.h first: CUB asks for the multiprocessor count, and gets the GPU's on the emulator too.
#include "../pin_device.h"
#include <algorithm>
#include <vector>
#include <cuda/functional>
#include <cub/block/block_reduce.cuh>
#include <cub/warp/warp_reduce.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_select.cuh>
#include <thrust/execution_policy.h>
#include <thrust/extrema.h>
#include <thrust/functional.h>
#include <thrust/reduce.h>
#include <thrust/sort.h>
#include <thrust/transform_reduce.h>
#include "../cases.h"
#include "../../contracts/ex12.h"

// Exercise 12's functions, linked in by compare.sh when the solution compiles (weak: absent otherwise).
extern "C" {
int sum_thrust(const int *d_in, int n) __attribute__((weak));
float max_thrust(const float *d_in, int n) __attribute__((weak));
float norm_thrust(const float *d_in, int n) __attribute__((weak));
float_range minmax_thrust(const float *d_in, int n) __attribute__((weak));
cudaError_t sum_cub(const int *d_in, int *d_out, int n, cudaStream_t stream) __attribute__((weak));
}

// ---- bmsk: a table of edges (starts and widths at and past 32) and random operands -------------------

#define BMSK_N 256

__global__ void k_bmsk(const unsigned *a, const unsigned *b, unsigned *out)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned c, w;
    asm("bmsk.clamp.b32 %0, %1, %2;" : "=r"(c) : "r"(a[t]), "r"(b[t]));
    asm("bmsk.wrap.b32 %0, %1, %2;" : "=r"(w) : "r"(a[t]), "r"(b[t]));
    out[t] = c;
    out[BMSK_N + t] = w;
}

static void case_bmsk(void)
{
    const char *name = "library:bmsk.clamp+wrap";
    std::vector<unsigned> a(BMSK_N), b(BMSK_N);
    uint64_t s = 71;
    for (int i = 0; i < BMSK_N; i++) {
        if (i < 64) {   // every start 0..63 against widths around the edges
            a[i] = (unsigned)i;
            b[i] = (unsigned)((i * 7) % 40);
        } else {
            a[i] = i % 3 ? rng_u32(&s) % 70 : rng_u32(&s);
            b[i] = i % 5 ? rng_u32(&s) % 70 : rng_u32(&s);
        }
    }
    unsigned *d_a = (unsigned *)dev_copy(a.data(), BMSK_N * 4), *d_b = (unsigned *)dev_copy(b.data(), BMSK_N * 4);
    unsigned *d_o = (unsigned *)dev_poisoned(2 * BMSK_N * 4);
    if (!d_a || !d_b || !d_o) { record_error(name, "cudaMalloc failed"); return; }
    k_bmsk<<<2, BMSK_N / 2>>>(d_a, d_b, d_o);
    CK_LAUNCH(name);
    std::vector<unsigned> h(2 * BMSK_N);
    dev_take(h.data(), d_o, h.size() * 4);
    cudaFree(d_a);
    cudaFree(d_b);
    record(name, "u32", 0, h.data(), h.size());
}

// ---- CUB's block and warp reductions -----------------------------------------------------------------

template <typename T, cub::BlockReduceAlgorithm ALGORITHM>
__global__ void k_block_sum(const T *in, T *out, int n)
{
    typedef cub::BlockReduce<T, 96, ALGORITHM> BlockReduce;
    __shared__ typename BlockReduce::TempStorage temp;
    int i = blockIdx.x * 96 + threadIdx.x, valid = min(96, n - (int)blockIdx.x * 96);
    T sum = BlockReduce(temp).Sum(i < n ? in[i] : T(0), valid);
    if (threadIdx.x == 0) out[blockIdx.x] = sum;
}

template <typename T>
__global__ void k_warp16(const T *in, T *out)
{
    typedef cub::WarpReduce<T, 16> WarpReduce;
    __shared__ typename WarpReduce::TempStorage temp[8];
    int segment = threadIdx.x / 16;
    T v = in[blockIdx.x * blockDim.x + threadIdx.x];
    T sum = WarpReduce(temp[segment]).Sum(v);
    T max = WarpReduce(temp[segment]).Reduce(v, cuda::maximum<T>{});
    if (threadIdx.x % 16 == 0) {
        out[2 * (blockIdx.x * 8 + segment)] = sum;
        out[2 * (blockIdx.x * 8 + segment) + 1] = max;
    }
}

template <typename T>
static void case_block_warp(const char *type, const char *kind, const std::vector<T> &h)
{
    const int n = 1000, blocks = (n + 95) / 96;   // the last block holds 40
    char name[96];
    T *d_in = (T *)dev_copy(h.data(), n * sizeof(T));
    T *d_out = (T *)dev_poisoned(64 * sizeof(T));
    if (!d_in || !d_out) { record_error("library:cub", "cudaMalloc failed"); return; }
    std::vector<T> got(blocks);
    snprintf(name, sizeof name, "library:cub::BlockReduce<%s,96,RAKING>(n=%d)", type, n);
    k_block_sum<T, cub::BLOCK_REDUCE_RAKING><<<blocks, 96>>>(d_in, d_out, n);
    CK_LAUNCH(name);
    cudaMemcpy(got.data(), d_out, blocks * sizeof(T), cudaMemcpyDeviceToHost);
    record(name, kind, 0, got.data(), blocks);
    snprintf(name, sizeof name, "library:cub::BlockReduce<%s,96,WARP_REDUCTIONS>(n=%d)", type, n);
    k_block_sum<T, cub::BLOCK_REDUCE_WARP_REDUCTIONS><<<blocks, 96>>>(d_in, d_out, n);
    CK_LAUNCH(name);
    cudaMemcpy(got.data(), d_out, blocks * sizeof(T), cudaMemcpyDeviceToHost);
    record(name, kind, 0, got.data(), blocks);
    snprintf(name, sizeof name, "library:cub::WarpReduce<%s,16>", type);
    std::vector<T> warp(32);
    k_warp16<T><<<2, 128>>>(d_in, d_out);
    CK_LAUNCH(name);
    cudaMemcpy(warp.data(), d_out, 32 * sizeof(T), cudaMemcpyDeviceToHost);
    record(name, kind, 0, warp.data(), 32);
    cudaFree(d_in);
    cudaFree(d_out);
}

// ---- Device-wide: CUB and Thrust -----------------------------------------------------------------------

// A long array as a few words: its length, a 64-bit FNV-1a hash of every word, and its first and last 32
// words (so that a difference still shows where it starts). Whole, a sort of 2^20 keys would make the
// answers file too large to bring back from a GPU machine.
static void record_digest(const char *name, const std::vector<uint32_t> &w)
{
    uint64_t h = 1469598103934665603ull;
    for (uint32_t x : w) h = (h ^ x) * 1099511628211ull;
    std::vector<uint32_t> d = {(uint32_t)w.size(), (uint32_t)h, (uint32_t)(h >> 32)};
    for (size_t i = 0; i < w.size() && i < 32; i++) d.push_back(w[i]);
    for (size_t i = w.size() > 64 ? w.size() - 32 : std::min<size_t>(w.size(), 32); i < w.size(); i++) d.push_back(w[i]);
    record(name, "u32", 0, d.data(), d.size());
}

struct negative {
    __host__ __device__ bool operator()(int x) const { return x < 0; }
};
struct square {
    __host__ __device__ float operator()(float x) const { return x * x; }
};

static void case_device(int n)
{
    char name[96];
    std::vector<int> h(n);
    std::vector<float> hf(n);
    uint64_t s = 5000 + n;
    for (int i = 0; i < n; i++) {
        h[i] = rng_int(&s, -1000, 1000);
        hf[i] = (float)rng_int(&s, -2, 2);   // squares sum exactly in any order: at most 4 n < 2^24
    }
    int *d_in = (int *)dev_copy(h.data(), n * sizeof(int)), *d_out = (int *)dev_poisoned(n * sizeof(int));
    int *d_count = (int *)dev_poisoned(4);
    float *d_f = (float *)dev_copy(hf.data(), n * sizeof(float));
    if (!d_in || !d_out || !d_count || !d_f) { record_error("library:device", "cudaMalloc failed"); return; }

    snprintf(name, sizeof name, "library:cub::DeviceReduce::Sum(n=%d)", n);
    size_t bytes = 0;
    void *d_temp = NULL;
    CK(name, cub::DeviceReduce::Sum(d_temp, bytes, d_in, d_out, n));
    CK(name, cudaMalloc(&d_temp, bytes ? bytes : 1));
    CK(name, cub::DeviceReduce::Sum(d_temp, bytes, d_in, d_out, n));
    CK_LAUNCH(name);
    int sum;
    cudaMemcpy(&sum, d_out, 4, cudaMemcpyDeviceToHost);
    record(name, "u32", 0, &sum, 1);
    cudaFree(d_temp);

    snprintf(name, sizeof name, "library:cub::DeviceSelect::If(n=%d)", n);
    bytes = 0;
    d_temp = NULL;
    CK(name, cub::DeviceSelect::If(d_temp, bytes, d_in, d_out, d_count, n, negative()));
    CK(name, cudaMalloc(&d_temp, bytes ? bytes : 1));
    CK(name, cub::DeviceSelect::If(d_temp, bytes, d_in, d_out, d_count, n, negative()));
    CK_LAUNCH(name);
    int count = 0;
    cudaMemcpy(&count, d_count, 4, cudaMemcpyDeviceToHost);
    std::vector<uint32_t> selected(count);
    cudaMemcpy(selected.data(), d_out, count * sizeof(int), cudaMemcpyDeviceToHost);
    record_digest(name, selected);
    cudaFree(d_temp);

    snprintf(name, sizeof name, "library:thrust::reduce+max_element(n=%d)", n);
    int ints[2];
    ints[0] = thrust::reduce(thrust::device, d_in, d_in + n, 0);
    ints[1] = (int)(thrust::max_element(thrust::device, d_f, d_f + n) - d_f);
    CK_LAUNCH(name);
    record(name, "u32", 0, ints, 2);
    snprintf(name, sizeof name, "library:thrust::transform_reduce+reduce(max)(n=%d)", n);
    float floats[2];
    floats[0] = thrust::transform_reduce(thrust::device, d_f, d_f + n, square(), 0.0f, thrust::plus<float>());
    floats[1] = thrust::reduce(thrust::device, d_f, d_f + n, -INFINITY, thrust::maximum<float>());
    CK_LAUNCH(name);
    record(name, "f32", 0, floats, 2);

    snprintf(name, sizeof name, "library:thrust::sort(n=%d)", n);
    cudaMemcpy(d_out, d_in, n * sizeof(int), cudaMemcpyDeviceToDevice);
    thrust::sort(thrust::device, d_out, d_out + n);
    thrust::sort(thrust::device, d_f, d_f + n, thrust::greater<float>());
    CK_LAUNCH(name);
    std::vector<uint32_t> sorted(2 * n);
    cudaMemcpy(sorted.data(), d_out, n * sizeof(int), cudaMemcpyDeviceToHost);
    cudaMemcpy(sorted.data() + n, d_f, n * sizeof(float), cudaMemcpyDeviceToHost);
    record_digest(name, sorted);
    cudaFree(d_in);
    cudaFree(d_out);
    cudaFree(d_count);
    cudaFree(d_f);
}

// ---- Exercise 12's reference solution ------------------------------------------------------------------

static void case_ex12(int n)
{
    char name[96];
    snprintf(name, sizeof name, "solution:ex12_library(n=%d)", n);
    if (!sum_thrust || !max_thrust || !norm_thrust || !minmax_thrust || !sum_cub) {
        record_missing(name, "ex12_library");
        return;
    }
    std::vector<int> h(n + 1);
    std::vector<float> hf(n + 1);
    uint64_t s = 6000 + n;
    for (int i = 0; i < n; i++) {
        h[i] = rng_int(&s, -1000, 1000);
        hf[i] = i % 11 == 5 ? NAN : (float)rng_int(&s, -4, 4);   // NaNs for minmax; squares sum exactly
    }
    std::vector<float> finite(hf);
    for (float &x : finite) if (x != x) x = -5.0f;
    int *d_in = (int *)dev_copy(h.data(), n * sizeof(int)), *d_out = (int *)dev_poisoned(4);
    float *d_f = (float *)dev_copy(hf.data(), n * sizeof(float));
    float *d_finite = (float *)dev_copy(finite.data(), n * sizeof(float));
    if (!d_in || !d_out || !d_f || !d_finite) { record_error(name, "cudaMalloc failed"); return; }
    // The floats: max, norm (its squares sum exactly: at most 16 n < 2^24), and the range with NaNs.
    float r[4];
    r[0] = max_thrust(d_finite, n);
    r[1] = norm_thrust(d_finite, n);
    float_range range = minmax_thrust(d_f, n);
    r[2] = range.min;
    r[3] = range.max;
    int sums[2];
    sums[0] = sum_thrust(d_in, n);
    CK(name, sum_cub(d_in, d_out, n, 0));
    CK_LAUNCH(name);
    cudaMemcpy(&sums[1], d_out, 4, cudaMemcpyDeviceToHost);
    record(name, "f32", 0, r, 4);
    char ints_name[112];
    snprintf(ints_name, sizeof ints_name, "%s.sums", name);
    record(ints_name, "u32", 0, sums, 2);
    cudaFree(d_in);
    cudaFree(d_out);
    cudaFree(d_f);
    cudaFree(d_finite);
}

void run_library_cases(void)
{
    case_bmsk();
    std::vector<int> hi(1000);
    std::vector<float> hf(1000);
    uint64_t s = 81;
    for (int i = 0; i < 1000; i++) {
        hi[i] = (int)rng_u32(&s);   // wraps around: int addition is exact modulo 2^32 in any order
        hf[i] = ldexpf((float)rng_int(&s, -(1 << 23), 1 << 23), rng_int(&s, -30, 0));
    }
    case_block_warp<int>("int", "u32", hi);
    case_block_warp<float>("float", "f32", hf);
    const int sizes[] = {1, 100, 100003, 1 << 20};
    for (int n : sizes) case_device(n);
    const int ex12_sizes[] = {0, 1, 4099, 1000003};
    for (int n : ex12_sizes) case_ex12(n);
}
