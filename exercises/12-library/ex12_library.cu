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
    // TODO 1: return the sum of d_in[0..n) from thrust::reduce, run on the device: the execution policy
    //         thrust::device first, then the raw pointers d_in and d_in + n, then the initial value.
    return 0;
}

extern "C" float max_thrust(const float *d_in, int n)
{
    // TODO 2: return the largest element from thrust::reduce with thrust::maximum<float>(). The initial
    //         value is what n = 0 returns, and it must never win against an element.
    return 0.0f;
}

extern "C" float norm_thrust(const float *d_in, int n)
{
    // TODO 3: the square root of the sum of squares, in one pass: thrust::transform_reduce applies
    //         thrust::square<float>() to each element on its way into a thrust::plus<float>() sum.
    return 0.0f;
}

// One element as a range: it is its own smallest and largest.
struct as_range {
    __host__ __device__ float_range operator()(float x) const { return {x, x}; }
};

// Two ranges as one.
struct merge_ranges {
    __host__ __device__ float_range operator()(float_range a, float_range b) const
    {
        // TODO 4: return the range that covers both a and b. The library may combine ranges in any order
        //         and grouping, so the result must not depend on either, NaN included.
        return a;
    }
};

extern "C" float_range minmax_thrust(const float *d_in, int n)
{
    // TODO 5: set empty to the range that changes nothing when merged (what n = 0 returns), then return
    //         one thrust::transform_reduce of d_in with as_range(), empty and merge_ranges().
    const float_range empty = {0.0f, 0.0f};
    return empty;
}

// ---- CUB: the caller owns the temporary storage, the result stays on the device ------------------------

// CUB's temporary storage, kept between calls: allocated by the first call that needs more than is held.
static void *d_temp_storage = NULL;
static size_t temp_storage_held = 0;

extern "C" cudaError_t sum_cub(const int *d_in, int *d_out, int n, cudaStream_t stream)
{
    // TODO 6: ask cub::DeviceReduce::Sum how many bytes of temporary storage it needs: call it with NULL as
    //         the storage, and bytes receives the size. Pass stream as its last argument, in every call.
    size_t bytes = 0;

    // TODO 7: when bytes is more than temp_storage_held, free the old storage and cudaMalloc bytes for
    //         d_temp_storage, and remember the new size. Otherwise keep what you hold.

    // TODO 8: return the second call of cub::DeviceReduce::Sum, with the storage you hold. Do not wait for
    //         it: the sum stays in d_out[0] on the device until the caller wants it.
    return cudaSuccess;
}
