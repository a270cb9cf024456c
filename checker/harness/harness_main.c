/* harness_main.c - the runner: one Check test case per behaviour, fork mode with a timeout each, and the
 * learner's report (one line per test, then what to do next). */
#include "harness.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
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
            snprintf(line, sizeof line, "the GPU (%s)", prop.name);
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

const char *harness_backend(void)
{
    if (!backend_probed) {
        backend_probed = 1;
        if (backend_is_emulator())
            snprintf(backend_label, sizeof backend_label, "the emulator on CPU");
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

/* Check's own words for a crash or a timeout, turned into sentences about the learner's code. */
static void print_error_message(const char *msg, double timeout)
{
    int sig = 0;
    if (strstr(msg, "timeout expired")) {
        printf("      The test did not finish within %.0f seconds: look for a loop whose condition never\n"
               "      changes, or a __syncthreads() that not every thread of the block reaches.\n", timeout);
    } else if (sscanf(msg, "Received signal %d", &sig) == 1) {
        printf("      The test program crashed (%s) while running your code.\n"
               "      Host code that dereferences a device pointer, or writes past a host array, does this.\n",
               strchr(msg, '(') ? strchr(msg, '(') : msg);
    } else if (strstr(msg, "Early exit")) {
        printf("      The test program exited in the middle of the test (%s).\n"
               "      Does your code call exit(), or abort on an error?\n", msg);
    } else {
        printf("      %s\n", msg);
    }
}

/* Prints one line of a message, indented, broken at spaces so that it fits in 100 columns. A label
 * ("Hint:") starts the first line, in bold; the lines after it are indented past it. */
static void print_wrapped(const char *label, const char *text, int len)
{
    int indent = label ? (int)strlen(label) + 1 : 0, width = 92 - indent;
    int first = 1;
    while (len > 0) {
        int cut = len;
        if (len > width) {
            cut = width;
            while (cut > 20 && text[cut] != ' ') cut--;
            if (text[cut] != ' ') cut = width;
        }
        if (first && label) printf("      %s%s%s %.*s\n", BOLD, label, RESET, cut, text);
        else printf("      %*s%.*s\n", indent, "", cut, text);
        first = 0;
        text += cut;
        len -= cut;
        while (len > 0 && *text == ' ') text++, len--;
    }
}

/* 1 if this hint was printed earlier in the report (then it is not repeated word for word). */
static int hint_seen_before(const char *hint, int len)
{
    static char *seen[64];
    static int count;
    for (int i = 0; i < count; i++)
        if ((int)strlen(seen[i]) == len && strncmp(seen[i], hint, (size_t)len) == 0) return 1;
    if (count < 64) seen[count++] = strndup(hint, (size_t)len);
    return 0;
}

static void print_failure_message(const char *msg)
{
    const char *line = msg;
    while (line && *line) {
        const char *end = strchr(line, '\n');
        int len = end ? (int)(end - line) : (int)strlen(line);
        if (strncmp(line, "Hint: ", 6) == 0 && hint_seen_before(line + 6, len - 6))
            print_wrapped("Hint:", "the same question as above.", 27);
        else if (strncmp(line, "Hint: ", 6) == 0) print_wrapped("Hint:", line + 6, len - 6);
        else print_wrapped(NULL, line, len);
        line = end ? end + 1 : NULL;
    }
}

/* ---- Running ---- */

typedef struct options {
    const char *tap, *xml, *only;
    int summary;
    int second_opinion; /* the emulator after a GPU run: only what the GPU could not show */
} options;

static options parse_options(int argc, char **argv)
{
    options o = {0};
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--tap") && i + 1 < argc) o.tap = argv[++i];
        else if (!strcmp(argv[i], "--xml") && i + 1 < argc) o.xml = argv[++i];
        else if (!strcmp(argv[i], "--only") && i + 1 < argc) o.only = argv[++i];
        else if (!strcmp(argv[i], "--summary")) o.summary = 1;
        else if (!strcmp(argv[i], "--second-opinion")) o.second_opinion = 1;
        else fprintf(stderr, "checker: ignoring unknown option %s\n", argv[i]);
    }
    return o;
}

/* What the test of this name needs (tests are reported by their names). */
static enum harness_needs needs_of(const harness_exercise *ex, const char *name)
{
    for (const harness_test *t = ex->tests; t->name; t++)
        if (!strcmp(t->name, name)) return t->needs;
    return NEEDS_DEVICE;
}

int harness_run(const harness_exercise *ex, int argc, char **argv)
{
    options opt = parse_options(argc, argv);
    const char *no_colour = getenv("NO_COLOR");
    use_colour = isatty(STDOUT_FILENO) && !(no_colour && *no_colour);
    uint64_t seed = harness_seed();
    const char *backend = harness_backend();
    double timeout = test_timeout();

    if (!opt.second_opinion) printf("%sExercise %s: %s%s\n", BOLD, ex->number, ex->title, RESET);
    if (backend && opt.second_opinion)
        printf("Running on %s with seed %" PRIu64 ".\n", backend, seed);
    else if (backend)
        printf("Running on %s with seed %" PRIu64 " (SEED=%" PRIu64 " make ex%s replays this run).\n\n",
               backend, seed, seed, ex->number);
    else
        printf("No GPU was found and this build of the checker has no emulator, so the tests that run\n"
               "kernels are skipped; only the tests that need no device run.\n\n");

    Suite *suite = suite_create(ex->number);
    harness_capture_names(ex->tests);
    int skipped = 0, planned = 0;
    for (const harness_test *t = ex->tests; t->name; t++) {
        if (opt.only && !strstr(t->name, opt.only)) continue;
        if (t->needs != NEEDS_NOTHING && !backend) {
            printf("  %s-%s %s %s(skipped: no device)%s\n", DIM, RESET, t->name, DIM, RESET);
            skipped++;
            continue;
        }
        if (t->needs == NEEDS_GPU && backend_is_emulator()) {
            printf("  %s-%s %s %s(run on a GPU only: it needs more than the emulator can hold)%s\n", DIM, RESET,
                   t->name, DIM, RESET);
            continue;
        }
        if (t->needs == NEEDS_EMULATOR && !backend_is_emulator()) {
            printf("  %s-%s %s %s(graded by the emulator's metrics: the emulator run below checks it)%s\n",
                   DIM, RESET, t->name, DIM, RESET);
            continue;
        }
        TCase *tc = tcase_create(t->name);
        tcase_set_timeout(tc, timeout);
        tcase_add_checked_fixture(tc, harness_capture_output, NULL); /* in the test's process */
        _tcase_add_test(tc, t->fn, 0, 0, 0, 1);
        suite_add_tcase(suite, tc);
        planned++;
    }
    fflush(stdout);

    /* The harness reports the emulator's findings in the failing test's message, not on stderr. */
    setenv("EMU_QUIET", "1", 0);
    /* A kernel that never returns fails its test in seconds, not at the timeout: the emulator gives up
     * after 16 warp instructions per element of the large input (the slowest reference, v1, needs 6). */
    if (backend_is_emulator() && !getenv("EMU_BUDGET")) {
        char budget[32];
        size_t large = harness_large_n();
        snprintf(budget, sizeof budget, "%zu", 16 * (large > ((size_t)1 << 20) ? large : (size_t)1 << 20));
        setenv("EMU_BUDGET", budget, 0);
    }
    SRunner *runner = srunner_create(suite);
    srunner_set_fork_status(runner, CK_FORK);
    if (opt.tap) srunner_set_tap(runner, opt.tap);
    if (opt.xml) srunner_set_xml(runner, opt.xml);
    srunner_run_all(runner, CK_SILENT);
    fflush(stdout);

    int ran = srunner_ntests_run(runner), failed = srunner_ntests_failed(runner);
    int agreed = 0, all_unwritten = 1;
    TestResult **results = srunner_results(runner);
    for (int i = 0; i < ran; i++) {
        TestResult *r = results[i];
        if (tr_rtype(r) == CK_PASS) {
            if (opt.second_opinion && needs_of(ex, tr_tcname(r)) != NEEDS_EMULATOR) agreed++;
            else printf("  %s✓%s %s\n", GREEN, RESET, tr_tcname(r));
            continue;
        }
        if (!strstr(tr_msg(r), "poison")) all_unwritten = 0;
        printf("  %s✗ %s%s\n", RED, tr_tcname(r), RESET);
        if (tr_rtype(r) == CK_ERROR) print_error_message(tr_msg(r), timeout);
        else print_failure_message(tr_msg(r));
    }
    free(results);
    srunner_free(runner);

    int passed = ran - failed;
    if (agreed == ran)
        printf("  %s✓%s All %d tests pass here too.\n", GREEN, RESET, agreed);
    else if (agreed)
        printf("  %s✓%s The %d other test%s pass%s here too.\n", GREEN, RESET, agreed, agreed == 1 ? "" : "s",
               agreed == 1 ? "es" : "");
    printf("\n");
    if (planned == 0)
        printf("No test of exercise %s could run here.\n", ex->number);
    else if (failed == 0)
        printf("%sAll %d tests pass: exercise %s is done.%s\n", GREEN, passed, ex->number, RESET);
    else if (passed == 0 && all_unwritten)
        printf("0 of %d tests pass: exercise %s is not done yet. Read %s and start at TODO 1.\n",
               ran, ex->number, ex->lesson);
    else
        printf("%d of %d tests pass. Fix the first %s✗%s above, then run `make ex%s` again.\n", passed, ran,
               RED, RESET, ex->number);
    if (skipped)
        printf("%d test%s skipped because no device could run kernels.\n", skipped, skipped == 1 ? " was" : "s were");
    if (opt.summary)
        printf("RESULT passed=%d failed=%d skipped=%d\n", passed, failed, skipped);
    fflush(stdout);
    if (failed) return 1;
    return skipped ? 2 : 0;
}
