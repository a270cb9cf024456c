#!/usr/bin/env python3
"""bf16_oracle.py - the expected bits of kernels/bf16_approx.cu, computed exactly with fractions.

Every operation of the kernel is computed on exact rationals and rounded once to its format, as PTX
defines it, with nothing of the emulator's code: a second, independent implementation. Prints the two
lines that test_engine_kernels.sh expects (the out0 lines of bf16_ops, approx_specials and half_pairs, every value:
engine_driver --all), so that
`python3 checker/emu/tests/bf16_oracle.py` regenerates them. Plain python3, no packages.
"""
import math
import struct
from fractions import Fraction as Q

# (precision in bits including the leading one, exponent of the smallest normal, of the largest finite)
F32, F64, F16, BF16 = (24, -126, 127), (53, -1022, 1023), (11, -14, 15), (8, -126, 127)
INF = float("inf")


def round_to(x, fmt, mode="rn"):
    """x (a Fraction, or +-inf) rounded to the format; returns a Fraction or +-inf. mode: rn or rz."""
    if isinstance(x, float):
        return x
    if x == 0:
        return Q(0)
    p, emin, emax = fmt
    sign, a = (-1 if x < 0 else 1), abs(x)
    e = math.floor(math.log2(a))  # refine: log2 of a fraction may be off by one
    while Q(2) ** e > a:
        e -= 1
    while Q(2) ** (e + 1) <= a:
        e += 1
    quantum = Q(2) ** (max(e, emin) - (p - 1))
    n, rest = divmod(a, quantum)
    if mode == "rn" and (rest > quantum / 2 or (rest == quantum / 2 and n % 2 == 1)):
        n += 1
    r = n * quantum
    largest = (2 - Q(2) ** (1 - p)) * Q(2) ** emax
    if r > largest:
        r = INF if mode == "rn" else largest
    return sign * r


def bits(v, fmt):
    """The bits of a value of the format (a Fraction or +-inf)."""
    p, emin, emax = fmt
    frac_bits = p - 1
    exp_bits = {F32: 8, F64: 11, F16: 5, BF16: 8}[fmt]
    s = 0
    if isinstance(v, float):
        s = 1 if v < 0 else 0
        return s << (frac_bits + exp_bits) | ((1 << exp_bits) - 1) << frac_bits
    if v < 0:
        s, v = 1, -v
    if v == 0:
        return s << (frac_bits + exp_bits)
    if v < Q(2) ** emin:
        return s << (frac_bits + exp_bits) | int(v / Q(2) ** (emin - frac_bits))
    e = math.floor(math.log2(v))
    while Q(2) ** e > v:
        e -= 1
    while Q(2) ** (e + 1) <= v:
        e += 1
    frac = int(v / Q(2) ** (e - frac_bits)) - (1 << frac_bits)
    return s << (frac_bits + exp_bits) | (e + 1 - emin) << frac_bits | frac


def f32(x):
    """A Python float as the nearest float32 (exact: struct rounds to nearest)."""
    return Q(struct.unpack("<f", struct.pack("<f", x))[0])


def from_bits32(u):
    v = struct.unpack("<f", struct.pack("<I", u))[0]
    return v if math.isinf(v) or math.isnan(v) else Q(v)


def rn(x, fmt):
    return round_to(x, fmt, "rn")


def round_half_even_int(x):
    n, rest = divmod(x, 1)
    if rest > Q(1, 2) or (rest == Q(1, 2) and n % 2 == 1):
        n += 1
    return int(n)


def bf16_ops(n=12):
    out = []
    for i in range(n):
        x = rn(Q(i) * f32(1.37) + f32(0.1), F32)
        y = rn(Q((i + 1) % n) * f32(-0.73) + 3, F32)
        a, b = rn(x, BF16), rn(y, BF16)
        s, d, p = rn(a + b, BF16), rn(a - b, BF16), rn(a * b, BF16)
        f = rn(a * b + s, BF16)
        v, w = (a, b), (b, d)
        q = [rn(v[k] * w[k] + rn(rn(v[k] * w[k], BF16) + v[k], BF16), BF16) for k in range(2)]
        mx = max(-a, abs(d))
        mn = min(a, d)
        x1000 = rn(x * 1000, F32)
        prod = rn(p * Q(21, 2), BF16)
        xd = rn(x * Q(1e-40), F64)
        x3 = rn(x * f32(2.735e37), F32)
        flags = (1 if a > b else 0) | (2 if d <= p else 0) | (4 if s == 0 else 0)
        out += [
            bits(s, BF16), bits(d, BF16), bits(p, BF16), bits(f, BF16),
            bits(q[0], BF16) | bits(q[1], BF16) << 16,
            bits(mx, BF16) | bits(mn, BF16) << 16,
            bits(round_to(x1000, BF16, "rz"), BF16),
            bits(rn(x, BF16), BF16) | bits(rn(y, BF16), BF16) << 16,
            round_half_even_int(prod) & 0xFFFFFFFF,
            bits(rn(Q(i * 1000003 + 7), BF16), BF16),
            bits(rn(xd, BF16), BF16),
            bits(rn(x3, BF16), BF16) | bits(round_to(x3, BF16, "rz"), BF16) << 16,
            flags,
            bits(rn(p, F16), F16),
        ]
    return out


