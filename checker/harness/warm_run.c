/* warm_run.c - warm-run, a process that creates its CUDA context before it knows what it will run (warm.h).
 *   warm-run serve SOCKET [SECONDS]       the context, then one job from SOCKET, run in this process; gives up
 *                                         after SECONDS without one (default 1800, a suite's timeout)
 *   warm-run run SOCKET OBJECT ARGS...    runs OBJECT's main with ARGS, this environment and descriptors 0 to 2
 *                                         in the warm process at SOCKET, and exits with its status: 125 when
 *                                         none took the job (the caller then runs the program itself), 126
 *                                         when the process ended without a status (a signal)
 * The job's environment replaces the warm process's own once the context exists: a grade starts its warm
 * processes with its own environment (the same GPU). Without a GPU's driver the process still serves, with
 * no context made ahead (make test checks the path that way, with the emulator's suite). */
#include "warm.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

/* The primary context of device 0, which the job's CUDA runtime then uses: through the driver, loaded here
 * (this program links no CUDA library, and runs where there is none). */
static void make_context(void)
{
    void *cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
    if (!cuda) return;
    int (*init)(unsigned) = (int (*)(unsigned))dlsym(cuda, "cuInit");
    int (*device_get)(int *, int) = (int (*)(int *, int))dlsym(cuda, "cuDeviceGet");
    int (*retain)(void **, int) = (int (*)(void **, int))dlsym(cuda, "cuDevicePrimaryCtxRetain");
    int device;
    void *context;
    if (init && device_get && retain && init(0) == 0 && device_get(&device, 0) == 0) retain(&context, device);
}

/* How the job ended, to the one who handed it (on_exit: main's return and exit() alike). */
static void report_status(int status, void *connection)
{
    signal(SIGPIPE, SIG_IGN);
    dprintf((int)(long)connection, "status %d\n", status);
}

/* The first three descriptors received become 0 to 2; the others stay where they came (the driver's own
 * descriptors, opened with the context, hold the low numbers after 2), and WARM_FDS names them to the job. */
static int place_descriptors(int *fds, int n, char *names, size_t size)
{
    names[0] = '\0';
    for (int i = 0; i < n; i++) {
        if (i < 3) {
            if (fds[i] != i && (dup2(fds[i], i) < 0 || close(fds[i]) != 0)) return -1;
            continue;
        }
        int flags = fcntl(fds[i], F_GETFD);
        if (flags < 0 || fcntl(fds[i], F_SETFD, flags & ~FD_CLOEXEC) != 0) return -1;
        size_t used = strlen(names);
        snprintf(names + used, size - used, "%s%d", used ? "," : "", fds[i]);
    }
    return 0;
}

static int serve(const char *path, int seconds)
{
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof addr.sun_path) return 2;
    strcpy(addr.sun_path, path);
    /* Nothing of the one who started this process reaches the job (a make's descriptors, a shell's), and 0 to 2
     * are open, so that the job's own land there. */
    for (int fd = 3; fd < 1024; fd++) close(fd);
    for (int fd = 0; fd < 3; fd++)
        if (fcntl(fd, F_GETFD) < 0 && open("/dev/null", O_RDWR) != fd) return 2;
    int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (s < 0 || bind(s, (struct sockaddr *)&addr, sizeof addr) != 0 || listen(s, 1) != 0) return 2;
    make_context();   /* a job handed over meanwhile waits in the queue */
    struct pollfd p = {.fd = s, .events = POLLIN};
    int c = poll(&p, 1, seconds * 1000) == 1 ? accept4(s, NULL, NULL, SOCK_CLOEXEC) : -1;
    unlink(path);
    close(s);
    if (c < 0) return 0;   /* nobody came */

    warm_header h;
    int fds[8], nfds = 0;
    union { char buf[CMSG_SPACE(8 * sizeof(int))]; struct cmsghdr align; } control;
    struct iovec iov = {.iov_base = &h, .iov_len = sizeof h};
    struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.buf,
                         .msg_controllen = sizeof control.buf};
    ssize_t got = recvmsg(c, &msg, MSG_CMSG_CLOEXEC);
    for (struct cmsghdr *m = CMSG_FIRSTHDR(&msg); got > 0 && m; m = CMSG_NXTHDR(&msg, m))
        if (m->cmsg_level == SOL_SOCKET && m->cmsg_type == SCM_RIGHTS) {
            nfds = (int)((m->cmsg_len - CMSG_LEN(0)) / sizeof(int));
            if (nfds > 8) nfds = 8;
            memcpy(fds, CMSG_DATA(m), (size_t)nfds * sizeof(int));
        }
    if (got <= 0 || (got < (ssize_t)sizeof h && fd_read_all(c, (char *)&h + got, sizeof h - (size_t)got) != 0) ||
        memcmp(h.magic, "warmjob", 8) != 0 || h.nfds != nfds || h.argc < 1 || h.envc < 0 || h.bytes > (1u << 24))
        return 2;
    char *strings = malloc(h.bytes + 1);
    char **argv = calloc((size_t)h.argc + 1, sizeof *argv), **envp = calloc((size_t)h.envc + 1, sizeof *envp);
    if (!strings || !argv || !envp || fd_read_all(c, strings, h.bytes) != 0) return 2;
    strings[h.bytes] = '\0';
    /* The shared object, the working directory, argv, envp. */
    char *at = strings, *end = strings + h.bytes;
    char *object = at;
    at += strlen(at) + 1;
    char *cwd = at < end ? at : "";
    at += strlen(cwd) + 1;
    for (int i = 0; i < h.argc; i++, at += strlen(at) + 1) argv[i] = at < end ? at : "";
    for (int i = 0; i < h.envc; i++, at += strlen(at) + 1) envp[i] = at < end ? at : "";

    char names[64];
    if (place_descriptors(fds, nfds, names, sizeof names) != 0 || chdir(cwd) != 0) return 2;
    clearenv();
    for (int i = 0; i < h.envc; i++) putenv(envp[i]);
    if (names[0]) setenv("WARM_FDS", names, 1);
    on_exit(report_status, (void *)(long)c);
    void *job = dlopen(object, RTLD_NOW | RTLD_LOCAL);
    int (*job_main)(int, char **) = job ? (int (*)(int, char **))dlsym(job, "main") : NULL;
    if (!job_main) {
        fprintf(stderr, "warm-run: %s\n", job ? "no main in the shared object" : dlerror());
        return 127;
    }
    return job_main(h.argc, argv);
}

int main(int argc, char **argv)
{
    extern char **environ;
    if (argc >= 3 && !strcmp(argv[1], "serve")) return serve(argv[2], argc > 3 ? atoi(argv[3]) : 1800);
    if (argc >= 4 && !strcmp(argv[1], "run")) {
        int fds[3] = {0, 1, 2}, reply;
        if (warm_job_start(argv[2], argv[3], fds, 3, argv + 3, environ, &reply) < 0) return 125;
        int status = warm_job_status(reply);
        return status < 0 ? 126 : status;
    }
    fprintf(stderr, "usage: warm-run serve SOCKET [SECONDS] | warm-run run SOCKET OBJECT ARGS...\n");
    return 2;
}
