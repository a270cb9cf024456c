/* emu_findings.c - the emulator's diagnoses and metrics: printed once each, kept for the harness. */
#define _POSIX_C_SOURCE 200809L  /* pthread mutexes */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu_rt.h"

#define EMU_FINDING_MAX_LEN   4096  /* longer texts are cut */
#define EMU_FINDINGS_KEPT     100   /* distinct findings kept between two emu_findings_take calls */
#define EMU_FINDINGS_PRINTED  50    /* distinct findings printed in a whole run */
#define EMU_SEEN_SLOTS        4096  /* remembered texts, for "print each one once" */

static const char emu_msg_too_many[] =
    N_("emulator: more findings follow; only the first %d distinct ones are printed\n");

static uint64_t emu_seen[EMU_SEEN_SLOTS];  /* hashes of printed texts; 0 = empty slot */
static int emu_printed;

static char *emu_kept[EMU_FINDINGS_KEPT];
static uint64_t emu_kept_hash[EMU_FINDINGS_KEPT];
static int emu_nkept;

static emu_metrics emu_metrics_sum;

/* The engine may report from several threads at once; findings are rare, so one lock is cheap. */
static pthread_mutex_t emu_findings_lock = PTHREAD_MUTEX_INITIALIZER;

static uint64_t emu_hash(const char *s)
{
    uint64_t h = 1469598103934665603ull;  /* FNV-1a */
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
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

/* Prints shown unless text was printed before; keeps text for the next emu_findings_take. */
static void emu_record(const char *text, const char *shown, uint64_t h)
{
    if (!emu_seen_before(h) && !emu_quiet()) {
        if (emu_printed < EMU_FINDINGS_PRINTED) fprintf(stderr, "emulator: %s\n", shown);
        else if (emu_printed == EMU_FINDINGS_PRINTED) fprintf(stderr, emu_text(emu_msg_too_many), EMU_FINDINGS_PRINTED);
        emu_printed++;
    }
    /* Kept once per take, so a harness that takes after each test sees a repeat in a later test. */
    for (int i = 0; i < emu_nkept; i++)
        if (emu_kept_hash[i] == h) return;
    if (emu_nkept == EMU_FINDINGS_KEPT) return;
    char *copy = malloc(strlen(text) + 1);
    if (!copy) return;
    strcpy(copy, text);
    emu_kept[emu_nkept] = copy;
    emu_kept_hash[emu_nkept++] = h;
}

void emu_finding(const char *fmt, ...)
{
    char text[EMU_FINDING_MAX_LEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, emu_text(fmt), ap);
    va_end(ap);
    uint64_t h = emu_hash(text);
    pthread_mutex_lock(&emu_findings_lock);
    emu_record(text, text, h);
    pthread_mutex_unlock(&emu_findings_lock);
}

void emu_finding_tagged(const char *kind, const char *where, const char *fmt, ...)
{
    char body[EMU_FINDING_MAX_LEN], text[EMU_FINDING_MAX_LEN + 600], shown[EMU_FINDING_MAX_LEN + 600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(body, sizeof body, emu_text(fmt), ap);
    va_end(ap);
    for (char *c = body; *c; c++) if (*c == '\n') *c = ' ';   /* one line each: the harness splits on lines */
    int placed = where && *where;
    snprintf(text, sizeof text, "[%s%s%s] %s", kind, placed ? " at " : "", placed ? where : "", body);
    snprintf(shown, sizeof shown, "%s%s%s", placed ? where : "", placed ? ": " : "", body);
    uint64_t h = emu_hash(text);
    pthread_mutex_lock(&emu_findings_lock);
    emu_record(text, shown, h);
    pthread_mutex_unlock(&emu_findings_lock);
}

int emu_findings_take(char *buf, size_t len)
{
    pthread_mutex_lock(&emu_findings_lock);
    size_t used = 0;
    if (buf && len) buf[0] = '\0';
    for (int i = 0; i < emu_nkept; i++) {
        if (buf && len) {
            int n = snprintf(buf + used, len - used, "%s%s", i ? "\n" : "", emu_kept[i]);
            if (n > 0) used += (size_t)n < len - used ? (size_t)n : len - used - 1;
        }
        free(emu_kept[i]);
    }
    int count = emu_nkept;
    emu_nkept = 0;
    pthread_mutex_unlock(&emu_findings_lock);
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
