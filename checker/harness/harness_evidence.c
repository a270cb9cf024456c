/* harness_evidence.c - what came back, looked at before any words are chosen: the known mistake whose output
 * it is (a suite's bug models), else the shape of the error (poison left where, NaN where, a factor, a
 * constant, just past the bound, which rows or columns), each also one line "evidence: TAG key=value". */
#include "harness.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- The lines ------------------------------------------------------------------------------------------ */

/* This test's evidence (each test runs in its own process): harness_fail_at puts it in the message. */
static char lines[8192];

void harness_evidence(const char *tag, const char *fmt, ...)
{
    char line[512];
    int n = snprintf(line, sizeof line, HARNESS_EVIDENCE_PREFIX "%s", tag);
    if (fmt && n > 0 && (size_t)n + 1 < sizeof line) {
        line[n++] = ' ';
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
        va_end(ap);
    }
    size_t len = strlen(line), used = strlen(lines);
    /* A line said once (a check repeated on several inputs records the same evidence), and never cut. */
    for (const char *at = strstr(lines, line); at; at = strstr(at + 1, line))
        if ((at == lines || at[-1] == '\n') && at[len] == '\n') return;
    if (used + len + 2 <= sizeof lines) snprintf(lines + used, sizeof lines - used, "%s\n", line);
}

const char *harness_evidence_lines(void) { return lines; }

void harness_evidence_drop(const char *tag)
{
    char prefix[128];
    size_t len = (size_t)snprintf(prefix, sizeof prefix, HARNESS_EVIDENCE_PREFIX "%s ", tag), kept = 0;
    for (char *line = lines; *line;) {
        char *end = strchr(line, '\n');
        size_t line_len = end ? (size_t)(end - line) + 1 : strlen(line);
        if (strncmp(line, prefix, len)) {
            memmove(lines + kept, line, line_len);
            kept += line_len;
        }
        line += line_len;
    }
    lines[kept] = '\0';
}

/* ---- One output against the right one --------------------------------------------------------------- */

double harness_unwritten(void)
{
    uint64_t bits = 0x7FF8DEAD0000DEADull;
    double x;
    memcpy(&x, &bits, sizeof x);
    return x;
}

static int is_unwritten_model(double x)
{
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    return bits == 0x7FF8DEAD0000DEADull;
}

static double tol_of(const harness_output *o, size_t i) { return o->tol ? o->tol[i] : o->tol_all; }
static int unwritten_at(const harness_output *o, size_t i) { return o->unwritten && o->unwritten[i]; }

/* 1 when x stands for want within tol: the same NaN-ness, the same infinity, else within tol. */
static int close_to(double want, double x, double tol)
{
    if (isnan(want) || isnan(x)) return isnan(want) && isnan(x);
    if (isinf(want) || isinf(x)) return want == x;
    return fabs(x - want) <= tol;
}

static int right_at(const harness_output *o, size_t i)
{
    return !unwritten_at(o, i) && close_to(o->want[i], o->got[i], tol_of(o, i));
}

/* ---- Bug models ------------------------------------------------------------------------------------------ */

/* 1 when the outputs are the model's (out): the same unwritten places, the rest within the bound plus the
 * model's slack; and, when must_differ, the model is wrong somewhere, so that matching it says something.
 * (A second input, which only tells candidates apart, need not make the mistake show: a model that gives the
 * right outputs there, where the kernel did too, is still in the running.) */
static int matches(const harness_output *o, const double *out, int must_differ)
{
    size_t count = o->rows * o->cols;
    int differs = 0;
    for (size_t i = 0; i < count; i++) {
        if (is_unwritten_model(out[i])) {
            if (!unwritten_at(o, i)) return 0;
            differs = 1;
            continue;
        }
        if (unwritten_at(o, i)) return 0;
        if (!close_to(out[i], o->got[i], tol_of(o, i) + o->model_rel * fabs(out[i]))) return 0;
        differs |= !close_to(o->want[i], out[i], tol_of(o, i));
    }
    return differs || !must_differ;
}

