// ex16_row_mapping.cu - exercise 16's reference solution: who reduces a row. A row of up to 1024 values to
// a warp (or a part of one: several rows per warp), held in registers; a longer row to a block, held in
// registers up to 16384 values, else in shared memory; a row too long for one block's shared memory to a
// cluster, whose blocks each hold a slice and combine their partial results through distributed shared
// memory. One dispatch chooses; softmax, LayerNorm, RMSNorm and row statistics all run the same paths.
//
// What changed since exercises 13 to 15: there, one block of 256 threads took every row, read it up to
//   three times (exercise 13's statistics once), and idled most of its threads on short rows. Here the size
//   of one reduction decides who does it, the warp, block and cluster paths read each row once, 16 bytes a
//   thread where the row's alignment allows. Why it is faster: the kernels move bytes and do little
//   arithmetic, so they are as fast as the bytes they move and the loads they keep in flight. A warp per
//   short row keeps every lane busy and needs no barrier; a block's slice of the row waits in shared memory
//   between the passes instead of being read again, copied in by cp.async while the other blocks of its SM
//   work; a cluster holds a row too long for one SM's shared memory, read once.
// The flaw that remains: on an H200 the cluster path runs at 60% to 75% of a copy, and the block in shared
//   memory at 59% to 85% on rows that do not start on 16-byte boundaries (8192 x 50257); every row of make
//   bench is at 0.96x PyTorch's best or more (lesson 16).
// Preconditions: rows, cols >= 1; any alignment (the paths fall back to smaller accesses where a row does
//   not start on a 16-byte boundary); clusters need compute capability 9.0, and the dispatch asks.
// Result: d_out, as each contract function says; every function returns the path that ran, or 0 when a
//   forced path cannot take the shape (then it launches nothing).
#include <cuda_pipeline_primitives.h>
#include <stdint.h>
#include <type_traits>

#define FULL_MASK 0xffffffffu
#define LOG2E 1.4426950408889634f

// ---- Values: stored as T, computed in float -----------------------------------------------------------------

__device__ __forceinline__ float to_float(float x) { return x; }
__device__ __forceinline__ float to_float(__half x) { return __half2float(x); }
__device__ __forceinline__ float to_float(__nv_bfloat16 x) { return __bfloat162float(x); }
template <typename T> __device__ __forceinline__ T from_float(float x);
template <> __device__ __forceinline__ float from_float<float>(float x) { return x; }
template <> __device__ __forceinline__ __half from_float<__half>(float x) { return __float2half_rn(x); }
template <> __device__ __forceinline__ __nv_bfloat16 from_float<__nv_bfloat16>(float x) { return __float2bfloat16_rn(x); }

// P values of T as one access of P * sizeof(T) bytes: 16 bytes, one LDG.128 or STG.128 a thread. The bits
// travel as 32-bit words holding two 16-bit values each.
__device__ __forceinline__ float2 unpack2(unsigned w, __half) { return __half22float2(*reinterpret_cast<__half2 *>(&w)); }
__device__ __forceinline__ float2 unpack2(unsigned w, __nv_bfloat16)
{
    return __bfloat1622float2(*reinterpret_cast<__nv_bfloat162 *>(&w));
}
__device__ __forceinline__ unsigned pack2(float a, float b, __half)
{
    __half2 h = __floats2half2_rn(a, b);
    return *reinterpret_cast<unsigned *>(&h);
}
__device__ __forceinline__ unsigned pack2(float a, float b, __nv_bfloat16)
{
    __nv_bfloat162 h = __floats2bfloat162_rn(a, b);
    return *reinterpret_cast<unsigned *>(&h);
}
// kOnce: a value read once (row statistics), loaded evict-first (ld.global.cs): on an H200 that made row
// statistics 7% to 10% faster, and every operation that writes a row slower (lesson 16).
template <int N, bool kOnce = false>
__device__ __forceinline__ void load_words(const void *p, unsigned (&w)[N])
{
    if constexpr (N == 4 && kOnce) {
        uint4 v = __ldcs(reinterpret_cast<const uint4 *>(p));
        w[0] = v.x, w[1] = v.y, w[2] = v.z, w[3] = v.w;
    } else if constexpr (N == 4) {
        uint4 v = *reinterpret_cast<const uint4 *>(p);
        w[0] = v.x, w[1] = v.y, w[2] = v.z, w[3] = v.w;
    } else if constexpr (N == 2) {
        uint2 v = *reinterpret_cast<const uint2 *>(p);
        w[0] = v.x, w[1] = v.y;
    } else {
        w[0] = *reinterpret_cast<const unsigned *>(p);
    }
}
// To global memory. Written in PTX: nvcc splits a uint4 store it cannot prove aligned into four 4-byte ones.
// No "memory" clobber: nothing here reads what it writes, and one kept the next pack's loads after the store.
template <int N>
__device__ __forceinline__ void store_words(void *p, const unsigned (&w)[N])
{
    if constexpr (N == 4)
        asm volatile("st.global.v4.b32 [%0], {%1, %2, %3, %4};" ::"l"(p), "r"(w[0]), "r"(w[1]), "r"(w[2]), "r"(w[3]));
    else if constexpr (N == 2)
        asm volatile("st.global.v2.b32 [%0], {%1, %2};" ::"l"(p), "r"(w[0]), "r"(w[1]));
    else
        *reinterpret_cast<unsigned *>(p) = w[0];
}
// The P values of T that the words of a pack hold.
template <typename T, int P>
__device__ __forceinline__ void words_to_floats(const unsigned (&w)[P * sizeof(T) / 4], float (&x)[P])
{
    if constexpr (sizeof(T) == 4) {
#pragma unroll
        for (int j = 0; j < P; j++)
            x[j] = __uint_as_float(w[j]);
    } else {
#pragma unroll
        for (int j = 0; j < P / 2; j++) {
            float2 f = unpack2(w[j], T());
            x[2 * j] = f.x, x[2 * j + 1] = f.y;
        }
    }
}
template <typename T, int P, bool kOnce = false>
__device__ __forceinline__ void load_pack(const T *p, float (&x)[P])
{
    if constexpr (P == 1) {
        x[0] = to_float(*p);
    } else {
        unsigned w[P * sizeof(T) / 4];
        load_words<P * sizeof(T) / 4, kOnce>(p, w);
        words_to_floats<T, P>(w, x);
    }
}
template <typename T, int P>
__device__ __forceinline__ void store_pack(T *p, const float (&x)[P])
{
    if constexpr (P == 1) {
        *p = from_float<T>(x[0]);
    } else if constexpr (sizeof(T) == 4) {
        unsigned w[P];
#pragma unroll
        for (int j = 0; j < P; j++)
            w[j] = __float_as_uint(x[j]);
        store_words<P>(p, w);
    } else {
        unsigned w[P / 2];
#pragma unroll
        for (int j = 0; j < P / 2; j++)
            w[j] = pack2(x[2 * j], x[2 * j + 1], T());
        store_words<P / 2>(p, w);
    }
}
template <typename T> constexpr int pack_of() { return 16 / sizeof(T); }

