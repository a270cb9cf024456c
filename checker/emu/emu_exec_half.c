/* emu_exec_half.c - the 16-bit float formats, .f16 (IEEE half) and .bf16 (bfloat16): their values, rounding
 * to them in every PTX rounding mode, and their arithmetic, one value or a packed pair (.f16x2, .bf16x2).
 *
 * Both formats are a sign, an exponent and a fraction, like float; they differ in their field widths:
 *
 *   format  fraction bits  smallest normal  largest finite            unit roundoff u
 *   .f16    10             2^-14            65504                     2^-11
 *   .bf16    7             2^-126           (2 - 2^-7) * 2^127        2^-8   (float's exponent range)
 *
 * Every value of either format is exact in a double, so an operation is computed exactly (or as a double
 * plus the error term that TwoSum recovers) and rounded once, as PTX defines: add, sub, mul and fma round
 * the exact result to the format, to nearest even. A NaN result is the canonical NaN 0x7fff of either. */
#include <math.h>
#include <string.h>

#include "emu_exec.h"

typedef struct half_format {
    int frac_bits;      /* bits of the fraction */
    int emin;           /* exponent of the smallest normal number */
    int emax;           /* exponent of the largest finite numbers */
} half_format;

static const half_format F16 = { 10, -14, 15 }, BF16 = { 7, -126, 127 };
#define HALF_NAN 0x7fffu   /* the GPU's canonical NaN, in both formats */

static const half_format *format_of(int t) { return t == EMU_T_BF16 ? &BF16 : &F16; }

/* 2^k, exactly, for k a double's normal exponent (-1022 to 1023): the scalings below are multiplications by
 * it, exact where ldexp is, without ldexp's call (a tenth of exercise 16's suite went to ldexp, perf). */
static double pow2(int k)
{
    uint64_t bits = (uint64_t)(k + 1023) << 52;
    double d;
    memcpy(&d, &bits, sizeof d);
    return d;
}

double emu_half_value(int t, uint16_t bits)
{
    const half_format *f = format_of(t);
    int exp_bits = 15 - f->frac_bits, bias = 1 - f->emin;
    unsigned e = (bits >> f->frac_bits) & ((1u << exp_bits) - 1), m = bits & ((1u << f->frac_bits) - 1);
    double v;
    if (e == (1u << exp_bits) - 1) v = m ? NAN : INFINITY;
    else if (e == 0) v = (double)m * pow2(f->emin - f->frac_bits);             /* zero or subnormal */
    else v = (double)(m | 1u << f->frac_bits) * pow2((int)e - bias - f->frac_bits);
    return (bits & 0x8000) ? -v : v;
}

/* The bits of the number of magnitude a (a multiple of the format's quantum, at most its largest finite
 * value, or infinite), with the sign s. */
static uint16_t encode(const half_format *f, double a, uint16_t s)
{
    int exp_bits = 15 - f->frac_bits, bias = 1 - f->emin;
    if (isinf(a)) return (uint16_t)(s | ((1u << exp_bits) - 1) << f->frac_bits);
    if (a < pow2(f->emin)) return (uint16_t)(s | (uint16_t)(a * pow2(f->frac_bits - f->emin)));
    int e;
    frexp(a, &e);                                      /* a = m * 2^e, m in [0.5, 1) */
    unsigned frac = (unsigned)(a * pow2(f->frac_bits - (e - 1))) - (1u << f->frac_bits);
    return (uint16_t)(s | (unsigned)(e - 1 + bias) << f->frac_bits | frac);
}

