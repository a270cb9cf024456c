/* harness_main.c - the runner: one Check test case per behaviour, fork mode with a timeout each, and the
 * learner's report (one line per test, then what to do next). */
#include "harness.h"
#include "warm.h"

#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char backend_label[300];
static int backend_probed;

/* CUDA must not be initialised in a process that later forks, so a child asks for the device. */
static void probe_gpu(void)
{
    int fds[2];
    if (pipe(fds) != 0) return;
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        int count = 0;
        struct cudaDeviceProp prop;
        char line[300] = "";
        if (cudaGetDeviceCount(&count) == cudaSuccess && count > 0 &&
            cudaGetDeviceProperties(&prop, 0) == cudaSuccess)
            snprintf(line, sizeof line, _("the GPU (%s)"), prop.name);
        ssize_t ignored = write(fds[1], line, strlen(line));
        (void)ignored;
        _exit(0);
    }
    close(fds[1]);
    if (pid > 0) {
        ssize_t got = read(fds[0], backend_label, sizeof backend_label - 1);
        backend_label[got > 0 ? got : 0] = '\0';
        waitpid(pid, NULL, 0);
    }
    close(fds[0]);
}

/* The GPU's name as make found it (COURSE_GPU_SEEN, "sm_90 Default 1 NVIDIA H200": checker/scripts/gpu-seen.sh),
 * where it can only be the device CUDA numbers 0: one GPU, none hidden. It spares the probe's child starting the
 * driver, about 0.1 s before the first test on an H200. */
static int gpu_seen_name(char *name, size_t size)
{
    const char *seen = getenv("COURSE_GPU_SEEN"), *visible = getenv("CUDA_VISIBLE_DEVICES");
    char arch[32], mode[32];
    int count = 0, used = 0;
    if (!seen || (visible && *visible) || sscanf(seen, "%31s %31s %d %n", arch, mode, &count, &used) < 3 ||
        count != 1 || !used || !seen[used])
        return 0;
    snprintf(name, size, "%s", seen + used);
    return 1;
}

const char *harness_backend(void)
{
    if (!backend_probed) {
        backend_probed = 1;
        char name[200];
        if (backend_is_emulator())
            snprintf(backend_label, sizeof backend_label, "%s", _("the emulator on CPU"));
        else if (gpu_seen_name(name, sizeof name))
            snprintf(backend_label, sizeof backend_label, _("the GPU (%s)"), name);
        else
            probe_gpu();
    }
    return backend_label[0] ? backend_label : NULL;
}

size_t harness_large_n(void)
{
    const char *env = getenv("LARGE_N");
    if (env && *env) return (size_t)strtoull(env, NULL, 10);
    return backend_is_emulator() ? (size_t)1 << 20 : (size_t)1 << 24;
}

static double test_timeout(void)
{
    const char *env = getenv("HARNESS_TIMEOUT");
    if (env && *env) return atof(env);
    return backend_is_emulator() ? 120.0 : 30.0;
}

/* ---- Output ---- */

static int use_colour;
static const char *paint(const char *code) { return use_colour ? code : ""; }
#define GREEN paint("\033[32m")
#define RED paint("\033[31m")
#define BOLD paint("\033[1m")
#define DIM paint("\033[2m")
#define RESET paint("\033[0m")

/* ---- Running ---- */

typedef struct options {
    const char *tap, *xml, *only;
    int summary, space;
    const char *results;     /* the GPU's suite on a GPU machine: each verdict to this file as it ends */
    const char *gpu_results; /* the emulator's suite there: the GPU's verdicts, for one report of both */
} options;

static options parse_options(int argc, char **argv)
{
    options o = {0};
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--tap") && i + 1 < argc) o.tap = argv[++i];
        else if (!strcmp(argv[i], "--xml") && i + 1 < argc) o.xml = argv[++i];
        else if (!strcmp(argv[i], "--only") && i + 1 < argc) o.only = argv[++i];
        else if (!strcmp(argv[i], "--summary")) o.summary = 1;
        else if (!strcmp(argv[i], "--space")) o.space = 1;
        else if (!strcmp(argv[i], "--results") && i + 1 < argc) o.results = argv[++i];
        else if (!strcmp(argv[i], "--gpu-results") && i + 1 < argc) o.gpu_results = argv[++i];
        else fprintf(stderr, "checker: ignoring unknown option %s\n", argv[i]);
    }
    return o;
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The suite's own temporary files, removed when it ends. Check's test processes are forked from the suite
 * and run its atexit handlers too: only the process that made the files removes them. */
