// allreduce_check.cuh - the check bench_allreduce.cu makes of each contender once per size and set of ranks,
// before it times it: every rank the same bits, and the right sum within the rounding of any order of
// additions. A wrong result is reported, not timed.
//
// Rank r's element i is value(r, i): a float in (-1, 1) drawn from a hash of both, made on the device by
// fill_kernel and again on the host for the exact sum, so that no input crosses to the device. Their sum in
// another order has other last bits, so a rank that adds in its own order is caught by the bits.

__host__ __device__ inline float value(int r, size_t i)
{
    unsigned long long h = (i + 1) * 0x9E3779B97F4A7C15ull ^ (unsigned long long)(r + 1) * 0xC2B2AE3D27D4EB4Full;
    h ^= h >> 29;
    h *= 0xBF58476D1CE4E5B9ull;
    h ^= h >> 32;
    return (float)((int)(h & 0xFFFFFF) - 0x800000) * 0x1p-23f;   // 24 bits: exact in a float
}

__global__ void fill_kernel(float *d, size_t n, int r)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        d[i] = value(r, i);
}

// Every rank's d_a[r] filled with its values, and, for a contender with an output apart from its input, that
// output poisoned (NaN), so that an element it never wrote shows.
static void check_prepare(const contender &c, const ranks_set &s, size_t n)
{
    for (int r = 0; r < s.ranks; r++) {
        CHECK(cudaSetDevice(s.devices[r]));
        fill_kernel<<<(unsigned)std::min<size_t>((n + 255) / 256, 1024), 256, 0, s.streams[r]>>>(s.d_a[r], n, r);
        CHECK(cudaGetLastError());
        if (c.shot) CHECK(cudaMemsetAsync(s.d_b[r], 0xFF, n * sizeof(float), s.streams[r]));
    }
}

// The exact sum of element i over the ranks, and the most that any order of their ranks - 1 additions can be
// off from it: (ranks - 1) x 2^-24 of the sum of their magnitudes, with room.
static double exact_sum(int ranks, size_t i, double *bound)
{
    double exact = 0, magnitude = 0;
    for (int r = 0; r < ranks; r++) {
        float v = value(r, i);
        exact += v;
        magnitude += std::fabs(v);
    }
    *bound = ranks * 0x1p-24 * magnitude;
    return exact;
}

// Fills, calls once and checks; into why what was wrong, in at most 90 columns (and false).
static bool check_contender(const contender &c, const ranks_set &s, size_t n, char *why, size_t why_size)
{
    check_prepare(c, s, n);
    if (!contender_call(c, s, n, why, why_size)) return false;
    ranks_sync(s);
    std::vector<float> first(n), other(n);
    double exact, bound;
    for (int r = 0; r < s.ranks; r++) {
        std::vector<float> &got = r == 0 ? first : other;
        CHECK(cudaMemcpy(got.data(), contender_result(c, s, r), n * sizeof(float), cudaMemcpyDeviceToHost));
        for (size_t i = 0; r > 0 && i < n; i++) {
            if (!memcmp(&got[i], &first[i], sizeof(float))) continue;
            exact = exact_sum(s.ranks, i, &bound);
            bool both_near = std::fabs(first[i] - exact) <= bound && std::fabs(got[i] - exact) <= bound;
            if (both_near)
                snprintf(why, why_size, "element %zu differs in its last bits: %.9g on rank 0, %.9g on rank %d", i,
                         first[i], got[i], r);
            else
                snprintf(why, why_size, "element %zu: %.9g on rank 0, %.9g on rank %d, and the sum is %.9g", i, first[i],
                         got[i], r, exact);
            return false;
        }
    }
    for (size_t i = 0; i < n; i++) {
        exact = exact_sum(s.ranks, i, &bound);
        if (!(std::fabs(first[i] - exact) <= bound)) {
            snprintf(why, why_size, "element %zu is %.9g on every rank, not the sum %.9g", i, first[i], exact);
            return false;
        }
    }
    return true;
}
