/* width.c - how many columns text takes in a terminal, and where a line of it may break: English breaks
 * between words, Chinese between any two characters, except before a closing mark or after an opening one,
 * inside a word of the glossary ("共享|内存") or between a number and its unit ("2954 | GB/s", "14 | 倍"). */
#include "i18n.h"

#include "glossary_terms.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The character at s (at most len bytes, len >= 1): its code point, and its length in *size. A byte
 * that does not start valid UTF-8 is taken alone, as itself. */
static uint32_t decode(const unsigned char *s, size_t len, size_t *size)
{
    uint32_t c = s[0];
    size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    if (n == 0 || n > len) { *size = 1; return c; }
    if (n > 1) c &= 0x3Fu >> (n - 1);
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80) { *size = 1; return s[0]; }
        c = (c << 6) | (s[i] & 0x3F);
    }
    *size = n;
    return c;
}

/* East Asian Wide and Fullwidth characters (Unicode's EastAsianWidth W and F): Han, kana, Hangul, the
 * CJK and fullwidth punctuation, and the emoji blocks. */
static int is_wide(uint32_t c)
{
    static const uint32_t ranges[][2] = {
        {0x1100, 0x115F}, {0x2E80, 0x303E}, {0x3041, 0x33FF}, {0x3400, 0x4DBF}, {0x4E00, 0x9FFF},
        {0xA000, 0xA4CF}, {0xAC00, 0xD7A3}, {0xF900, 0xFAFF}, {0xFE10, 0xFE19}, {0xFE30, 0xFE6F},
        {0xFF00, 0xFF60}, {0xFFE0, 0xFFE6}, {0x1F300, 0x1F64F}, {0x1F900, 0x1F9FF}, {0x20000, 0x3FFFD},
    };
    for (size_t i = 0; i < sizeof ranges / sizeof ranges[0]; i++)
        if (c >= ranges[i][0] && c <= ranges[i][1]) return 1;
    return 0;
}

static int is_zero_width(uint32_t c)
{
    return (c >= 0x0300 && c <= 0x036F) || (c >= 0x200B && c <= 0x200F) || (c >= 0xFE00 && c <= 0xFE0F);
}

/* Marks a line must not start with (they close what comes before) or end with (they open what follows). */
static int is_closing(uint32_t c)
{
    static const uint32_t marks[] = {0xFF0C, 0x3002, 0x3001, 0xFF1B, 0xFF1A, 0xFF01, 0xFF1F, 0xFF09, 0x3011,
                                     0x300D, 0x300F, 0x300B, 0x3009, 0x201D, 0x2019, 0x2026, 0xFF05,
                                     ')', ']', '}', ',', '.', ';', ':', '!', '?', '%'};
    for (size_t i = 0; i < sizeof marks / sizeof marks[0]; i++)
        if (c == marks[i]) return 1;
    return 0;
}

static int is_opening(uint32_t c)
{
    static const uint32_t marks[] = {0xFF08, 0x3010, 0x300C, 0x300E, 0x300A, 0x3008, 0x201C, 0x2018,
                                     '(', '[', '{', '`'};
    for (size_t i = 0; i < sizeof marks / sizeof marks[0]; i++)
        if (c == marks[i]) return 1;
    return 0;
}

/* Whether a line broken at byte i of s (len bytes) would cut one of the glossary's Chinese words. */
static int inside_term(const char *s, size_t len, size_t i)
{
    for (size_t t = 0; t < sizeof glossary_terms / sizeof glossary_terms[0]; t++) {
        const char *term = glossary_terms[t];
        size_t n = strlen(term);
        for (size_t k = 1; k < n && k <= i; k++)   /* the term starting k bytes before the break */
            if (s[i - k] == term[0] && i - k + n <= len && !memcmp(s + i - k, term, n)) return 1;
    }
    return 0;
}

/* Whether s (len bytes) starts with a unit that a number before it goes with: a Chinese character (个,
 * 字节, 倍), or a unit of bytes, time or ratio written in Latin letters, as a whole word. */
static int starts_unit(const char *s, size_t len)
{
    static const char *const units[] = {"B", "KB", "KiB", "MB", "MiB", "GB", "GiB", "TB", "GB/s", "TB/s",
                                        "bytes", "ns", "us", "µs", "ms", "s", "x", "%"};
    size_t size;
    if (len == 0) return 0;
    if (is_wide(decode((const unsigned char *)s, len, &size))) return 1;
    for (size_t u = 0; u < sizeof units / sizeof units[0]; u++) {
        size_t n = strlen(units[u]);
        if (n <= len && !memcmp(s, units[u], n) &&
            (n == len || !(s[n] == '_' || s[n] == '/' || (s[n] >= '0' && s[n] <= '9') ||
                           ((s[n] | 0x20) >= 'a' && (s[n] | 0x20) <= 'z'))))
            return 1;
    }
    return 0;
}

