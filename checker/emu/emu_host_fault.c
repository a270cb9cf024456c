/* emu_host_fault.c - host code that reads or writes device memory: the program's address of an allocation
 * has no memory behind it (emu_mem.c), so the access faults, as it does beside a GPU; the fault's handler
 * (the harness's) asks here, and the finding names the learner's line, found from the faulting
 * instruction and the stack by addr2line (the learner's file is compiled with line tables, -g1). */
#define _GNU_SOURCE      /* dl_iterate_phdr */
#include <execinfo.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "emu_rt.h"

#define FRAMES_MAX 24   /* the faulting instruction and the calls around it that are looked up */


static const char msg_read[] =
    N_("your host code reads %s, which is device memory: only kernels and the CUDA runtime's calls can use it "
       "(beside a GPU, this line stops the program with a segmentation fault). Copy it to the host first: "
       "cudaMemcpy(&value, pointer, sizeof value, cudaMemcpyDeviceToHost).");
static const char msg_write[] =
    N_("your host code writes %s, which is device memory: only kernels and the CUDA runtime's calls can use it "
       "(beside a GPU, this line stops the program with a segmentation fault). Write it with cudaMemcpy(pointer, "
       "&value, sizeof value, cudaMemcpyHostToDevice), or cudaMemset, or in a kernel.");
static const char msg_either[] =
    N_("your host code reads or writes %s, which is device memory: only kernels and the CUDA runtime's calls can "
       "use it (beside a GPU, this line stops the program with a segmentation fault). Copy it with cudaMemcpy.");
/* The fault inside code that this line calls (a Thrust algorithm without thrust::device, std::accumulate,
 * memcpy): the call is the mistake, and copying each element is not the fix. */
static const char msg_in_call[] =
    N_("the call at this line runs on the CPU and touches %s there (in %s), which is device memory: beside a "
       "GPU, a segmentation fault. Give the device pointers to code that runs on the GPU: a Thrust algorithm "
       "does when its first argument is thrust::device; or copy the data to the host with cudaMemcpy first.");

/* ---- Which line: addr2line on this program, for the faulting instruction and its callers ---------------- */

typedef struct { uintptr_t addr, bias; int inside; } main_lookup;

/* dl_iterate_phdr's first object is the program itself, where the learner's code is linked. */
static int in_main_program(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    main_lookup *q = data;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
        if (ph->p_type == PT_LOAD && q->addr - lo < ph->p_memsz) q->inside = 1;
    }
    q->bias = info->dlpi_addr;
    return 1;
}

/* The address addr2line knows an instruction of the program by, or 0 when it lies in a library. */
static uintptr_t program_address(uintptr_t addr)
{
    main_lookup q = { addr, 0, 0 };
    dl_iterate_phdr(in_main_program, &q);
    return q.inside ? addr - q.bias : 0;
}

/* addr2line's answer for the addresses (with -a -i: each address, then its places, innermost first), into
 * out; 0 when it could not run. */
static int run_addr2line(char *const argv[], char *out, size_t len)
{
    int fds[2];
    if (len == 0 || pipe(fds) != 0) return 0;
    pid_t pid = fork();   /* no fflush first: the child execs or _exits, and never writes our buffers */
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        dup2(fds[1], STDOUT_FILENO);
        if (null >= 0) dup2(null, STDERR_FILENO);
        close(fds[0]);
        execvp(argv[0], argv);
        _exit(127);
    }
    close(fds[1]);
    size_t used = 0;
    ssize_t got;
    while (pid > 0 && used + 1 < len && (got = read(fds[0], out + used, len - 1 - used)) > 0) used += (size_t)got;
    out[used] = '\0';
    close(fds[0]);
    int status = 0;
    if (pid > 0) waitpid(pid, &status, 0);
    return pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0 && used > 0;
}

/* "file:line" of the innermost place in the learner's code among the instructions frames (innermost first),
 * into where (left as it is when none is the learner's). callee: what the learner's line called when the
 * first frame was inside it, as the header nearest the call names it ("thrust/detail/reduce.inl"), or
 * "a library" (memcpy); "" when the first frame is the line's own. */
