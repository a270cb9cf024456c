// ex12_library.cu - exercise 12: use the library. Thrust when one line and a value back on the host will
// do; CUB when you want to own the temporary storage, keep the result on the device and stay on a stream.
//
// Read lesson.md in this folder first. Fill in the TODOs in order and run `make ex12`.
// Contract (checker/contracts/ex12.h): n = 0 gives 0, -inf, 0, {+inf, -inf} and 0; minmax_thrust ignores
// NaN as fminf and fmaxf do; sum_cub queues its work on the stream it is given and never waits for it.
// Thrust's and CUB's headers are large templates and compile slowly: include only what is used.

#include <math.h>   // INFINITY, sqrtf, fminf, fmaxf
#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/reduce.h>
#include <thrust/transform_reduce.h>
#include <cub/device/device_reduce.cuh>

// ---- Thrust: one call, and the value comes back to the host -------------------------------------------

extern "C" int sum_thrust(const int *d_in, int n)
{
    // thrust::device runs it on the GPU: raw pointers alone would be host iterators.
    return thrust::reduce(thrust::device, d_in, d_in + n, 0);
}

extern "C" float max_thrust(const float *d_in, int n)
{
    // The identity is -inf: 0 would beat every negative element, and -FLT_MAX would beat -inf.
    return thrust::reduce(thrust::device, d_in, d_in + n, -INFINITY, thrust::maximum<float>());
}

extern "C" float norm_thrust(const float *d_in, int n)
{
    // Each element is squared on its way into the sum: one pass, no vector of squares.
    float sum_of_squares = thrust::transform_reduce(thrust::device, d_in, d_in + n, thrust::square<float>(),
                                                    0.0f, thrust::plus<float>());
    return sqrtf(sum_of_squares);
}

// One element as a range: it is its own smallest and largest.
struct as_range {
    __host__ __device__ float_range operator()(float x) const { return {x, x}; }
};

// Two ranges as one. Associative and commutative, NaN included: fminf and fmaxf return the other operand
// when one is NaN, in either order (a.min < b.min ? a.min : b.min does not: it keeps b.min's NaN).
struct merge_ranges {
    __host__ __device__ float_range operator()(float_range a, float_range b) const
    {
        return {fminf(a.min, b.min), fmaxf(a.max, b.max)};
    }
};

extern "C" float_range minmax_thrust(const float *d_in, int n)
{
    // The empty range is the identity: +inf loses every min and -inf every max.
    const float_range empty = {INFINITY, -INFINITY};
    return thrust::transform_reduce(thrust::device, d_in, d_in + n, as_range(), empty, merge_ranges());
}

// ---- CUB: the caller owns the temporary storage, the result stays on the device ------------------------

// CUB's temporary storage, kept between calls: allocated by the first call that needs more than is held.
static void *d_temp_storage = NULL;
static size_t temp_storage_held = 0;

extern "C" cudaError_t sum_cub(const int *d_in, int *d_out, int n, cudaStream_t stream)
{
    // The first call, with no storage, only says how many bytes the second one needs.
    size_t bytes = 0;
    cudaError_t err = cub::DeviceReduce::Sum(NULL, bytes, d_in, d_out, n, stream);
    if (err != cudaSuccess)
        return err;
    if (bytes > temp_storage_held) {
        cudaFree(d_temp_storage);   // waits for the device, but only when the storage grows
        err = cudaMalloc(&d_temp_storage, bytes);
        if (err != cudaSuccess) {
            d_temp_storage = NULL;
            temp_storage_held = 0;
            return err;
        }
        temp_storage_held = bytes;
    }
    // Queued on the stream; the sum stays in d_out[0] on the device until the caller wants it.
    return cub::DeviceReduce::Sum(d_temp_storage, temp_storage_held, d_in, d_out, n, stream);
}