/* The words, the hint and the evidence of the models the outputs match (d->candidates). */
static void describe_models(harness_diagnosis *d)
{
    d->model = d->candidates[0];
    d->also = d->ncandidates > 1 ? d->candidates[1] : NULL;
    d->seen = SEEN_MODEL;
    d->hint = d->also ? NULL : _(d->model->hint);
    harness_evidence_drop("bug-model");
    for (int k = 0; k < d->ncandidates; k++) {
        const harness_bug_model *m = d->candidates[k];
        if (m->lesson_hint > 0) harness_evidence("bug-model", "name=%s hint=%d", m->name, m->lesson_hint);
        else harness_evidence("bug-model", "name=%s", m->name);
    }
    if (d->also)
        /* TRANSLATORS: known mistakes that give these outputs; each %s is one of them, as a fragment. */
        snprintf(d->words, sizeof d->words, _n("%d known mistake gives exactly these outputs, and this input "
                                               "cannot tell which: %s; or %s",
                                               "%d known mistakes give exactly these outputs, and this input "
                                               "cannot tell which: %s; or %s", (unsigned long)d->ncandidates),
                 d->ncandidates, _(d->model->sentence), _(d->also->sentence));
    else
        snprintf(d->words, sizeof d->words, "%s", _(d->model->sentence));
}

/* The models (one row per name: the first whose output matches) that o matches; keep limits the search to
 * d's candidates, which need not be wrong on o (it is a second input). Returns how many. */
static int find_models(const harness_output *o, const harness_bug_model *models, const void *ctx,
                       const harness_diagnosis *keep, const harness_bug_model **found)
{
    size_t count = o->rows * o->cols;
    double *out = malloc((count ? count : 1) * sizeof *out);
    int n = 0;
    if (!out) return 0;
    for (const harness_bug_model *m = models; m && m->name && n < HARNESS_CANDIDATES; m++) {
        int named = 0, wanted = !keep;
        for (int k = 0; k < n; k++) named |= !strcmp(found[k]->name, m->name);
        for (int k = 0; keep && k < keep->ncandidates; k++) wanted |= !strcmp(keep->candidates[k]->name, m->name);
        if (named || !wanted || !m->compute(ctx, m->param, out) || !matches(o, out, !keep)) continue;
        found[n++] = m;
    }
    free(out);
    return n;
}

void harness_narrow(const harness_output *o, const void *ctx, harness_diagnosis *d)
{
    if (d->ncandidates < 2) return;
    const harness_bug_model *found[HARNESS_CANDIDATES];
    /* Every row of the candidates' names (another block size may be the one that matches here). */
    int n = find_models(o, d->models, ctx, d, found);
    if (n > 0) {
        memcpy(d->candidates, found, (size_t)n * sizeof *found);
        d->ncandidates = n;
        describe_models(d);
        return;
    }
    /* None of them gives what the second input gave: the outputs only looked like theirs. */
    harness_evidence_drop("bug-model");
    harness_evidence("unexplained", "models=%d refuted", d->ncandidates);
    d->seen = SEEN_UNEXPLAINED;
    d->model = d->also = NULL;
    d->ncandidates = 0;
    d->hint = NULL;
    snprintf(d->words, sizeof d->words, "%s", _("known mistakes give these outputs, but none of them gives what a "
                                                "second input of the checker's gave: what went wrong is not one the "
                                                "checker knows"));
}

/* ---- Where: a set of marked outputs, described -------------------------------------------------------- */

typedef struct where { char tag[160]; char words[400]; } where;

/* The largest power of two up to 1024 that k (> 0) is a multiple of, or 0 below 32. */
static size_t power_of_two_in(size_t k)
{
    size_t p = 1024;
    while (p >= 32 && k % p) p /= 2;
    return p >= 32 ? p : 0;
}

enum unit { UNIT_INDEX, UNIT_ROW, UNIT_COLUMN };

/* Describes the marked places of mark[0..count) (stride apart) as one unit: all, one, a range, from k on,
 * every other one, or how many and the first. */
