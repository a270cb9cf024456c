// ex13_half_allreduce.cu - exercise 13's reference solution: block all-reduce, fp16 and bf16 rows
// accumulated in float, and ALL/ANY verdicts by warp votes and block barriers.
//
// What it does: warp_allreduce_sum is a butterfly: at each of its five steps every lane adds the value of
//   the lane whose index differs in one bit (__shfl_xor_sync), so after the last step all 32 lanes hold
//   the warp's sum, where v6's __shfl_down_sync left it in lane 0 only. block_allreduce_sum puts each
//   warp's sum in shared memory, and then every warp adds all of them with the same butterfly: every
//   thread of the block ends with the block's sum, which is what softmax and LayerNorm need (each thread
//   scales its own elements by it). The row kernels read 16-byte vectors of 8 values, convert each pair
//   of 16-bit floats to two floats (__half22float2, __bfloat1622float2) and add in float.
// Why: a 16-bit float keeps 11 (fp16) or 8 (bf16) significant bits, so an accumulator of that format
//   stops growing: in fp16, 2048 + 1 rounds back to 2048, and 256 squares of 300 overflow 65504. Every
//   16-bit value is exact as a float, and float accumulation loses only 2^-24 per addition.
// Speed: one block per row reads the row once, 16 bytes per load; the all-reduce costs 10 shuffles and
//   2 barriers per call, little beside the loads of a row of thousands of elements.
// The flaw that remains: a row of fewer than 8 x 256 elements leaves threads idle, and a block per row
//   pays its overhead for short rows; a warp per row (as row_checks does) suits rows of up to a few
//   hundred elements better.
// Preconditions: blocks of a multiple of 32 threads, at most 1024; d_in 2-byte aligned.
// Result: every thread holds each all-reduce's value; thread 0 (row_stats), lane 0 (row_checks) or
//   one atomic per block (tensor_checks) writes it out.

#define BLOCK 256
#define MAX_BLOCKS 1024
#define FULL_MASK 0xffffffffu

// The sum of v over the 32 lanes of a warp, in every lane: a butterfly (lane l exchanges with l ^ offset).
__device__ float warp_allreduce_sum(float v)
{
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_xor_sync(FULL_MASK, v, offset);
    return v;
}

// The sum of v over the block, in every thread. blockDim.x is a multiple of 32, at most 1024. Every thread
// must call it (it has barriers), and may call it again at once: the last barrier keeps the next call
// from overwriting warp_sums before every warp has read it.
__device__ float block_allreduce_sum(float v)
{
    __shared__ float warp_sums[32];
    unsigned int lane = threadIdx.x % 32, warp_id = threadIdx.x / 32, warps = blockDim.x / 32;
    v = warp_allreduce_sum(v);
    if (lane == 0)
        warp_sums[warp_id] = v;
    __syncthreads();
    v = warp_allreduce_sum(lane < warps ? warp_sums[lane] : 0.0f);   // every warp adds all the warps' sums
    __syncthreads();
    return v;
}

__global__ void allreduce_probe_kernel(const float *d_in, float *d_out)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    d_out[i] = block_allreduce_sum(d_in[i]);
}

extern "C" void allreduce_probe(const float *d_in, float *d_out, int blocks, int block)
{
    allreduce_probe_kernel<<<blocks, block>>>(d_in, d_out);
}

// ---- Rows of 16-bit floats, accumulated in float --------------------------------------------------------

__device__ float to_float(__half x) { return __half2float(x); }
__device__ float to_float(__nv_bfloat16 x) { return __bfloat162float(x); }
__device__ float2 to_float2(__half2 x) { return __half22float2(x); }
__device__ float2 to_float2(__nv_bfloat162 x) { return __bfloat1622float2(x); }