// ---- The operations: what is reduced, how two partial results combine, what becomes of each value --------
// Each gives Acc (a partial result) with identity(), combine() and shfl_xor(); local(each): what a thread
// adds up from the values it holds (each(f) calls f on every one of them, by reference); finish(): the
// row's statistics from the combined Acc; apply(): each value's output (kPerElement) or write_row(): the
// row's (row statistics).

__device__ __forceinline__ float shfl_xor_f(float v, int offset, int width)
{
    return __shfl_xor_sync(FULL_MASK, v, offset, width);
}
// 2^x in one MUFU.EX2; results below 2^-126 are flushed to 0 (an output below 1e-38 becomes 0).
__device__ __forceinline__ float exp2_ftz(float x)
{
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}

// Softmax (exercise 14): (m, d), the largest x and the sum of exp(x - m); the pair stands for d * e^m.
struct SoftmaxOp {
    struct Acc { float m, d; };
    struct Stats { float m, inv; };
    struct Params {};
    static constexpr bool kPerElement = true;
    static constexpr bool kCommutes = false;   // combine(a, b) and combine(b, a) may round differently
    static constexpr bool kWeights = false;    // no gamma or beta to read
    __device__ static Acc identity() { return {-INFINITY, 0.0f}; }
    __device__ static Acc shfl_xor(Acc v, int o, int w) { return {shfl_xor_f(v.m, o, w), shfl_xor_f(v.d, o, w)}; }
    __device__ static Acc combine(Acc a, Acc b)
    {
        if (a.m == -INFINITY)
            return b;
        if (b.m == -INFINITY)
            return a;
        float m = fmaxf(a.m, b.m);
        return {m, a.d * exp2_ftz((a.m - m) * LOG2E) + b.d * exp2_ftz((b.m - m) * LOG2E)};
    }
    // The thread's values twice: their max, then the sum of exp(x - max) = 2^((x - max) log2 e), x - max taken
    // first (a subtract, a multiply and one MUFU.EX2 each): its error is |x - max| u, however far the row sits
    // from 0. Each value becomes its exp: a thread that keeps its values in registers then needs no second exp
    // to write. (FlashAttention's one FFMA, 2^(x log2 e - max log2 e), errs by |max| u instead: lesson 16.)
    template <class Each> __device__ static Acc local(Each each)
    {
        float m = -INFINITY, d = 0.0f;
        each([&](float &x) { m = fmaxf(m, x); });
        float mm = m == -INFINITY ? 0.0f : m;   // values all -inf: each exp is 0, never exp(-inf - -inf)
        each([&](float &x) {
            x = exp2_ftz((x - mm) * LOG2E);
            d += x;
        });
        return {m, d};
    }
    __device__ static Stats finish(Acc a, int, Params) { return {a.m, 1.0f / a.d}; }
    __device__ static bool whole(Params, long) { return true; }   // no weights
    // mine: where v holds exp(x - m') already (m' the thread's own max, from its local()), a rescale.
    template <int P, bool = true, bool = false>
    __device__ static void apply(float (&v)[P], long, Stats s, Params, const Acc *mine)
    {
        if (mine) {
            float scale = exp2_ftz((mine->m - s.m) * LOG2E) * s.inv;
#pragma unroll
            for (int j = 0; j < P; j++)
                v[j] *= scale;
        } else {
#pragma unroll
            for (int j = 0; j < P; j++)
                v[j] = exp2_ftz((v[j] - s.m) * LOG2E) * s.inv;
        }
    }
    __device__ static void write_row(void *, long, Stats) {}
};

// Eight 16-bit weights from column c, sh values past a 16-byte boundary (sh = 1 to 7): the two aligned packs
// around them, two loads, and the eight picked out by selects and byte permutes (sh is the same for every pack
// of a row, so the selects never diverge), instead of eight 2-byte loads.
template <typename W>
__device__ __forceinline__ void load_weights_shifted(const W *q, long c, int sh, float (&g)[8])
{
    unsigned a[4], b[4], x[5];
    load_words<4>(q + c - sh, a);
    load_words<4>(q + c - sh + 8, b);
    auto word = [&](int k) { return k < 4 ? a[k] : b[k - 4]; };
    int ws = sh >> 1;
#pragma unroll
    for (int i = 0; i < 5; i++)
        x[i] = ws == 0 ? word(i) : ws == 1 ? word(i + 1) : ws == 2 ? word(i + 2) : word(i + 3);
#pragma unroll
    for (int i = 0; i < 4; i++) {
        float2 f = unpack2(sh & 1 ? __byte_perm(x[i], x[i + 1], 0x5432) : x[i], W());
        g[2 * i] = f.x, g[2 * i + 1] = f.y;
    }
}
// P weights (in the input's type, as PyTorch's) from column c: one access where the caller knows that they
// start a 16-byte pack there (kWhole), else value by value (the weights may start anywhere, as the input may),
// or, with kShift, from the aligned packs around them where both lie inside the weights: a row of the block
// in shared memory starts anywhere when cols is not a whole number of packs, and its weights then never start
// a pack (8192 x 50257 on an H200: LayerNorm 738 -> 678 us, RMSNorm 536 -> 499; lesson 16). The caller tests
// once for all its packs (whole(), below) and runs a loop for each answer: a test in the loop would leave both
// ways in it, predicated, and a predicated instruction still takes its issue slot.
template <typename W, int P, bool kWhole, bool kShift>
__device__ __forceinline__ void load_weights(const W *q, long c, long cols, float (&g)[P])
{
    if constexpr (kWhole) {
        load_pack<W, P>(q + c, g);
    } else {
        int sh = (int)(((uintptr_t)(q + c) / sizeof(W)) % P);
        if constexpr (kShift && P == 8 && sizeof(W) == 2) {
            if (sh == 0)
                return load_pack<W, P>(q + c, g);
            if (c >= sh && c - sh + 2 * P <= cols)   // both packs inside the weights
                return load_weights_shifted(q, c, sh, g);
        }
#pragma unroll
        for (int j = 0; j < P; j++)
            g[j] = to_float(q[c + j]);
    }
}
template <typename W>
__device__ __forceinline__ bool starts_pack(const W *q, long c)
{
    return reinterpret_cast<uintptr_t>(q + c) % 16 == 0;
}

