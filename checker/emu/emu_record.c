/* emu_record.c - findings as records: the kinds' stable names, one line per record for the trip from a
 * test's process to the report (and for tools), and the record in words. See emu_record.h. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu_record.h"
#include "emu_text.h"

/* What each kind of finding is, as a short noun: the report says "The same <noun> as above, at file:line"
 * when a later test shows it again, so it must read well there, and it stays the same from launch to launch
 * and from release to release: tools (the hint chooser) read it in the finding: lines. */
static const char *const kind_nouns[EMU_FD_COUNT] = {
    [EMU_FD_OOB_GLOBAL] = N_("out-of-bounds access"),
    [EMU_FD_OOB_SHARED] = N_("out-of-bounds shared memory access"),
    [EMU_FD_OOB_LOCAL] = N_("out-of-bounds local memory access"),
    [EMU_FD_MISALIGNED] = N_("misaligned access"),
    [EMU_FD_UNINIT_GLOBAL] = N_("read of never-written memory"),
    [EMU_FD_UNINIT_SHARED] = N_("read of never-written shared memory"),
    [EMU_FD_RACE] = N_("race between warps"),
    [EMU_FD_WARP_RACE] = N_("race inside a warp"),
    [EMU_FD_GLOBAL_RACE] = N_("race on global memory"),
    [EMU_FD_BAR_DIVERGENT] = N_("barrier in divergent code"),
    [EMU_FD_BAR_EXITED] = N_("barrier after an early return"),
    [EMU_FD_MEMBERS] = N_("warp instruction with inactive members"),
    [EMU_FD_SHFL_ABSENT] = N_("shuffle from a lane that does not take part"),
    [EMU_FD_UNSUPPORTED] = N_("unsupported instruction"),
    [EMU_FD_BUDGET] = N_("kernel that never finished"),
    [EMU_FD_ENDLESS] = N_("loop that never ends"),
    [EMU_FD_STACK] = N_("call stack overflow"),
    [EMU_FD_TRAP] = N_("trap"),
    [EMU_FD_ASSERT] = N_("failed assertion"),
    [EMU_FD_LAUNCH] = N_("bad launch"),
    [EMU_FD_GUARD_READ] = N_("read outside the input"),
    [EMU_FD_GUARD_WRITE] = N_("write outside the output"),
    [EMU_FD_OOB_PARAM] = N_("read outside the kernel's parameters"),
    [EMU_FD_PRINTF_FORMAT] = N_("printf format that a GPU does not print"),
    [EMU_FD_RUNTIME] = N_("misuse of the runtime"),
    [EMU_FD_CLUSTER_BAR] = N_("cluster barrier that not every thread reaches"),
    [EMU_FD_GRID_SYNC] = N_("grid-wide barrier that not every block reaches"),
    [EMU_FD_OOB_DSMEM] = N_("out-of-bounds access of another block's shared memory"),
    [EMU_FD_DSMEM_RACE] = N_("race on another block's shared memory"),
    [EMU_FD_DSMEM_EXITED] = N_("access of an exited block's shared memory"),
    [EMU_FD_CP_ASYNC] = N_("read of a cp.async copy before its wait"),
    [EMU_FD_HOST_READ] = N_("host read of device memory"),
    [EMU_FD_HOST_WRITE] = N_("host write to device memory"),
    [EMU_FD_HOST_OVERFLOW] = N_("signed overflow in host code"),
    [EMU_FD_HOST_DIVIDE] = N_("division by zero in host code"),
    [EMU_FD_HOST_SHIFT] = N_("shift out of range in host code"),
    [EMU_FD_HOST_BOUNDS] = N_("index out of bounds in host code"),
    [EMU_FD_STREAM_RACE] = N_("race between streams"),
    [EMU_FD_PEER_ACCESS] = N_("access of a peer's memory without peer access"),
    [EMU_FD_NCCL] = N_("misuse of NCCL"),
    [EMU_FD_NCCL_GROUP] = N_("NCCL call outside a group"),
    [EMU_FD_PEER_RACE] = N_("race between devices"),
};