static pid_t files_owner;
static char *files_made[4];
static int files_count;

static void forget_files_made(void)
{
    if (getpid() != files_owner) return;
    for (int i = 0; i < files_count; i++)
        if (files_made[i][0]) unlink(files_made[i]);
}

/* path (a buffer that lives as long as the suite) is removed when the suite ends. */
static void forget_at_exit(char *path)
{
    if (!files_owner) files_owner = getpid(), atexit(forget_files_made);
    if (files_count < (int)(sizeof files_made / sizeof *files_made)) files_made[files_count++] = path;
}

/* A fresh file "/tmp/harness-WHAT-XXXXXX" in path, removed when the suite ends; "" when none could be made. */
static void make_temp_file(char *path, size_t len, const char *what)
{
    snprintf(path, len, "/tmp/harness-%s-XXXXXX", what);
    int fd = mkstemp(path);
    if (fd < 0) { path[0] = '\0'; return; }
    close(fd);
    forget_at_exit(path);
}

/* A test that cannot run here writes why to this file (harness_not_run, in the test's process); its runner
 * reads it after the test. */
static char not_run_file[64];

void harness_not_run(const char *why)
{
    FILE *f = not_run_file[0] ? fopen(not_run_file, "w") : NULL;
    if (f) fputs(why, f), fclose(f);
}

/* Where ubsan_quiet.c (a GPU's suite) leaves a file when the learner's host code hit undefined behaviour. */
static char host_ub_file[sizeof not_run_file + 8];

/* Before a test: the not-run file made empty, the undefined-behaviour file gone. */
static void not_run_reset(void)
{
    if (!not_run_file[0]) {
        make_temp_file(not_run_file, sizeof not_run_file, "not-run");
        if (!not_run_file[0]) return;
        snprintf(host_ub_file, sizeof host_ub_file, "%s.ub", not_run_file);
        setenv("HARNESS_HOST_UB_FILE", host_ub_file, 1);
        forget_at_exit(host_ub_file);
    }
    if (truncate(not_run_file, 0) != 0) not_run_file[0] = '\0';
    unlink(host_ub_file);
}

/* Afterwards: what a test wrote to the not-run file (NULL when nothing). */
static char *not_run_reason(void)
{
    FILE *f = not_run_file[0] ? fopen(not_run_file, "r") : NULL;
    if (!f) return NULL;
    char why[600];
    size_t got = fread(why, 1, sizeof why - 1, f);
    fclose(f);
    why[got] = '\0';
    return got ? strdup(why) : NULL;
}

/* Runs one test in its own process (Check's fork mode, with the timeout) and returns what happened. Its place
 * in the suite (order) goes to the emulator: a kernel that never ended is "not run again" only in the tests
 * after the one that found it, also when that one ran ahead of them in a worker. in_place: in this process
 * instead (Check's no-fork mode, no timeout, the output not captured), for a GPU's batch worker
 * (harness_batch.c), whose caller keeps the time and runs again alone a test that does not pass. */