// LayerNorm (exercise 15): Welford's (n, mean, m2). A thread's own values give an exact two-pass triple;
// triples combine by Chan's formula, so nothing computes E[x^2] - E[x]^2.
template <typename W>
struct LayerNormOp {
    struct Acc { float n, mean, m2; };
    struct Stats { float mean, rstd; };
    struct Params { const W *gamma, *beta; float eps; long cols; };   // cols: the weights' length
    static constexpr bool kPerElement = true;
    static constexpr bool kCommutes = false;
    static constexpr bool kWeights = true;
    __device__ static Acc identity() { return {0.0f, 0.0f, 0.0f}; }
    __device__ static Acc shfl_xor(Acc v, int o, int w)
    {
        return {shfl_xor_f(v.n, o, w), shfl_xor_f(v.mean, o, w), shfl_xor_f(v.m2, o, w)};
    }
    // No branch: wb is exactly 1 where a is empty and exactly 0 where b is, so an empty side changes nothing;
    // b's share b.n / n by __fdividef (a reciprocal and a multiply, where IEEE division calls a routine).
    __device__ static Acc combine(Acc a, Acc b)
    {
        float n = a.n + b.n, delta = b.mean - a.mean, wb = b.n == n ? 1.0f : __fdividef(b.n, n);
        return {n, a.mean + delta * wb, a.m2 + b.m2 + delta * delta * a.n * wb};
    }
    template <class Each> __device__ static Acc local(Each each)
    {
        int count = 0;   // an integer: the compiler adds a pack's 8 at once (a float count costs an FADD a value)
        float sum = 0.0f, m2 = 0.0f;
        each([&](float &x) {
            count++;
            sum += x;
        });
        float n = (float)count, mean = count ? sum / n : 0.0f;
        each([&](float &x) { m2 += (x - mean) * (x - mean); });
        return {n, mean, m2};
    }
    __device__ static Stats finish(Acc a, int cols, Params p) { return {a.mean, rsqrtf(a.m2 / cols + p.eps)}; }
    // Whether the weights start a 16-byte pack at column c (and so at c + P, c + 2P, ...).
    __device__ static bool whole(Params p, long c) { return starts_pack(p.gamma, c) && starts_pack(p.beta, c); }
    template <int P, bool kWhole = false, bool kShift = false>
    __device__ static void apply(float (&v)[P], long c, Stats s, Params p, const Acc *)
    {
        float g[P], b[P];
        load_weights<W, P, kWhole, kShift>(p.gamma, c, p.cols, g);
        load_weights<W, P, kWhole, kShift>(p.beta, c, p.cols, b);
#pragma unroll
        for (int j = 0; j < P; j++)
            v[j] = (v[j] - s.mean) * s.rstd * g[j] + b[j];
    }
    __device__ static void write_row(void *, long, Stats) {}
};

// RMSNorm (exercise 15): the sum of squares.
template <typename W>
struct RmsNormOp {
    using Acc = float;
    struct Stats { float rstd; };
    struct Params { const W *gamma; float eps; long cols; };   // cols: gamma's length
    static constexpr bool kPerElement = true;
    static constexpr bool kCommutes = true;    // a + b == b + a, bit for bit
    static constexpr bool kWeights = true;
    __device__ static Acc identity() { return 0.0f; }
    __device__ static Acc shfl_xor(Acc v, int o, int w) { return shfl_xor_f(v, o, w); }
    __device__ static Acc combine(Acc a, Acc b) { return a + b; }
    template <class Each> __device__ static Acc local(Each each)
    {
        float sq = 0.0f;
        each([&](float &x) { sq += x * x; });
        return sq;
    }
    __device__ static Stats finish(Acc a, int cols, Params p) { return {rsqrtf(a / cols + p.eps)}; }
    __device__ static bool whole(Params p, long c) { return starts_pack(p.gamma, c); }
    template <int P, bool kWhole = false, bool kShift = false>
    __device__ static void apply(float (&v)[P], long c, Stats s, Params p, const Acc *)
    {
        float g[P];
        load_weights<W, P, kWhole, kShift>(p.gamma, c, p.cols, g);
#pragma unroll
        for (int j = 0; j < P; j++)
            v[j] = v[j] * s.rstd * g[j];
    }
    __device__ static void write_row(void *, long, Stats) {}
};

// Row statistics (exercise 13): the mean and the L2 norm, from the sum and the sum of squares; each value is
// needed once, so no path keeps the row.
struct RowStatsOp {
    struct Acc { float sum, sq; };
    struct Stats { float mean, norm; };
    struct Params {};
    static constexpr bool kPerElement = false;
    static constexpr bool kCommutes = true;
    static constexpr bool kWeights = false;
    __device__ static Acc identity() { return {0.0f, 0.0f}; }
    __device__ static Acc shfl_xor(Acc v, int o, int w) { return {shfl_xor_f(v.sum, o, w), shfl_xor_f(v.sq, o, w)}; }
    __device__ static Acc combine(Acc a, Acc b) { return {a.sum + b.sum, a.sq + b.sq}; }
    template <class Each> __device__ static Acc local(Each each)
    {
        Acc a = {0.0f, 0.0f};
        each([&](float &x) {
            a.sum += x;
            a.sq += x * x;
        });
        return a;
    }
    __device__ static Stats finish(Acc a, int cols, Params) { return {a.sum / cols, sqrtf(a.sq)}; }
    __device__ static bool whole(Params, long) { return true; }
    template <int P, bool = true, bool = false>
    __device__ static void apply(float (&)[P], long, Stats, Params, const Acc *) {}
    __device__ static void write_row(float *y, long row, Stats s)
    {
        y[2 * row] = s.mean;
        y[2 * row + 1] = s.norm;
    }
};

