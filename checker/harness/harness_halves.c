/* harness_halves.c - what Part III (exercises 13-15) shares: the 16-bit float formats fp16 and bf16 on the
 * host (conversions written here, independent of the emulator's), their guarded buffers and poison, and
 * the rows-of-a-matrix inputs those exercises take. */
#include "harness.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static float float_of_bits(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static uint32_t bits_of_float(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }

const char *harness_half_name(harness_half_kind k) { return k == HARNESS_BF16 ? "bf16" : "fp16"; }

float harness_half_to_float(harness_half_kind k, uint16_t h)
{
    if (k == HARNESS_BF16) return float_of_bits((uint32_t)h << 16);   /* bf16 is float's upper half */
    uint32_t s = (uint32_t)(h >> 15), e = (h >> 10) & 31, m = h & 1023;
    float v;
    /* scaled by a power of two made from its bits (2^-24 to 2^5): exact, and without ldexpf's call, which the
     * suites of Part III make for every value they check */
    if (e == 31) v = m ? NAN : INFINITY;
    else if (e == 0) v = (float)m * 0x1p-24f;
    else v = (float)(m | 1024) * float_of_bits((e - 25 + 127) << 23);
    return s ? -v : v;
}

uint16_t harness_float_to_half(harness_half_kind k, float f)
{
    uint32_t u = bits_of_float(f);
    if (isnan(f)) return 0x7fff;
    if (k == HARNESS_BF16) {   /* round the lower 16 bits away, to nearest even */
        uint32_t rounded = u + 0x7fff + ((u >> 16) & 1);
        return (uint16_t)(rounded >> 16);
    }
    uint16_t s = (uint16_t)((u >> 16) & 0x8000);
    float a = fabsf(f);
    if (a >= 65520.0f) return s | 0x7c00;                              /* rounds to infinity */
    if (a < 0x1p-14f) return s | (uint16_t)nearbyintf(a * 0x1p24f);    /* subnormal: multiples of 2^-24 */
    uint32_t au = bits_of_float(a), mant = au & 0x7fffff, exp = (au >> 23) - 112;
    uint32_t h = exp << 10 | mant >> 13, rest = mant & 0x1fff;
    if (rest > 0x1000 || (rest == 0x1000 && (h & 1))) h++;
    return (uint16_t)(s | h);
}

void *harness_alloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    ck_assert_msg(p != NULL, _("The checker ran out of host memory (%zu bytes)."), bytes);
    return p;
}

void harness_random_halves(harness_half_kind k, uint16_t *out, size_t n, float lo, float hi, uint64_t salt)
{
    float *f = harness_alloc(n * sizeof *f);
    harness_random_floats(f, n, lo, hi, salt);
    for (size_t i = 0; i < n; i++) out[i] = harness_float_to_half(k, f[i]);
    free(f);
}

float *harness_halves_to_floats(harness_half_kind k, const uint16_t *h, size_t n)
{
    float *f = harness_alloc(n * sizeof *f);
    for (size_t i = 0; i < n; i++) f[i] = harness_half_to_float(k, h[i]);
    return f;
}

dev_buffer dev_input_halves(const uint16_t *h, size_t n, uint16_t guard, size_t offset_bytes)
{
    return dev_input(h, n, sizeof(uint16_t), &guard, offset_bytes);
}

dev_buffer dev_output_halves(size_t n)
{
    return dev_output_halves_at(n, 0);
}

dev_buffer dev_output_halves_at(size_t n, size_t offset_bytes)
{
    uint16_t poison = HARNESS_POISON_HALF_BITS;
    return dev_output_at(n, sizeof(uint16_t), &poison, offset_bytes);
}

void harness_describe_half(harness_half_kind k, uint16_t h, char *buf, size_t len)
{
    if (h == HARNESS_POISON_HALF_BITS) snprintf(buf, len, _("the poison NaN (0x%04X)"), h);
    else harness_describe_float(harness_half_to_float(k, h), buf, len);
}