def half_pairs(n=12):
    out = []
    one_f16, one_bf16 = 0x3C00, 0x3F80
    for i in range(n):
        x = rn(Q(i) * f32(1.37) + f32(0.1), F32)
        y = rn(Q((i + 1) % n) * f32(-0.73) + 3, F32)
        ha, hb = rn(x, F16), rn(y, F16)
        ba, bb = rn(x, BF16), rn(y, BF16)
        relu = lambda v, fmt: bits(Q(0) if v < 0 else rn(v, fmt), fmt)
        out += [
            bits(hb, F16) << 16 | bits(ha, F16),
            one_f16 | (one_f16 if ha < hb else 0) << 16,
            one_bf16 if ba > bb else 0,
            relu(rn(x - 5, F32), BF16) << 16 | relu(y, BF16),
            relu(y, F16),
        ]
    return out


SPECIALS = [0xFF800000, 0xBF800000, 0x80000001, 0x80000000, 0x00000000, 0x00400000, 0x3F800000, 0x40400000,
            0x7149F2CA, 0x7F800000, 0x7FC00000, 0x43020000, 0xC3020000, 0x7F61B1E6, 0xFE967699, 0x3F000000,
            0x40000000]
NAN32 = 0x7FFFFFFF  # the GPU's canonical NaN


def f32_bits_of(v):
    """bits of a float32 result given as a Python float (inf, nan) or a Fraction."""
    if isinstance(v, float) and math.isnan(v):
        return NAN32
    if isinstance(v, float):
        return 0xFF800000 if v < 0 else 0x7F800000
    if v == 0:
        return 0
    return bits(v, F32)


def neg_zero():
    return 0x80000000


def approx_specials():
    """ex2, rsqrt, lg2 (with and without .ftz), div.approx 1.5/x and inf/x. Where PTX
    defines a special value it is given; elsewhere the exact value rounded once to float (the emulator's
    documented behaviour; the GPU is within the bound in emu_ptx.h)."""
    out = []
    for u in SPECIALS:
        x = from_bits32(u)
        negative = (u >> 31) == 1
        subnormal = (u & 0x7F800000) == 0 and (u & 0x7FFFFF) != 0
        row = []
        for ftz in (False, True):   # ex2
            if isinstance(x, float):
                row.append(NAN32 if math.isnan(x) else (0 if x < 0 else 0x7F800000))
            else:
                xv = Q(0) if (ftz and subnormal) else x
                if xv > 128:
                    r = INF
                elif xv < -160:
                    r = Q(0)
                elif xv.denominator == 1:
                    r = rn(Q(2) ** int(xv), F32)
                else:
                    r = rn(Q(2 ** float(xv)), F32)
                if ftz and not isinstance(r, float) and r != 0 and abs(r) < Q(2) ** -126:
                    r = Q(0)
                row.append(f32_bits_of(r))
        for ftz in (False, True):   # rsqrt
            xv = Q(0) if (ftz and subnormal) and not isinstance(x, float) else x
            if isinstance(xv, float):
                row.append(NAN32 if math.isnan(xv) or xv < 0 else 0)
            elif xv == 0:
                row.append(0xFF800000 if negative else 0x7F800000)
            elif xv < 0:
                row.append(NAN32)
            else:
                row.append(f32_bits_of(rn(Q(1 / math.sqrt(float(xv))) if xv.denominator != 1 or
                                         math.isqrt(int(xv)) ** 2 != int(xv) else Q(1, math.isqrt(int(xv))), F32)))
        for ftz in (False, True):   # lg2
            xv = Q(0) if (ftz and subnormal) and not isinstance(x, float) else x
            if isinstance(xv, float):
                row.append(NAN32 if math.isnan(xv) or xv < 0 else 0x7F800000)
            elif xv == 0:
                row.append(0xFF800000)
            elif xv < 0:
                row.append(NAN32)
            else:
                e = math.log2(float(xv))
                row.append(f32_bits_of(Q(0) if e == 0 else rn(Q(int(e)) if e == int(e) and xv == Q(2) ** int(e)
                                                           else Q(e), F32)))
        for a in (Q(3, 2), INF):    # div.approx a / x
            if isinstance(x, float):
                if math.isnan(x) or isinstance(a, float):
                    row.append(NAN32)
                else:
                    row.append(0x80000000 if negative else 0)   # 1.5 / +-inf
            elif abs(x) > Q(2) ** 126:
                row.append(NAN32 if isinstance(a, float) else (0x80000000 if negative else 0))
            elif x == 0:
                row.append(0xFF800000 if negative else 0x7F800000)
            elif isinstance(a, float):
                row.append(0xFF800000 if negative else 0x7F800000)
            else:
                row.append(f32_bits_of(rn(a / x, F32)))
        out += row
    return out


def line(words):
    return "out0: " + " ".join(str(w) for w in words)


if __name__ == "__main__":
    print(line(bf16_ops()))
    print(line(approx_specials()))
    print(line(half_pairs()))