/* Whether the line may break at byte i of s, before the character cp, the previous one being prev (the
 * rules at the top of this file; a space is where English breaks, a wide character where Chinese does). */
static int may_break(const char *s, size_t len, size_t i, uint32_t prev, int prev_wide, uint32_t cp, int w)
{
    int after_number = prev >= '0' && prev <= '9';
    if (cp == ' ') {
        size_t j = i;
        while (j < len && s[j] == ' ') j++;
        return !(after_number && starts_unit(s + j, len - j));
    }
    if (!cp || i == 0 || prev == ' ' || !(w == 2 || prev_wide) || is_closing(cp) || is_opening(prev))
        return 0;
    return !(after_number && w == 2) && !inside_term(s, len, i);
}

/* The length of an escape sequence (ESC [ ... final letter) at s, or 0 when s does not start one. */
static size_t escape_length(const char *s, size_t len)
{
    if (len < 2 || s[0] != '\033' || s[1] != '[') return 0;
    size_t i = 2;
    while (i < len && !((unsigned char)s[i] >= 0x40 && (unsigned char)s[i] <= 0x7E)) i++;
    return i < len ? i + 1 : len;
}

/* One character (or escape sequence) at s: its bytes, its columns and its code point. */
static size_t next_char(const char *s, size_t len, int *columns, uint32_t *cp)
{
    size_t n = escape_length(s, len);
    if (n) { *columns = 0; *cp = 0; return n; }
    *cp = decode((const unsigned char *)s, len, &n);
    *columns = is_wide(*cp) ? 2 : is_zero_width(*cp) ? 0 : 1;
    return n;
}

int text_width(const char *s, size_t len)
{
    int total = 0, w;
    uint32_t cp;
    for (size_t i = 0; i < len; total += w) i += next_char(s + i, len - i, &w, &cp);
    return total;
}

size_t text_fit(const char *s, size_t len, int width, size_t *next)
{
    size_t i = 0, cut = 0, resume = 0;   /* the last place the line may break, and where the rest starts */
    int columns = 0, prev_wide = 0, can_break = 0, in_code = 0;
    uint32_t prev = ' ';
    while (i < len) {
        int w;
        uint32_t cp;
        size_t n = next_char(s + i, len - i, &w, &cp);
        /* A command in backticks (`make restore ex05`) is typed as it reads: never broken, when it closes. */
        if (cp == '`') in_code = !in_code && memchr(s + i + 1, '`', len - i - 1) != NULL;
        if (!in_code && may_break(s, len, i, prev, prev_wide, cp, w))
            cut = resume = i, can_break = 1;
        if (w > 0 && columns + w > width && i > 0) {
            if (!can_break) cut = resume = i;   /* one word wider than the line: cut it */
            break;
        }
        columns += w;
        i += n;
        if (cp) prev = cp, prev_wide = w == 2;
    }
    if (i >= len) cut = resume = len;
    while (cut > 0 && s[cut - 1] == ' ') cut--;
    while (resume < len && s[resume] == ' ') resume++;
    *next = resume;
    return cut;
}

/* Chinese sets no space between two of its characters: a report built from fragments ("，第二次调用时，" then
 * " 应当…") would show one. Removes every single space that has a wide character on both sides, and a full
 * stop put after a fragment's question mark ("overflow?."), in place; returns the new length. English text, a space between Chinese and a Latin word, and two or more spaces
 * (a table's columns) are left alone. */
size_t text_tidy(char *s, size_t len)
{
    size_t out = 0, i = 0;
    int prev_wide = 0;
    uint32_t prev = 0;
    while (i < len) {
        if (s[i] == ' ' && prev_wide) {
            size_t j = i;
            while (j < len && s[j] == ' ') j++;
            size_t size;
            if (j == i + 1 && j < len && is_wide(decode((const unsigned char *)s + j, len - j, &size))) {
                i = j;
                continue;
            }
            while (i < j) s[out++] = s[i++];
            prev_wide = 0, prev = ' ';
            continue;
        }
        size_t size;
        uint32_t c = decode((const unsigned char *)s + i, len - i, &size);
        /* A fragment that ends in a question, put before a sentence's full stop: "... overflow?" + "." */
        int question = prev == '?' || prev == 0xFF1F || prev == 0x3002;
        if (question && (c == 0x3002 || (c == '.' && (i + 1 == len || s[i + 1] == ' ' || s[i + 1] == '\n')))) {
            i += size;
            continue;
        }
        prev = c;
        prev_wide = is_wide(c);
        for (size_t k = 0; k < size; k++) s[out++] = s[i++];
    }
    return out;
}

char *text_tidy_copy(const char *s, size_t *len)
{
    char *copy = malloc(*len + 1);
    if (!copy) return NULL;
    memcpy(copy, s, *len);
    *len = text_tidy(copy, *len);
    copy[*len] = '\0';
    return copy;
}