/* The question each kind of finding asks the learner, about the line it names: the hint of a failure whose
 * finding is the strongest evidence it has, where no lesson hint answers that kind. NULL: the finding's own
 * words say all there is (an instruction the emulator lacks, a printf format). */
static const char *const kind_questions[EMU_FD_COUNT] = {
    [EMU_FD_OOB_GLOBAL] = N_("Which index does the line above use, and is every thread's index checked against "
                             "n?"),
    [EMU_FD_OOB_SHARED] = N_("Which index does the line above use, and how many elements does the shared array "
                             "hold?"),
    [EMU_FD_OOB_LOCAL] = N_("Which index into the local array at the line above goes past its size?"),
    [EMU_FD_MISALIGNED] = N_("Is the address at the line above a multiple of the access's size (16 for int4, "
                             "float4)?"),
    [EMU_FD_UNINIT_GLOBAL] = N_("Which code should write what the line above reads, and does it run before this "
                                "read?"),
    [EMU_FD_UNINIT_SHARED] = N_("Which thread should write what the line above reads, and does it, before this "
                                "read?"),
    [EMU_FD_RACE] = N_("Which barrier should stand between the two accesses above, so the write comes first?"),
    [EMU_FD_WARP_RACE] = N_("What orders the two accesses above inside their warp: a __syncwarp(), or a shuffle?"),
    [EMU_FD_GLOBAL_RACE] = N_("Several threads update this element: which atomic, or which one thread, should do "
                              "it?"),
    [EMU_FD_BAR_DIVERGENT] = N_("Which threads skip the barrier at the line above? Can it move out of the "
                                "branch?"),
    [EMU_FD_BAR_EXITED] = N_("Which threads returned before the barrier above? Can they skip their work instead?"),
    [EMU_FD_MEMBERS] = N_("Which lanes in the mask of the warp instruction above are not there when it runs?"),
    [EMU_FD_SHFL_ABSENT] = N_("Which lane does the shuffle above read from, and does that lane take part in it?"),
    [EMU_FD_BUDGET] = N_("Which loop's condition never changes for some thread?"),
    [EMU_FD_ENDLESS] = N_("What changes the condition of the loop at the line above, for every thread?"),
    [EMU_FD_STACK] = N_("Which call at the line above goes on calling itself without an end?"),
    [EMU_FD_TRAP] = N_("Which condition makes the line above stop the kernel?"),
    [EMU_FD_ASSERT] = N_("Which condition at the line above is false, and why?"),
    [EMU_FD_LAUNCH] = N_("Which launch setting (grid, block, shared memory) is outside the device's limits?"),
    [EMU_FD_GUARD_READ] = N_("Which index does the line above read, and is it checked against n before the read?"),
    [EMU_FD_GUARD_WRITE] = N_("Which element should the line above write, and which threads should write it?"),
    [EMU_FD_CLUSTER_BAR] = N_("Which threads of the cluster skip the cluster barrier at the line above?"),
    [EMU_FD_GRID_SYNC] = N_("Was the kernel launched cooperatively, and does every block reach grid.sync()?"),
    [EMU_FD_OOB_DSMEM] = N_("Which rank and index does the line above use in another block's shared memory?"),
    [EMU_FD_DSMEM_RACE] = N_("Which cluster barrier should stand between the other block's write and this read?"),
    [EMU_FD_DSMEM_EXITED] = N_("Which cluster barrier keeps a block running until the others have read its "
                               "memory?"),
    [EMU_FD_CP_ASYNC] = N_("Which wait for the copy should come before the line above reads what it brings?"),
    [EMU_FD_HOST_READ] = N_("Which pointers of your host code hold device memory? The host reaches it only "
                            "through the runtime's calls (cudaMemcpy, cudaMemset) and kernels."),
    [EMU_FD_HOST_WRITE] = N_("Which pointers of your host code hold device memory? The host reaches it only "
                             "through the runtime's calls (cudaMemcpy, cudaMemset) and kernels."),
    [EMU_FD_HOST_OVERFLOW] = N_("Which type holds the value at the line above, and can it hold the largest one?"),
    [EMU_FD_HOST_DIVIDE] = N_("Which divisor at the line above can be zero, and what should the code do then?"),
    [EMU_FD_HOST_SHIFT] = N_("How far does the line above shift, and is that less than its type's width?"),
    [EMU_FD_HOST_BOUNDS] = N_("Which index at the line above goes past the end of its array?"),
    [EMU_FD_NCCL] = N_("Which argument of the NCCL call above breaks the rule the finding names: its count (in "
                       "elements of the data type), its buffers or its stream (of the communicator's device)?"),
    [EMU_FD_NCCL_GROUP] = N_("Which calls of the loop above, one per rank, must be made together? Put them between "
                             "ncclGroupStart() and ncclGroupEnd()."),
    [EMU_FD_PEER_RACE] = N_("Which flag, stored with a release at system scope after the write, should the line "
                            "above wait for before it reads?"),
};

