// ex11_fastest.cu - exercise 11's reference solution: the fastest reduction here, in a single pass.
//
// What it does: one launch of exactly as many blocks as the device keeps resident at once (multiprocessors
//   x blocks per multiprocessor). Each thread reads 16 bytes (an int4) per load in a grid-stride loop, four
//   independent int4s per step, and adds their ints in registers; warp shuffles and one shared-memory step
//   give the block's sum. Thread 0 adds it, and 1 for the block, to a 64-bit word with one atomicAdd;
//   the block that finds every other block counted writes the total to d_out[0] and zeroes the word.
// One step past the exercise: where TODO 6 zeroes d_out[0] with a cudaMemsetAsync before the launch,
//   this reference needs nothing before its kernel. The memset is a small operation of its own on the
//   stream, and the kernel waits for it; without it the reference took about 0.4 us less for 2^20 ints
//   on an H100 (checker/bench/results/nvidia-h100-2026-11-22.md). It is last-block-done (exercise 08)
//   with the count and the sum in the same atomic, so no fence is needed between them.
// Why it is faster: a reduction reads every byte once and does almost no arithmetic, so only the memory
//   system's throughput counts. 16-byte loads need a quarter of the load instructions of 4-byte ones, so
//   more bytes are in flight per instruction issued; a grid the size of the machine runs in one wave
//   with no tail of half-empty blocks; one launch and one atomic per block replace ex08's second pass.
// Alignment: an int4 load needs an address that is a multiple of 16. d_in is only known to be a multiple
//   of 4, so the up to 3 ints before the first 16-byte boundary (the head) and the up to 3 ints after the
//   last whole int4 (the tail) are read one by one, by the first threads of the grid.
// The flaw that remains: the trick is for ints only: a float cannot share a word with a count (make
//   bench's float version of this file zeroes d_out[0] and adds floats to it, as in the exercise), and
//   atomics make the order of the blocks' additions vary, which would change a float sum's last bits from
//   run to run. The word is one per device, so two calls at once on two streams would mix their sums.
//   CUB's DeviceReduce picks its tuning per architecture and per type.
// Preconditions: 0 <= n <= 2^31 - 1; d_in is 4-byte aligned; BLOCK is a multiple of 32, at most 1024.
// Result: d_out[0] holds the sum once the kernel has finished (0 when n is 0).

#include <stdint.h>

#define BLOCK 256
#define FULL_MASK 0xffffffffu

// The sum of v over the 32 lanes of a warp; lane 0 holds it.
__device__ int warp_reduce_sum(int v)
{
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_down_sync(FULL_MASK, v, offset);
    return v;
}

// The blocks' running total (high 32 bits, modulo 2^32 like any int sum) and how many blocks have added
// theirs (low 32 bits: at most 2^31 blocks, so the count never carries into the total). Zero between calls.
__device__ unsigned long long g_total_and_count;

// Adds one block's sum to the total. The atomic returns the word as it was: the block that finds
// gridDim.x - 1 blocks counted before it is the last, so every other sum is in the word; it writes the
// total to d_out[0] and zeroes the word for the next call, which the next launch sees.
__device__ void add_block_sum(int *d_out, int sum)
{
    unsigned long long before = atomicAdd(&g_total_and_count, ((unsigned long long)(unsigned int)sum << 32) + 1);
    if ((unsigned int)before == gridDim.x - 1) {
        d_out[0] = (int)((unsigned int)(before >> 32) + (unsigned int)sum);
        g_total_and_count = 0;
    }
}

// d_in[0..head) are read as ints, then d_in[head..head + 4 * n4) as n4 int4s, then the rest as ints.
__global__ void reduce_fastest_kernel(const int *d_in, int *d_out, unsigned int n, unsigned int head,
                                      unsigned int n4)
{
    __shared__ int warp_sums[32];
    unsigned int tid = threadIdx.x, lane = tid % 32, warp_id = tid / 32;
    unsigned int g = blockIdx.x * blockDim.x + tid, stride = blockDim.x * gridDim.x;

    // Load: the scalar head, the 16-byte body in a grid-stride loop (four int4 loads in flight per step,
    // then the last few one by one), the scalar tail.
    int sum = 0;
    if (g < head)
        sum += d_in[g];
    const int4 *d_in4 = reinterpret_cast<const int4 *>(d_in + head);   // 16-byte aligned
    unsigned int i = g;
    for (; i + 3 * stride < n4; i += 4 * stride) {
        int4 a = d_in4[i], b = d_in4[i + stride], c = d_in4[i + 2 * stride], d = d_in4[i + 3 * stride];
        sum += ((a.x + a.y) + (a.z + a.w)) + ((b.x + b.y) + (b.z + b.w)) +
               ((c.x + c.y) + (c.z + c.w)) + ((d.x + d.y) + (d.z + d.w));
    }
    for (; i < n4; i += stride) {
        int4 v = d_in4[i];
        sum += (v.x + v.y) + (v.z + v.w);
    }
    unsigned int tail_start = head + 4 * n4;
    if (g < n - tail_start)
        sum += d_in[tail_start + g];

    // Reduce: each warp with shuffles, then warp 0 over the warps' sums.
    sum = warp_reduce_sum(sum);
    if (lane == 0)
        warp_sums[warp_id] = sum;
    __syncthreads();
    if (warp_id == 0) {
        sum = (lane < blockDim.x / 32) ? warp_sums[lane] : 0;
        sum = warp_reduce_sum(sum);
        // Write the block's result: added to the total; the last block writes d_out[0].
        if (lane == 0)
            add_block_sum(d_out, sum);
    }
}

// Blocks of BLOCK threads that the device runs at once: asked once, then remembered.
static int resident_blocks(void)
{
    static int blocks = 0;
    if (blocks == 0) {
        int device = 0, sms = 0, per_sm = 0;
        cudaGetDevice(&device);
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, reduce_fastest_kernel, BLOCK, 0);
        blocks = (sms > 0 && per_sm > 0) ? sms * per_sm : 1;
    }
    return blocks;
}

extern "C" void reduce_fastest(const int *d_in, int *d_out, int n)
{
    // The head: ints before the first 16-byte boundary (0 to 3), no more than n.
    unsigned int misaligned = (unsigned int)((uintptr_t)d_in % 16) / sizeof(int);
    unsigned int head = misaligned ? 4 - misaligned : 0;
    if (head > (unsigned int)n)
        head = n;
    unsigned int n4 = (n - head) / 4;

    // Enough blocks to give every thread an int4, but no more than the device runs at once; at least one.
    int grid = (int)(n4 / BLOCK) + 1;
    if (grid > resident_blocks())
        grid = resident_blocks();

    reduce_fastest_kernel<<<grid, BLOCK>>>(d_in, d_out, n, head, n4);
}
