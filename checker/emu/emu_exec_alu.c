/* emu_exec_alu.c - one lane of the generic arithmetic: every type, rounding, saturation and flush-to-zero. */
#include <fenv.h>
#include <math.h>
#include <string.h>

#include "emu_exec.h"

static inline float f32(uint64_t v) { float f; uint32_t u = (uint32_t)v; memcpy(&f, &u, 4); return f; }
/* A float result's bits; a NaN result is the GPU's canonical NaN, 0x7fffffff, whatever its inputs were. */
static inline uint64_t uf32(float f) { uint32_t u; memcpy(&u, &f, 4); return f != f ? 0x7fffffffu : u; }
static inline double f64(uint64_t v) { double f; memcpy(&f, &v, 8); return f; }
static inline uint64_t uf64(double f) { uint64_t u; memcpy(&u, &f, 8); return u; }

static inline int64_t sext(uint64_t v, unsigned sz) { return sz >= 8 ? (int64_t)v : (int64_t)(v << (64 - 8 * sz)) >> (64 - 8 * sz); }
static inline uint64_t zext(uint64_t v, unsigned sz) { return sz >= 8 ? v : v & ((1ull << (8 * sz)) - 1); }

static inline float ftz(float f) { return fpclassify(f) == FP_SUBNORMAL ? copysignf(0.0f, f) : f; }
static inline double ftzd(double f) { return fpclassify(f) == FP_SUBNORMAL ? copysign(0.0, f) : f; }

/* mul24/mad24: 24-bit operands (sign-extended for .s32), .lo the low 32 bits of the 48-bit product,
 * .hi its bits 47..16; mad24 adds c (saturating for .hi.sat.s32). */
static uint64_t mul24(const emu_insn *in, uint64_t a, uint64_t b, uint64_t c, int sgn)
{
    int64_t x = sgn ? (int64_t)((int32_t)((uint32_t)a << 8) >> 8) : (int64_t)(a & 0xffffff);
    int64_t y = sgn ? (int64_t)((int32_t)((uint32_t)b << 8) >> 8) : (int64_t)(b & 0xffffff);
    uint64_t p = (uint64_t)(x * y);
    uint32_t r = in->mod == EMU_MW_HI ? (uint32_t)(p >> 16) : (uint32_t)p;
    if (in->op == EMU_OP_MUL24) return r;
    if ((in->flags & EMU_F_SAT) && sgn) {
        int64_t v = (int64_t)(int32_t)r + (int64_t)(int32_t)(uint32_t)c;
        return (uint32_t)(v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : v);
    }
    return (uint32_t)(r + (uint32_t)c);
}

/* ---- Rounding modes ------------------------------------------------------------------------- */

static int needs_mode(const emu_insn *in)
{
    int fl = EMU_TKIND(in->t) == EMU_K_F || (in->t2 != EMU_T_NONE && EMU_TKIND(in->t2) == EMU_K_F);
    return fl && (in->rnd == EMU_RND_RZ || in->rnd == EMU_RND_RM || in->rnd == EMU_RND_RP);
}

void emu_round_begin(const emu_insn *in)
{
    if (!needs_mode(in)) return;
    fesetround(in->rnd == EMU_RND_RZ ? FE_TOWARDZERO : in->rnd == EMU_RND_RM ? FE_DOWNWARD : FE_UPWARD);
}

void emu_round_end(const emu_insn *in)
{
    if (needs_mode(in)) fesetround(FE_TONEAREST);
}

/* ---- Comparisons ----------------------------------------------------------------------------------- */