harness_result harness_run_one(const harness_test *t, int order, const char *suite_name, double timeout, int in_place)
{
    harness_result r = {.name = t->name};
    char place[16];
    snprintf(place, sizeof place, "%d", order);
    setenv("EMU_TEST_ORDER", place, 1);
    Suite *suite = suite_create(suite_name);
    TCase *tc = tcase_create(t->name);
    tcase_set_timeout(tc, timeout);
    /* In the test's process: its kernels' output is capped; afterwards, findings nobody explained fail it. */
    tcase_add_checked_fixture(tc, in_place ? NULL : harness_capture_output, harness_expect_no_pending_findings);
    _tcase_add_test(tc, t->fn, 0, 0, 0, 1);
    suite_add_tcase(suite, tc);
    SRunner *runner = srunner_create(suite);
    srunner_set_fork_status(runner, in_place ? CK_NOFORK : CK_FORK);
    not_run_reset();
    double start = now_seconds();
    srunner_run_all(runner, CK_SILENT);
    r.seconds = now_seconds() - start;
    TestResult **results = srunner_results(runner);
    if (srunner_ntests_run(runner) > 0) {
        TestResult *tr = results[0];
        r.outcome = tr_rtype(tr) == CK_PASS ? HARNESS_PASSED : tr_rtype(tr) == CK_FAILURE ? HARNESS_FAILED
                                                                                          : HARNESS_CRASHED;
        r.message = strdup(tr_msg(tr) ? tr_msg(tr) : "");
        r.file = tr_lfile(tr);
        r.line = tr_lno(tr);
    } else {
        r.outcome = HARNESS_CRASHED;
        r.message = strdup(_("The test could not be started."));
    }
    r.host_ub = host_ub_file[0] && access(host_ub_file, F_OK) == 0;
    char *why = r.outcome == HARNESS_PASSED ? not_run_reason() : NULL;
    if (why) free(r.message), r.outcome = HARNESS_NOT_RUN, r.message = why;
    /* Check's result owns the file name; keep a copy past srunner_free. */
    r.file = r.file ? strdup(r.file) : NULL;
    free(results);
    srunner_free(runner);
    return r;
}

/* ---- Tests run ahead, side by side ----
 * On the emulator a test is a CPU's work: while the report waits for one test, the next ones run in worker
 * processes, as many at once as the machine has cores (HARNESS_JOBS overrides it; make test, which runs
 * suites side by side itself, asks for 1). Each worker runs its test exactly as the runner would (run_one:
 * Check's fork, its timeout) and sends the result back through a pipe; the report still shows the tests in
 * their order, each line as soon as its test and those before it are done. */
typedef struct ahead {
    pid_t pid;   /* 0: not started */
    int fd;
} ahead;

static int jobs_wanted(void)
{
    const char *env = getenv("HARNESS_JOBS");
    long jobs = env && *env ? atol(env) : backend_is_emulator() ? sysconf(_SC_NPROCESSORS_ONLN) : 1;
    return jobs < 1 ? 1 : jobs > 16 ? 16 : (int)jobs;
}

void harness_worker_begin(void)
{
    /* The worker's own temporary files: made, and removed, by it. */
    files_owner = getpid(), files_count = 0, not_run_file[0] = host_ub_file[0] = '\0';
}

void harness_worker_end(void) { forget_files_made(); }

/* A result through a pipe, from a worker to the runner: a line of numbers (with the lengths of the two texts),
 * then the test's file and its message. */
int harness_result_send(int fd, const harness_result *r)
{
    const char *file = r->file ? r->file : "", *message = r->message ? r->message : "";
    char head[160];
    int len = snprintf(head, sizeof head, "%d %d %.6f %d %d %zu %zu\n", r->outcome, r->line, r->seconds, r->host_ub,
                       r->alone, strlen(file), strlen(message));
    return fd_write_all(fd, head, (size_t)len) || fd_write_all(fd, file, strlen(file)) ||
           fd_write_all(fd, message, strlen(message)) ? -1 : 0;
}

/* Reads one result from a worker's pipe; a worker that ended without one: "could not be started" (and the
 * caller knows the worker is gone). Returns 0 when a whole result came. */
int harness_result_receive(int fd, const char *name, harness_result *r)
{
    *r = (harness_result){.name = name, .outcome = HARNESS_CRASHED};
    char head[160];
    size_t len = 0, file_len = 0, message_len = 0;
    /* The numbers' line a byte at a time: the next result may follow it in the pipe. */
    while (len + 1 < sizeof head && read(fd, head + len, 1) == 1 && head[len] != '\n') len++;
    head[len] = '\0';
    char *file = NULL, *message = NULL;
    int whole = sscanf(head, "%d %d %lf %d %d %zu %zu", &r->outcome, &r->line, &r->seconds, &r->host_ub, &r->alone,
                       &file_len, &message_len) == 7 &&
                file_len < (1u << 20) && message_len < (1u << 24) && (file = malloc(file_len + 1)) &&
                (message = malloc(message_len + 1)) && !fd_read_all(fd, file, file_len) &&
                !fd_read_all(fd, message, message_len);
    if (whole) {
        file[file_len] = message[message_len] = '\0';
        r->file = file_len ? file : (free(file), NULL);
        r->message = message;
        return 0;
    }
    free(file), free(message);
    *r = (harness_result){.name = name, .outcome = HARNESS_CRASHED,
                          .message = strdup(_("The test could not be started."))};
    return -1;
}

