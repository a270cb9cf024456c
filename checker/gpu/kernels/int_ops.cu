// int_ops.cu - 32- and 64-bit integer operations, one per kernel: mul.lo/hi/wide, division and remainder
// with negative operands (signed and unsigned), shifts of negative values, the bit intrinsics (popc, clz,
// brev, ffs, byte_perm, funnel shifts), sad, halving adds, min/max. All must be identical.
//
// Nothing here is undefined behaviour in C++: divisors are never 0 and INT_MIN / -1 is avoided (the
// kernel swaps in 7), and shift amounts are masked to the type's width.

#include <limits.h>
#include "elementwise.h"

// A divisor that is never 0 and never -1 when a is the most negative value.
#define DIVISOR(a, b, MIN) (((b) == 0 || ((b) == -1 && (a) == (MIN))) ? 7 : (b))

#define I32_OPS(X)                                                                                  \
    X(add, a + b)                        X(sub, a - b)                                             \
    X(mul_lo, (int)((unsigned)a * (unsigned)b))                                                    \
    X(mulhi, __mulhi(a, b))              X(umulhi, (int)__umulhi((unsigned)a, (unsigned)b))        \
    X(mul_wide_hi, (int)(((long long)a * (long long)b) >> 32))                                     \
    X(mad_lo, (int)((unsigned)a * (unsigned)b + (unsigned)c))                                      \
    X(div, a / DIVISOR(a, b, INT_MIN))   X(rem, a % DIVISOR(a, b, INT_MIN))                        \
    X(div_by_const, a / 7)               X(rem_by_const, a % -13)                                  \
    X(udiv, (int)((unsigned)a / (unsigned)(b ? b : 3)))                                            \
    X(urem, (int)((unsigned)a % (unsigned)(b ? b : 3)))                                            \
    X(shr_signed, a >> (b & 31))         X(shr_unsigned, (int)((unsigned)a >> (b & 31)))           \
    X(shl, (int)((unsigned)a << (b & 31)))                                                         \
    X(popc, __popc(a))                   X(clz, __clz(a))                  X(brev, (int)__brev(a)) \
    X(ffs, __ffs(a))                     X(byte_perm, (int)__byte_perm(a, b, (unsigned)c & 0x7777)) \
    X(funnel_l, (int)__funnelshift_l(a, b, c))   X(funnel_lc, (int)__funnelshift_lc(a, b, c))      \
    X(funnel_r, (int)__funnelshift_r(a, b, c))   X(funnel_rc, (int)__funnelshift_rc(a, b, c))      \
    X(sad, (int)__sad(a, b, (unsigned)c))        X(usad, (int)__usad(a, b, (unsigned)c))           \
    X(hadd, __hadd(a, b))                X(rhadd, __rhadd(a, b))                                   \
    X(uhadd, (int)__uhadd(a, b))         X(min, min(a, b))                 X(max, max(a, b))       \
    X(umin, (int)min((unsigned)a, (unsigned)b))  X(abs, a == INT_MIN ? 0 : abs(a))                 \
    X(mul24, __mul24(a, b))              X(umul24, (int)__umul24(a, b))                            \
    X(bitfield, (int)(((unsigned)a >> (b & 15)) & 0x3ff) | (int)((unsigned)c << 22))               \
    X(compare_signed, (a < b) * 4 + (a == b) * 2 + ((unsigned)a < (unsigned)b))

