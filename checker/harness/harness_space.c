/* harness_space.c - an exercise's declared input space (checker/spaces/exNN.def) and the covering set the
 * suite runs: every value of every dimension at least once, and every pair of values of two dimensions that
 * the declaration says interact. The set is built greedily (each new case covers as many pairs not yet
 * covered as it can, as AETG does), so its size stays near the product of the two largest interacting
 * dimensions instead of the product of them all. It is the same for every seed, so the GPU's run and the
 * emulator's try the same cases; the values inside each case are drawn fresh from the seed. */
#include "harness.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Splits s at spaces and commas into at most max words of at most HARNESS_SPACE_WORD - 1 characters. */
static int split_words(const char *s, char words[][HARNESS_SPACE_WORD], int max)
{
    int n = 0;
    while (*s) {
        while (*s && (isspace((unsigned char)*s) || *s == ',')) s++;
        if (!*s) break;
        int len = 0;
        while (s[len] && !isspace((unsigned char)s[len]) && s[len] != ',') len++;
        if (n == max || len >= HARNESS_SPACE_WORD) {
            fprintf(stderr, "checker: an input space declares too many or too long values near \"%.20s\"\n", s);
            abort();
        }
        memcpy(words[n], s, (size_t)len);
        words[n++][len] = '\0';
        s += len;
    }
    return n;
}

static int dim_named(const harness_cover *c, const char *name)
{
    for (int d = 0; d < c->dims; d++)
        if (!strcmp(c->names[d], name)) return d;
    return -1;
}

/* The declaration's dimensions and which pairs of them interact. */
static void read_space(const harness_space *s, harness_cover *c)
{
    memset(c, 0, sizeof *c);
    for (const harness_space_line *l = s->lines; l->kind; l++) {
        if (strcmp(l->kind, "dim")) continue;
        if (c->dims == HARNESS_SPACE_DIMS) {
            fprintf(stderr, "checker: an input space declares more than %d dimensions\n", HARNESS_SPACE_DIMS);
            abort();
        }
        int d = c->dims++;
        snprintf(c->names[d], sizeof c->names[d], "%s", l->name);
        c->counts[d] = split_words(l->values, c->labels[d], HARNESS_SPACE_VALUES);
    }
    for (const harness_space_line *l = s->lines; l->kind; l++) {
        if (strcmp(l->kind, "interact")) continue;
        char names[HARNESS_SPACE_DIMS][HARNESS_SPACE_WORD];
        int n = split_words(l->values, names, HARNESS_SPACE_DIMS), idx[HARNESS_SPACE_DIMS];
        for (int i = 0; i < n; i++)
            if ((idx[i] = dim_named(c, names[i])) < 0) {
                fprintf(stderr, "checker: an input space's interact() names no dimension \"%s\"\n", names[i]);
                abort();
            }
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                if (idx[i] != idx[j]) c->pairs[idx[i]] |= 1u << idx[j];
    }
}

/* covered[i][j] holds, for dimensions i < j that interact, one flag per pair of values (a * counts[j] + b). */
typedef struct pair_flags {
    unsigned char *covered[HARNESS_SPACE_DIMS][HARNESS_SPACE_DIMS];
    size_t left;   /* pairs not covered yet */
} pair_flags;

static int interact(const harness_cover *c, int i, int j) { return i != j && (c->pairs[i] >> j & 1u); }

static unsigned char *flag(pair_flags *p, const harness_cover *c, int i, int a, int j, int b)
{
    return i < j ? &p->covered[i][j][a * c->counts[j] + b] : &p->covered[j][i][b * c->counts[i] + a];
}

/* The pairs value a of dimension d would cover beside the values already set in v (-1: not set). */
static int gain(pair_flags *p, const harness_cover *c, const int *v, int d, int a)
{
    int g = 0;
    for (int e = 0; e < c->dims; e++)
        if (v[e] >= 0 && interact(c, d, e)) g += !*flag(p, c, d, a, e, v[e]);
    return g;
}

static void add_case(harness_cover *c, const int *v, size_t *cap)
{
    if (c->cases == *cap) {
        *cap = *cap ? 2 * *cap : 64;
        c->at = realloc(c->at, *cap * sizeof *c->at);
        if (!c->at) abort();
    }
    memcpy(c->at[c->cases++], v, sizeof c->at[0]);
}