static void frames_line(const uintptr_t *frames, int nframes, char *where, size_t len, char *callee,
                        size_t callee_len)
{
    char exe[4096];
    ssize_t exe_len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (exe_len <= 0) return;
    exe[exe_len] = '\0';
    char hex[FRAMES_MAX][24], *argv[FRAMES_MAX + 6] = { "addr2line", "-a", "-i", "-e", exe };
    int argc = 5;
    for (int i = 0; i < nframes; i++) {
        uintptr_t rel = program_address(frames[i]);   /* a library's frames are not the learner's */
        if (!rel) continue;
        if (i == 0) callee[0] = '\0';   /* the fault is in the program: its first place says whose */
        snprintf(hex[argc - 5], sizeof hex[0], "0x%llx", (unsigned long long)rel);
        argv[argc] = hex[argc - 5];
        argc++;
    }
    argv[argc] = NULL;
    static char out[65536];
    if (argc == 5 || !run_addr2line(argv, out, sizeof out)) return;
    /* The faulting instruction itself is the program's when frames[0] is: then a C library wrapper inlined
     * around it (bits/stdio2.h's printf under _FORTIFY_SOURCE, which some compilers turn on by default) only
     * holds the learner's own read of an argument, and the learner's line outside it is the place. */
    int address = -1, fault_in_program = program_address(frames[0]) != 0;
    for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
        if (!strncmp(line, "0x", 2)) { address++; continue; }   /* the next address */
        char *cut = strstr(line, " (discriminator");
        if (cut) *cut = '\0';
        char *colon = strrchr(line, ':');
        int number = colon ? atoi(colon + 1) : 0;
        if (!colon || colon == line || number <= 0) continue;   /* "??:0": no line known */
        *colon = '\0';
        if (!emu_source_is_learners(line)) {   /* a header's line, the harness's: the last before the learner's */
            const char *inc = strstr(line, "/include/");
            inc = inc ? inc + strlen("/include/") : emu_source_path(line);
            if (!strncmp(inc, "cccl/", 5)) inc += 5;
            /* the C library's inline wrappers (bits/string_fortified.h around memcpy, where _FORTIFY_SOURCE is
             * on by default) are the library itself, no header the learner included; C++'s (c++/14/bits/
             * stl_numeric.h, std::accumulate) say which algorithm */
            int libc = strstr(inc, "bits/") && strncmp(inc, "c++/", 4);
            if (!(libc && address == 0 && fault_in_program))
                snprintf(callee, callee_len, "%s", libc ? emu_text("a library") : inc);
            continue;
        }
        snprintf(where, len, "%s:%d", emu_source_path(line), number);
        return;
    }
}

/* "file:line" of the innermost place in the learner's code among the faulting instruction pc and the calls
 * that led to it (a fault inside memcpy or a library template is the learner's call of it); "" if none, and
 * callee as frames_line says. */
static void learner_line(const void *pc, char *where, size_t len, char *callee, size_t callee_len)
{
    where[0] = '\0';
    snprintf(callee, callee_len, "%s", emu_text("a library"));
    if (!pc) return;
    void *stack[64];
    int n = backtrace(stack, 64), at = 0;
    while (at < n && stack[at] != pc) at++;
    /* the faulting instruction, then each caller's call instruction (its return address - 1), when the
     * stack walked from here passes through it */
    uintptr_t frames[FRAMES_MAX];
    int nframes = 0;
    frames[nframes++] = (uintptr_t)pc;
    for (int i = at + 1; i < n && nframes < FRAMES_MAX; i++) frames[nframes++] = (uintptr_t)stack[i] - 1;
    frames_line(frames, nframes, where, len, callee, callee_len);
}

void emu_host_frames_line(void *const *stack, int n, char *where, size_t len)
{
    uintptr_t frames[FRAMES_MAX];
    int nframes = 0;
    char callee[300];
    where[0] = '\0';
    for (int i = 0; i < n && nframes < FRAMES_MAX; i++) frames[nframes++] = (uintptr_t)stack[i] - 1;
    frames_line(frames, nframes, where, len, callee, sizeof callee);
}

/* ---- The finding ------------------------------------------------------------------------------------- */

int emu_host_fault(const void *addr, const void *pc, int write)
{
    const emu_alloc *a = emu_rt_mem_device_near((uintptr_t)addr);
    if (!a) return 0;
    char where[600], what[300], callee[300];
    learner_line(pc, where, sizeof where, callee, sizeof callee);
    emu_alloc_describe(a, (uintptr_t)addr, what, sizeof what);
    int kind = write == 1 ? EMU_FD_HOST_WRITE : EMU_FD_HOST_READ;
    if (where[0] && callee[0])
        emu_finding_at(kind, where, msg_in_call, what, callee);
    else
        emu_finding_at(kind, where, write == 1 ? msg_write : write == 0 ? msg_read : msg_either, what);
    return 1;
}