#define I64_OPS(X)                                                                                  \
    X(add, a + b)                        X(sub, a - b)                                             \
    X(mul_lo, (long long)((unsigned long long)a * (unsigned long long)b))                          \
    X(mul64hi, __mul64hi(a, b))          X(umul64hi, (long long)__umul64hi(a, b))                  \
    X(div, a / DIVISOR(a, b, LLONG_MIN)) X(rem, a % DIVISOR(a, b, LLONG_MIN))                      \
    X(div_by_const, a / 10)              X(rem_by_const, a % -1000003)                             \
    X(udiv, (long long)((unsigned long long)a / (unsigned long long)(b ? b : 3)))                  \
    X(urem, (long long)((unsigned long long)a % (unsigned long long)(b ? b : 3)))                  \
    X(shr_signed, a >> (b & 63))         X(shr_unsigned, (long long)((unsigned long long)a >> (b & 63))) \
    X(shl, (long long)((unsigned long long)a << (b & 63)))                                         \
    X(popcll, (long long)__popcll(a))    X(clzll, (long long)__clzll(a))                           \
    X(brevll, (long long)__brevll(a))    X(ffsll, (long long)__ffsll(a))                           \
    X(min, min(a, b))                    X(max, max(a, b))                                         \
    X(umax, (long long)max((unsigned long long)a, (unsigned long long)b))                          \
    X(widen_narrow, (long long)(int)a * (long long)(unsigned)(b >> 32))                            \
    X(compare, (a < b) * 4 + (a == b) * 2 + ((unsigned long long)a < (unsigned long long)b))

#define DEF_I32(ID, EXPR) ELEMENTWISE_KERNEL(i32_##ID, int, int, EXPR)
#define DEF_I64(ID, EXPR) ELEMENTWISE_KERNEL(i64_##ID, long long, long long, EXPR)
I32_OPS(DEF_I32)
I64_OPS(DEF_I64)

#define NI 4096

static void ints(std::vector<int> &v, uint64_t seed, int rotate)
{
    static const int specials[] = {0, 1, -1, 2, -2, 3, -3, 7, -7, 31, 32, 33, -32, INT_MAX, INT_MIN,
                                   INT_MAX - 1, INT_MIN + 1, 0x55555555, (int)0xAAAAAAAAu, 65536, -65536,
                                   0x00ffffff, (int)0xff800000u, 1 << 23};
    const int ns = (int)(sizeof specials / sizeof specials[0]);
    v.resize(NI);
    uint64_t s = seed;
    for (int i = 0; i < NI; i++) {
        if (i < ns * ns) {
            v[i] = specials[rotate ? i % ns : i / ns];
            continue;
        }
        uint32_t r = rng_u32(&s);
        switch (i % 4) {          // full range, small of both signs, a few bits, a power of two
        case 0: v[i] = (int)r; break;
        case 1: v[i] = (int)(r % 2001) - 1000; break;
        case 2: v[i] = (int)r >> (r % 31); break;
        default: v[i] = (int)(1u << (r % 32)) * ((r & 64) ? -1 : 1); break;
        }
    }
}

static void lls(std::vector<long long> &v, uint64_t seed, int rotate)
{
    static const long long specials[] = {0, 1, -1, 2, -2, 10, -10, 63, 64, -64, LLONG_MAX, LLONG_MIN,
                                         LLONG_MIN + 1, 0x5555555555555555LL, (long long)0xAAAAAAAAAAAAAAAAull,
                                         1LL << 32, -(1LL << 32), 0xffffffffLL};
    const int ns = (int)(sizeof specials / sizeof specials[0]);
    v.resize(NI);
    uint64_t s = seed;
    for (int i = 0; i < NI; i++) {
        if (i < ns * ns) {
            v[i] = specials[rotate ? i % ns : i / ns];
            continue;
        }
        uint64_t r = rng_next(&s);
        switch (i % 3) {
        case 0: v[i] = (long long)r; break;
        case 1: v[i] = (long long)(r % 200001) - 100000; break;
        default: v[i] = (long long)r >> (r % 63); break;
        }
    }
}

void run_int_cases(void)
{
    std::vector<int> a, b, c;
    ints(a, 21, 0);
    ints(b, 22, 1);
    ints(c, 23, 1);
    for (int i = 0; i < NI; i += 3)
        std::swap(c[i], b[(i * 5) % NI]);
    std::vector<long long> la, lb, lc;
    lls(la, 24, 0);
    lls(lb, 25, 1);
    lls(lc, 26, 1);
#define RUN_I32(ID, EXPR) run_elementwise("int32:" #ID, "u32", 0, k_i32_##ID, a, b, c);
#define RUN_I64(ID, EXPR) run_elementwise("int64:" #ID, "u64", 0, k_i64_##ID, la, lb, lc);
    I32_OPS(RUN_I32)
    I64_OPS(RUN_I64)
}