const char *emu_kind_question(int kind)
{
    return kind >= 0 && kind < EMU_FD_COUNT ? kind_questions[kind] : NULL;
}

static const char *const label_names[EMU_LABEL_COUNT] = {
    [EMU_LABEL_NONE] = "", [EMU_LABEL_READ] = "read", [EMU_LABEL_WRITE] = "write", [EMU_LABEL_ATOMIC] = "atomic",
    [EMU_LABEL_CALLEE] = "callee", [EMU_LABEL_CALL] = "call", [EMU_LABEL_COPY] = "copy",
};

const char *emu_kind_noun(int kind)
{
    return kind >= 0 && kind < EMU_FD_COUNT && kind_nouns[kind] ? kind_nouns[kind] : "problem";
}

int emu_kind_of(const char *noun, size_t len)
{
    for (int k = 0; k < EMU_FD_COUNT; k++)
        if (kind_nouns[k] && strlen(kind_nouns[k]) == len && !memcmp(kind_nouns[k], noun, len)) return k;
    return -1;
}

const char *emu_label_name(int label)
{
    return label >= 0 && label < EMU_LABEL_COUNT ? label_names[label] : "";
}

static int label_of(const char *name, size_t len)
{
    for (int k = 1; k < EMU_LABEL_COUNT; k++)
        if (strlen(label_names[k]) == len && !memcmp(label_names[k], name, len)) return k;
    return EMU_LABEL_NONE;
}

void emu_record_init(emu_record *r, int kind)
{
    memset(r, 0, sizeof *r);
    r->kind = kind;
}

const char *emu_place_text(const emu_place *p, char *buf, size_t len)
{
    if (p->line > 0) snprintf(buf, len, "%s:%d", p->file, p->line);
    else if (len) buf[0] = '\0';
    return buf;
}

/* ---- One line per record ------------------------------------------------------------------------------ */

typedef struct out { char *buf; size_t len, used; } out;

static void put(out *o, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++, o->used++)
        if (o->len && o->used + 1 < o->len) o->buf[o->used] = s[i];
    if (o->len) o->buf[o->used + 1 < o->len ? o->used : o->len - 1] = '\0';
}

/* " key=value", the value quoted when it holds a space, a quote, a backslash or a control character. */
static void put_value(out *o, const char *key, const char *value)
{
    int quote = !*value;
    for (const char *c = value; *c; c++) quote |= *c == ' ' || *c == '"' || *c == '\\' || (unsigned char)*c < 0x20;
    put(o, " ", 1);
    put(o, key, strlen(key));
    put(o, quote ? "=\"" : "=", quote ? 2 : 1);
    for (const char *c = value; *c; c++) {
        if (!quote) put(o, c, 1);
        else if (*c == '"' || *c == '\\') { put(o, "\\", 1); put(o, c, 1); }
        else if (*c == '\n') put(o, "\\n", 2);
        else if ((unsigned char)*c < 0x20) put(o, " ", 1);
        else put(o, c, 1);
    }
    if (quote) put(o, "\"", 1);
}

