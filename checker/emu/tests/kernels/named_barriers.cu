// Named barriers with a thread count (bar.sync a, b) and bar.arrive, from inline assembly: the
// producer/consumer pattern of warp-specialised kernels. Blocks of 128 threads (4 warps).

// Warps 0-1 fill buf and arrive at barrier 1 without waiting; warps 2-3 wait there, then read it.
__global__ void producer_consumer(int *out)
{
    __shared__ int buf[64];
    unsigned tid = threadIdx.x;
    if (tid < 64) {
        buf[tid] = tid * 3;
        asm volatile("bar.arrive 1, 128;" ::: "memory");
    } else {
        asm volatile("bar.sync 1, 128;" ::: "memory");
        out[tid - 64] = buf[tid - 64] + buf[(tid - 63) % 64];
    }
}

// Two pairs of warps, each synchronised by its own barrier of 64 threads; each warp reads what the
// other warp of its pair wrote.
__global__ void pairs(int *out)
{
    __shared__ int s[128];
    unsigned tid = threadIdx.x;
    s[tid] = tid * 7;
    unsigned id = 1 + tid / 64;
    asm volatile("bar.sync %0, 64;" :: "r"(id) : "memory");
    out[tid] = s[tid ^ 32];
}