// One row per block; T is __half or __nv_bfloat16, T2 its pair (__half2, __nv_bfloat162).
template <typename T, typename T2>
__global__ void row_stats_kernel(const T *d_in, float *d_out, unsigned int cols)
{
    const T *row = d_in + (size_t)blockIdx.x * cols;
    // A row starts wherever the previous one ended: the elements before its first 16-byte boundary (at
    // most 7) are read one by one, then whole 16-byte vectors, then what is left after the last one.
    unsigned int head = (unsigned int)((16 - (size_t)row % 16) % 16 / sizeof(T));
    if (head > cols)
        head = cols;
    unsigned int vectors = (cols - head) / 8, tail = head + 8 * vectors;
    float sum = 0.0f, squares = 0.0f;
    for (unsigned int i = threadIdx.x; i < head; i += blockDim.x) {
        float x = to_float(row[i]);
        sum += x;
        squares += x * x;
    }
    const uint4 *vec = reinterpret_cast<const uint4 *>(row + head);
    for (unsigned int i = threadIdx.x; i < vectors; i += blockDim.x) {
        uint4 v = vec[i];                                       // 8 values in one 16-byte load
        const T2 *pairs = reinterpret_cast<const T2 *>(&v);
        for (int k = 0; k < 4; k++) {
            float2 x = to_float2(pairs[k]);                     // exact: every 16-bit value is a float
            sum += x.x + x.y;
            squares += x.x * x.x + x.y * x.y;
        }
    }
    for (unsigned int i = tail + threadIdx.x; i < cols; i += blockDim.x) {
        float x = to_float(row[i]);
        sum += x;
        squares += x * x;
    }
    sum = block_allreduce_sum(sum);
    squares = block_allreduce_sum(squares);
    if (threadIdx.x == 0) {
        d_out[2 * blockIdx.x] = sum / cols;
        d_out[2 * blockIdx.x + 1] = sqrtf(squares);
    }
}

extern "C" void row_stats_f16(const __half *d_in, float *d_out, int rows, int cols)
{
    row_stats_kernel<__half, __half2><<<rows, BLOCK>>>(d_in, d_out, cols);
}

extern "C" void row_stats_bf16(const __nv_bfloat16 *d_in, float *d_out, int rows, int cols)
{
    row_stats_kernel<__nv_bfloat16, __nv_bfloat162><<<rows, BLOCK>>>(d_in, d_out, cols);
}

// ---- ALL and ANY: a vote per warp, a barrier per block, an atomic per grid -------------------------------

// Whether x passes the checks: small is |x| <= limit (false for a NaN), finite is neither inf nor NaN.
__device__ void check(float x, float limit, int &small, int &nonfinite)
{
    small &= fabsf(x) <= limit;
    nonfinite |= !isfinite(x);
}

// One warp per row: the row's verdicts are two votes.
__global__ void row_checks_kernel(const __half *d_in, int *d_out, unsigned int rows, unsigned int cols,
                                  float limit)
{
    unsigned int lane = threadIdx.x % 32, row = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    if (row >= rows)
        return;                                                 // the whole warp: no vote is left waiting
    int small = 1, nonfinite = 0;
    for (unsigned int c = lane; c < cols; c += 32)
        check(__half2float(d_in[(size_t)row * cols + c]), limit, small, nonfinite);
    small = __all_sync(FULL_MASK, small);                       // every lane's, in every lane
    nonfinite = __any_sync(FULL_MASK, nonfinite);
    if (lane == 0) {
        d_out[2 * row] = small;
        d_out[2 * row + 1] = nonfinite;
    }
}

extern "C" void row_checks_f16(const __half *d_in, int *d_out, int rows, int cols, float limit)
{
    int warps_per_block = BLOCK / 32;
    row_checks_kernel<<<(rows + warps_per_block - 1) / warps_per_block, BLOCK>>>(d_in, d_out, rows, cols, limit);
}

// A whole tensor: each block's verdicts come from barriers that also reduce a predicate over the block;
// the grid's from one atomic per block whose verdict changes the flag (d_out starts at {1, 0}).
__global__ void tensor_checks_kernel(const __half *d_in, int *d_out, unsigned int n, float limit)
{
    int small = 1, nonfinite = 0;
    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        check(__half2float(d_in[i]), limit, small, nonfinite);
    small = __syncthreads_and(small);                           // every thread of the block takes part
    nonfinite = __syncthreads_or(nonfinite);
    if (threadIdx.x == 0) {
        if (!small)
            atomicAnd(&d_out[0], 0);
        if (nonfinite)
            atomicOr(&d_out[1], 1);
    }
}

extern "C" void tensor_checks_f16(const __half *d_in, int *d_out, int n, float limit)
{
    static const int start[2] = {1, 0};                         // ALL of nothing is true, ANY false
    cudaMemcpyAsync(d_out, start, sizeof start, cudaMemcpyHostToDevice);
    if (n == 0)
        return;
    int grid = (n - 1) / BLOCK + 1;
    if (grid > MAX_BLOCKS)
        grid = MAX_BLOCKS;
    tensor_checks_kernel<<<grid, BLOCK>>>(d_in, d_out, n, limit);
}
