// atomics.cu - atomics on global and shared memory whose final values do not depend on the order in which
// the threads' operations land: add, sub, min, max (signed and unsigned, 32 and 64 bits), and, or, xor,
// inc and dec with wrap-around, a CAS loop, exch (compared as the sorted set of values it returned), and
// float and double atomicAdd of integer-valued numbers (exact whatever the order, while the sums stay
// below 2^24 and 2^53).
//
// 8192 threads in 32 blocks of 256 hit 16 addresses, so many lanes of one warp collide on one address.

#include <algorithm>
#include <vector>
#include "../cases.h"

#define NA 8192
#define SLOTS 16

struct slots {
    int add[SLOTS], sub[SLOTS], min[SLOTS], max[SLOTS];
    unsigned umin[SLOTS], umax[SLOTS], and_[SLOTS], or_[SLOTS], xor_[SLOTS], inc[SLOTS], dec[SLOTS];
    int cas_max[SLOTS];
    float fadd[SLOTS];
    double dadd[SLOTS];
    unsigned long long add64[SLOTS];
    long long max64[SLOTS], min64[SLOTS];
    int shared_add[SLOTS];
    float shared_fadd[SLOTS];
    unsigned shared_or[SLOTS];
};

__global__ void k_atomics(const int *in, slots *s, int *exch_old, int *exch_slot)
{
    __shared__ int sh_add[SLOTS];
    __shared__ float sh_fadd[SLOTS];
    __shared__ unsigned sh_or[SLOTS];
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (threadIdx.x < SLOTS) {
        sh_add[threadIdx.x] = 0;
        sh_fadd[threadIdx.x] = 0.0f;
        sh_or[threadIdx.x] = 0;
    }
    __syncthreads();
    int v = in[t];
    int k = (v >> 4) & (SLOTS - 1);   // the slot: from the value, so collisions are irregular
    atomicAdd(&s->add[k], v);
    atomicSub(&s->sub[k], v);
    atomicMin(&s->min[k], v);
    atomicMax(&s->max[k], v);
    atomicMin(&s->umin[k], (unsigned)v);
    atomicMax(&s->umax[k], (unsigned)v);
    atomicAnd(&s->and_[k], (unsigned)v | 0x0f0f0f0fu);
    atomicOr(&s->or_[k], (unsigned)v & 0x00f000f1u);
    atomicXor(&s->xor_[k], (unsigned)v);
    atomicInc(&s->inc[k], 100u);      // wraps to 0 after 100
    atomicDec(&s->dec[k], 37u);       // wraps to 37 below 0
    int old = s->cas_max[k], assumed;
    do {                               // a max built from compare-and-swap
        assumed = old;
        old = atomicCAS(&s->cas_max[k], assumed, max(assumed, v ^ 0x5a5a));
    } while (old != assumed);
    atomicAdd(&s->fadd[k], (float)(v % 1000));           // integers: every order gives the same sum
    atomicAdd(&s->dadd[k], (double)v * 0.25);            // multiples of 1/4 below 2^51: exact
    atomicAdd(&s->add64[k], (unsigned long long)(long long)v << 20);
    atomicMax(&s->max64[k], (long long)v * 1000003LL);
    atomicMin(&s->min64[k], (long long)v * -77LL);
    atomicAdd(&sh_add[k], v);
    atomicAdd(&sh_fadd[k], (float)(v & 255));
    atomicOr(&sh_or[k], 1u << (v & 31));
    // exch: every thread of block 0 swaps its index into one address; the values returned, plus the final
    // one, are the initial value and every index once (the host sorts them).
    if (blockIdx.x == 0)
        exch_old[threadIdx.x] = atomicExch(exch_slot, (int)threadIdx.x);
    __syncthreads();
    if (threadIdx.x < SLOTS) {
        atomicAdd(&s->shared_add[threadIdx.x], sh_add[threadIdx.x]);
        atomicAdd(&s->shared_fadd[threadIdx.x], sh_fadd[threadIdx.x]);
        atomicOr(&s->shared_or[threadIdx.x], sh_or[threadIdx.x]);
    }
}