static void describe_line(const unsigned char *mark, size_t count, size_t stride, enum unit unit, where *w)
{
    static const char *const key[] = {"index", "rows", "cols"};
    size_t first = count, last = 0, marked = 0, odd = 0;
    for (size_t i = 0; i < count; i++)
        if (mark[i * stride]) {
            if (first == count) first = i;
            last = i;
            marked++;
            odd += i % 2;
        }
    int contiguous = marked == last - first + 1;
    int alternate = marked >= 2 && count >= 4 && (odd == marked || odd == 0) && marked == (count + (odd ? 0 : 1)) / 2;
    char extra[96] = "";
    if (marked == count) {
        snprintf(w->tag, sizeof w->tag, "%s=all", key[unit]);
        snprintf(w->words, sizeof w->words, "%s", unit == UNIT_ROW ? _("every row") : unit == UNIT_COLUMN ?
                 _("every column") : _("every one of them"));
    } else if (marked == 1) {
        snprintf(w->tag, sizeof w->tag, "%s=%zu", key[unit], first);
        snprintf(w->words, sizeof w->words, unit == UNIT_ROW ? _("row %zu") : unit == UNIT_COLUMN ? _("column %zu") :
                 _("index %zu"), first);
    } else if (contiguous && last == count - 1 && first > 0) {
        size_t p = power_of_two_in(first);
        snprintf(w->tag, sizeof w->tag, "%s=%zu-", key[unit], first);
        if (p) snprintf(extra, sizeof extra, _(" (%zu is a multiple of %zu)"), first, p);
        snprintf(w->words, sizeof w->words, unit == UNIT_ROW ? _("the rows from %zu on%s") : unit == UNIT_COLUMN ?
                 _("the columns from %zu on%s") : _("every index from %zu on%s"), first, extra);
    } else if (contiguous) {
        snprintf(w->tag, sizeof w->tag, "%s=%zu-%zu", key[unit], first, last);
        snprintf(w->words, sizeof w->words, unit == UNIT_ROW ? _("rows %zu to %zu") : unit == UNIT_COLUMN ?
                 _("columns %zu to %zu") : _("indices %zu to %zu"), first, last);
    } else if (alternate) {
        snprintf(w->tag, sizeof w->tag, "%s=every-other-%s", key[unit], odd ? "odd" : "even");
        snprintf(w->words, sizeof w->words, unit == UNIT_ROW ? _("every other row (%zu, %zu, %zu, ...)") :
                 unit == UNIT_COLUMN ? _("every other column (%zu, %zu, %zu, ...)") :
                 _("every other index (%zu, %zu, %zu, ...)"), first, first + 2, first + 4);
    } else {
        snprintf(w->tag, sizeof w->tag, "%s=%zu-of-%zu", key[unit], marked, count);
        snprintf(w->words, sizeof w->words, unit == UNIT_ROW ? _("%zu of the %zu rows, the first row %zu") :
                 unit == UNIT_COLUMN ? _("%zu of the %zu columns, the first column %zu") :
                 _("%zu of the %zu, the first at index %zu"), marked, count, first);
    }
}

/* The marked outputs of a rows x cols array: whole rows, the same columns in each row they touch, or
 * scattered. */