// ---- Clusters (compute capability 9.0): the few PTX instructions that cooperative_groups' this_cluster()
// wraps (block_rank(), num_blocks(), sync(), map_shared_rank()), written out: including
// <cooperative_groups.h> costs every compile of this file seconds.
__device__ __forceinline__ unsigned cluster_rank()
{
    unsigned r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
    return r;
}
__device__ __forceinline__ unsigned cluster_blocks()
{
    unsigned n;
    asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(n));
    return n;
}
// Every thread of every block of the cluster arrives, then waits for all: what each wrote before (shared
// memory included) is visible to all after (release, then acquire).
__device__ __forceinline__ void cluster_sync()
{
    asm volatile("barrier.cluster.arrive.aligned;\n\tbarrier.cluster.wait.aligned;" ::: "memory");
}
// The value at p in the shared memory of the cluster's block `rank` (p: an address in this block's).
template <typename V>
__device__ __forceinline__ V cluster_load(const V *p, unsigned rank)
{
    static_assert(sizeof(V) % 4 == 0, "read in 32-bit words");
    unsigned local = (unsigned)__cvta_generic_to_shared(p), remote;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(local), "r"(rank));
    V v;
    unsigned *w = reinterpret_cast<unsigned *>(&v);
    for (int i = 0; i < (int)(sizeof(V) / 4); i++)
        asm volatile("ld.shared::cluster.u32 %0, [%1];" : "=r"(w[i]) : "r"(remote + 4 * i));
    return v;
}

// ---- Combining partial results (exercise 13's butterfly and block all-reduce) ----------------------------------
// Every lane computes combine(lower lane's value, upper lane's value): the same operands in the same order
// in both lanes of a pair, so all end with the same bits even where combine rounds asymmetrically. The order
// is chosen by selects, so the two lanes of a pair do not take two branches one after the other; an operation
// whose combine commutes bit for bit (a sum) needs no order.
template <typename Op, typename Acc>
__device__ __forceinline__ Acc butterfly(Acc v, int width)
{
    for (int offset = width / 2; offset > 0; offset /= 2) {
        Acc other = Op::shfl_xor(v, offset, width);
        if constexpr (Op::kCommutes) {
            v = Op::combine(v, other);
        } else {
            bool upper = threadIdx.x & offset;
            v = Op::combine(upper ? other : v, upper ? v : other);
        }
    }
    return v;
}
// The block's combined value, in every thread. Every thread calls it; its last barrier lets a kernel call
// it again at once.
template <typename Op, typename Acc>
__device__ Acc block_allreduce(Acc v)
{
    __shared__ Acc warp_vals[32];
    unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;
    v = butterfly<Op>(v, 32);
    if (lane == 0)
        warp_vals[warp] = v;
    __syncthreads();
    v = butterfly<Op>(lane < warps ? warp_vals[lane] : Op::identity(), 32);
    __syncthreads();
    return v;
}

// ---- A range of a row, in slots of P values ----------------------------------------------------------------
// Columns [c0, c1) of a row starting at x sit in slots of P values that begin at 16-byte boundaries: the
// first slot (the head) and the last (the tail) may be partial. shift is where c0 falls in its slot. Thread
// t owns slots t, t + threads, ...: which slots a thread owns does not depend on the row, so a thread that
// keeps its slots in shared memory reads back only what it wrote itself, row after row, with no barrier.
struct Slots {
    long c0, c1;
    int shift, count;
};
template <typename T, int P>
__device__ __forceinline__ Slots slots_of(const T *x, long c0, long c1)
{
    int shift = (int)(((uintptr_t)(x + c0) / sizeof(T)) % P);
    return {c0, c1, shift, (int)((c1 - c0 + shift + P - 1) / P)};
}
// f(col, slot) for each whole slot of thread t; g(col, slot, j) for each column of its partial slots.
template <int P, typename FPack, typename FOne>
__device__ __forceinline__ void walk_slots(Slots s, int t, int threads, FPack f, FOne g)
{
    int first = s.shift ? 1 : 0;                                       // slot 0 is partial
    int last = (s.c1 - s.c0 + s.shift) % P ? s.count - 1 : s.count;   // the last slot is partial
    int k = t < first ? t + threads : t;
    // Four slots at a time with no branch between them, so that their loads are issued together (an unrolled
    // loop tests its end after each slot, and no load moves above that test).
    constexpr int kBatch = 4;
    for (; k + (kBatch - 1) * threads < last; k += kBatch * threads)
#pragma unroll
        for (int u = 0; u < kBatch; u++)
            f(s.c0 - s.shift + (long)(k + u * threads) * P, k + u * threads);
    for (; k < last; k += threads)
        f(s.c0 - s.shift + (long)k * P, k);
    auto partial = [&](int k) {
        long col = s.c0 - s.shift + (long)k * P;
        for (int j = 0; j < P; j++)
            if (col + j >= s.c0 && col + j < s.c1)
                g(col + j, k, j);
    };
    // A partial slot is its owner's too (thread k % threads, as when the slot is whole): each slot of the stage
    // is one thread's in every row, whatever the row's shift, so the next row's copies need no barrier after
    // this row's reads. (Spreading a partial slot's values over threads 0 to 2P - 1 made LayerNorm on 8192 x
    // 50257 2% faster on an H200, and raced: a row's copy into a slot that another thread still read for the
    // row before.)
    if (first && t == 0)
        partial(0);
    if (last < s.count && last >= first && last % threads == t)
        partial(last);
}