static void start_ahead(ahead *a, const harness_test *t, int order, const char *suite_name, double timeout)
{
    int fds[2];
    if (pipe(fds) != 0) return;
    fflush(NULL);   /* the worker must not print what the runner has buffered */
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        harness_worker_begin();
        harness_result r = harness_run_one(t, order, suite_name, timeout, 0);
        harness_result_send(fds[1], &r);
        close(fds[1]);
        harness_worker_end();
        _exit(0);
    }
    close(fds[1]);
    if (pid < 0) { close(fds[0]); return; }
    a->pid = pid, a->fd = fds[0];
}

/* Waits for a worker's result. */
static harness_result finish_ahead(ahead *a, const char *name)
{
    harness_result r;
    harness_result_receive(a->fd, name, &r);
    close(a->fd);
    waitpid(a->pid, NULL, 0);
    a->pid = 0;
    return r;
}

/* Whether the GPU's tests run in batch workers (harness_batch.c): in a learner's grade on a GPU, the run whose
 * verdicts the emulator's report shows (its own output is not shown, so the kernels' output goes uncapped).
 * HARNESS_BATCH=0 never; =1 on any backend (make test checks the workers on the emulator that way). */
static int batch_wanted(const options *opt, int jobs)
{
    const char *env = getenv("HARNESS_BATCH");
    if (env && *env) return *env == '1';
    return jobs > 1 && opt->results && !backend_is_emulator();
}

/* Why a test does not run on this backend, or NULL when it does. */
static const char *not_run_because(const harness_test *t, const char *backend)
{
    if (t->needs != NEEDS_NOTHING && !backend) return _("skipped: no device");
    if (t->needs == NEEDS_GPU && backend_is_emulator()) return _("GPU only: more than the emulator holds");
    if (t->needs == NEEDS_EMULATOR && !backend_is_emulator()) return _("graded by the emulator");
    return NULL;
}

/* Whether --only (when given) selects the test, by its name in English or in the learner's language. */
static int selected(const options *opt, const harness_test *t)
{
    return !opt->only || strstr(t->name, opt->only) || strstr(_(t->name), opt->only);
}

/* Whether a test may run before its turn, in a worker: it runs on this backend, and it does not wait for the
 * GPU's verdict. */
static int may_run_ahead(const options *opt, const harness_test *t, const char *backend)
{
    return selected(opt, t) && !not_run_because(t, backend) && t->needs != NEEDS_DEVICE_GPU_FIRST;
}

/* squeeze: TEXT's runs of spaces (and, with lines, of line breaks too) made one space, written to OUT (as
 * long as TEXT); with lines, the lines that begin with a passing test's "  ✓" are left out. As make test
 * compares a report with the texts a corpus entry expects (selftest.sh's judge). */
static void squeeze(const char *text, size_t len, int lines, char *out)
{
    size_t n = 0;
    for (size_t i = 0; i < len;) {
        size_t end = i;
        while (end < len && (!lines || text[end] != '\n')) end++;
        if (!lines || end - i < 5 || memcmp(text + i, "  \xe2\x9c\x93", 5) != 0)
            for (size_t k = i; k <= end && k < len; k++) {
                char c = text[k] == '\n' ? ' ' : text[k];
                if (c != ' ' || n == 0 || out[n - 1] != ' ') out[n++] = c;
            }
        i = end + 1;
    }
    out[n] = '\0';
}

/* make test's run of a kernel it expects to fail (HARNESS_STOP_AT_FAILURE) goes on after a failure until what
 * it printed holds every text of HARNESS_STOP_WHEN_SAID (the texts a corpus entry expects, separated by the unit
 * separator 0x1f), where a run that stopped at the first failure would have to be made again whole. Without that
 * variable the first failure is enough; a report that cannot be read back (not a file) runs to its end. */