static void describe_marks(const harness_output *o, const unsigned char *mark, where *w)
{
    size_t rows = o->rows, cols = o->cols;
    if (rows == 1) { describe_line(mark, cols, 1, UNIT_INDEX, w); return; }
    unsigned char *row_mark = calloc(rows, 1);
    if (!row_mark) { snprintf(w->tag, sizeof w->tag, "rows=?"); w->words[0] = '\0'; return; }
    int whole_rows = 1, same_cols = 1;
    size_t first_row = rows;
    for (size_t r = 0; r < rows; r++) {
        size_t marked = 0;
        for (size_t c = 0; c < cols; c++) marked += mark[r * cols + c] != 0;
        row_mark[r] = marked > 0;
        if (!marked) continue;
        whole_rows &= marked == cols;
        if (first_row == rows) first_row = r;
        else same_cols &= !memcmp(mark + r * cols, mark + first_row * cols, cols);
    }
    where by_row;
    describe_line(row_mark, rows, 1, UNIT_ROW, &by_row);
    if (whole_rows) {
        *w = by_row;
    } else if (same_cols) {
        where by_col;
        describe_line(mark + first_row * cols, cols, 1, UNIT_COLUMN, &by_col);
        snprintf(w->tag, sizeof w->tag, "%.64s %.64s", by_col.tag, by_row.tag);
        /* TRANSLATORS: which outputs: columns (first %s) of rows (second %s), "columns 256 to 999 of every row". */
        snprintf(w->words, sizeof w->words, _("%s, in %s"), by_col.words, by_row.words);
    } else {
        size_t c = 0;
        while (!mark[first_row * cols + c]) c++;
        snprintf(w->tag, sizeof w->tag, "%.64s scattered", by_row.tag);
        snprintf(w->words, sizeof w->words, _("%s, at no fixed columns (the first: row %zu, column %zu)"),
                 by_row.words, first_row, c);
    }
    free(row_mark);
}

/* ---- The shape of the error, when no model matched -------------------------------------------------------- */

/* 1 when every wrong output (finite, with a finite right value) is the right one times k (rows: the same k
 * within each row, first..last; all: one k for all of them). */
static int scaled(const harness_output *o, const unsigned char *wrong, size_t first, size_t last, double *k)
{
    *k = NAN;
    for (size_t i = first; i < last; i++) {
        if (!wrong[i] && isnan(*k)) continue;
        double want = o->want[i], got = o->got[i];
        if (!isfinite(want) || !isfinite(got) || unwritten_at(o, i)) return 0;
        if (want == 0) { if (fabs(got) > tol_of(o, i)) return 0; continue; }
        if (isnan(*k)) { *k = got / want; continue; }
        if (fabs(got - *k * want) > tol_of(o, i) + 1e-4 * fabs(got)) return 0;
    }
    return !isnan(*k) && fabs(*k - 1) > 1e-6;
}

/* The bits of output i, when it is an int's or a float's poison partly overwritten (its value, the poison,
 * how many low bytes were written), else 0. The values come as doubles: an int's is whole, a float's
 * converts back exactly (a NaN's payload too). */
static int partial_poison_at(const harness_output *o, size_t i, uint32_t *value, uint32_t *poison)
{
    double g = o->got[i];
    if (unwritten_at(o, i)) return 0;
    if (g == floor(g) && g >= INT32_MIN && g <= INT32_MAX) {
        *value = (uint32_t)(int32_t)g, *poison = (uint32_t)HARNESS_POISON_INT;
        int written = harness_poison_bytes_written(*value, *poison, 4);
        if (written) return written;
    }
    float f = (float)g;
    if (isnan(g) || (double)f == g) {
        memcpy(value, &f, sizeof *value);
        *poison = HARNESS_POISON_FLOAT_BITS;
        return harness_poison_bytes_written(*value, *poison, 4);
    }
    return 0;
}