// The row's reduction and its outputs, from the packs a lane holds (ok[i]: pack i of its row), for both
// kernels of the row in registers.
template <typename O, typename Op, int P, int PACKS, bool kBlock>
__device__ __forceinline__ void reduce_and_write(float (&v)[PACKS][P], const bool (&ok)[PACKS], O *__restrict__ y,
                                                 long row, long rows, int cols, int W, int l, typename Op::Params prm)
{
    auto each = [&](auto f) {
#pragma unroll
        for (int i = 0; i < PACKS; i++)
            if (ok[i])
#pragma unroll
                for (int j = 0; j < P; j++)
                    f(v[i][j]);
    };
    typename Op::Acc mine = Op::local(each);
    typename Op::Acc all;   // the row's lanes only: width W, or the whole block
    if constexpr (kBlock)
        all = block_allreduce<Op>(mine);
    else
        all = butterfly<Op>(mine, W);
    typename Op::Stats s = Op::finish(all, cols, prm);
    if constexpr (Op::kPerElement) {
        auto write = [&](auto whole) {   // whole: std::true_type where the weights start a pack at column 0
            if (ok[PACKS - 1]) {   // every pack: all the weights' loads first, with no branch between them
#pragma unroll
                for (int i = 0; i < PACKS; i++)
                    Op::template apply<P, decltype(whole)::value>(v[i], (i * W + l) * P, s, prm, &mine);
#pragma unroll
                for (int i = 0; i < PACKS; i++)
                    store_pack<O, P>(y + row * cols + (i * W + l) * P, v[i]);
                return;
            }
#pragma unroll
            for (int i = 0; i < PACKS; i++) {
                int col = (i * W + l) * P;
                if (ok[i]) {
                    Op::template apply<P, decltype(whole)::value>(v[i], col, s, prm, &mine);
                    store_pack<O, P>(y + row * cols + col, v[i]);
                }
            }
        };
        if (Op::whole(prm, 0))
            write(std::true_type());
        else
            write(std::false_type());
    } else if (row < rows && l == 0) {
        Op::write_row(y, row, s);
    }
}

// ---- Path 1: a warp per row, or several rows per warp; the row in registers ----------------------------------
// W lanes own a row (W = 32: a warp; 16, 8, 4: 2, 4, 8 rows per warp); lane l holds packs l, l + W, ... of
// its row, PACKS of them (P values each), in registers: the row is read once, and the reduction is a
// butterfly of width W, with no shared memory and no barrier. A row past the last leaves its lanes idle
// but present, so every shuffle has its 32 lanes. kBlock: path 2 for a row that 128 to 512 threads hold in
// registers, a block of W threads a row, whose partial results meet through shared memory.
template <typename T, typename O, typename Op, int P, int PACKS, bool kBlock = false>
__global__ void __launch_bounds__(kBlock ? 512 : 128)
    warp_rows(const T *__restrict__ x, O *__restrict__ y, long rows, int cols, int log2w, typename Op::Params prm)
{
    int W = 1 << log2w, l = threadIdx.x & (W - 1);   // W is a power of two: a mask and a shift, no division
    long row = ((long)blockIdx.x * blockDim.x + threadIdx.x) >> log2w;
    float v[PACKS][P];
    bool ok[PACKS];
    // A lane that holds all its packs (every lane of a full row: ok[i] only falls with i) loads them with no
    // branch between the loads, so ptxas issues them all at once. Each load behind its own if (ok[i]) sat in
    // a block of its own, and ptxas issued softmax fp16's third load only once the first pack was used: two
    // loads in flight a lane, not four (on an H200, 89% of a copy against 96%; lesson 16).
#pragma unroll
    for (int i = 0; i < PACKS; i++)
        ok[i] = row < rows && (i * W + l) * P < cols;
    const T *xr = x + row * cols + l * P;
    if (ok[PACKS - 1]) {
#pragma unroll
        for (int i = 0; i < PACKS; i++)
            load_pack<T, P, !Op::kPerElement>(xr + i * W * P, v[i]);
    } else {
#pragma unroll
        for (int i = 0; i < PACKS; i++)
            if (ok[i])
                load_pack<T, P, !Op::kPerElement>(xr + i * W * P, v[i]);
    }
    reduce_and_write<O, Op, P, PACKS, kBlock>(v, ok, y, row, rows, cols, W, l, prm);
}

// Short rows of LayerNorm and RMSNorm, two packs a lane, on a grid of one to four waves: a grid of what the GPU
// holds at once, each W lanes striding over the rows, the next row's packs loaded (as 16-byte words) before
// this row is reduced, so that no last wave runs on a part of the GPU. On an H200 at 32768 x 128, ten
// interleaved runs against the kernel above: RMSNorm bf16 0 to 2.0 us faster in each (of 9 to 10.7 us),
// LayerNorm fp16 0.3 to 1.0 us faster in eight and 0.3, 0.4 slower in two; row statistics slower in each and
// softmax either way, so they keep the kernel above (nvidia-h200-2026-11-29-rows-registers.md).
template <typename T, typename O, typename Op, int P, int PACKS>
__global__ void __launch_bounds__(128)
    strided_rows(const T *__restrict__ x, O *__restrict__ y, long rows, int cols, int log2w, typename Op::Params prm)
{
    constexpr int kWords = P * sizeof(T) / 4;
    int W = 1 << log2w, l = threadIdx.x & (W - 1);
    long row = ((long)blockIdx.x * blockDim.x + threadIdx.x) >> log2w;
    long stride = ((long)gridDim.x * blockDim.x) >> log2w;
    long warp_row = row - ((threadIdx.x & 31) >> log2w);   // the warp's first row: the same test in all its lanes
    bool has[PACKS];
#pragma unroll
    for (int i = 0; i < PACKS; i++)
        has[i] = (i * W + l) * P < cols;
    unsigned next[PACKS][kWords];
    auto fetch = [&](long r) {
#pragma unroll
        for (int i = 0; i < PACKS; i++)
            if (r < rows && has[i])
                load_words<kWords>(x + r * cols + (i * W + l) * P, next[i]);
    };
    fetch(row);
    for (; warp_row < rows; row += stride, warp_row += stride) {
        float v[PACKS][P];
        bool ok[PACKS];
#pragma unroll
        for (int i = 0; i < PACKS; i++) {
            ok[i] = row < rows && has[i];
            words_to_floats<T, P>(next[i], v[i]);
        }
        fetch(row + stride);   // in flight while this row is reduced and written
        reduce_and_write<O, Op, P, PACKS, false>(v, ok, y, row, rows, cols, W, l, prm);
    }
}

