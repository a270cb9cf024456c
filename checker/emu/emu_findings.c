/* emu_findings.c - the emulator's findings (records, emu_record.h) and metrics: printed once each, kept for the harness. */
#define _POSIX_C_SOURCE 200809L  /* pthread mutexes */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu_rt.h"

#define EMU_FINDINGS_KEPT     100   /* distinct findings kept between two takes */
#define EMU_FINDINGS_PRINTED  50    /* distinct findings printed in a whole run */
#define EMU_SEEN_SLOTS        4096  /* remembered findings, for "print each one once" */

static const char emu_msg_too_many[] =
    N_("emulator: more findings follow; only the first %d distinct ones are printed\n");

static uint64_t emu_seen[EMU_SEEN_SLOTS];  /* hashes of printed findings; 0 = empty slot */
static int emu_printed;

static emu_record emu_kept[EMU_FINDINGS_KEPT];
static uint64_t emu_kept_hash[EMU_FINDINGS_KEPT];
static int emu_nkept;

static emu_metrics emu_metrics_sum;

/* The engine may report from several threads at once; findings are rare, so one lock is cheap. */
static pthread_mutex_t emu_findings_lock = PTHREAD_MUTEX_INITIALIZER;

static uint64_t emu_hash(const char *s, uint64_t h)
{
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;   /* FNV-1a */
    return h;
}

/* Which finding a record is: its kind, places, kernel, thread and words (not its count, which a launch's
 * end adds to it). */
static uint64_t record_hash(const emu_record *r)
{
    char line[sizeof r->text + 1024];
    emu_record copy = *r;
    copy.count = 0;
    emu_record_encode(&copy, EMU_ENCODE_ALL, line, sizeof line);
    uint64_t h = emu_hash(line, 1469598103934665603ull);
    return h ? h : 1;
}

/* Returns 1 if h was already in the table (or the table is full), else adds it and returns 0. */
static int emu_seen_before(uint64_t h)
{
    size_t i = (size_t)(h % EMU_SEEN_SLOTS);
    for (int n = 0; n < EMU_SEEN_SLOTS; n++, i = (i + 1) % EMU_SEEN_SLOTS) {
        if (emu_seen[i] == h) return 1;
        if (emu_seen[i] == 0) { emu_seen[i] = h; return 0; }
    }
    return 1;
}

/* EMU_QUIET=1: a caller that reports the findings itself (the course's harness) wants none on stderr. */
static int emu_quiet(void)
{
    const char *q = getenv("EMU_QUIET");
    return q && *q && strcmp(q, "0") != 0;
}

/* The record's words as the emulator prints them: no kind (the text says it), the second place after. */
static void emu_words(const emu_record *r, char *buf, size_t len)
{
    char second[800];
    emu_record_words(r, 0, buf, len, second, sizeof second);
    size_t n = strlen(buf);
    if (second[0] && n + 1 < len) snprintf(buf + n, len - n, "\n%s", second);
}

void emu_finding_record(const emu_record *r)
{
    uint64_t h = record_hash(r);
    pthread_mutex_lock(&emu_findings_lock);
    if (!emu_seen_before(h) && !emu_quiet()) {
        char words[sizeof r->text + 2048];
        emu_words(r, words, sizeof words);
        if (emu_printed < EMU_FINDINGS_PRINTED) fprintf(stderr, "emulator: %s\n", words);
        else if (emu_printed == EMU_FINDINGS_PRINTED) fprintf(stderr, emu_text(emu_msg_too_many), EMU_FINDINGS_PRINTED);
        emu_printed++;
    }
    /* Kept once per take, so a harness that takes after each test sees a repeat in a later test. */
    int kept = 0;
    for (int i = 0; i < emu_nkept && !kept; i++) kept = emu_kept_hash[i] == h;
    if (!kept && emu_nkept < EMU_FINDINGS_KEPT) {
        emu_kept[emu_nkept] = *r;
        emu_kept_hash[emu_nkept++] = h;
    }
    pthread_mutex_unlock(&emu_findings_lock);
}