static void put_number(out *o, const char *key, unsigned long long v, int hex)
{
    char text[32];
    snprintf(text, sizeof text, hex ? "0x%08llx" : "%llu", v);
    put_value(o, key, text);
}

static void put_triple(out *o, const char *key, const unsigned v[3])
{
    char text[48];
    snprintf(text, sizeof text, "%u,%u,%u", v[0], v[1], v[2]);
    put_value(o, key, text);
}

size_t emu_record_encode(const emu_record *r, int what, char *buf, size_t len)
{
    out o = { buf, len, 0 };
    int full = what == EMU_ENCODE_ALL;
    if (len) buf[0] = '\0';
    put(&o, "finding:", 8);
    put_value(&o, "kind", emu_kind_noun(r->kind));
    char text[300];
    if (r->at.line > 0) put_value(&o, "at", emu_place_text(&r->at, text, sizeof text));
    if (r->other.line > 0) put_value(&o, "other", emu_place_text(&r->other, text, sizeof text));
    if (r->array[0]) put_value(&o, "array", r->array);
    if (r->count > 1) put_number(&o, "count", r->count, 0);
    /* then what tools may also want, and (full) what the report needs to say it in words */
    if (r->at.label) put_value(&o, "at-label", emu_label_name(r->at.label));
    if (r->at.func[0]) put_value(&o, "at-func", r->at.func);
    if (r->other.label) put_value(&o, "other-label", emu_label_name(r->other.label));
    if (r->other.func[0]) put_value(&o, "other-func", r->other.func);
    if (r->kernel[0]) put_value(&o, "kernel", r->kernel);
    if (r->has_thread) { put_triple(&o, "block", r->block); put_triple(&o, "thread", r->thread); }
    if (r->other.line > 0 && r->other.has_thread) {
        put_triple(&o, "other-block", r->other.block);
        put_triple(&o, "other-thread", r->other.thread);
    }
    if (r->lanes) put_number(&o, "lanes", r->lanes, 1);
    if (r->not_run) put_value(&o, "not-run", "1");
    if (full) put_value(&o, "text", r->text);
    return o.used;
}

int emu_record_is_line(const char *line, size_t len)
{
    return len >= 14 && !memcmp(line, "finding: kind=", 14);
}

/* Reads "FILE:LINE" into p. */
static void read_place(const char *v, emu_place *p)
{
    const char *colon = strrchr(v, ':');
    if (!colon || !isdigit((unsigned char)colon[1])) return;
    snprintf(p->file, sizeof p->file, "%.*s", (int)(colon - v), v);
    p->line = atoi(colon + 1);
}

static void read_triple(const char *v, unsigned t[3])
{
    if (sscanf(v, "%u,%u,%u", &t[0], &t[1], &t[2]) != 3) t[0] = t[1] = t[2] = 0;
}

