// Unusual: other library calls for the same answers: device_ptr instead of an execution policy,
// max_element, a placeholder expression, a transform_iterator, and CUB's generic Reduce with plus.

#include <math.h>
#include <cuda/functional>
#include <thrust/device_ptr.h>
#include <thrust/execution_policy.h>
#include <thrust/extrema.h>
#include <thrust/functional.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/reduce.h>
#include <thrust/transform_reduce.h>
#include <cub/device/device_reduce.cuh>

extern "C" int sum_thrust(const int *d_in, int n)
{
    // A device_ptr says where the data lives, so no policy is needed.
    thrust::device_ptr<const int> first = thrust::device_pointer_cast(d_in);
    return thrust::reduce(first, first + n);
}

extern "C" float max_thrust(const float *d_in, int n)
{
    if (n == 0)
        return -INFINITY;
    // Where the largest element is, then one float copied back through the device_ptr.
    return *thrust::max_element(thrust::device, thrust::device_pointer_cast(d_in), thrust::device_pointer_cast(d_in) + n);
}

extern "C" float norm_thrust(const float *d_in, int n)
{
    using namespace thrust::placeholders;   // _1 * _1: a functor that squares its argument
    return sqrtf(thrust::transform_reduce(thrust::device, d_in, d_in + n, _1 * _1, 0.0f, thrust::plus<float>()));
}

struct as_range {
    __host__ __device__ float_range operator()(float x) const { return {x, x}; }
};

struct merge_ranges {
    __host__ __device__ float_range operator()(const float_range &a, const float_range &b) const
    {
        float_range r;
        r.min = fminf(b.min, a.min);
        r.max = fmaxf(b.max, a.max);
        return r;
    }
};

extern "C" float_range minmax_thrust(const float *d_in, int n)
{
    auto ranges = thrust::make_transform_iterator(d_in, as_range());
    return thrust::reduce(thrust::device, ranges, ranges + n, float_range{INFINITY, -INFINITY}, merge_ranges());
}

// The storage and its size together, grown when a call needs more.
static struct {
    void *d_bytes;
    size_t size;
} storage;

extern "C" cudaError_t sum_cub(const int *d_in, int *d_out, int n, cudaStream_t stream)
{
    size_t need = 0;
    cudaError_t err = cub::DeviceReduce::Reduce(NULL, need, d_in, d_out, n, cuda::std::plus<int>(), 0, stream);
    if (err == cudaSuccess && need > storage.size) {
        if (storage.d_bytes)
            cudaFree(storage.d_bytes);
        storage.size = 0;
        err = cudaMalloc(&storage.d_bytes, need);
        if (err == cudaSuccess)
            storage.size = need;
    }
    if (err != cudaSuccess)
        return err;
    return cub::DeviceReduce::Reduce(storage.d_bytes, storage.size, d_in, d_out, n, cuda::std::plus<int>(), 0, stream);
}