uint16_t emu_half_round(int t, double v, double err, int rnd)
{
    const half_format *f = format_of(t);
    if (v != v) return HALF_NAN;
    uint16_t s = signbit(v) ? 0x8000 : 0;
    double a = fabs(v), e = s ? -err : err;            /* the exact magnitude is a + e, |e| tiny beside a */
    if (isinf(a)) return encode(f, a, s);
    /* Which way the rounding goes, in magnitude: rn to nearest (ties to even), rz toward zero, rm and rp
     * toward -inf and +inf, which is toward zero for one sign and away from it for the other. */
    int away_mode = rnd == EMU_RND_RP ? !s : rnd == EMU_RND_RM ? (s != 0) : 0;
    int nearest = rnd != EMU_RND_RZ && rnd != EMU_RND_RM && rnd != EMU_RND_RP;
    int ex;
    frexp(a, &ex);
    int quantum = (ex - 1 < f->emin ? f->emin : ex - 1) - f->frac_bits;   /* the format's ulp at a is 2^quantum */
    /* quantum is -133 to 1016 (a double's largest exponent less 7): each scaling below is exact, or overflows
     * to infinity where ldexp would */
    double q = a * pow2(-quantum), r = floor(q), frac = q - r;              /* exact: a has at most 53 bits */
    int up;
    if (nearest) up = frac > 0.5 || (frac == 0.5 && (e > 0 || (e == 0 && fmod(r, 2.0) != 0)));
    else if (away_mode) up = frac > 0 || (frac == 0 && e > 0);
    else { up = 0; if (frac == 0 && e < 0 && r > 0) r -= 1; }              /* just below a multiple: one less */
    if (up) r += 1;
    double back = r * pow2(quantum);
    double largest = (2.0 - pow2(-f->frac_bits)) * pow2(f->emax);
    if (back > largest) back = (nearest || away_mode) ? INFINITY : largest;
    return encode(f, back, s);
}

/* One operation on one value of the format: add sub mul fma neg abs min max, with .ftz (f16 only: subnormal
 * inputs and results count as zeros of their sign), .sat (clamp to [0, 1]) and min/max.NaN. */
static uint16_t half_op(const emu_insn *in, uint16_t ha, uint16_t hb, uint16_t hc)
{
    int t = in->t, fz = (in->flags & EMU_F_FTZ) != 0;
    uint16_t exp_mask = t == EMU_T_BF16 ? 0x7f80 : 0x7c00;
    if (fz) {
        if (!(ha & exp_mask)) ha &= 0x8000;
        if (!(hb & exp_mask)) hb &= 0x8000;
        if (!(hc & exp_mask)) hc &= 0x8000;
    }
    double a = emu_half_value(t, ha), b = emu_half_value(t, hb), c = emu_half_value(t, hc), p, r, err = 0;
    switch (in->op) {
    /* neg and abs of a NaN give the canonical NaN in both formats (seen on an H100, sm_90: PTX leaves it open) */
    case EMU_OP_NEG: return a != a ? HALF_NAN : ha ^ 0x8000;
    case EMU_OP_ABS: return a != a ? HALF_NAN : ha & 0x7fff;
    case EMU_OP_MIN: case EMU_OP_MAX: {
        if (a != a || b != b) {
            if ((in->flags & EMU_F_NAN) || (a != a && b != b)) return HALF_NAN;
            return a != a ? hb : ha;
        }
        int amin = a < b || (a == b && (ha & 0x8000));
        return (in->op == EMU_OP_MIN) == amin ? ha : hb;
    }
    case EMU_OP_MUL: p = a * b; c = -0.0; break;    /* at most 11 x 11 bits: exact; + -0 keeps its sign */
    case EMU_OP_ADD: p = a; c = b; break;
    case EMU_OP_SUB: p = a; c = -b; break;
    default: p = a * b; break;                       /* fma: the product is exact */
    }
    /* p + c may need more than 53 bits when their exponents are far apart (bf16 spans 2^-133 to 2^127):
     * TwoSum gives r + err == p + c exactly. */
    r = p + c;
    double bb = r - p;
    err = (p - (r - bb)) + (c - bb);
    if (r != r) return HALF_NAN;
    if (in->flags & EMU_F_SAT) { if (r <= 0) { r = 0; err = 0; } else if (r >= 1) { r = 1; err = 0; } }
    uint16_t h = emu_half_round(t, r, err, EMU_RND_RN);
    if (fz && !(h & exp_mask)) h &= 0x8000;
    return h;
}

uint64_t emu_half_ops(const emu_insn *in, uint64_t a, uint64_t b, uint64_t c)
{
    uint64_t r = 0;
    for (int k = 0; k < in->nvec; k++)
        r |= (uint64_t)half_op(in, (uint16_t)(a >> 16 * k), (uint16_t)(b >> 16 * k), (uint16_t)(c >> 16 * k)) << 16 * k;
    return r;
}