static int all_said(void)
{
    const char *texts = getenv("HARNESS_STOP_WHEN_SAID");
    if (!texts || !*texts) return 1;
    fflush(stdout);
    int fd = open("/proc/self/fd/1", O_RDONLY);
    struct stat st;
    if (fd < 0) return 0;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return close(fd), 0;
    size_t len = (size_t)st.st_size;
    char *report = malloc(len + 1), *flat = malloc(len + 1), *want = malloc(strlen(texts) + 1);
    int said = report && flat && want && pread(fd, report, len, 0) == (ssize_t)len;
    close(fd);
    if (said) squeeze(report, len, 1, flat);
    for (const char *t = texts; said && *t;) {
        size_t n = strcspn(t, "\x1f");
        squeeze(t, n, 0, want);
        said = !*want || strstr(flat, want) != NULL;
        t += n + (t[n] != '\0');
    }
    free(report), free(flat), free(want);
    return said;
}

/* Whether a test's process was stopped at the timeout (Check's words, and harness_batch.c's). */
static int expired(const harness_result *r)
{
    return r->outcome == HARNESS_CRASHED && r->message && strstr(r->message, "timeout expired") != NULL;
}

/* At a terminal, a test whose GPU verdict is not in yet is named as waiting for it until its line comes. */
static void say_waiting_for_gpu(gpu_verdicts *gpu, const char *key, const char *name, int tty)
{
    if (tty && !gpu_verdicts_has(gpu, key))
        printf("  %s… %s (%s)%s\r", DIM, name, _("waiting for the GPU's verdict"), RESET), fflush(stdout);
}

/* Whether the GPU's run passed a test cleanly (waiting for its verdict). */
static int gpu_passed(gpu_verdicts *gpu, const char *key, const char *name, int tty)
{
    say_waiting_for_gpu(gpu, key, name, tty);
    const harness_result *verdict = gpu_verdicts_peek(gpu, key);   /* its line's wait counts a missing one */
    return verdict && verdict->outcome == HARNESS_PASSED && !verdict->host_ub;
}

/* A kernel that spends its instruction budget in one test is stopped at once in the later ones (the
 * emulator reads this file, see emu_diag_endless_known): a kernel that never ends costs seconds, once. */
static char endless_file[64];

static void remember_endless_kernels(void)
{
    make_temp_file(endless_file, sizeof endless_file, "endless");
    if (endless_file[0]) setenv("EMU_ENDLESS_FILE", endless_file, 1);
}

/* "Running on BACKEND with seed S (SEED=S make exNN replays this run)." */
static void say_running(const char *on, uint64_t seed, const char *number)
{
    /* A GPU's name can make this longer than the terminal's 100 columns: then the replay goes below. */
    char line[900];
    snprintf(line, sizeof line, _("Running on %s with seed %" PRIu64 " (SEED=%" PRIu64 " make ex%s replays this run)."),
             on, seed, seed, number);
    if (text_width(line, strlen(line)) <= 100) printf("%s\n", line);
    else printf(_("Running on %s with seed %" PRIu64 "\n(SEED=%" PRIu64 " make ex%s replays this run).\n"),
                on, seed, seed, number);
}

/* The same for one report of both backends: waits for the GPU's run to name its GPU (the first test of
 * the emulator's has run meanwhile). Returns the GPU's label, NULL when it has none. */
static const char *say_running_both(gpu_verdicts *gpu, const char *emulator, uint64_t seed, const char *number)
{
    int started;
    const char *label = gpu_verdicts_backend(gpu, &started);
    char both[700];
    /* TRANSLATORS: the two backends a grade runs on: "the GPU (NVIDIA H100 80GB HBM3)", "the emulator on
       CPU". */
    if (label) snprintf(both, sizeof both, _("%s and %s"), label, emulator);
    say_running(label ? both : emulator, seed, number);
    if (started && !label) printf("%s\n", _("No GPU could run kernels here: every verdict is the emulator's."));
    printf("\n");
    return label;
}

