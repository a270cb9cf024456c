// Row-wise reductions with a part of a warp per row (OneFlow's softmax, PyTorch's persistent softmax): the
// lanes of rows past the last one leave early, and the others shuffle with a full mask. The PTX ISA lets a
// warp-synchronous instruction go on without exited lanes; lanes that wait only to exit count as exited.
#define WIDTH 8   // lanes per row: 4 rows per warp

__device__ float group_sum(float s)
{
    for (int o = WIDTH / 2; o > 0; o /= 2) s += __shfl_xor_sync(0xffffffffu, s, o, WIDTH);
    return s;
}

// One row summed by its group of WIDTH lanes; lane 0 of the group writes it.
__device__ void row_sum(const float *in, float *out, int row, int cols, int lane)
{
    float s = 0;
    for (int c = lane; c < cols; c += WIDTH) s += in[row * cols + c];
    s = group_sum(s);
    if (lane == 0) out[row] = s;
}

// The rows past the last one return before the loop.
__global__ void early_return(const float *in, float *out, int rows, int cols)
{
    int lane = threadIdx.x % WIDTH, row = (blockIdx.x * blockDim.x + threadIdx.x) / WIDTH;
    if (row >= rows) return;
    row_sum(in, out, row, cols, lane);
}

// A grid-stride loop over rows: the groups of rows past the last one skip it, and with more rows than
// groups the groups run it a different number of times.
__global__ void row_loop(const float *in, float *out, int rows, int cols)
{
    int lane = threadIdx.x % WIDTH, groups = gridDim.x * blockDim.x / WIDTH;
    for (int row = (blockIdx.x * blockDim.x + threadIdx.x) / WIDTH; row < rows; row += groups)
        row_sum(in, out, row, cols, lane);
}

// The same with __syncwarp() and a ballot at the end of each row.
__global__ void row_loop_vote(const float *in, unsigned *out, int rows, int cols)
{
    int lane = threadIdx.x % WIDTH, groups = gridDim.x * blockDim.x / WIDTH;
    for (int row = (blockIdx.x * blockDim.x + threadIdx.x) / WIDTH; row < rows; row += groups) {
        unsigned b = __ballot_sync(0xffffffffu, in[row * cols + lane] > 2.0f * row * cols);
        __syncwarp();
        if (lane == 0) out[row] = b;
    }
}

// Bug: the lanes of the upper half-warp skip the shuffle but are still alive (they store after it): a
// full mask names them, and they never run this shuffle.
__global__ void alive_skip(const float *in, float *out)
{
    float s = in[threadIdx.x];
    if (threadIdx.x % 32 < 16) s += __shfl_xor_sync(0xffffffffu, s, 1);
    out[threadIdx.x] = s;
}

// Bug: lanes that left the row loop shuffle again after it, at another line: they arrive there later.
__global__ void arrive_later(const float *in, float *out, int rows, int cols)
{
    int lane = threadIdx.x % WIDTH;
    float s = 0;
    for (int row = threadIdx.x / WIDTH; row < rows; row += blockDim.x / WIDTH) s += group_sum(in[row * cols + lane]);
    s = __shfl_sync(0xffffffffu, s, 0);
    out[threadIdx.x] = s;
}

// Bug: the lanes past the last row return, and a lane of a live row reads one of them with a shuffle
// across groups (xor 8 leaves the group of 8).
__global__ void read_returned(const float *in, float *out, int rows)
{
    int row = threadIdx.x / WIDTH;
    if (row >= rows) return;
    float s = in[threadIdx.x];
    s += __shfl_xor_sync(0xffffffffu, s, WIDTH);
    out[threadIdx.x] = s;
}