int emu_compare(int cmp, int t, uint64_t a, uint64_t b, int fz)
{
    unsigned sz = EMU_TSIZE(t);
    int k = EMU_TKIND(t);
    if (k == EMU_K_F) {
        double x, y;
        if (t == EMU_T_F32) { float p = f32(a), q = f32(b); if (fz) { p = ftz(p); q = ftz(q); } x = p; y = q; }
        else if (t == EMU_T_F16 || t == EMU_T_BF16) { x = emu_half_value(t, (uint16_t)a); y = emu_half_value(t, (uint16_t)b); }
        else { x = f64(a); y = f64(b); }
        int un = x != x || y != y;
        switch (cmp) {
        case EMU_CMP_EQ: return !un && x == y;
        case EMU_CMP_NE: return !un && x != y;
        case EMU_CMP_LT: return !un && x < y;
        case EMU_CMP_LE: return !un && x <= y;
        case EMU_CMP_GT: return !un && x > y;
        case EMU_CMP_GE: return !un && x >= y;
        case EMU_CMP_EQU: return un || x == y;
        case EMU_CMP_NEU: return un || x != y;
        case EMU_CMP_LTU: return un || x < y;
        case EMU_CMP_LEU: return un || x <= y;
        case EMU_CMP_GTU: return un || x > y;
        case EMU_CMP_GEU: return un || x >= y;
        case EMU_CMP_NUM: return !un;
        case EMU_CMP_NAN: return un;
        }
        return 0;
    }
    if (k == EMU_K_S) {
        int64_t x = sext(a, sz), y = sext(b, sz);
        switch (cmp % 6) {
        case EMU_CMP_EQ: return x == y; case EMU_CMP_NE: return x != y; case EMU_CMP_LT: return x < y;
        case EMU_CMP_LE: return x <= y; case EMU_CMP_GT: return x > y; default: return x >= y;
        }
    }
    uint64_t x = zext(a, sz), y = zext(b, sz);
    switch (cmp % 6) {
    case EMU_CMP_EQ: return x == y; case EMU_CMP_NE: return x != y; case EMU_CMP_LT: return x < y;
    case EMU_CMP_LE: return x <= y; case EMU_CMP_GT: return x > y; default: return x >= y;
    }
}

int emu_testp(int which, int t, uint64_t a)
{
    double x = t == EMU_T_F32 ? (double)f32(a) : f64(a);
    int c = t == EMU_T_F32 ? fpclassify(f32(a)) : fpclassify(x);
    switch (which) {
    case 0: return isfinite(x);
    case 1: return isinf(x);
    case 2: return !isnan(x);
    case 3: return isnan(x) != 0;
    case 4: return c == FP_NORMAL;
    default: return c == FP_SUBNORMAL;
    }
}

/* ---- Conversions ------------------------------------------------------------------------------------ */

static double round_int(double v, int rnd)
{
    switch (rnd) {
    case EMU_RND_RNI: return nearbyint(v);
    case EMU_RND_RMI: return floor(v);
    case EMU_RND_RPI: return ceil(v);
    default: return trunc(v);
    }
}

/* A float source of any width as a double (exact), its subnormals flushed when fz (f32 only). */
static double float_value(int t, uint64_t a, int fz)
{
    if (t == EMU_T_F32) return fz ? ftz(f32(a)) : f32(a);
    if (t == EMU_T_F16 || t == EMU_T_BF16) return emu_half_value(t, (uint16_t)a);
    return f64(a);
}

/* v + err rounded to the 16-bit format t in the instruction's mode (to nearest by default), then .relu
 * (negative results become +0) and .satfinite (infinities become the largest finite value) where asked. */
static uint16_t to_half(const emu_insn *in, int t, double v, double err)
{
    int rnd = in->rnd == EMU_RND_DEFAULT ? EMU_RND_RN : in->rnd;
    uint16_t h = emu_half_round(t, v, err, rnd);
    uint16_t inf = t == EMU_T_BF16 ? 0x7f80 : 0x7c00;
    if ((in->mod & EMU_CVT_RELU) && (h & 0x8000) && (h & 0x7fff) <= inf) h = 0;
    if ((in->mod & EMU_CVT_SATFINITE) && (h & 0x7fff) == inf) h = (uint16_t)((h & 0x8000) | (inf - 1));
    return h;
}

