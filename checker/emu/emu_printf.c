/* emu_printf.c - printf in kernels: vprintf's format string and the packed argument buffer, per lane. */
#include <stdio.h>
#include <string.h>

#include "emu_exec.h"

/* The argument buffer packs each argument at its natural alignment: 4 bytes for int and char,
 * 8 for long, pointers and double (float is promoted to double, as for any variadic call). */
static int arg(emu_ctx *x, emu_warp *w, int lane, uint64_t args, size_t *off, size_t n, uint64_t *out)
{
    *off = (*off + n - 1) / n * n;
    const void *p = emu_generic_ptr(x, w, lane, args + *off, n);
    *out = 0;
    if (!p) return 0;
    memcpy(out, p, n);
    *off += n;
    return 1;
}

/* Two things that the GPU's printf does not do, though C's does: the size hh (%hhu, %hhd, %hhx) and a
 * precision taken from an argument (%.*f). On an H100 either printed something else in its place (bytes of
 * the format string, wrong digits, the conversion's own text) and the values after it came out wrong
 * (checker/gpu/kernels/printf.cu). The emulator prints what C would, and says so once per launch. */
static void not_on_gpu(emu_ctx *x, emu_warp *w, int lane, uint32_t loc, const char *conversion, int hh)
{
    if (!emu_diag_first(EMU_FD_PRINTF_FORMAT)) return;
    emu_record r;
    emu_where(x, w, lane, loc, EMU_FD_PRINTF_FORMAT, &r);
    /* xgettext:c-format */
    const char *hh_text = N_("printf's %s prints something else on a GPU, whose printf has no size hh: it "
                             "prints other bytes in its place, and the values after it come out wrong. Leave "
                             "out the hh (a char is passed as an int anyway).");
    /* xgettext:c-format */
    const char *star_text = N_("printf's %s takes its precision from an argument (.*), which the GPU's "
                               "printf does not do: it prints other text in its place, and the values after it "
                               "come out wrong. Write the precision into the format instead (%%.2f, not "
                               "%%.*f).");
    emu_diag_report(&r, hh ? hh_text : star_text, conversion);
}

void emu_vprintf(emu_ctx *x, emu_warp *w, int lane, uint32_t loc, uint64_t fmt, uint64_t args)
{
    char f[4096];
    size_t n = 0;
    for (; n + 1 < sizeof f; n++) {
        const char *c = emu_generic_ptr(x, w, lane, fmt + n, 1);
        if (!c) break;
        f[n] = *c;
        if (!*c) break;
    }
    f[n] = 0;
    char out[8192];
    size_t o = 0, off = 0;
    for (const char *s = f; *s && o + 1 < sizeof out;) {
        if (*s != '%') { out[o++] = *s++; continue; }
        if (s[1] == '%') { out[o++] = '%'; s += 2; continue; }
        /* %[flags][width][.precision][length]conv */
        char spec[32];
        size_t k = 0;
        spec[k++] = *s++;
        int star_w = 0, star_p = 0;
        while (*s && strchr("-+ #0", *s) && k < 20) spec[k++] = *s++;
        if (*s == '*') { star_w = 1; spec[k++] = *s++; }
        while (*s >= '0' && *s <= '9' && k < 20) spec[k++] = *s++;
        if (*s == '.') { spec[k++] = *s++; if (*s == '*') { star_p = 1; spec[k++] = *s++; } while (*s >= '0' && *s <= '9' && k < 24) spec[k++] = *s++; }
        int longs = 0, shorts = 0;
        while (*s && strchr("hlzjtL", *s)) {
            if (*s == 'l' || *s == 'z' || *s == 'j' || *s == 't') longs++;
            shorts += *s == 'h';
            s++;
        }
        char conv = *s ? *s++ : 0;
        if ((shorts >= 2 || star_p) && conv) {
            char conversion[48];
            snprintf(conversion, sizeof conversion, "%.*s%s%c", (int)k, spec, shorts >= 2 ? "hh" : "", conv);
            not_on_gpu(x, w, lane, loc, conversion, shorts >= 2);
        }
        int wv = 0, pv = 0;
        uint64_t v;
        if (star_w) { arg(x, w, lane, args, &off, 4, &v); wv = (int)(int32_t)v; }
        if (star_p) { arg(x, w, lane, args, &off, 4, &v); pv = (int)(int32_t)v; }
        char piece[1024];
        int len = 0;
        switch (conv) {
        case 'd': case 'i': case 'u': case 'x': case 'X': case 'o': case 'c': {
            size_t sz = (longs && conv != 'c') ? 8 : 4;
            arg(x, w, lane, args, &off, sz, &v);
            spec[k++] = 'l'; spec[k++] = 'l'; spec[k++] = conv; spec[k] = 0;
            long long sv = sz == 8 ? (long long)v : (conv == 'd' || conv == 'i') ? (long long)(int32_t)v : (long long)(uint32_t)v;
            if (conv == 'c') { spec[k - 3] = 'c'; spec[k - 2] = 0; }
            if (conv == 'c') len = star_w ? snprintf(piece, sizeof piece, spec, wv, (int)v) : snprintf(piece, sizeof piece, spec, (int)v);
            else if (star_w && star_p) len = snprintf(piece, sizeof piece, spec, wv, pv, sv);
            else if (star_w || star_p) len = snprintf(piece, sizeof piece, spec, star_w ? wv : pv, sv);
            else len = snprintf(piece, sizeof piece, spec, sv);
            break;
        }
        case 'f': case 'F': case 'e': case 'E': case 'g': case 'G': case 'a': case 'A': {
            arg(x, w, lane, args, &off, 8, &v);
            double d;
            memcpy(&d, &v, 8);
            spec[k++] = conv; spec[k] = 0;
            if (star_w && star_p) len = snprintf(piece, sizeof piece, spec, wv, pv, d);
            else if (star_w || star_p) len = snprintf(piece, sizeof piece, spec, star_w ? wv : pv, d);
            else len = snprintf(piece, sizeof piece, spec, d);
            break;
        }
        case 'p':
            arg(x, w, lane, args, &off, 8, &v);
            len = snprintf(piece, sizeof piece, "0x%llx", (unsigned long long)v);
            break;
        case 's': {
            arg(x, w, lane, args, &off, 8, &v);
            char str[512];
            size_t m = 0;
            for (; m + 1 < sizeof str; m++) {
                const char *c = emu_generic_ptr(x, w, lane, v + m, 1);
                if (!c || !*c) break;
                str[m] = *c;
            }
            str[m] = 0;
            spec[k++] = 's'; spec[k] = 0;
            if (!v) strcpy(str, "(null)");
            if (star_w && star_p) len = snprintf(piece, sizeof piece, spec, wv, pv, str);
            else if (star_w || star_p) len = snprintf(piece, sizeof piece, spec, star_w ? wv : pv, str);
            else len = snprintf(piece, sizeof piece, spec, str);
            break;
        }
        default:
            len = snprintf(piece, sizeof piece, "%%%c", conv);
        }
        if (len < 0) len = 0;
        if ((size_t)len >= sizeof piece) len = (int)sizeof piece - 1;
        for (int i = 0; i < len && o + 1 < sizeof out; i++) out[o++] = piece[i];
    }
    out[o] = 0;
    fputs(out, stdout);
}
