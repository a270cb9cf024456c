/* warm.h - a program run in a process that created its CUDA context before the program was built.
 *
 * Creating a context costs about 0.2 s a process on an H200, and the driver creates them one after another
 * (4 at once: 0.52 s each; checker/bench/results/nvidia-h200-2026-11-29-warm.md). A grade on a GPU starts a
 * few warm processes (checker/harness/warm_run.c, `warm-run serve SOCKET`) before it compiles the learner's
 * file; each creates its context, then waits at its socket for one job: a shared object (the suite or the
 * speed line's program linked with -shared), the arguments and environment of its main, and the descriptors
 * it runs with. It loads the object and runs its main in that process, whose context the object's CUDA
 * runtime then finds made. Plain POSIX: the runner of a suite links it, and so does warm-run. */
#ifndef WARM_H
#define WARM_H

#include <stddef.h>
#include <sys/types.h>

/* Hands a job to the warm process listening at socket_path: the shared object's main runs there with argv
 * and envp, fds[0..2] as its descriptors 0 to 2, and fds[3..nfds-1] (8 in all at most) at the numbers that the
 * variable WARM_FDS lists there ("5,6"). Returns that process's pid,
 * or -1 when no warm process takes the job (then the caller runs it the usual way). *reply (if not NULL)
 * gets the connection, on which warm_job_status reads how the job ended; else it is closed. */
pid_t warm_job_start(const char *socket_path, const char *shared_object, const int *fds, int nfds,
                     char *const argv[], char *const envp[], int *reply);

/* How the job on connection reply ended: its exit status, or -1 when the process ended without one (a
 * signal, or _exit). Closes reply. */
int warm_job_status(int reply);

/* n bytes to or from a pipe or a socket, however many calls it takes: 0, or -1 when it ends before. */
int fd_write_all(int fd, const void *p, size_t n);
int fd_read_all(int fd, void *p, size_t n);

/* What the two sides say on the connection: the job's sizes, then its strings (the shared object, the working
 * directory, argv, envp, each ending in a NUL); the descriptors come with the first byte. */
typedef struct warm_header {
    char magic[8];   /* "warmjob" */
    int nfds, argc, envc;
    unsigned bytes;  /* of the strings that follow */
} warm_header;

#endif