// ---- Paths 2 and 3: a block per row, or a cluster of K blocks per row; the row (the slice) in shared memory ----
// Block b of a cluster of K takes columns [c0, c1) of its rows. The blocks stay resident and stride over
// the rows (a cluster over rows); each copies its slice of a row into one stage of shared memory (cp.async,
// 16 bytes a thread, into this thread's own slots), waits for its own copies, and reduces and writes from
// there: while it does, the other blocks on its SM have their copies in flight. (Two stages, the next row's
// slice copied while this one is reduced, take twice the shared memory, so half the blocks an SM, and ran
// slower on an H200: lesson 16.) With K > 1 the blocks' partial results meet in distributed shared memory: each block combines
// all K in rank order, so all get the same bits; one cluster barrier a row, the partials kept in two slots
// by the row's parity. An operation that needs each value once (row statistics) reads global memory
// directly and keeps nothing.
template <typename T, typename O, typename Op, int P>
__global__ void __launch_bounds__(1024) block_rows(const T *__restrict__ x, O *__restrict__ y, long rows, int cols,
                                                   int stage_elems, typename Op::Params prm)
{
    constexpr bool kKeep = Op::kPerElement;
    extern __shared__ __align__(16) unsigned char smem[];
    __shared__ typename Op::Acc part[2];
    int K = 1, rank = 0;
#if __CUDA_ARCH__ >= 900
    K = cluster_blocks(), rank = cluster_rank();
#endif
    int t = threadIdx.x, threads = blockDim.x;
    long per = ((cols + K - 1) / K + P - 1) / P * P;
    long c0 = rank * per < cols ? rank * per : cols, c1 = c0 + per < cols ? c0 + per : cols;
    long stride = gridDim.x / K;
    T *stages = reinterpret_cast<T *>(smem);   // the stage: stage_elems values

    // Row r's slice into the stage: whole slots by cp.async, partial ones value by value.
    auto copy_slice = [&](long r, T *dst) {
        const T *xr = x + r * cols;
        walk_slots<P>(slots_of<T, P>(xr, c0, c1), t, threads,
                      [&](long c, int k) { __pipeline_memcpy_async(dst + k * P, xr + c, 16); },
                      [&](long c, int k, int j) { dst[k * P + j] = xr[c]; });
    };
    for (long r = blockIdx.x / K, it = 0; r < rows; r += stride, it++) {
        T *cur = stages;
        if (kKeep) {
            copy_slice(r, cur);
            __pipeline_commit();
            __pipeline_wait_prior(0);   // this thread's copies of the row have landed (it reads only those)
        }
        const T *xr = x + r * cols;
        Slots s = slots_of<T, P>(xr, c0, c1);
        auto each = [&](auto f) {
            walk_slots<P>(s, t, threads,
                          [&](long c, int k) {
                              float v[P];
                              if (kKeep)
                                  load_pack<T, P>(cur + k * P, v);
                              else
                                  load_pack<T, P, true>(xr + c, v);
#pragma unroll
                              for (int j = 0; j < P; j++)
                                  f(v[j]);
                          },
                          [&](long c, int k, int j) {
                              float v = to_float(kKeep ? cur[k * P + j] : xr[c]);
                              f(v);
                          });
        };
        typename Op::Acc a = block_allreduce<Op>(Op::local(each));
#if __CUDA_ARCH__ >= 900
        if (K > 1) {
            if (t == 0)
                part[it & 1] = a;
            cluster_sync();
            unsigned lane = t % 32;
            a = butterfly<Op>(lane < (unsigned)K ? cluster_load(&part[it & 1], lane) : Op::identity(), 32);
        }
#endif
        typename Op::Stats st = Op::finish(a, cols, prm);
        if constexpr (kKeep) {
            O *yr = y + r * cols;
            auto one = [&](long c, int k, int j) {
                float v[1] = {to_float(cur[k * P + j])};
                Op::template apply<1>(v, c, st, prm, nullptr);
                yr[c] = from_float<O>(v[0]);
            };
            auto write = [&](auto whole) {   // whole: std::true_type where the weights start a pack at each slot
                walk_slots<P>(s, t, threads,
                              [&](long c, int k) {
                                  float v[P];
                                  load_pack<T, P>(cur + k * P, v);
                                  // kShift: this row may start anywhere, and its weights off a pack
                                  Op::template apply<P, decltype(whole)::value, true>(v, c, st, prm, nullptr);
                                  store_pack<O, P>(yr + c, v);
                              },
                              one);
            };
            if (slots_of<O, P>(yr, c0, c1).shift != s.shift) {
                walk_slots<P>(s, t, threads,   // the output's 16-byte boundaries fall elsewhere: value by value
                              [&](long c, int k) {
                                  for (int j = 0; j < P; j++)
                                      one(c + j, k, j);
                              },
                              one);
            } else if (Op::whole(prm, c0 - s.shift)) {
                write(std::true_type());
            } else {
                write(std::false_type());
            }
        } else if (rank == 0 && t == 0) {
            Op::write_row(y, r, st);
        }
    }
#if __CUDA_ARCH__ >= 900
    if (K > 1)
        cluster_sync();   // no block may leave while another still reads its partials
#endif
}

// ---- Path 4: a block per row that reads the row again for each pass ----------------------------------------
// For a row too long for shared memory on a GPU without clusters: the second and third reads come from
// L2 while the rows in flight fit there.
template <typename T, typename O, typename Op, int P>
__global__ void __launch_bounds__(1024) reread_rows(const T *__restrict__ x, O *__restrict__ y, int cols,
                                                    typename Op::Params prm)
{
    int t = threadIdx.x, threads = blockDim.x;
    long r = blockIdx.x;
    const T *xr = x + r * cols;
    Slots s = slots_of<T, P>(xr, 0, cols);
    auto each = [&](auto f) {
        walk_slots<P>(s, t, threads,
                      [&](long c, int) {
                          float v[P];
                          load_pack<T, P, !Op::kPerElement>(xr + c, v);
#pragma unroll
                          for (int j = 0; j < P; j++)
                              f(v[j]);
                      },
                      [&](long c, int, int) {
                          float v = to_float(xr[c]);
                          f(v);
                      });
    };
    typename Op::Stats st = Op::finish(block_allreduce<Op>(Op::local(each)), cols, prm);
    if constexpr (Op::kPerElement) {
        O *yr = y + r * cols;
        for (long c = t; c < cols; c += threads) {
            float v[1] = {to_float(xr[c])};
            Op::template apply<1>(v, c, st, prm, nullptr);
            yr[c] = from_float<O>(v[0]);
        }
    } else if (t == 0) {
        Op::write_row(y, r, st);
    }
}