uint64_t emu_cvt(const emu_insn *in, uint64_t a)
{
    int dt = in->t, st = in->t2;
    unsigned dsz = EMU_TSIZE(dt), ssz = EMU_TSIZE(st);
    int dk = EMU_TKIND(dt), sk = EMU_TKIND(st);
    int fz = (in->flags & EMU_F_FTZ) != 0, sat = (in->flags & EMU_F_SAT) != 0;
    if (sk != EMU_K_F && dk != EMU_K_F) {
        /* integer to integer: extend by the source's signedness, then truncate (or clamp with .sat) */
        int64_t sv = sk == EMU_K_S ? sext(a, ssz) : (int64_t)zext(a, ssz);
        uint64_t uv = sk == EMU_K_S ? (uint64_t)sv : zext(a, ssz);
        if (sat) {
            if (dk == EMU_K_S) {
                int64_t lo = dsz >= 8 ? INT64_MIN : -(1ll << (8 * dsz - 1)), hi = dsz >= 8 ? INT64_MAX : (1ll << (8 * dsz - 1)) - 1;
                if (sk != EMU_K_S && uv > (uint64_t)hi) return zext((uint64_t)hi, dsz);
                if (sk == EMU_K_S && sv < lo) return zext((uint64_t)lo, dsz);
                if (sk == EMU_K_S && sv > hi) return zext((uint64_t)hi, dsz);
            } else {
                uint64_t hi = dsz >= 8 ? UINT64_MAX : (1ull << (8 * dsz)) - 1;
                if (sk == EMU_K_S && sv < 0) return 0;
                if (uv > hi) return hi;
            }
        }
        return dk == EMU_K_S ? (uint64_t)sext(uv, dsz) : zext(uv, dsz);
    }
    if (sk == EMU_K_F && dk == EMU_K_F) {
        double v = float_value(st, a, fz);
        /* NaNs the GPU keeps (seen on an H100, sm_90): a bf16 widens to a float by a shift, payload and all;
         * a double narrows to a bf16 keeping its sign and the top 7 bits of its payload, made quiet. */
        if (v != v && st == EMU_T_BF16 && dt == EMU_T_F32) return (a & 0xffff) << 16;
        if (v != v && st == EMU_T_F64 && dt == EMU_T_BF16)
            return ((a >> 48) & 0x8000) | 0x7fc0 | ((a >> 45) & 0x7f);
        if (in->rnd >= EMU_RND_RNI) v = round_int(v, in->rnd);
        if (sat) v = v != v ? 0.0 : v < 0 ? 0.0 : v > 1 ? 1.0 : v;
        if (dt == EMU_T_F32) { float r = (float)v; if (fz) r = ftz(r); return uf32(r); }
        if (dt == EMU_T_F16 || dt == EMU_T_BF16) return to_half(in, dt, v, 0);
        return uf64(v);
    }
    if (sk == EMU_K_F) {
        /* float to integer: round as asked (toward zero by default), clamp to the range, NaN gives 0 */
        double v = float_value(st, a, fz);
        /* NaN: 0 from a float (or a bf16, which is a float cut short) into 32 bits; otherwise the GPU gives
         * the lowest signed value's bits (bf16 here: checked by gpu-compare's half:bf16_to_int cases) */
        if (v != v) return (st == EMU_T_F32 || st == EMU_T_BF16) && dsz <= 4 ? 0 : dsz >= 8 ? 0x8000000000000000ull : 0x80000000u;
        v = round_int(v, in->rnd ? in->rnd : EMU_RND_RZI);
        if (dk == EMU_K_S) {
            double lo = dsz >= 8 ? -9223372036854775808.0 : -ldexp(1.0, 8 * (int)dsz - 1), hi = -lo;
            int64_t r = v < lo ? (int64_t)lo : v >= hi ? (dsz >= 8 ? INT64_MAX : (int64_t)hi - 1) : (int64_t)v;
            return zext((uint64_t)r, dsz);
        }
        double hi = ldexp(1.0, 8 * (int)dsz);
        uint64_t r = v <= 0 ? 0 : v >= hi ? (dsz >= 8 ? UINT64_MAX : (uint64_t)hi - 1) : (uint64_t)v;
        return r;
    }
    if (dt == EMU_T_F16 || dt == EMU_T_BF16) {
        /* integer to a 16-bit float: the integer as a double, plus what that double left out (64-bit
         * integers only), rounded once in the instruction's mode */
        double d, err;
        if (sk == EMU_K_S) { int64_t sv = sext(a, ssz); d = (double)sv; err = fabs(d) < 0x1p63 ? (double)(sv - (int64_t)d) : 0; }
        else { uint64_t uv = zext(a, ssz); d = (double)uv; err = d < 0x1p64 ? (double)(int64_t)(uv - (uint64_t)d) : 0; }
        if (sat) { if (d < 0) d = 0, err = 0; if (d > 1) d = 1, err = 0; }
        return to_half(in, dt, d, err);
    }
    /* integer to float, in the current rounding mode (emu_round_begin) */
    double d;
    float f;
    if (sk == EMU_K_S) {
        int64_t sv = sext(a, ssz);
        if (dt == EMU_T_F32) { f = (float)sv; d = f; } else { d = (double)sv; f = (float)d; }
    } else {
        uint64_t uv = zext(a, ssz);
        if (dt == EMU_T_F32) { f = (float)uv; d = f; } else { d = (double)uv; f = (float)d; }
    }
    if (sat) { if (d < 0) d = 0, f = 0; if (d > 1) d = 1, f = 1; }
    if (dt == EMU_T_F32) return uf32(f);
    return uf64(d);
}