static void classify(const harness_output *o, const unsigned char *wrong, harness_diagnosis *d)
{
    size_t count = d->count;
    int exact = !o->tol && o->tol_all == 0;   /* no bound to compare with: an int result */
    unsigned char *mark = calloc(count, 1);
    if (!mark) return;
    where w;
    size_t unwritten = 0, nonfinite = 0;
    for (size_t i = 0; i < count; i++) {
        unwritten += unwritten_at(o, i);
        nonfinite += !unwritten_at(o, i) && isfinite(o->want[i]) && !isfinite(o->got[i]);
    }
    size_t partial = 0, first_partial = count;
    for (size_t i = 0; i < count; i++) {
        uint32_t value, poison;
        mark[i] = wrong[i] && partial_poison_at(o, i, &value, &poison) > 0;
        partial += mark[i];
        if (mark[i] && first_partial == count) first_partial = i;
    }
    if (partial) {
        /* Said before any poison left whole: a memset of too few bytes leaves both, and it is the cause. */
        uint32_t value = 0, poison = 0;
        int written = partial_poison_at(o, first_partial, &value, &poison);
        char first[600];
        describe_marks(o, mark, &w);
        d->seen = SEEN_PARTIAL_POISON;
        harness_explain_partial_poison(value, poison, 4, written, first, sizeof first);
        if (partial < count) snprintf(d->where, sizeof d->where, "%s", w.words);
        snprintf(d->words, sizeof d->words, _n("%zu of the %zu outputs is the poison partly overwritten (%s): %s",
                                               "%zu of the %zu outputs are the poison partly overwritten (%s); the "
                                               "first: %s", (unsigned long)partial),
                 partial, count, w.words, first);
    } else if (unwritten) {
        for (size_t i = 0; i < count; i++) mark[i] = unwritten_at(o, i);
        describe_marks(o, mark, &w);
        d->seen = SEEN_UNWRITTEN;
        harness_evidence("poison", "%s count=%zu of=%zu", w.tag, unwritten, count);
        if (unwritten < count) snprintf(d->where, sizeof d->where, "%s", w.words);
        snprintf(d->words, sizeof d->words, _n("%zu of the %zu outputs still holds the poison, so nothing was "
                                               "written there: %s",
                                               "%zu of the %zu outputs still hold the poison, so nothing was "
                                               "written there: %s", (unsigned long)unwritten),
                 unwritten, count, w.words);
    } else if (nonfinite) {
        size_t nans = 0;
        for (size_t i = 0; i < count; i++) {
            mark[i] = isfinite(o->want[i]) && !isfinite(o->got[i]);
            nans += mark[i] && isnan(o->got[i]);
        }
        describe_marks(o, mark, &w);
        d->seen = SEEN_NONFINITE;
        harness_evidence(nans ? "nan" : "inf", "%s count=%zu of=%zu", w.tag, nonfinite, count);
        snprintf(d->words, sizeof d->words,
                 nans ? _n("%zu of the %zu outputs is NaN or infinite where the result is finite: %s",
                           "%zu of the %zu outputs are NaN or infinite where the result is finite: %s",
                           (unsigned long)nonfinite)
                      : _n("%zu of the %zu outputs is infinite where the result is finite: %s",
                           "%zu of the %zu outputs are infinite where the result is finite: %s", (unsigned long)nonfinite),
                 nonfinite, count, w.words);
    } else if (!exact && d->ratio <= 8) {
        d->seen = SEEN_NEAR_BOUND;
        harness_evidence("near-bound", "ratio=%.3g wrong=%zu of=%zu", d->ratio, d->wrong, count);
        snprintf(d->words, sizeof d->words, _("%zu of the %zu outputs are past the bound, none by more than %.2g "
                                              "times it: a small, systematic error, as from rounding in a narrower "
                                              "type, not a wrong algorithm (which misses by far more)"),
                 d->wrong, count, d->ratio);
    } else if (d->wrong < 2) {
        /* one wrong output has any factor and any offset: they say nothing */
        d->seen = SEEN_UNEXPLAINED;
        harness_evidence("unexplained", "wrong=%zu of=%zu ratio=%.3g", d->wrong, count, d->ratio);
        if (exact) snprintf(d->words, sizeof d->words, _("%zu of the %zu outputs is wrong"), d->wrong, count);
        else snprintf(d->words, sizeof d->words, _("%zu of the %zu outputs is wrong, by %.3g times the bound"),
                      d->wrong, count, d->ratio);
    } else if (scaled(o, wrong, 0, count, &d->factor)) {
        d->seen = SEEN_FACTOR;
        harness_evidence("factor", "k=%.6g", d->factor);
        snprintf(d->words, sizeof d->words, _("every wrong output is the right one times %.4g"), d->factor);
    } else {
        /* Row by row: the same factor within each wrong row. */
        int rows_scaled = o->rows > 1;
        double lo = INFINITY, hi = -INFINITY;
        for (size_t r = 0; r < o->rows && rows_scaled; r++) {
            int any = 0;
            for (size_t c = 0; c < o->cols; c++) any |= wrong[r * o->cols + c];
            double k;
            if (!any) continue;
            rows_scaled = scaled(o, wrong, r * o->cols, (r + 1) * o->cols, &k);
            if (k < lo) lo = k;
            if (k > hi) hi = k;
        }
        double delta = NAN;
        int shifted = 1;
        for (size_t i = 0; i < count && shifted; i++) {
            if (!wrong[i]) continue;
            double diff = o->got[i] - o->want[i];
            if (isnan(delta)) delta = diff;
            else shifted = fabs(diff - delta) <= tol_of(o, i) + 1e-4 * fabs(delta);
        }
        for (size_t i = 0; i < count; i++) mark[i] = wrong[i];
        describe_marks(o, mark, &w);
        if (rows_scaled) {
            d->seen = SEEN_ROW_FACTOR;
            d->factor = lo, d->offset = hi;
            harness_evidence("row-factor", "min=%.4g max=%.4g %s", lo, hi, w.tag);
            snprintf(d->words, sizeof d->words, _("each wrong row is the right row times a factor of its own, "
                                                  "from %.3g to %.3g (%s)"), lo, hi, w.words);
        } else if (shifted && isfinite(delta)) {
            d->seen = SEEN_OFFSET;
            d->offset = delta;
            harness_evidence("offset", "d=%.6g", delta);
            snprintf(d->words, sizeof d->words, _("every wrong output is off by the same %.4g"), delta);
        } else if (d->wrong < count) {
            d->seen = SEEN_PATTERN;
            harness_evidence("wrong", "%s count=%zu of=%zu", w.tag, d->wrong, count);
            if (exact) snprintf(d->words, sizeof d->words, _("%zu of the %zu outputs are wrong: %s"), d->wrong,
                                count, w.words);
            else snprintf(d->words, sizeof d->words, _("%zu of the %zu outputs are wrong, the worst by %.3g times "
                                                       "the bound: %s"), d->wrong, count, d->ratio, w.words);
            snprintf(d->where, sizeof d->where, "%s", w.words);
        } else {
            d->seen = SEEN_UNEXPLAINED;
            harness_evidence("unexplained", "wrong=%zu of=%zu ratio=%.3g", d->wrong, count, d->ratio);
            if (exact) snprintf(d->words, sizeof d->words, "%s", _("every output is wrong, and not in a way the "
                                                                   "checker knows"));
            else snprintf(d->words, sizeof d->words, _("every output is wrong, the worst by %.3g times the bound, "
                                                       "and not in a way the checker knows"), d->ratio);
        }
    }
    free(mark);
}