// ---- The dispatch: the one place that knows every path ---------------------------------------------------------

enum { ROWS_AUTO_ = 0, ROWS_WARP_ = 1, ROWS_BLOCK_ = 2, ROWS_CLUSTER_ = 3, ROWS_REREAD_ = 4 };

struct RowsDevice {
    int sms, smem_optin, clusters;
};
static const RowsDevice &rows_device()
{
    static RowsDevice d = {0, 0, 0};
    if (!d.sms) {
        int dev = 0, major = 0;
        cudaGetDevice(&dev);
        cudaDeviceGetAttribute(&d.sms, cudaDevAttrMultiProcessorCount, dev);
        cudaDeviceGetAttribute(&d.smem_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev);
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev);
        d.clusters = major >= 9;
    }
    return d;
}

// The blocks of a kernel that the GPU holds at once, of `threads` threads and `smem` bytes of dynamic shared memory.
template <typename Kernel>
static long resident_blocks(Kernel kernel, int threads, size_t smem)
{
    int per_sm = 0;
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, smem);
    return (long)per_sm * rows_device().sms;
}

// Rows of cols values in packs of P: W lanes a row and PACKS packs a lane, W * PACKS * P >= cols. W is a
// power of two from 4 (fewer lanes would save nothing) to 32, and a lane holds two packs or more where the row
// allows: the shuffles and the row's statistics cost each lane the same whatever it holds, so a lane of one
// pack spent most of its instructions on them (lesson 16 measures it). Only PACKS, the registers a lane
// holds, needs a kernel of its own.
template <typename T, typename O, typename Op, int PACKS>
static int launch_warp(const T *x, O *y, long rows, int cols, int log2w, typename Op::Params prm)
{
    long blocks = ((rows << log2w) + 127) / 128;
    if constexpr (Op::kWeights && PACKS == 2) {
        auto strided = strided_rows<T, O, Op, pack_of<T>(), PACKS>;
        static const long resident = resident_blocks(strided, 128, 0);
        if (blocks > resident && blocks <= 4 * resident) {
            strided<<<(unsigned)resident, 128>>>(x, y, rows, cols, log2w, prm);
            return ROWS_WARP_;
        }
    }
    warp_rows<T, O, Op, pack_of<T>(), PACKS><<<(unsigned)blocks, 128>>>(x, y, rows, cols, log2w, prm);
    return ROWS_WARP_;
}
template <typename T, typename O, typename Op>
static int warp_path(const T *x, O *y, long rows, int cols, typename Op::Params prm)
{
    constexpr int P = pack_of<T>();
    int packs = (cols + P - 1) / P, log2w = 2;
    while (log2w < 5 && (2 << log2w) < packs)   // fewer lanes while each would still hold two packs
        log2w++;
    int per = (packs + (1 << log2w) - 1) >> log2w;   // packs a lane
    if (per <= 1) return launch_warp<T, O, Op, 1>(x, y, rows, cols, log2w, prm);
    if (per <= 2) return launch_warp<T, O, Op, 2>(x, y, rows, cols, log2w, prm);
    if (per <= 4) return launch_warp<T, O, Op, 4>(x, y, rows, cols, log2w, prm);
    if constexpr (P <= 4) if (per <= 8) return launch_warp<T, O, Op, 8>(x, y, rows, cols, log2w, prm);
    return 0;
}

// Path 2 in registers: a block per row of 128 to 512 threads, 32 values a thread (a row of up to 16384), as
// the warp path holds a row of 1024. On an H200 it took 8% to 22% less time than the row in shared memory at
// 8192 x 8192 and 16384 x 4096: one block a row, the values converted once, 64 registers at most (lesson 16).
// 0 where the row is longer.
template <typename T, typename O, typename Op>
static int block_registers(const T *x, O *y, long rows, int cols, typename Op::Params prm)
{
    constexpr int P = pack_of<T>(), PACKS = 32 / P;
    int packs = (cols + P - 1) / P, log2w = 7;
    while (log2w < 9 && (PACKS << log2w) < packs)
        log2w++;
    if ((PACKS << log2w) < packs)
        return 0;
    warp_rows<T, O, Op, P, PACKS, true><<<(unsigned)rows, 1 << log2w>>>(x, y, rows, cols, log2w, prm);
    return ROWS_BLOCK_;
}

// Threads for a row of `slots` 16-byte slots spread over K blocks: about 16 slots a thread in all (the
// loads each thread keeps in flight), 128 to 1024 a block. A cluster's blocks, for an operation with weights
// to read as well, take twice the threads, 8 slots each: on an H200 that made LayerNorm and RMSNorm faster on
// the cluster path and softmax slower (lesson 16).
static int row_threads(long slots, int K, bool weights)
{
    int threads = 128, per = K > 1 && weights ? 8 : 16;
    while (threads < 1024 && (long)threads * K * per < slots)
        threads *= 2;
    return threads;
}