void harness_cover_build(const harness_space *s, harness_cover *c)
{
    read_space(s, c);
    pair_flags p = {0};
    for (int i = 0; i < c->dims; i++)
        for (int j = i + 1; j < c->dims; j++)
            if (interact(c, i, j)) {
                size_t n = (size_t)c->counts[i] * c->counts[j];
                p.covered[i][j] = calloc(n, 1);
                p.left += n;
            }
    size_t cap = 0;
    int used[HARNESS_SPACE_DIMS][HARNESS_SPACE_VALUES] = {{0}};
    while (p.left) {
        int v[HARNESS_SPACE_DIMS];
        for (int d = 0; d < c->dims; d++) v[d] = -1;
        /* The first pair not covered yet starts the case. */
        int started = 0;
        for (int i = 0; i < c->dims && !started; i++)
            for (int j = i + 1; j < c->dims && !started; j++) {
                if (!p.covered[i][j]) continue;
                size_t n = (size_t)c->counts[i] * c->counts[j], k = 0;
                while (k < n && p.covered[i][j][k]) k++;
                if (k == n) continue;
                v[i] = (int)(k / c->counts[j]), v[j] = (int)(k % c->counts[j]);
                started = 1;
            }
        /* Every other dimension takes the value that covers the most new pairs, then the one used least. */
        for (int d = 0; d < c->dims; d++) {
            if (v[d] >= 0) continue;
            int best = 0, best_gain = -1;
            for (int a = 0; a < c->counts[d]; a++) {
                int g = gain(&p, c, v, d, a);
                if (g > best_gain || (g == best_gain && used[d][a] < used[d][best])) best = a, best_gain = g;
            }
            v[d] = best;
        }
        for (int i = 0; i < c->dims; i++) {
            used[i][v[i]]++;
            for (int j = i + 1; j < c->dims; j++)
                if (interact(c, i, j) && !*flag(&p, c, i, v[i], j, v[j])) *flag(&p, c, i, v[i], j, v[j]) = 1, p.left--;
        }
        add_case(c, v, &cap);
    }
    /* Every value at least once: a dimension that interacts with none takes its values in turn, case by case
     * (changing it covers no pair and uncovers none), with cases added while it has more values than cases. */
    int most = 0;
    for (int d = 0; d < c->dims; d++)
        if (!c->pairs[d] && c->counts[d] > most) most = c->counts[d];
    while (c->cases < (size_t)most) {
        int v[HARNESS_SPACE_DIMS];
        for (int d = 0; d < c->dims; d++) {   /* the rest: the values used least */
            int best = 0;
            for (int a = 1; a < c->counts[d]; a++)
                if (used[d][a] < used[d][best]) best = a;
            v[d] = best, used[d][best]++;
        }
        add_case(c, v, &cap);
    }
    for (int d = 0; d < c->dims; d++)
        if (!c->pairs[d])
            for (size_t k = 0; k < c->cases; k++) c->at[k][d] = (int)(k % (size_t)c->counts[d]);
    for (int i = 0; i < c->dims; i++)
        for (int j = 0; j < c->dims; j++) free(p.covered[i][j]);
}

void harness_cover_free(harness_cover *c)
{
    free(c->at);
    c->at = NULL;
    c->cases = 0;
}

int harness_cover_values(const harness_cover *c)
{
    int v = 0;
    for (int d = 0; d < c->dims; d++) v += c->counts[d];
    return v;
}

int harness_cover_dim(const harness_cover *c, const char *dim)
{
    int d = dim_named(c, dim);
    if (d < 0) {
        fprintf(stderr, "checker: the suite asks for a dimension \"%s\" its input space does not declare\n", dim);
        abort();
    }
    return d;
}

int harness_case_index(const harness_cover *c, size_t k, const char *dim)
{
    return c->at[k][harness_cover_dim(c, dim)];
}

const char *harness_case_label(const harness_cover *c, size_t k, const char *dim)
{
    int d = harness_cover_dim(c, dim);
    return c->labels[d][c->at[k][d]];
}

double harness_case_number(const harness_cover *c, size_t k, const char *dim)
{
    const char *label = harness_case_label(c, k, dim);
    char *end;
    double x = strtod(label, &end);
    if (end == label || *end) {
        fprintf(stderr, "checker: the value \"%s\" of dimension \"%s\" is not a number\n", label, dim);
        abort();
    }
    return x;
}

int harness_case_is(const harness_cover *c, size_t k, const char *dim, const char *label)
{
    return !strcmp(harness_case_label(c, k, dim), label);
}

void harness_case_describe(const harness_cover *c, size_t k, char *out, size_t len)
{
    size_t used = 0;
    out[0] = '\0';
    for (int d = 0; d < c->dims && used < len; d++) {
        int n = snprintf(out + used, len - used, "%s%s = %s", d ? ", " : "", c->names[d], c->labels[d][c->at[k][d]]);
        if (n < 0) break;
        used += (size_t)n;
    }
}
