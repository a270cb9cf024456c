/* harness_batch.c - a GPU's tests in a few worker processes that each keep their CUDA context.
 *
 * Check runs each test in its own process, and on a GPU each process creates its own CUDA context: the driver
 * creates them one after another, about 0.2 s each on an H200, so 8 tests cost some 1.6 s however many run at
 * once (checker/bench/results/nvidia-h200-2026-11-29-regrade-parts.md). A batch worker, forked from the runner
 * (which never calls CUDA), creates its context once and runs the tests it is given one after another in its
 * own process (Check's no-fork mode). The runner keeps each test's time and kills a worker whose test runs past
 * the timeout. A worker ends after a test that does not pass cleanly, or that leaves a CUDA error behind: the
 * runner runs that test again alone, as every test runs on the emulator, so no verdict but a pass ever comes
 * from a process an earlier test ran in. A failure that was its worker's first test already is that verdict,
 * unless its kernels printed (alone, the report shows their first lines): it is not run again. (Exercise 14's
 * combine_adds_sums, 7 tests failed: its regrade on an H200 went from 4.5 and 4.3 s to 3.1 and 3.2 s; see
 * nvidia-h200-2026-11-29-regrade-all.md.) A new worker takes the tests that are left.
 * Where the grade started warm processes (HARNESS_WARM_DIR, warm.h), a worker is one of them: its context was
 * made while the learner's file compiled, and it runs this suite's shared object (the suite's path and ".so",
 * linked beside it). A worker forked here takes over when none is left. */
#include "harness.h"
#include "warm.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { QUEUED = 1, RUNNING = 2, DONE = 3 };

typedef struct worker {
    pid_t pid;      /* 0: none */
    int to, from;   /* the pipes: test indices to it, results from it */
    int test;       /* the test it runs, -1: none */
    double since;   /* when that test was handed to it */
} worker;

struct harness_batch {
    const harness_test *tests;
    int count, workers;
    const char *suite;
    double timeout;
    char **argv;               /* the runner's, for a warm worker */
    int warm_next;             /* the next warm process to ask for a worker; -1: none left */
    int *state;                /* per test: 0, QUEUED, RUNNING or DONE */
    harness_result *results;   /* per test, once DONE (until taken) */
    worker *w;
};

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A worker's stdout: a pipe that a thread of its own empties as it fills, counting the bytes (so that a flood
 * neither blocks the kernels nor fills a disk). */
static int printout_fd = -1;
static _Atomic unsigned long long printout_bytes;
static void *printout_drain(void *unused)
{
    (void)unused;
    char buf[4096];
    ssize_t got;
    while ((got = read(printout_fd, buf, sizeof buf)) > 0) printout_bytes += (unsigned long long)got;
    return NULL;
}
static int printout_start(void)
{
    int fds[2];
    pthread_t reader;
    if (pipe(fds) != 0) return -1;
    printout_fd = fds[0];
    if (dup2(fds[1], STDOUT_FILENO) < 0 || pthread_create(&reader, NULL, printout_drain, NULL) != 0) {
        close(fds[0]), close(fds[1]);
        return -1;
    }
    close(fds[1]);
    pthread_detach(reader);
    return 0;
}
/* Whether anything was printed since the worker started: bytes read, or still in the pipe (asked after its first
 * test only). */
static int printed(void)
{
    fflush(stdout);
    int waiting = 0;
    if (printout_fd < 0 || ioctl(printout_fd, FIONREAD, &waiting) != 0) return 1;
    return printout_bytes > 0 || waiting > 0;
}

/* The worker's life: its context first (while the runner hands out the first test), then one test after
 * another until the runner closes the pipe or a test does not pass cleanly. */