void emu_finding_at(int kind, const char *where, const char *fmt, ...)
{
    emu_record r;
    emu_record_init(&r, kind);
    const char *colon = strrchr(where, ':');
    if (colon && colon > where && colon[1] >= '0' && colon[1] <= '9') {
        snprintf(r.at.file, sizeof r.at.file, "%.*s", (int)(colon - where), where);
        r.at.line = atoi(colon + 1);
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r.text, sizeof r.text, emu_text(fmt), ap);
    va_end(ap);
    emu_finding_record(&r);
}

void emu_finding(const char *fmt, ...)
{
    emu_record r;
    emu_record_init(&r, EMU_FD_RUNTIME);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r.text, sizeof r.text, emu_text(fmt), ap);
    va_end(ap);
    emu_finding_record(&r);
}

void emu_finding_count(int kind, const emu_place *at, unsigned long count)
{
    pthread_mutex_lock(&emu_findings_lock);
    emu_record *found = NULL;
    for (int i = emu_nkept - 1; i >= 0 && !found; i--)
        if (emu_kept[i].kind == kind && emu_kept[i].at.line == at->line && !strcmp(emu_kept[i].at.file, at->file))
            found = &emu_kept[i];
    if (found && found->count <= 1) found->count = count;
    pthread_mutex_unlock(&emu_findings_lock);
    if (emu_quiet()) return;
    char where[300];
    emu_place_text(at, where, sizeof where);
    fprintf(stderr, "emulator: %s%s", where, where[0] ? ": " : "");
    fprintf(stderr, emu_ntext("It happened %lu time in this launch; only the first is described.",
                              "It happened %lu times in this launch; only the first is described.", count),
            count);
    fputc('\n', stderr);
}

emu_record *emu_records_take(int *count)
{
    emu_rt_held_run();   /* what the held kernels find comes before the count */
    pthread_mutex_lock(&emu_findings_lock);
    emu_record *out = emu_nkept ? malloc((size_t)emu_nkept * sizeof *out) : NULL;
    *count = out ? emu_nkept : 0;
    if (out) memcpy(out, emu_kept, (size_t)emu_nkept * sizeof *out);
    emu_nkept = 0;
    pthread_mutex_unlock(&emu_findings_lock);
    return out;
}

int emu_findings_take(char *buf, size_t len)
{
    int count;
    emu_record *r = emu_records_take(&count);
    size_t used = 0;
    if (buf && len) buf[0] = '\0';
    for (int i = 0; i < count && buf && used + 1 < len; i++) {
        if (i) buf[used++] = '\n', buf[used] = '\0';
        emu_words(&r[i], buf + used, len - used);
        used += strlen(buf + used);
    }
    free(r);
    return count;
}

void emu_rt_metrics_add(const emu_metrics *m)
{
    emu_metrics *s = &emu_metrics_sum;
    s->warp_instructions += m->warp_instructions;
    s->thread_instructions += m->thread_instructions;
    s->divergent_branches += m->divergent_branches;
    s->shared_load_instructions += m->shared_load_instructions;
    s->shared_store_instructions += m->shared_store_instructions;
    s->shared_load_bank_conflicts += m->shared_load_bank_conflicts;
    s->shared_store_bank_conflicts += m->shared_store_bank_conflicts;
    s->global_load_requests += m->global_load_requests;
    s->global_load_sectors += m->global_load_sectors;
    s->global_store_requests += m->global_store_requests;
    s->global_store_sectors += m->global_store_sectors;
    s->global_async_requests += m->global_async_requests;
    s->global_async_sectors += m->global_async_sectors;
    s->global_read_bytes += m->global_read_bytes;
    s->dsmem_load_requests += m->dsmem_load_requests;
    s->dsmem_store_requests += m->dsmem_store_requests;
    s->global_atomics += m->global_atomics;
    s->shared_atomics += m->shared_atomics;
    s->barriers += m->barriers;
    s->blocks += m->blocks;
    /* Not a sum: the block size of the latest launch. */
    s->threads_per_block = m->threads_per_block;
}

void emu_metrics_take(emu_metrics *out)
{
    if (out) *out = emu_metrics_sum;
    memset(&emu_metrics_sum, 0, sizeof emu_metrics_sum);
}