uint64_t emu_cvt_pair(const emu_insn *in, uint64_t a, uint64_t b)
{
    return (uint64_t)to_half(in, in->t, f32(a), 0) << 16 | to_half(in, in->t, f32(b), 0);
}

/* ---- Arithmetic ---------------------------------------------------------------------------------- */

static uint64_t fin32(const emu_insn *in, float r)
{
    if (in->flags & EMU_F_SAT) r = r != r ? 0.0f : r < 0 ? 0.0f : r > 1 ? 1.0f : r;
    if (in->flags & EMU_F_FTZ) r = ftz(r);
    return uf32(r);
}

static uint64_t fin64(const emu_insn *in, double r)
{
    if (in->flags & EMU_F_SAT) r = r != r ? 0.0 : r < 0 ? 0.0 : r > 1 ? 1.0 : r;
    return uf64(r);
}

static uint64_t float_op(const emu_insn *in, uint64_t ua, uint64_t ub, uint64_t uc)
{
    int nan_flag = (in->flags & EMU_F_NAN) != 0;
    if (in->t == EMU_T_F32) {
        float a = f32(ua), b = f32(ub), c = f32(uc);
        if (in->flags & EMU_F_FTZ) { a = ftz(a); b = ftz(b); c = ftz(c); }
        switch (in->op) {
        case EMU_OP_ADD: return fin32(in, a + b);
        case EMU_OP_SUB: return fin32(in, a - b);
        case EMU_OP_MUL: return fin32(in, a * b);
        case EMU_OP_MAD: case EMU_OP_FMA: return fin32(in, fmaf(a, b, c));
        case EMU_OP_DIV:
            /* div.approx is a * (1/b): for 2^126 < |b| < inf the reciprocal is flushed to zero, so the
             * result is 0 (NaN for an infinite a), as PTX defines; elsewhere it is exact here (see approx) */
            if (in->mod == EMU_DIV_APPROX && fabsf(b) > 0x1p126f && !isinf(b)) return fin32(in, a * copysignf(0.0f, b));
            return fin32(in, a / b);
        case EMU_OP_NEG: return a != a ? 0x7fffffffu : uf32(a) ^ 0x80000000u; /* NaN stays canonical */
        case EMU_OP_ABS: return uf32(a) & 0x7fffffffu;
        case EMU_OP_MIN: case EMU_OP_MAX: {
            if (a != a || b != b) {
                if (nan_flag || (a != a && b != b)) return 0x7fffffffu;
                return uf32(a != a ? b : a);
            }
            int amin = a < b || (a == b && (uf32(a) & 0x80000000u));
            return uf32((in->op == EMU_OP_MIN) == amin ? a : b);
        }
        case EMU_OP_COPYSIGN: return (uf32(b) & 0x7fffffffu) | (uf32(a) & 0x80000000u);
        /* The .approx instructions: PTX defines their special values (0, subnormals under .ftz, infinities,
         * NaN), which these give exactly, and bounds their error elsewhere; here they are computed in double
         * and rounded once, so the GPU's result is within that bound of the emulator's (approx below). */
        case EMU_OP_RCP: return fin32(in, 1.0f / a);
        case EMU_OP_SQRT: return fin32(in, sqrtf(a));
        case EMU_OP_RSQRT: return fin32(in, (float)(1.0 / sqrt((double)a)));
        case EMU_OP_EX2: return fin32(in, (float)exp2((double)a));
        case EMU_OP_LG2: return fin32(in, (float)log2((double)a));
        case EMU_OP_SIN: return fin32(in, (float)sin((double)a));
        case EMU_OP_COS: return fin32(in, (float)cos((double)a));
        case EMU_OP_TANH: return fin32(in, (float)tanh((double)a));
        }
        return 0;
    }
    double a = f64(ua), b = f64(ub), c = f64(uc);
    if (in->flags & EMU_F_FTZ) { a = ftzd(a); b = ftzd(b); c = ftzd(c); }
    switch (in->op) {
    case EMU_OP_ADD: return fin64(in, a + b);
    case EMU_OP_SUB: return fin64(in, a - b);
    case EMU_OP_MUL: return fin64(in, a * b);
    case EMU_OP_MAD: case EMU_OP_FMA: return fin64(in, fma(a, b, c));
    case EMU_OP_DIV: return fin64(in, a / b);
    case EMU_OP_NEG: return uf64(a) ^ 0x8000000000000000ull;
    case EMU_OP_ABS: return uf64(a) & 0x7fffffffffffffffull;
    case EMU_OP_MIN: case EMU_OP_MAX: {
        if (a != a || b != b) {
            if (nan_flag || (a != a && b != b)) return 0x7fffffffffffffffull;
            return uf64(a != a ? b : a);
        }
        int amin = a < b || (a == b && (uf64(a) >> 63));
        return uf64((in->op == EMU_OP_MIN) == amin ? a : b);
    }
    case EMU_OP_COPYSIGN: return (uf64(b) & 0x7fffffffffffffffull) | (uf64(a) & 0x8000000000000000ull);
    case EMU_OP_RCP: return fin64(in, 1.0 / a);
    case EMU_OP_SQRT: return fin64(in, sqrt(a));
    case EMU_OP_RSQRT: return fin64(in, 1.0 / sqrt(a));
    case EMU_OP_EX2: return fin64(in, exp2(a));
    case EMU_OP_LG2: return fin64(in, log2(a));
    case EMU_OP_SIN: return fin64(in, sin(a));
    case EMU_OP_COS: return fin64(in, cos(a));
    case EMU_OP_TANH: return fin64(in, tanh(a));
    }
    return 0;
}