const char *harness_diagnosis_hint(const harness_diagnosis *d, const char *where_hint, const char *scale_hint)
{
    switch (d->seen) {
    case SEEN_MODEL: return d->hint;
    case SEEN_PARTIAL_POISON: return harness_partial_poison_hint();
    case SEEN_UNWRITTEN: case SEEN_PATTERN: return where_hint ? _(where_hint) : NULL;
    case SEEN_FACTOR: case SEEN_ROW_FACTOR: return scale_hint ? _(scale_hint) : NULL;
    default: return NULL;
    }
}

void harness_diagnose(const harness_output *o, const harness_bug_model *models, const void *ctx,
                      harness_diagnosis *d)
{
    memset(d, 0, sizeof *d);
    d->count = o->rows * o->cols;
    unsigned char *wrong = calloc(d->count ? d->count : 1, 1);
    if (!wrong) return;
    for (size_t i = 0; i < d->count; i++) {
        wrong[i] = !right_at(o, i);
        d->wrong += wrong[i];
        double tol = tol_of(o, i), err = fabs(o->got[i] - o->want[i]);
        double ratio = !wrong[i] ? 0 : !isfinite(err) || unwritten_at(o, i) ? INFINITY : tol > 0 ? err / tol : INFINITY;
        if (ratio > d->ratio) d->ratio = ratio;
    }
    d->models = models;
    if (d->wrong && (d->ncandidates = find_models(o, models, ctx, NULL, d->candidates)) > 0) describe_models(d);
    else if (d->wrong) classify(o, wrong, d);
    free(wrong);
}