int harness_run(const harness_exercise *ex, int argc, char **argv)
{
    course_i18n_init();   /* before anything is said, and before the tests' processes are forked */
    /* Check cuts a failure's message at 4 KiB; one with two findings in Chinese (3 bytes a character) can
     * come near that. */
    check_set_max_msg_size(64 * 1024);
    options opt = parse_options(argc, argv);
    /* A warm process that the GPU's runner made one of its batch workers (harness_batch.c): the runner's
     * arguments, set up as the runner is, then the worker's loop on the pipes it names; the runner writes the
     * files. */
    int from_runner = -1, to_runner = -1;
    const char *warm = getenv("HARNESS_WARM_WORKER"), *fds = getenv("WARM_FDS");
    if (warm && fds && sscanf(fds, "%d,%d", &from_runner, &to_runner) == 2) {
        unsetenv("HARNESS_WARM_WORKER"), unsetenv("WARM_FDS");
        opt = (options){0};
    }
    if (opt.space) {   /* make test's line of what each suite tries */
        harness_cover c = {0};
        if (ex->space) harness_cover_build(ex->space, &c);
        printf("dimensions=%d values=%d cases=%zu\n", c.dims, harness_cover_values(&c), c.cases);
        harness_cover_free(&c);
        return 0;
    }
    const char *no_colour = getenv("NO_COLOR"), *colour = getenv("COURSE_COLOR");
    /* COURSE_COLOR=1: the report goes to a file that a terminal shows later. */
    int tty = isatty(STDOUT_FILENO) || (colour && !strcmp(colour, "1"));
    use_colour = tty && !(no_colour && *no_colour);
    uint64_t seed = harness_seed();
    /* (A warm worker reports nothing, and must not probe the GPU: a process forked from one that holds a CUDA
     * context may not use CUDA.) */
    const char *backend = from_runner >= 0 ? "" : harness_backend();
    backend_load_kernels();
    double timeout = test_timeout();
    /* On a GPU machine: the GPU's run writes its verdicts, the emulator's prints one report of both. */
    if (opt.results) merge_results_start(opt.results, backend, timeout);
    gpu_verdicts *gpu = opt.gpu_results && backend_is_emulator() ? gpu_verdicts_open(opt.gpu_results, 30) : NULL;
    const char *gpu_label = NULL;

    printf(_("%sExercise %s: %s%s\n"), BOLD, ex->number, _(ex->title), RESET);
    if (gpu)
        ;   /* said before the first test's line, once the GPU's run has named its GPU */
    else if (backend)
        say_running(backend, seed, ex->number), printf("\n");
    else
        printf("%s", _("No GPU was found and this build of the checker has no emulator, so the tests that run\n"
                       "kernels are skipped; only the tests that need no device run.\n\n"));
    fflush(stdout);

    /* The harness reports the emulator's findings in the failing test's message, not on stderr. */
    setenv("EMU_QUIET", "1", 0);
    if (backend_is_emulator()) {
        /* A kernel that never returns fails its test in seconds, not at the timeout: the emulator gives up
         * after 16 warp instructions per element of the large input (the slowest reference, v1, needs 6). */
        if (!getenv("EMU_BUDGET")) {
            char budget[32];
            size_t large = harness_large_n();
            snprintf(budget, sizeof budget, "%zu", 16 * (large > ((size_t)1 << 20) ? large : (size_t)1 << 20));
            setenv("EMU_BUDGET", budget, 0);
        }
        if (from_runner < 0) remember_endless_kernels();   /* a worker's: the runner's */
    }
    harness_capture_names(ex->tests);
    report_begin(use_colour);

    int count = 0, listed_ahead = 0;
    for (const harness_test *t = ex->tests; t->name; t++) {
        count++;
        listed_ahead += selected(&opt, t) &&
                        (gpu || !not_run_because(t, backend));   /* the tests report_test will show */
    }
    /* A warm worker: the runner's tests, one after another (never returns). */
    if (from_runner >= 0) harness_batch_serve(ex->tests, count, ex->number, timeout, from_runner, to_runner);
    report_expect_tests(listed_ahead);
    harness_result *results = calloc((size_t)count + 1, sizeof *results);
    if (!results) return 2;
    int ran = 0, failed = 0, skipped = 0, all_unwritten = 1, listed = 0, timed_out = 0, header_due = gpu != NULL;
    double start = now_seconds();
    /* make test's look at a kernel it expects to fail: the first failure after which the report holds what the
     * corpus entry expects (all_said) is enough. Never set for a learner. */
    const char *stop_env = getenv("HARNESS_STOP_AT_FAILURE");
    int stop_at_failure = stop_env && *stop_env == '1';
    ahead *workers = calloc((size_t)count + 1, sizeof *workers);
    if (!workers) return 2;
    int jobs = stop_at_failure ? 1 : jobs_wanted(), next_ahead = 0;
    /* Batch workers: 4 at most, since their contexts too are created one after another. */
    harness_batch *batch = !stop_at_failure && batch_wanted(&opt, jobs)
                               ? harness_batch_open(ex->tests, count, jobs < 4 ? jobs : 4, ex->number, timeout, argv)
                               : NULL;
    for (int i = 0; batch && i < count; i++)
        if (may_run_ahead(&opt, &ex->tests[i], backend)) harness_batch_queue(batch, i);
    for (const harness_test *t = ex->tests; t->name; t++) {
        if (stop_at_failure && failed && all_said()) break;
        /* Keep `jobs` tests running: this one (when it runs here) and the next ones. */
        int running = 0;
        for (int i = (int)(t - ex->tests); i < count; i++) running += workers[i].pid > 0;
        if (next_ahead <= t - ex->tests) next_ahead = (int)(t - ex->tests);
        for (; !batch && jobs > 1 && running < jobs && next_ahead < count; next_ahead++) {
            const harness_test *u = &ex->tests[next_ahead];
            if (!may_run_ahead(&opt, u, backend) || timed_out) continue;
            start_ahead(&workers[next_ahead], u, next_ahead, ex->number, timeout);
            running += workers[next_ahead].pid > 0;
        }
        ahead *mine = &workers[t - ex->tests];
        /* The test's name in the learner's language (--only finds it by either). */
        const char *name = _(t->name);
        if (!selected(&opt, t)) continue;
        harness_result *r = &results[listed++];
        const char *why = not_run_because(t, backend);
        if (why) {
            *r = (harness_result){.name = name, .outcome = HARNESS_NOT_RUN, .message = strdup(why)};
            skipped += t->needs != NEEDS_NOTHING && !backend;
        } else if (mine->pid > 0) {   /* it ran ahead */
            if (tty) printf("  %s… %s%s\r", DIM, name, RESET), fflush(stdout);
            *r = finish_ahead(mine, name);
            timed_out |= expired(r);
        } else if (harness_batch_has(batch, (int)(t - ex->tests))) {
            if (tty) printf("  %s… %s%s\r", DIM, name, RESET), fflush(stdout);
            *r = harness_batch_take(batch, (int)(t - ex->tests), name);
            /* A failure that was its worker's first test, and printed nothing, already is that verdict. */
            int alone = r->outcome == HARNESS_FAILED && r->alone && !r->host_ub;
            if (!expired(r) && !alone && (r->outcome != HARNESS_PASSED || r->host_ub)) {
                /* Its verdict is the one it gets alone, in its own process. */
                free(r->message), free((char *)r->file);
                *r = harness_run_one(t, (int)(t - ex->tests), ex->number, timeout, 0);
                r->name = name;
            }
            if (expired(r)) timed_out = 1, harness_batch_drop_queued(batch);
        } else if (timed_out && t->needs != NEEDS_NOTHING) {
            /* After a test that never finished, the later ones that run kernels would wait as long: one line
             * each says so (on the emulator, a kernel that never ends is usually stopped before that). */
            char why[600];
            snprintf(why, sizeof why, _("Not run: an earlier test did not finish within %.0f seconds, and this "
                                        "one would wait as long."),
                     timeout);
            *r = (harness_result){.name = name, .outcome = HARNESS_FAILED, .message = strdup(why)};
        } else if (gpu && t->needs == NEEDS_DEVICE_GPU_FIRST && gpu_passed(gpu, t->name, name, tty)) {
            *r = (harness_result){.name = name, .outcome = HARNESS_NOT_RUN,
                                  .message = strdup(_("passed on the GPU, so the emulator did not run it"))};
        } else {
            /* At a terminal, the test that is running is named until its line replaces it. */
            if (tty) printf("  %s… %s%s\r", DIM, name, RESET), fflush(stdout);
            *r = harness_run_one(t, (int)(t - ex->tests), ex->number, timeout, 0);
            r->name = name;
            timed_out |= expired(r);
        }
        if (opt.results) merge_results_add(t->name, r);
        if (header_due) {
            header_due = 0;
            if (tty) printf("\033[K");
            gpu_label = say_running_both(gpu, backend, seed, ex->number);
        }
        int outcome = r->outcome;
        const char *shown = r->message;
        if (gpu) {
            /* Its line waits for the GPU's verdict, which is usually in: the GPU's tests are quick. */
            say_waiting_for_gpu(gpu, t->name, name, tty);
            if (tty) printf("\033[K");
            merged_test m = merge_report_test(gpu, t->name, name, r, timeout, GREEN, RED, RESET);
            outcome = m.outcome, shown = m.message;
        } else {
            if (tty) printf("\033[K");
            report_test_tagged(name, outcome == HARNESS_NOT_RUN ? shown : NULL, outcome, shown, timeout, GREEN, RED,
                               RESET);
        }
        fflush(stdout);
        if (outcome == HARNESS_NOT_RUN) continue;
        ran++;
        if (outcome != HARNESS_PASSED) {
            failed++;
            /* Untouched: every failure is an output never written, and the emulator saw nothing. */
            if ((!strstr(shown, "poison") && !strstr(shown, P_("poison"))) || strstr(shown, "finding: kind="))
                all_unwritten = 0;
        }
    }
    for (int i = 0; i < count; i++)   /* tests that ran ahead of a first failure make test stopped at */
        if (workers[i].pid > 0) {
            harness_result dropped = finish_ahead(&workers[i], NULL);
            free(dropped.message), free((char *)dropped.file);
        }
    free(workers);
    harness_batch_close(batch);
    if (gpu) gpu_verdicts_finish(gpu);
    if (opt.tap) harness_write_tap(opt.tap, results, listed);
    if (opt.xml) harness_write_xml(opt.xml, ex->number, results, listed, now_seconds() - start);
    if (opt.results) merge_results_end();   /* after the files: the emulator's side then knows they are in */
    printf("\n");
    int passed = ran - failed, missing = gpu ? merge_report_missing(gpu) : 0;
    char lesson[512];
    if (ran == 0)
        printf(_("No test of exercise %s could run here.\n"), ex->number);
    else if (failed == 0 && missing)
        printf(_("No test failed, but without all of the GPU's verdicts the exercise is not done: run `make ex%s` "
                 "again.\n"),
               ex->number);
    else if (failed == 0 && gpu_label)
        printf(_("%sAll %d tests pass on the GPU and on the emulator: exercise %s is done.%s\n"), GREEN, passed,
               ex->number, RESET);
    else if (failed == 0)
        printf(_("%sAll %d tests pass: exercise %s is done.%s\n"), GREEN, passed, ex->number, RESET);
    else if (passed == 0 && all_unwritten)
        printf(_("0 of %d tests pass yet. The lesson is %s.\n"), ran,
               course_lesson_path(ex->lesson, lesson, sizeof lesson));
    else if (passed == 0)   /* its own sentence: "0 of 6 pass" reads as a count, not as a verdict, in Chinese */
        printf(_("None of the %d tests passes. Fix the first %s✗%s above, then run `make ex%s` again.\n"), ran, RED,
               RESET, ex->number);
    else
        printf(_("%d of %d tests pass. Fix the first %s✗%s above, then run `make ex%s` again.\n"), passed, ran,
               RED, RESET, ex->number);
    if (skipped)
        printf(_n("%d test was skipped because no device could run kernels.\n",
                  "%d tests were skipped because no device could run kernels.\n", (unsigned long)skipped),
               skipped);
    if (opt.summary)
        printf("RESULT passed=%d failed=%d skipped=%d\n", passed, failed, skipped);
    fflush(stdout);
    gpu_verdicts_close(gpu);
    for (int i = 0; i < listed; i++) {
        free(results[i].message);
        free((char *)results[i].file);
    }
    free(results);
    if (failed || missing) return 1;
    return skipped ? 2 : 0;
}
