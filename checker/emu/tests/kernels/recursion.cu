// __device__ functions not inlined, and recursion.
__device__ __noinline__ int add3(int a, int b, int c) { return a + b + c; }
__device__ __noinline__ int fact(int n) { return n <= 1 ? 1 : n * fact(n - 1); }
__device__ __noinline__ int forever(int n) { return n == -1 ? 0 : 1 + forever(n + 1); }
__global__ void calls(int *out, int n) {
    unsigned t = threadIdx.x;
    out[t] = add3(t, n, 1) + fact(t % 8);
}
__global__ void deep(int *out) { out[threadIdx.x] = forever(threadIdx.x); }
__device__ __noinline__ int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
__device__ __noinline__ int down(int n) { return n == 0 ? 0 : 1 + down(n - 1) * 2 % 7; }
__global__ void fibs(int *out, int depth) { out[threadIdx.x] = fib(threadIdx.x % 12) + down(depth); }