void harness_forget_findings(void)
{
    int n;
    free(backend_take_findings(&n));
}

/* ---- Int totals: which elements a wrong sum holds ---------------------------------------------------------- */

int harness_explain_subset(const int *h, size_t n, int got, char *buf, size_t len)
{
    if (n < 1) return 0;
    /* Sums in 32-bit unsigned arithmetic, as the kernel's int sum wraps. */
    uint32_t total = 0, prefix = 0, g = (uint32_t)got;
    for (size_t i = 0; i < n; i++) total += (uint32_t)h[i];
    for (size_t k = 0; k < n; k++) {
        if (prefix == g && k == 0) {
            harness_evidence("subset", "first=0 of=%zu", n);
            snprintf(buf, len, _n("it is 0: the %zu element was never added", "it is 0: none of the %zu elements was "
                                  "added", (unsigned long)n), n);
            return 1;
        }
        if (prefix == g) {
            size_t p = power_of_two_in(k);
            char extra[96] = "";
            if (p) snprintf(extra, sizeof extra, _(" (%zu is a multiple of %zu)"), k, p);
            harness_evidence("subset", "first=%zu of=%zu", k, n);
            snprintf(buf, len, _n("it is the sum of the first %zu element only%s: the last %zu were never added",
                                  "it is the sum of the first %zu elements only%s: the last %zu were never added",
                                  (unsigned long)k), k, extra, n - k);
            return 1;
        }
        if (k > 0 && total - prefix == g) {
            harness_evidence("subset", "skips-first=%zu of=%zu", k, n);
            snprintf(buf, len, _n("it is the sum of every element but the first one: it was never added",
                                  "it is the sum of every element but the first %zu: they were never added",
                                  (unsigned long)k), k);
            return 1;
        }
        prefix += (uint32_t)h[k];
    }
    /* A head and a tail missing (the ints around 16-byte loads): all but the first a and the last b. */
    for (size_t a = 0; a <= 16 && a < n; a++) {
        uint32_t head = 0, tail = 0;
        for (size_t i = 0; i < a; i++) head += (uint32_t)h[i];
        for (size_t b = 1; b <= 16 && a + b < n; b++) {
            tail += (uint32_t)h[n - b];
            if (a > 0 && total - head - tail == g) {
                harness_evidence("subset", "skips-first=%zu skips-last=%zu of=%zu", a, b, n);
                snprintf(buf, len, _("it is the sum of every element but the first %zu and the last %zu: they "
                                     "were never added"), a, b);
                return 1;
            }
        }
    }
    /* Every m-th element from the first: a stride that is too long. */
    for (size_t m = 2; m <= 1024 && m < n; m *= 2) {
        uint32_t some = 0;
        for (size_t i = 0; i < n; i += m) some += (uint32_t)h[i];
        if (some == g) {
            harness_evidence("subset", "every=%zu of=%zu", m, n);
            snprintf(buf, len, _("it is the sum of elements 0, %zu, %zu, ... only, one in %zu: a step %zu times too "
                                 "long"), m, 2 * m, m, m);
            return 1;
        }
    }
    if (g == 2 * total && total != 0) {
        harness_evidence("factor", "k=2");
        snprintf(buf, len, "%s", _("it is twice the sum: every element was added two times"));
        return 1;
    }
    /* k times the sum: each partial added once per lane of a warp (32), per thread of a block... */
    for (uint32_t k = 3; k <= 1024 && total != 0; k++)
        if (g == k * total && (int64_t)(int32_t)g == (int64_t)k * (int32_t)total) {
            harness_evidence("factor", "k=%u", k);
            snprintf(buf, len, _("it is %u times the sum: every element was added %u times (a partial added by "
                                 "every lane of a warp, or every thread of a block, where one should add it)"),
                     k, k);
            return 1;
        }
    return 0;
}
