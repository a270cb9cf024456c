/* emu_exec_peers.c - the order between kernels of several devices that run together (emu_launch_together):
 * a one-shot all-reduce's ranks publish their buffers with flags, and a read of a peer's buffer is right only
 * when the flag it waited for orders it after the write that filled the buffer.
 *
 * The model (the PTX memory model's, between devices): a write of kernel B is ordered before a read of kernel
 * A when A read, with a strong load, a flag that B wrote after it with a release at system scope: the flag's
 * store is st.release.sys (cuda::atomic_ref at thread_scope_system, memory_order_release), or any strong
 * store or atomic after a __threadfence_system() (fence.sc.sys) that comes after the write. Every write of a
 * kernel has its order among its memory events (emu_race.seq); a flag remembers the order before which it
 * releases, and a reader the largest such order per writer it has acquired: with a load that is an acquire at
 * system scope (ld.acquire.sys, cuda::atomic_ref at thread_scope_system with memory_order_acquire), or with a
 * relaxed one (volatile, memory_order_relaxed) once a __threadfence_system() follows it. A plain read of bytes that another
 * kernel of the set wrote with a plain store at or after that order is a race, said with what the reader's
 * flags lacked: a release, system scope, or the data before the flag. A strong load of a word that another
 * kernel last wrote with a plain store is one too: a flag written plainly.
 *
 * Lenient where it cannot tell: acquisitions are per kernel, not per block; past EMU_PEER_FLAGS flags a
 * writer is not checked. */
#include <stdio.h>
#include <string.h>

#include "emu_exec.h"

static const char emu_msg_device_memory[] = N_(" (memory of device %d)");
static const char emu_msg_peer_unordered[] = N_(
    "reads %s%s, which the kernel on device %d wrote at the other line, and nothing orders this read after "
    "that write: %s On a GPU machine the read may see the old bytes. The writer publishes its data with a "
    "release at system scope after it (__threadfence_system() and then the flag's store, or st.release.sys: "
    "cuda::atomic_ref<int, cuda::thread_scope_system>(flag).store(epoch, cuda::memory_order_release)), and "
    "the reader reads the data only after it has read that flag.");
/* The same without the general rule, where the reason already says what to do: the writer released its data
 * and only the reader's load of the flag acquired nothing, or the writer's release was at gpu scope. */
static const char emu_msg_peer_unordered_reader[] = N_(
    "reads %s%s, which the kernel on device %d wrote at the other line, and nothing orders this read after "
    "that write: %s On a GPU machine the read may see the old bytes.");
static const char emu_msg_peer_no_flag[] = N_("this kernel read no flag that device %d set after the write.");
static const char emu_msg_peer_unfenced[] = N_(
    "the flag that this kernel read (%s) was written by device %d at %s without a release: no "
    "__threadfence_system() before its store, and the store is not a release, so the data before it may "
    "arrive after it.");
static const char emu_msg_peer_gpu_scope[] = N_(
    "the flag that this kernel read (%s) was written by device %d at %s with a release at gpu scope "
    "(__threadfence(), cuda::thread_scope_device), which orders memory for the threads of that device only; "
    "another device needs system scope (__threadfence_system(), cuda::thread_scope_system).");
static const char emu_msg_peer_plain[] = N_(
    "the flag that this kernel read (%s) was written by device %d at %s with a plain store, which releases "
    "nothing.");
static const char emu_msg_peer_late[] = N_(
    "device %d wrote it after it set the flag that this kernel read (%s, at %s): the flag was set before the data "
    "it publishes.");
static const char emu_msg_peer_relaxed[] = N_(
    "this kernel read the flag %s at %s with a relaxed load (volatile, or memory_order_relaxed) and no "
    "__threadfence_system() after it: that orders nothing for the reads after it, which may see the data from "
    "before the flag. Read the flag with an acquire at system scope (cuda::atomic_ref<unsigned, "
    "cuda::thread_scope_system>(flag).load(cuda::memory_order_acquire)), or put __threadfence_system() after "
    "the loop that waits for it.");
static const char emu_msg_peer_plain_flag[] = N_(
    "reads %s%s with a strong load, as a flag is read, and the kernel on device %d wrote it at the other line "
    "with a plain store: a race, and a release of nothing, so what device %d wrote before it may not be there "
    "when this flag is seen. Write the flag with a release at system scope: __threadfence_system() and then a "
    "volatile store, or cuda::atomic_ref<int, cuda::thread_scope_system>(flag).store(epoch, "
    "cuda::memory_order_release).");