/* Sets one field of r from key (klen bytes) and its value v. */
static void read_field(emu_record *r, const char *key, size_t klen, const char *v)
{
#define KEY(name) (klen == strlen(name) && !memcmp(key, name, klen))
    if (KEY("kind")) r->kind = emu_kind_of(v, strlen(v));
    else if (KEY("at")) read_place(v, &r->at);
    else if (KEY("other")) read_place(v, &r->other);
    else if (KEY("array")) snprintf(r->array, sizeof r->array, "%s", v);
    else if (KEY("count")) r->count = strtoul(v, NULL, 10);
    else if (KEY("at-label")) r->at.label = label_of(v, strlen(v));
    else if (KEY("at-func")) snprintf(r->at.func, sizeof r->at.func, "%s", v);
    else if (KEY("other-label")) r->other.label = label_of(v, strlen(v));
    else if (KEY("other-func")) snprintf(r->other.func, sizeof r->other.func, "%s", v);
    else if (KEY("kernel")) snprintf(r->kernel, sizeof r->kernel, "%s", v);
    else if (KEY("block")) { read_triple(v, r->block); r->has_thread = 1; }
    else if (KEY("thread")) { read_triple(v, r->thread); r->has_thread = 1; }
    else if (KEY("other-block")) { read_triple(v, r->other.block); r->other.has_thread = 1; }
    else if (KEY("other-thread")) { read_triple(v, r->other.thread); r->other.has_thread = 1; }
    else if (KEY("lanes")) r->lanes = (uint32_t)strtoul(v, NULL, 16);
    else if (KEY("not-run")) r->not_run = atoi(v);
    else if (KEY("text")) snprintf(r->text, sizeof r->text, "%s", v);
#undef KEY
}

int emu_record_decode(const char *line, size_t len, emu_record *r)
{
    if (!emu_record_is_line(line, len)) return 0;
    emu_record_init(r, -1);
    const char *p = line + 8, *end = line + len;
    char *value = malloc(len + 1);
    if (!value) return 0;
    while (p < end) {
        while (p < end && *p == ' ') p++;
        const char *key = p;
        while (p < end && *p != '=' && *p != ' ') p++;
        if (p >= end || *p != '=') break;
        size_t klen = (size_t)(p - key), v = 0;
        p++;
        if (p < end && *p == '"') {
            for (p++; p < end && *p != '"'; p++) {
                if (*p == '\\' && p + 1 < end) { p++; value[v++] = *p == 'n' ? '\n' : *p; }
                else value[v++] = *p;
            }
            p++;
        } else {
            while (p < end && *p != ' ') value[v++] = *p++;
        }
        value[v] = '\0';
        read_field(r, key, klen, value);
    }
    free(value);
    return r->kind >= 0;
}

/* ---- In words ----------------------------------------------------------------------------------------- */

/* "thread (3,0,0)", with "of block (1,0,0)" when it is not the record's block. */
static void thread_words(const emu_record *r, const emu_place *p, char *buf, size_t len)
{
    int same = r->has_thread && !memcmp(p->block, r->block, sizeof r->block);
    if (same)
        snprintf(buf, len, emu_text("thread (%u,%u,%u)"), p->thread[0], p->thread[1], p->thread[2]);
    else
        snprintf(buf, len, emu_text("thread (%u,%u,%u) of block (%u,%u,%u)"), p->thread[0], p->thread[1],
                 p->thread[2], p->block[0], p->block[1], p->block[2]);
}

/* The label of the first place, in brackets after it: "the read", "in warp_reduce". */
static const char *at_label(const emu_place *p, char *buf, size_t len)
{
    switch (p->label) {
    case EMU_LABEL_READ: return emu_text("the read");
    case EMU_LABEL_WRITE: return emu_text("the write");
    case EMU_LABEL_ATOMIC: return emu_text("the atomic");
    case EMU_LABEL_COPY: return emu_text("the cp.async");
    /* TRANSLATORS: a line inside the learner's function %s, beside that line's place. */
    case EMU_LABEL_CALLEE: snprintf(buf, len, emu_text("in %s"), p->func); return buf;
    /* TRANSLATORS: the learner's call of %s, beside that call's place. */
    case EMU_LABEL_CALL: snprintf(buf, len, emu_text("the call of %s"), p->func); return buf;
    default: return "";
    }
}