static void worker_main(harness_batch *b, int from_runner, int to_runner)
{
    harness_worker_begin();
    /* (On the emulator, where only the harness's own checks use workers: a kernel that never ended in a worker
     * is not known to the other tests, since the test that found it runs again alone and tells them.) */
    if (backend_is_emulator()) setenv("EMU_ENDLESS_FILE", "", 1);
    /* What the kernels print is not shown from here (the runner's own output is not: batch_wanted); a worker
     * only counts it. Where the pipe cannot be made, nothing is counted and every failure runs again alone. */
    if (printout_start() != 0) {
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0) dup2(null, STDOUT_FILENO), close(null);
    }
    cudaFree(0);
    int index, first = 1;
    while (read(from_runner, &index, sizeof index) == (ssize_t)sizeof index && index >= 0 && index < b->count) {
        harness_result r = harness_run_one(&b->tests[index], index, b->suite, b->timeout, 1);
        /* Alone, its kernels' first lines would be in the report: a test that printed runs again alone. (The
         * emulator's findings name addresses, which another process lays out otherwise: there every failure
         * runs again alone.) */
        r.alone = first && !backend_is_emulator() && !printed();
        first = 0;
        int clean = r.outcome == HARNESS_PASSED && !r.host_ub;
        if (clean && (cudaDeviceSynchronize() != cudaSuccess || cudaGetLastError() != cudaSuccess)) {
            /* The test passed, yet a CUDA error is left: the runner runs it again alone. */
            r.outcome = HARNESS_CRASHED, clean = 0;
        }
        if (harness_result_send(to_runner, &r) != 0 || !clean) break;
    }
    harness_worker_end();
    _exit(0);
}

/* A warm process made a worker (HARNESS_WARM_WORKER=1 there, and WARM_FDS names its pipes); its pid, or -1
 * when none is left. */
static pid_t warm_worker(harness_batch *b, int from_runner, int to_runner)
{
    const char *dir = getenv("HARNESS_WARM_DIR");
    char object[4096 + 4], socket_path[4096];
    ssize_t len = dir && *dir && b->warm_next >= 0 ? readlink("/proc/self/exe", object, 4096) : -1;
    if (len <= 0) return b->warm_next = -1;
    memcpy(object + len, ".so", 4);
    snprintf(socket_path, sizeof socket_path, "%s/worker.%d", dir, b->warm_next++);
    extern char **environ;
    size_t n = 0;
    while (environ[n]) n++;
    char **envp = calloc(n + 2, sizeof *envp);
    int null = open("/dev/null", O_RDWR | O_CLOEXEC);
    pid_t pid = -1;
    if (envp && null >= 0 && access(object, R_OK) == 0) {
        memcpy(envp, environ, n * sizeof *envp);
        envp[n] = "HARNESS_WARM_WORKER=1";
        int fds[5] = {null, null, STDERR_FILENO, from_runner, to_runner};
        pid = warm_job_start(socket_path, object, fds, 5, b->argv, envp, NULL);
    }
    if (pid < 0) b->warm_next = -1;
    free(envp);
    if (null >= 0) close(null);
    return pid;
}

static int spawn(harness_batch *b, worker *w)
{
    int to[2], from[2];
    if (pipe(to) != 0) return -1;
    if (pipe(from) != 0) { close(to[0]), close(to[1]); return -1; }
    pid_t warm = warm_worker(b, to[0], from[1]);
    if (warm > 0) {
        close(to[0]), close(from[1]);
        *w = (worker){.pid = warm, .to = to[1], .from = from[0], .test = -1};
        return 0;
    }
    fflush(NULL);   /* the worker must not print what the runner has buffered */
    pid_t pid = fork();
    if (pid == 0) {
        close(to[1]), close(from[0]);
        for (int k = 0; k < b->workers; k++)   /* the other workers' pipes are theirs */
            if (b->w[k].pid > 0) close(b->w[k].to), close(b->w[k].from);
        worker_main(b, to[0], from[1]);
    }
    close(to[0]), close(from[1]);
    if (pid < 0) { close(to[1]), close(from[0]); return -1; }
    *w = (worker){.pid = pid, .to = to[1], .from = from[0], .test = -1};
    return 0;
}

static void retire(worker *w, int kill_it)
{
    if (w->pid <= 0) return;
    if (kill_it) kill(w->pid, SIGKILL);
    close(w->to), close(w->from);
    waitpid(w->pid, NULL, 0);
    *w = (worker){.test = -1};
}

static void finish(harness_batch *b, int index, harness_result r)
{
    b->results[index] = r;
    b->state[index] = DONE;
}

/* Gives each idle worker the next queued test (a worker is started where none is). */
static void hand_out(harness_batch *b)
{
    int next = 0;
    for (int k = 0; k < b->workers; k++) {
        worker *w = &b->w[k];
        if (w->test >= 0) continue;
        while (next < b->count && b->state[next] != QUEUED) next++;
        if (next == b->count) return;
        if (w->pid <= 0 && spawn(b, w) != 0) continue;
        /* A worker that ended meanwhile must not end the runner with SIGPIPE. */
        struct sigaction ignore = {.sa_handler = SIG_IGN}, before;
        sigaction(SIGPIPE, &ignore, &before);
        int sent = write(w->to, &next, sizeof next) == (ssize_t)sizeof next;
        sigaction(SIGPIPE, &before, NULL);
        if (!sent) { retire(w, 1); continue; }
        w->test = next, w->since = now();
        b->state[next++] = RUNNING;
    }
}