void emu_peers_memory_text(int device, char *buf, size_t len)
{
    if (device >= 0) snprintf(buf, len, emu_text(emu_msg_device_memory), device);
    else if (len) buf[0] = '\0';
}

static emu_peer_flag *flag_of(emu_peers *p, uint64_t word)
{
    for (int i = 0; i < p->nflags; i++)
        if (p->flags[i].word == word) return &p->flags[i];
    return NULL;
}

void emu_peers_write(emu_ctx *x, const emu_insn *in, uint64_t addr, uint32_t seq)
{
    emu_peers *p = x->peers;
    uint64_t word = addr & ~3ull;
    emu_peer_flag *f = flag_of(p, word);
    if (!f) {
        if (p->nflags == EMU_PEER_FLAGS) { p->overflow = 1; return; }
        f = &p->flags[p->nflags++];
    }
    int release = (in->flags & EMU_F_RELEASE) != 0, sys = (in->flags & EMU_F_SYS) != 0;
    f->word = word;
    f->seq = seq;
    f->loc = in->loc;
    f->released = release && sys ? seq : x->race.fence_sys_seq;
    f->how = f->released ? EMU_PEER_RELEASED : release || x->race.fence_seq ? EMU_PEER_GPU_SCOPE : EMU_PEER_UNFENCED;
}

/* The name of n bytes at addr of a in x's findings: the harness's name for the buffer ("d_in[1][5]"), else
 * the kernel's (a pointer parameter's element), else which bytes of which allocation. */
void emu_peers_name(emu_ctx *x, const emu_alloc *a, uint64_t addr, unsigned n, char *buf, size_t len)
{
    if (a->guard_name[0]) emu_alloc_describe(a, (uintptr_t)addr, buf, len);
    else emu_global_name(x, a, addr, n, buf, len);
}

/* The record of a finding of this read against kernel b's write at loc: the places, and the word's name. */
static void start(emu_ctx *x, emu_warp *w, const emu_insn *in, int l, const emu_alloc *a, uint64_t addr, unsigned n,
                  const emu_ctx *b, uint32_t loc, emu_record *r, char *what, size_t len)
{
    emu_place call;
    emu_where(x, w, l, in->loc, EMU_FD_PEER_RACE, r);
    emu_loc_places(b->m, loc, &r->other, &call);
    r->at.label = EMU_LABEL_READ;
    r->other.label = EMU_LABEL_WRITE;
    r->other.func[0] = '\0';
    emu_peers_name(x, a, addr, n, what, len);
    size_t name = strcspn(what, "[ ");
    if (name && what[name] == '[' && name < sizeof r->array) snprintf(r->array, sizeof r->array, "%.*s", (int)name, what);
}

/* What the flags this kernel read from device `device` lacked, as a sentence: seen is the last one. Returns 1
 * when the sentence already says what the writer should have done (a release at gpu scope: system scope), so
 * that the report does not say the general rule again. */
static int lacked(emu_ctx *x, const emu_ctx *b, const emu_peer_flag *seen, int late, char *buf, size_t len)
{
    char flag[300] = "", at[300] = "";
    if (!seen->seq) { snprintf(buf, len, emu_text(emu_msg_peer_no_flag), b->device); return 0; }
    const emu_alloc *fa = emu_mem_lookup((uintptr_t)seen->word, 4);
    if (fa) emu_peers_name(x, fa, seen->word, 4, flag, sizeof flag);
    emu_place place, call;
    emu_loc_places(b->m, seen->loc, &place, &call);
    emu_place_text(&place, at, sizeof at);
    if (late) snprintf(buf, len, emu_text(emu_msg_peer_late), b->device, flag, at);
    else if (seen->how == EMU_PEER_PLAIN) snprintf(buf, len, emu_text(emu_msg_peer_plain), flag, b->device, at);
    else if (seen->how == EMU_PEER_GPU_SCOPE) {
        snprintf(buf, len, emu_text(emu_msg_peer_gpu_scope), flag, b->device, at);
        return 1;
    } else snprintf(buf, len, emu_text(emu_msg_peer_unfenced), flag, b->device, at);
    return 0;
}