// A block (K = 1) or a cluster of K blocks per row, as many resident as fit, striding over the rows.
template <typename T, typename O, typename Op>
static int launch_blocks(const T *x, O *y, long rows, int cols, typename Op::Params prm, int K)
{
    constexpr int P = pack_of<T>();
    auto kernel = block_rows<T, O, Op, P>;
    const RowsDevice &dev = rows_device();
    if (K > 1 && !dev.clusters)
        return 0;
    static size_t smem_max = 0;
    if (!smem_max) {   // shared memory above 48 KB, and clusters of 16, only on request
        cudaFuncAttributes fa = {};
        cudaFuncGetAttributes(&fa, kernel);
        smem_max = dev.smem_optin - fa.sharedSizeBytes;   // the opt-in counts the static shared memory too
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem_max);
        if (dev.clusters)
            cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
    }
    long per = ((cols + K - 1) / K + P - 1) / P * P;
    int stage_elems = (int)(per + P);
    size_t smem = Op::kPerElement ? stage_elems * sizeof(T) : 0;   // one stage of the slice
    if (smem > smem_max)
        return 0;
    int threads = row_threads((cols + P - 1) / P, K, Op::kWeights);
    cudaLaunchConfig_t cfg = {};
    cfg.blockDim = dim3(threads);
    cfg.dynamicSmemBytes = smem;
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = K;
    attr[0].val.clusterDim.y = 1;
    attr[0].val.clusterDim.z = 1;
    cfg.attrs = attr;
    cfg.numAttrs = K > 1 ? 1 : 0;
    long resident = 0;
    if (K > 1) {
        int clusters = 0;
        cfg.gridDim = dim3(K);
        if (cudaOccupancyMaxActiveClusters(&clusters, kernel, &cfg) != cudaSuccess)
            cudaGetLastError();
        resident = clusters;
    } else {
        resident = resident_blocks(kernel, threads, smem);
    }
    if (resident == 0)
        return 0;
    cfg.gridDim = dim3((unsigned)((rows < resident ? rows : resident) * K));
    if (cudaLaunchKernelEx(&cfg, kernel, x, y, rows, cols, stage_elems, prm) != cudaSuccess) {
        cudaGetLastError();   // a shape this GPU cannot launch is not the caller's error
        return 0;
    }
    return K > 1 ? ROWS_CLUSTER_ : ROWS_BLOCK_;
}

template <typename T, typename O, typename Op>
static int launch_reread(const T *x, O *y, long rows, int cols, typename Op::Params prm)
{
    constexpr int P = pack_of<T>();
    reread_rows<T, O, Op, P><<<(unsigned)rows, row_threads((cols + P - 1) / P, 1, Op::kWeights)>>>(x, y, cols, prm);
    return ROWS_REREAD_;
}

// The smallest cluster whose slices are at most 100 KB, up to 16: two blocks' stages fit in an SM.
static int cluster_for(long row_bytes)
{
    int K = 1;
    while (K < 16 && row_bytes / K > 100 * 1024)
        K *= 2;
    return K;
}

// Rows of up to 1024 values that start on 16-byte boundaries: (parts of) warps, in registers; up to 16384, a
// block, in registers. Longer rows, or rows that cannot be loaded in 16-byte packs: a block each while the
// row is at most 100 KB, in shared memory; longer still, the smallest cluster whose slices fit; without
// clusters, a block that reads the row again. An operation that reads each value once needs no shared
// memory: past the registers, a block per row that reads it (once).
template <typename T, typename O, typename Op>
static int rows_run(const T *x, O *y, long rows, int cols, typename Op::Params prm, int path)
{
    constexpr int P = pack_of<T>();
    if (rows < 1 || cols < 1)
        return 0;
    bool packed = cols % P == 0 && (uintptr_t)x % 16 == 0 && (!Op::kPerElement || (uintptr_t)y % 16 == 0);
    bool warp_fits = cols <= 1024 && packed;   // a warp's lanes hold the row, 16-byte packs of it
    int K = cluster_for((long)cols * sizeof(T));
    switch (path) {
    case ROWS_WARP_: return warp_fits ? warp_path<T, O, Op>(x, y, rows, cols, prm) : 0;
    case ROWS_BLOCK_: {
        int got = packed ? block_registers<T, O, Op>(x, y, rows, cols, prm) : 0;
        return got ? got : launch_blocks<T, O, Op>(x, y, rows, cols, prm, 1);
    }
    case ROWS_CLUSTER_: return launch_blocks<T, O, Op>(x, y, rows, cols, prm, K > 1 ? K : 2);
    case ROWS_REREAD_: return launch_reread<T, O, Op>(x, y, rows, cols, prm);
    }
    // The dispatch's own choice (path 0).
    if (warp_fits)
        return warp_path<T, O, Op>(x, y, rows, cols, prm);
    if (int got = packed ? block_registers<T, O, Op>(x, y, rows, cols, prm) : 0)
        return got;
    if (!Op::kPerElement)   // each value is needed once: one read, nothing kept
        return launch_reread<T, O, Op>(x, y, rows, cols, prm);
    int got = launch_blocks<T, O, Op>(x, y, rows, cols, prm, K);
    return got ? got : launch_reread<T, O, Op>(x, y, rows, cols, prm);
}

// ---- The contract (checker/contracts/ex16.h) ------------------------------------------------------------------

extern "C" int softmax_rows(const float *d_in, float *d_out, int rows, int cols, int path)
{
    return rows_run<float, float, SoftmaxOp>(d_in, d_out, rows, cols, {}, path);
}
extern "C" int softmax_rows_f16(const __half *d_in, __half *d_out, int rows, int cols, int path)
{
    return rows_run<__half, __half, SoftmaxOp>(d_in, d_out, rows, cols, {}, path);
}
extern "C" int layernorm_rows_f16(const __half *d_in, const __half *d_gamma, const __half *d_beta, __half *d_out,
                                  int rows, int cols, float eps, int path)
{
    return rows_run<__half, __half, LayerNormOp<__half>>(d_in, d_out, rows, cols, {d_gamma, d_beta, eps, cols}, path);
}
extern "C" int rmsnorm_rows_bf16(const __nv_bfloat16 *d_in, const __nv_bfloat16 *d_gamma, __nv_bfloat16 *d_out,
                                 int rows, int cols, float eps, int path)
{
    return rows_run<__nv_bfloat16, __nv_bfloat16, RmsNormOp<__nv_bfloat16>>(d_in, d_out, rows, cols,
                                                                            {d_gamma, eps, cols}, path);
}
extern "C" int row_stats_rows_f16(const __half *d_in, float *d_out, int rows, int cols, int path)
{
    return rows_run<__half, float, RowStatsOp>(d_in, d_out, rows, cols, {}, path);
}
extern "C" int row_stats_rows_bf16(const __nv_bfloat16 *d_in, float *d_out, int rows, int cols, int path)
{
    return rows_run<__nv_bfloat16, float, RowStatsOp>(d_in, d_out, rows, cols, {}, path);
}