void run_atomic_cases(void)
{
    const char *name = "atomic:all";
    std::vector<int> h_in(NA);
    uint64_t seed = 41;
    for (int i = 0; i < NA; i++) {
        uint32_t r = rng_u32(&seed);
        h_in[i] = (i % 3 == 0) ? (int)r : (int)(r % 200001) - 100000;
    }
    slots init;
    memset(&init, 0, sizeof init);
    for (int k = 0; k < SLOTS; k++) {
        init.min[k] = 0x7fffffff;
        init.max[k] = (int)0x80000000u;
        init.umin[k] = 0xffffffffu;
        init.and_[k] = 0xffffffffu;
        init.inc[k] = (unsigned)k * 7;
        init.dec[k] = (unsigned)k;
        init.cas_max[k] = -1000000000;
        init.max64[k] = -(1LL << 62);
        init.min64[k] = 1LL << 62;
    }
    int exch_init = -5;
    int *d_in = (int *)dev_copy(h_in.data(), NA * sizeof(int));
    slots *d_s = (slots *)dev_copy(&init, sizeof init);
    int *d_old = (int *)dev_poisoned(256 * sizeof(int));
    int *d_exch = (int *)dev_copy(&exch_init, sizeof(int));
    if (!d_in || !d_s || !d_old || !d_exch) {
        record_error(name, "cudaMalloc failed");
        return;
    }
    k_atomics<<<NA / 256, 256>>>(d_in, d_s, d_old, d_exch);
    CK_LAUNCH(name);
    slots h;
    std::vector<int> olds(257);
    CK(name, cudaMemcpy(&h, d_s, sizeof h, cudaMemcpyDeviceToHost));
    CK(name, cudaMemcpy(olds.data(), d_old, 256 * sizeof(int), cudaMemcpyDeviceToHost));
    CK(name, cudaMemcpy(&olds[256], d_exch, sizeof(int), cudaMemcpyDeviceToHost));
    cudaFree(d_in);
    cudaFree(d_s);
    cudaFree(d_old);
    cudaFree(d_exch);
    std::sort(olds.begin(), olds.end());
    record("atomic:add", "u32", 0, h.add, SLOTS);
    record("atomic:sub", "u32", 0, h.sub, SLOTS);
    record("atomic:min", "u32", 0, h.min, SLOTS);
    record("atomic:max", "u32", 0, h.max, SLOTS);
    record("atomic:min_unsigned", "u32", 0, h.umin, SLOTS);
    record("atomic:max_unsigned", "u32", 0, h.umax, SLOTS);
    record("atomic:and", "u32", 0, h.and_, SLOTS);
    record("atomic:or", "u32", 0, h.or_, SLOTS);
    record("atomic:xor", "u32", 0, h.xor_, SLOTS);
    record("atomic:inc_wrap", "u32", 0, h.inc, SLOTS);
    record("atomic:dec_wrap", "u32", 0, h.dec, SLOTS);
    record("atomic:cas_loop_max", "u32", 0, h.cas_max, SLOTS);
    record("atomic:float_add_integers", "f32", 0, h.fadd, SLOTS);
    record("atomic:double_add_quarters", "f64", 0, h.dadd, SLOTS);
    record("atomic:add_u64", "u64", 0, h.add64, SLOTS);
    record("atomic:max_s64", "u64", 0, h.max64, SLOTS);
    record("atomic:min_s64", "u64", 0, h.min64, SLOTS);
    record("atomic:shared_add", "u32", 0, h.shared_add, SLOTS);
    record("atomic:shared_float_add_integers", "f32", 0, h.shared_fadd, SLOTS);
    record("atomic:shared_or", "u32", 0, h.shared_or, SLOTS);
    record("atomic:exch_values_sorted", "u32", 0, olds.data(), olds.size());
}