/* A strong load of kernel x reads the word at addr: it acquires what kernel b's flag there releases, and a
 * word b last wrote with a plain store is a flag written plainly. */
static void acquire(emu_ctx *x, emu_warp *w, const emu_insn *in, int l, const emu_alloc *a, uint64_t addr, unsigned n,
                    int bi)
{
    emu_peers *p = x->peers;
    emu_ctx *b = &p->all[bi];
    emu_peer_flag *f = flag_of(b->peers, addr & ~3ull);
    if (f) {
        int acquires = (in->flags & EMU_F_ACQUIRE) && (in->flags & EMU_F_SYS);
        if (acquires && f->released > p->acquired[bi]) {
            p->acquired[bi] = f->released;
            emu_order_acquired(p->self, bi, f->released);
        } else if (!acquires && f->released > p->relaxed[bi]) {   /* ordered once a system fence follows */
            p->relaxed[bi] = f->released;
            p->relaxed_word[bi] = f->word;
            p->relaxed_loc[bi] = in->loc;
        }
        if (f->seq >= p->seen[bi].seq) p->seen[bi] = *f;
    }
    uint32_t seq = 0, loc = 0;
    int last = 0;
    if (!emu_race_plain_write(b, a, addr, n, &seq, &loc, &last) || !last) return;
    p->seen[bi] = (emu_peer_flag){ addr & ~3ull, seq, 0, loc, EMU_PEER_PLAIN };
    if (emu_diag_first(EMU_FD_PEER_RACE)) {
        emu_record r;
        char what[600], mem[100];
        start(x, w, in, l, a, addr, n, b, loc, &r, what, sizeof what);
        emu_peers_memory_text(a->device, mem, sizeof mem);
        emu_diag_report(&r, emu_msg_peer_plain_flag, what, mem, b->device, b->device);
    }
}

void emu_peers_fence(emu_ctx *x)
{
    emu_peers *p = x->peers;
    for (int bi = 0; bi < p->n; bi++)
        if (p->relaxed[bi] > p->acquired[bi]) {
            p->acquired[bi] = p->relaxed[bi];
            emu_order_acquired(p->self, bi, p->relaxed[bi]);
        }
}

void emu_peers_read(emu_ctx *x, emu_warp *w, const emu_insn *in, int l, const emu_alloc *a, uint64_t addr, unsigned n)
{
    emu_peers *p = x->peers;
    for (int bi = 0; bi < p->n; bi++) {
        emu_ctx *b = &p->all[bi];
        if (bi == p->self || !b->peers) continue;
        if (in->flags & EMU_F_VOLATILE) { acquire(x, w, in, l, a, addr, n, bi); continue; }
        uint32_t seq = 0, loc = 0;
        int last;
        if (b->peers->overflow || !emu_race_plain_write(b, a, addr, n, &seq, &loc, &last) || seq < p->acquired[bi])
            continue;
        if (emu_diag_first(EMU_FD_PEER_RACE)) {
            emu_record r;
            char what[600], mem[100], why[1200];
            start(x, w, in, l, a, addr, n, b, loc, &r, what, sizeof what);
            emu_peers_memory_text(a->device, mem, sizeof mem);
            const emu_peer_flag *seen = &p->seen[bi];
            if (seq < p->relaxed[bi]) {   /* the flag released the write; the load that read it acquired nothing */
                char flag[300] = "", at[300] = "";
                const emu_alloc *fa = emu_mem_lookup((uintptr_t)p->relaxed_word[bi], 4);
                emu_place place, call;
                if (fa) emu_peers_name(x, fa, p->relaxed_word[bi], 4, flag, sizeof flag);
                emu_loc_places(x->m, p->relaxed_loc[bi], &place, &call);
                emu_place_text(&place, at, sizeof at);
                snprintf(why, sizeof why, emu_text(emu_msg_peer_relaxed), flag, at);
                emu_diag_report(&r, emu_msg_peer_unordered_reader, what, mem, b->device, why);
            } else {
                int said = lacked(x, b, seen, seen->seq && seen->how == EMU_PEER_RELEASED && seq >= seen->released,
                                  why, sizeof why);
                emu_diag_report(&r, said ? emu_msg_peer_unordered_reader : emu_msg_peer_unordered, what, mem,
                                b->device, why);
            }
        }
        return;
    }
}