/* The second place's line: "the write it races with, by thread (1,0,0)", "the call of warp_reduce". */
static void other_words(const emu_record *r, char *buf, size_t len)
{
    const emu_place *p = &r->other;
    char who[160] = "";
    if (p->has_thread) thread_words(r, p, who, sizeof who);
    switch (p->label) {
    case EMU_LABEL_READ:
        snprintf(buf, len, who[0] ? emu_text("the read it races with, by %s") : "%s", who[0] ? who : emu_text("the read it races with"));
        break;
    case EMU_LABEL_WRITE:
        snprintf(buf, len, who[0] ? emu_text("the write it races with, by %s") : "%s", who[0] ? who : emu_text("the write it races with"));
        break;
    case EMU_LABEL_ATOMIC:
        snprintf(buf, len, who[0] ? emu_text("the atomic it races with, by %s") : "%s", who[0] ? who : emu_text("the atomic it races with"));
        break;
    case EMU_LABEL_COPY:
        snprintf(buf, len, who[0] ? emu_text("the cp.async that copies into it, by %s") : "%s",
                 who[0] ? who : emu_text("the cp.async that copies into it"));
        break;
    default: {
        const char *words = at_label(p, buf, len);
        if (words != buf) snprintf(buf, len, "%s", words);
    }
    }
}

void emu_record_words(const emu_record *r, int with_noun, char *head, size_t headlen, char *second,
                      size_t secondlen)
{
    char place[400] = "", label[200] = "", site[400] = "", count[300] = "";
    emu_place_text(&r->at, place, sizeof place);
    if (place[0] && r->other.line > 0 && r->at.label) {
        char labelled[sizeof place];
        /* TRANSLATORS: a place in the learner's file (file:line), then what it is ("the read"). */
        snprintf(labelled, sizeof labelled, emu_text("%s (%s)"), place, at_label(&r->at, label, sizeof label));
        snprintf(place, sizeof place, "%s", labelled);
    }
    if (r->kernel[0] && r->has_thread)
        snprintf(site, sizeof site, emu_text("in kernel %s, block (%u,%u,%u), thread (%u,%u,%u)"), r->kernel,
                 r->block[0], r->block[1], r->block[2], r->thread[0], r->thread[1], r->thread[2]);
    else if (r->kernel[0])
        snprintf(site, sizeof site, emu_text("in kernel %s"), r->kernel);
    if (r->count > 1)
        snprintf(count, sizeof count, emu_ntext("It happened %lu time in this launch; only the first is described.",
                                                "It happened %lu times in this launch; only the first is described.",
                                                r->count), r->count);
    /* "place: Noun: site: text count", each part there only when the record has it; the count after the
     * text with a space after an English sentence (none after a Chinese one). */
    size_t o = 0;
    head[0] = '\0';
#define ADD(...) do { if (o < headlen) { int n_ = snprintf(head + o, headlen - o, __VA_ARGS__); if (n_ > 0) o += (size_t)n_; } } while (0)
    if (place[0]) ADD(emu_text("%s: %s"), place, "");   /* "：" after a Chinese label: "…cu:26（这次读取）：" */
    if (with_noun && r->kind != EMU_FD_RUNTIME) {
        char noun[200];
        snprintf(noun, sizeof noun, "%s", emu_text(emu_kind_noun(r->kind)));
        if (noun[0] >= 'a' && noun[0] <= 'z') noun[0] = (char)(noun[0] - 'a' + 'A');
        /* TRANSLATORS: a finding: its kind ("Race inside a warp"), then what happened. */
        ADD(emu_text("%s: %s"), noun, "");
    }
    if (site[0]) ADD(emu_text("%s: %s"), site, "");
    size_t tl = strlen(r->text);
    int wide_end = tl > 0 && (unsigned char)r->text[tl - 1] >= 0x80;
    ADD("%s%s%s", r->text, count[0] && !wide_end && tl ? " " : "", count);
#undef ADD
    if (second && secondlen) {
        second[0] = '\0';
        if (r->other.line > 0) {
            char where[300], words[400];
            other_words(r, words, sizeof words);
            snprintf(second, secondlen, emu_text("%s: %s"), emu_place_text(&r->other, where, sizeof where), words);
        }
    }
}