/* Waits until a running test ends (or runs past the timeout) and keeps its result. */
static void collect(harness_batch *b)
{
    struct pollfd fds[16];
    int which[16], n = 0;
    double wait = b->timeout;
    for (int k = 0; k < b->workers && n < 16; k++)
        if (b->w[k].test >= 0) {
            double left = b->w[k].since + b->timeout - now();
            if (left < wait) wait = left;
            fds[n] = (struct pollfd){.fd = b->w[k].from, .events = POLLIN};
            which[n++] = k;
        }
    if (n == 0) return;
    int ready = poll(fds, (nfds_t)n, wait > 0 ? (int)(wait * 1000) + 1 : 0);
    for (int i = 0; ready > 0 && i < n; i++) {
        if (!fds[i].revents) continue;
        worker *w = &b->w[which[i]];
        int index = w->test;
        harness_result r;
        int whole = harness_result_receive(w->from, b->tests[index].name, &r) == 0;
        finish(b, index, r);
        w->test = -1;
        /* After anything but a clean pass the worker has ended (or crashed mid-test). */
        if (!whole || r.outcome != HARNESS_PASSED || r.host_ub) retire(w, !whole);
    }
    for (int i = 0; i < n; i++) {
        worker *w = &b->w[which[i]];
        if (w->test < 0 || now() - w->since < b->timeout) continue;
        int index = w->test;
        retire(w, 1);
        finish(b, index, (harness_result){.name = b->tests[index].name, .outcome = HARNESS_CRASHED,
                                          .message = strdup("Test timeout expired"), .seconds = b->timeout});
    }
}

harness_batch *harness_batch_open(const harness_test *tests, int count, int workers, const char *suite_name,
                                  double timeout, char **argv)
{
    harness_batch *b = calloc(1, sizeof *b);
    if (!b) return NULL;
    *b = (harness_batch){.tests = tests, .count = count, .workers = workers < 1 ? 1 : workers > 16 ? 16 : workers,
                         .suite = suite_name, .timeout = timeout, .argv = argv};
    b->state = calloc((size_t)count + 1, sizeof *b->state);
    b->results = calloc((size_t)count + 1, sizeof *b->results);
    b->w = calloc((size_t)b->workers, sizeof *b->w);
    if (!b->state || !b->results || !b->w) {
        free(b->state), free(b->results), free(b->w), free(b);
        return NULL;
    }
    for (int k = 0; k < b->workers; k++) b->w[k].test = -1;
    return b;
}

void harness_batch_queue(harness_batch *b, int index)
{
    if (index >= 0 && index < b->count && !b->state[index]) b->state[index] = QUEUED;
    hand_out(b);
}

int harness_batch_has(const harness_batch *b, int index) { return b && b->state[index] != 0; }

harness_result harness_batch_take(harness_batch *b, int index, const char *name)
{
    while (b->state[index] != DONE) {
        hand_out(b);
        if (b->state[index] == QUEUED) {
            int busy = 0;
            for (int k = 0; k < b->workers; k++) busy += b->w[k].test >= 0;
            if (!busy) {   /* no worker could start: the caller runs it alone */
                finish(b, index, (harness_result){.outcome = HARNESS_CRASHED,
                                                  .message = strdup(_("The test could not be started."))});
                break;
            }
        }
        collect(b);
    }
    harness_result r = b->results[index];
    b->results[index] = (harness_result){0};
    b->state[index] = 0;
    r.name = name;
    return r;
}

void harness_batch_drop_queued(harness_batch *b)
{
    for (int i = 0; i < b->count; i++)
        if (b->state[i] == QUEUED) b->state[i] = 0;
}

void harness_batch_close(harness_batch *b)
{
    if (!b) return;
    for (int k = 0; k < b->workers; k++) retire(&b->w[k], b->w[k].test >= 0);
    for (int i = 0; i < b->count; i++) free(b->results[i].message), free((char *)b->results[i].file);
    free(b->state), free(b->results), free(b->w), free(b);
}

void harness_batch_serve(const harness_test *tests, int count, const char *suite_name, double timeout,
                         int from_runner, int to_runner)
{
    harness_batch b = {.tests = tests, .count = count, .workers = 1, .suite = suite_name, .timeout = timeout};
    worker_main(&b, from_runner, to_runner);
}