static uint64_t mul_hi(uint64_t a, uint64_t b, unsigned sz, int sgn)
{
    if (sz == 8) {
        if (sgn) return (uint64_t)(((__int128)(int64_t)a * (int64_t)b) >> 64);
        return (uint64_t)(((unsigned __int128)a * b) >> 64);
    }
    if (sgn) return zext((uint64_t)((sext(a, sz) * sext(b, sz)) >> (8 * sz)), sz);
    return zext((zext(a, sz) * zext(b, sz)) >> (8 * sz), sz);
}

static uint64_t sat_s32(int64_t v) { return (uint32_t)(v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : v); }

uint64_t emu_alu(const emu_insn *in, uint64_t a, uint64_t b, uint64_t c, uint64_t e)
{
    int t = in->t;
    unsigned sz = EMU_TSIZE(t);
    int sgn = EMU_TKIND(t) == EMU_K_S;
    unsigned bits = 8 * sz;
    if (t == EMU_T_F16 || t == EMU_T_BF16) return emu_half_ops(in, a, b, c);
    if (EMU_TKIND(t) == EMU_K_F && in->op != EMU_OP_TESTP) return float_op(in, a, b, c);
    switch (in->op) {
    case EMU_OP_MUL24: case EMU_OP_MAD24: return mul24(in, a, b, c, sgn);
    case EMU_OP_ADD:
        if ((in->flags & EMU_F_SAT) && sgn && sz == 4) return sat_s32((int64_t)sext(a, 4) + sext(b, 4));
        return zext(a + b, sz);
    case EMU_OP_SUB:
        if ((in->flags & EMU_F_SAT) && sgn && sz == 4) return sat_s32((int64_t)sext(a, 4) - sext(b, 4));
        return zext(a - b, sz);
    case EMU_OP_MUL:
        if (in->mod == EMU_MW_HI) return mul_hi(a, b, sz, sgn);
        if (in->mod == EMU_MW_WIDE) return sgn ? (uint64_t)(sext(a, sz) * sext(b, sz)) : zext(a, sz) * zext(b, sz);
        return zext(a * b, sz);
    case EMU_OP_MAD:
        if (in->mod == EMU_MW_HI) {
            if ((in->flags & EMU_F_SAT) && sgn && sz == 4) return sat_s32((int64_t)sext(mul_hi(a, b, 4, 1), 4) + sext(c, 4));
            return zext(mul_hi(a, b, sz, sgn) + c, sz);
        }
        if (in->mod == EMU_MW_WIDE) return (sgn ? (uint64_t)(sext(a, sz) * sext(b, sz)) : zext(a, sz) * zext(b, sz)) + c;
        return zext(a * b + c, sz);
    case EMU_OP_DIV:
        if (sgn) {
            int64_t x = sext(a, sz), y = sext(b, sz);
            if (y == 0) return zext(~0ull, sz);
            if (y == -1) return zext((uint64_t)0 - (uint64_t)x, sz);
            return zext((uint64_t)(x / y), sz);
        }
        if (!zext(b, sz)) return zext(~0ull, sz);
        return zext(a, sz) / zext(b, sz);
    case EMU_OP_REM:
        if (sgn) {
            int64_t x = sext(a, sz), y = sext(b, sz);
            if (y == 0) return zext((uint64_t)x, sz);
            if (y == -1) return 0;
            return zext((uint64_t)(x % y), sz);
        }
        if (!zext(b, sz)) return zext(a, sz);
        return zext(a, sz) % zext(b, sz);
    case EMU_OP_NEG: return zext((uint64_t)0 - a, sz);
    case EMU_OP_ABS: { int64_t x = sext(a, sz); return zext(x < 0 ? (uint64_t)0 - (uint64_t)x : (uint64_t)x, sz); }
    case EMU_OP_MIN: case EMU_OP_MAX: {
        int less = sgn ? sext(a, sz) < sext(b, sz) : zext(a, sz) < zext(b, sz);
        return zext((in->op == EMU_OP_MIN) == less ? a : b, sz);
    }
    case EMU_OP_NOT: return zext(~a, sz);
    case EMU_OP_CNOT: return zext(a, sz) == 0;
    case EMU_OP_SHL: { uint32_t s = (uint32_t)b; return s >= bits ? 0 : zext(a << s, sz); }
    case EMU_OP_SHR: {
        uint32_t s = (uint32_t)b;
        if (sgn) return zext((uint64_t)(sext(a, sz) >> (s >= bits ? bits - 1 : s)), sz);
        return s >= bits ? 0 : zext(a, sz) >> s;
    }
    case EMU_OP_POPC: return (uint64_t)__builtin_popcountll(zext(a, sz));
    case EMU_OP_CLZ: { uint64_t v = zext(a, sz); return v ? (uint64_t)(__builtin_clzll(v) - (64 - (int)bits)) : bits; }
    case EMU_OP_BREV: {
        uint64_t v = zext(a, sz), r = 0;
        for (unsigned i = 0; i < bits; i++) if (v >> i & 1) r |= 1ull << (bits - 1 - i);
        return r;
    }
    case EMU_OP_BFIND: {
        uint64_t v = zext(a, sz);
        if (sgn && sext(a, sz) < 0) v = zext(~v, sz);
        if (!v) return 0xffffffffu;
        unsigned top = (unsigned)(63 - __builtin_clzll(v));
        return in->mod == 1 ? (uint64_t)(bits - 1 - top) : (uint64_t)top; /* .shiftamt: bits-1 - top */
    }
    case EMU_OP_BFE: {
        unsigned pos = (unsigned)(b & 0xff), len = (unsigned)(c & 0xff), msb = bits - 1;
        uint64_t v = zext(a, sz), r = 0;
        int sbit = 0;
        if (sgn && len) sbit = (int)(v >> (pos + len - 1 < msb ? pos + len - 1 : msb) & 1);
        for (unsigned i = 0; i <= msb; i++) {
            int bit = (i < len && pos + i <= msb) ? (int)(v >> (pos + i) & 1) : sbit;
            if (bit) r |= 1ull << i;
        }
        return r;
    }
    case EMU_OP_BFI: {
        unsigned pos = (unsigned)(c & 0xff), len = (unsigned)(e & 0xff);
        uint64_t r = zext(b, sz);
        for (unsigned i = 0; i < len && pos + i < bits; i++) {
            r &= ~(1ull << (pos + i));
            r |= (a >> i & 1) << (pos + i);
        }
        return r;
    }
    case EMU_OP_PRMT: {
        uint64_t x = ((b & 0xffffffffu) << 32) | (a & 0xffffffffu);
        uint32_t r = 0, sel = (uint32_t)c;
        for (int i = 0; i < 4; i++) {
            unsigned s = (sel >> (4 * i)) & 0xf;
            uint32_t byte = (uint32_t)(x >> (8 * (s & 7))) & 0xff;
            if (s & 8) byte = (byte & 0x80) ? 0xff : 0;
            r |= byte << (8 * i);
        }
        return r;
    }
    case EMU_OP_LOP3: {
        uint32_t lut = (uint32_t)e & 0xff, r = 0, x = (uint32_t)a, y = (uint32_t)b, z = (uint32_t)c;
        for (int i = 0; i < 8; i++)
            if (lut >> i & 1) r |= ((i & 4) ? x : ~x) & ((i & 2) ? y : ~y) & ((i & 1) ? z : ~z);
        return r;
    }
    case EMU_OP_SHF: {
        uint32_t n = (uint32_t)c;
        n = (in->mod & 2) ? (n > 32 ? 32 : n) : (n & 31);
        uint64_t v = ((b & 0xffffffffu) << 32) | (a & 0xffffffffu);
        if (in->mod & 1) return (uint32_t)((v << n) >> 32);
        return (uint32_t)(v >> n);
    }
    case EMU_OP_BMSK: {
        /* The PTX ISA's semantics: b bits set from bit a. .wrap takes both mod 32; .clamp gives 0 for a
         * start past bit 31 and runs a width of 32 or more, or past bit 31, to the top. */
        uint32_t a1 = (uint32_t)a & 31, b1 = (uint32_t)b & 31, sum = a1 + b1;
        uint32_t mask0 = ~0u << a1, mask1 = sum < 32 ? ~0u << sum : 0;
        int overflow = sum >= 32;
        if (in->mod == 1) {
            if ((uint32_t)a >= 32) { overflow = 1; mask0 = 0; }
            if ((uint32_t)b >= 32) overflow = 1;
        }
        if (overflow) mask1 = 0;
        else if (b1 == 0) mask1 = ~0u;
        return mask0 & ~mask1;
    }
    case EMU_OP_SAD: {
        uint64_t d = sgn ? (sext(a, sz) > sext(b, sz) ? a - b : b - a) : (zext(a, sz) > zext(b, sz) ? a - b : b - a);
        return zext(c + d, sz);
    }
    }
    return 0;
}
