/* harness_warm.c - the side that hands a job to a warm process (warm.h): a suite's runner for its batch
 * workers, and `warm-run run` for the speed line's program. */
#include "warm.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int fd_write_all(int fd, const void *p, size_t n)
{
    for (size_t done = 0; done < n;) {
        ssize_t put = write(fd, (const char *)p + done, n - done);
        if (put <= 0) return -1;
        done += (size_t)put;
    }
    return 0;
}

int fd_read_all(int fd, void *p, size_t n)
{
    for (size_t done = 0; done < n;) {
        ssize_t got = read(fd, (char *)p + done, n - done);
        if (got <= 0) return -1;
        done += (size_t)got;
    }
    return 0;
}

/* The strings of a job, one after another with their NULs: count and size first (buf NULL), then written. */
static size_t put_strings(char *buf, size_t at, char *const list[], int *count)
{
    int n = 0;
    for (; list && list[n]; n++) {
        size_t len = strlen(list[n]) + 1;
        if (buf) memcpy(buf + at, list[n], len);
        at += len;
    }
    if (count) *count = n;
    return at;
}

pid_t warm_job_start(const char *socket_path, const char *shared_object, const int *fds, int nfds,
                     char *const argv[], char *const envp[], int *reply)
{
    if (reply) *reply = -1;
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    if (!socket_path || strlen(socket_path) >= sizeof addr.sun_path || nfds < 0 || nfds > 8) return -1;
    strcpy(addr.sun_path, socket_path);
    int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (s < 0) return -1;
    /* Nobody there (the warm process was never started, or has taken a job already): -1 at once. */
    if (connect(s, (struct sockaddr *)&addr, sizeof addr) != 0) { close(s); return -1; }
    struct ucred peer;
    socklen_t peer_len = sizeof peer;
    if (getsockopt(s, SOL_SOCKET, SO_PEERCRED, &peer, &peer_len) != 0) { close(s); return -1; }

    char cwd[4096];
    if (!getcwd(cwd, sizeof cwd)) { close(s); return -1; }
    char *const head[] = {(char *)shared_object, cwd, NULL};
    warm_header h = {.magic = "warmjob", .nfds = nfds};
    size_t bytes = put_strings(NULL, 0, head, NULL);
    bytes = put_strings(NULL, bytes, argv, &h.argc);
    bytes = put_strings(NULL, bytes, envp, &h.envc);
    char *strings = malloc(bytes);
    if (!strings) { close(s); return -1; }
    put_strings(strings, put_strings(strings, put_strings(strings, 0, head, NULL), argv, NULL), envp, NULL);
    h.bytes = (unsigned)bytes;

    /* The header with the descriptors, then the strings. */
    union { char buf[CMSG_SPACE(8 * sizeof(int))]; struct cmsghdr align; } control;
    memset(&control, 0, sizeof control);
    struct iovec iov = {.iov_base = &h, .iov_len = sizeof h};
    struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1};
    if (nfds > 0) {
        msg.msg_control = control.buf;
        msg.msg_controllen = CMSG_SPACE((size_t)nfds * sizeof(int));
        struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
        c->cmsg_level = SOL_SOCKET, c->cmsg_type = SCM_RIGHTS, c->cmsg_len = CMSG_LEN((size_t)nfds * sizeof(int));
        memcpy(CMSG_DATA(c), fds, (size_t)nfds * sizeof(int));
    }
    /* A warm process that ended meanwhile must not end the caller with SIGPIPE. */
    struct sigaction ignore = {.sa_handler = SIG_IGN}, before;
    sigaction(SIGPIPE, &ignore, &before);
    int sent = sendmsg(s, &msg, MSG_NOSIGNAL) == (ssize_t)sizeof h && fd_write_all(s, strings, bytes) == 0;
    sigaction(SIGPIPE, &before, NULL);
    free(strings);
    if (!sent) { close(s); return -1; }
    if (reply) *reply = s;
    else close(s);
    return peer.pid;
}

int warm_job_status(int reply)
{
    char line[32];
    size_t len = 0;
    while (len + 1 < sizeof line && read(reply, line + len, 1) == 1 && line[len] != '\n') len++;
    line[len] = '\0';
    close(reply);
    int status;
    return sscanf(line, "status %d", &status) == 1 ? status : -1;
}
