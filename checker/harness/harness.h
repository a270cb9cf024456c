/* harness.h - what every hidden test suite uses: seeded inputs, guarded device buffers, checked CUDA calls,
 * the learner-facing failure messages and the runner that prints one line per test. */
#ifndef HARNESS_H
#define HARNESS_H

#include <check.h>
#include <cuda_runtime_api.h>
#include "../emu/emu.h"
#include "../i18n/i18n.h"
#include <stddef.h>
#include <stdint.h>

/* ---- Checked CUDA calls -------------------------------------------------------------------------- */

/* Fails the current test if expr is not cudaSuccess, naming the expression, the file and the line. */
#define CUDA_OK(expr) harness_cuda_ok((expr), #expr, __FILE__, __LINE__)
void harness_cuda_ok(cudaError_t err, const char *expr, const char *file, int line);

/* After the learner's launcher returns: checks the launch (cudaGetLastError), then synchronises and
 * checks the run, then asks the backend for findings (the emulator's race and bounds diagnostics).
 * Any of them fails the test with a message that names what was launched (`what`). */
void harness_after_launch(const char *what);

/* ---- Inputs ---------------------------------------------------------------------------------------- */

/* The run's seed: SEED from the environment, else fresh; printed by the runner so a run can be replayed. */
uint64_t harness_seed(void);

/* Deterministic per (seed, salt): the same test draws the same data when replayed. */
void harness_random_ints(int *out, size_t n, int lo, int hi, uint64_t salt);
void harness_random_floats(float *out, size_t n, float lo, float hi, uint64_t salt);

/* The value range for n ints whose sum (and every partial sum) fits in an int with room to spare. */
int harness_safe_int_range(size_t n);

/* The "large" size for this backend: big on a GPU, smaller on the emulator so a test stays quick. */
size_t harness_large_n(void);

/* ---- Guarded device buffers -------------------------------------------------------------------------- */

#define HARNESS_GUARD_INT 1000003      /* sits around every int input: reading it changes a sum visibly */
#define HARNESS_POISON_INT ((int)0xDEADBEEF) /* fills every output before a run: "never written" */
#define HARNESS_GUARD_ELEMS 4096       /* guard elements on each side: more than two blocks of 1024 */

typedef struct dev_buffer {
    unsigned char *d_base;   /* the whole allocation, guards included */
    unsigned char *h_image;  /* what the whole allocation must hold after a run that only reads it */
    size_t count, elem_size; /* the learner's part: count elements of elem_size bytes */
    size_t guard_bytes;      /* on each side */
    size_t offset_bytes;     /* extra shift of the learner's pointer (to test misaligned inputs) */
} dev_buffer;

/* Where the learner's part starts on the device. */
void *dev_ptr(const dev_buffer *b);

/* An input: host data copied between guards (each guard element holds guard_value of elem_size bytes). */
dev_buffer dev_input(const void *h_data, size_t count, size_t elem_size, const void *guard_value,
                     size_t offset_bytes);
/* An output of count elements, poisoned (poison_value) along with its guards; _at: its start offset_bytes
 * past an aligned address (to test misaligned outputs). */
dev_buffer dev_output(size_t count, size_t elem_size, const void *poison_value);
dev_buffer dev_output_at(size_t count, size_t elem_size, const void *poison_value, size_t offset_bytes);
/* Copies the learner's part back to host memory. */
void dev_fetch(const dev_buffer *b, void *h_out);
/* cudaMemcpy of bytes from the host to d, landed on the device when it returns (on a GPU too). */
void harness_copy_in(void *d, const void *h, size_t bytes);
/* Names the buffer in the emulator's findings ("d_a"); dev_input calls it "d_in", dev_output "d_out". */
void dev_name(dev_buffer *b, const char *name);
/* Fails the test if the input (or its guards) changed. */
void dev_expect_unchanged(const dev_buffer *b, const char *what);
/* Fails the test if anything outside the learner's part of an output changed. */
void dev_expect_guards_intact(const dev_buffer *b, const char *what);
/* Whether anything outside the learner's part changed: 0 when not, else -1 (before the array) or 1 (past its
 * end), with the first such element's index relative to the learner's pointer in *element (negative before). */
int dev_guard_written(const dev_buffer *b, long *element);
void dev_free(dev_buffer *b);

static inline dev_buffer dev_input_ints(const int *h, size_t n) {
    int guard = HARNESS_GUARD_INT;
    return dev_input(h, n, sizeof(int), &guard, 0);
}
static inline dev_buffer dev_output_ints(size_t n) {
    int poison = HARNESS_POISON_INT;
    return dev_output(n, sizeof(int), &poison);
}

/* ---- Expectations with explanations --------------------------------------------------------------- */

/* Describes how an int result differs from the expected one, as a sentence fragment: the poison value,
 * a whole number of guard values (elements read past the end), or a plain difference (then it returns 0);
 * records the evidence. */
int harness_explain_int(int expected, int actual, char *buf, size_t len);
/* The same for the sum of h[0..n), which says instead of a plain difference which elements the result
 * holds when it is one of the usual subsets (harness_explain_subset); 0 for a plain difference. */
int harness_explain_total(const int *h, size_t n, int expected, int actual, char *buf, size_t len);

/* How many of an element's low bytes were written over the poison while the others still hold it: a
 * cudaMemset or cudaMemcpy of fewer bytes than the element (cudaMemset(d_out, 0, 1) leaves an int's
 * 0xDEADBEEF as 0xDEADBE00). 0 when value (size bytes, little-endian as the GPU stores it) is not the poison
 * partly overwritten. Where only one byte of the poison is left, the written bytes must be one memset's: all
 * the same, and not 0xFF (a GPU's NaN, 0x7FFF, would otherwise pass for a half's). */
int harness_poison_bytes_written(uint64_t value, uint64_t poison, size_t size);
/* Describes a value that harness_poison_bytes_written says is the poison partly overwritten (written of its
 * size bytes), as a sentence fragment, and records the evidence "poison-partial bytes=K of=S". */
void harness_explain_partial_poison(uint64_t value, uint64_t poison, size_t size, int written, char *buf,
                                    size_t len);
/* The question for such an output: how many bytes the memset or copy covers (translated). */
const char *harness_partial_poison_hint(void);

/* Fails the test with a message in the course's shape: what went wrong, then a hint. */
#define harness_fail(hint, ...) harness_fail_at(__FILE__, __LINE__, (hint), __VA_ARGS__)
void harness_fail_at(const char *file, int line, const char *hint, const char *fmt, ...)
    __attribute__((format(printf, 4, 5), noreturn));

/* Fails the test when the emulator saw a kernel touch the guards around an array and no check has said
 * so yet (the results were right anyway). Run after every test. */
void harness_expect_no_pending_findings(void);
/* 1 when a result off by guard values may be blamed on reads outside [0, n): on the emulator only after
 * it saw one (its finding then says where), on a GPU whenever the numbers fit. */
int harness_guard_read_seen(void);

/* Sums of int ranges, in 64 bits so the reference itself cannot overflow. */
int64_t harness_sum_ints(const int *h, size_t from, size_t to);

/* ---- The runner ------------------------------------------------------------------------------------ */

/* What a test needs in order to run. */
enum harness_needs {
    NEEDS_NOTHING = 0,
    NEEDS_DEVICE = 1,    /* a GPU or the emulator */
    NEEDS_EMULATOR = 2,  /* its metrics or diagnostics: on a GPU, the emulator's run grades it */
    NEEDS_GPU = 3,       /* more than the emulator can do: not run on the emulator */
    /* A device, and seconds on the emulator where a GPU takes milliseconds (n near 2^31): on a GPU machine the
     * emulator's second opinion waits for the GPU's verdict and runs it only where the GPU failed it or its
     * host code hit undefined behaviour (which only the emulator's run names). */
    NEEDS_DEVICE_GPU_FIRST = 4,
};

/* One test: a sentence that names the behaviour ("sizes: n not a multiple of the block"), its function,
 * and what it needs to run. */
typedef struct harness_test {
    const char *name;
    const TTest *fn;
    enum harness_needs needs;
} harness_test;

/* Ends the test that calls it as not run, with why ("not run here, because the GPU has ..."): a test that
 * cannot run on this machine (an input larger than its memory) neither passes nor fails. */
void harness_not_run(const char *why);

/* ---- Declared input spaces (harness_space.c) ----------------------------------------------------------
 * What a suite tries is declared beside its contract, in checker/spaces/exNN.def, one line a dimension of the
 * input that a kernel can get wrong, with the values that matter for it, and which dimensions interact:
 *     dim(cols, 1 7 8 9 31 32 33 1023 1024 1025)
 *     dim(mask, none leading trailing inside whole first)
 *     interact(cols, rows, path)        every pair among these three
 * The suite includes it through harness_space_table.h and runs the covering set harness_cover_build makes:
 * every value of every dimension at least once, every pair of values of two dimensions that interact. */
#define HARNESS_SPACE_DIMS 16
#define HARNESS_SPACE_VALUES 48
#define HARNESS_SPACE_WORD 24

typedef struct harness_space_line { const char *kind, *name, *values; } harness_space_line;
typedef struct harness_space { const harness_space_line *lines; } harness_space;

typedef struct harness_cover {
    int dims;
    char names[HARNESS_SPACE_DIMS][HARNESS_SPACE_WORD];
    int counts[HARNESS_SPACE_DIMS];
    char labels[HARNESS_SPACE_DIMS][HARNESS_SPACE_VALUES][HARNESS_SPACE_WORD];
    unsigned pairs[HARNESS_SPACE_DIMS];      /* bit e of pairs[d]: dimensions d and e interact */
    size_t cases;
    int (*at)[HARNESS_SPACE_DIMS];           /* at[k][d]: the value (its index) of dimension d in case k */
} harness_cover;

void harness_cover_build(const harness_space *s, harness_cover *c);
void harness_cover_free(harness_cover *c);
/* How many values the dimensions declare in all. */
int harness_cover_values(const harness_cover *c);
/* Where the space declares dimension dim (an index into names, counts, labels and at[k]). */
int harness_cover_dim(const harness_cover *c, const char *dim);
/* Case k's value of a dimension: its place in the declared list, as declared, as a number, or whether it is
 * `label`. A dimension the space does not declare, or a value that is not a number, is the suite's own
 * error: it aborts. */
int harness_case_index(const harness_cover *c, size_t k, const char *dim);
const char *harness_case_label(const harness_cover *c, size_t k, const char *dim);
double harness_case_number(const harness_cover *c, size_t k, const char *dim);
int harness_case_is(const harness_cover *c, size_t k, const char *dim, const char *label);
/* "cols = 1025, rows = 3, mask = leading", for a developer's log. */
void harness_case_describe(const harness_cover *c, size_t k, char *out, size_t len);

typedef struct harness_exercise {
    const char *number;          /* "02" */
    const char *title;           /* "v1: interleaved addressing" */
    const char *lesson;          /* "exercises/02-interleaved/lesson.md" */
    const harness_test *tests;   /* terminated by a zero entry */
    const harness_space *space;  /* what the suite tries (checker/spaces/exNN.def), or NULL */
} harness_exercise;

/* Runs the exercise's tests one at a time, each in its own process with a timeout, and prints each
 * test's lines of the report as it finishes. Options: --tap FILE, --xml FILE (results for tools),
 * --only TEXT (tests whose names contain it), --summary (a last line "RESULT passed=.. failed=..
 * skipped=.."), --results FILE (each test's verdict to FILE as it ends: the GPU's run on a GPU machine),
 * --gpu-results FILE (the emulator's run there: one report, each test's line with the GPU's verdict from
 * FILE beside its own; harness_merge.c), --space (prints the size of the declared input space's covering
 * set, "dimensions=D values=V cases=C", and runs nothing).
 * Exit status: 0 when every test that ran passed, 1 when one failed (on either backend) or a GPU verdict
 * never came, 2 when tests were skipped. */
int harness_run(const harness_exercise *ex, int argc, char **argv);

/* ---- The report, for the runner (harness_print.c, harness_results.c) -------------------------------- */

enum harness_outcome { HARNESS_PASSED, HARNESS_FAILED, HARNESS_CRASHED, HARNESS_NOT_RUN };

typedef struct harness_result {
    const char *name;   /* the test's sentence */
    int outcome;
    char *message;      /* what failed (Check's message), or why a test did not run */
    const char *file;   /* where the failing check is, for the XML */
    int line;
    double seconds;
    int host_ub;        /* the learner's host code hit undefined behaviour that nothing here reported (a GPU's
                         * suite: ubsan_quiet.c); the emulator's run of the same object names it */
    int alone;          /* a batch worker's first test, whose kernels printed nothing: no test ran before it in
                         * its process, so a failure there is the verdict it gets alone (harness_batch.c) */
} harness_result;

/* ---- Running tests (harness_main.c) and a GPU's batch workers (harness_batch.c) ---- */
/* One test: in its own process (Check's fork mode, the timeout), or in_place in this one (a batch worker). */
harness_result harness_run_one(const harness_test *t, int order, const char *suite_name, double timeout,
                               int in_place);
/* In a worker process forked from the runner: its own temporary files, made and removed by it. */
void harness_worker_begin(void);
void harness_worker_end(void);
/* A result through a pipe; receive returns 0 when a whole one came (else r says the test could not start). */
int harness_result_send(int fd, const harness_result *r);
int harness_result_receive(int fd, const char *name, harness_result *r);

/* On a GPU each test process creates its own CUDA context, one after another in the driver: a batch runs the
 * tests in a few workers that keep theirs (harness_batch.c). */
typedef struct harness_batch harness_batch;
harness_batch *harness_batch_open(const harness_test *tests, int count, int workers, const char *suite_name,
                                  double timeout, char **argv);
/* Queues test index (in order: workers take them first come, first served). */
void harness_batch_queue(harness_batch *b, int index);
/* Whether test index is queued or done. */
int harness_batch_has(const harness_batch *b, int index);
/* Waits for test index's result. A result other than a clean pass may come from what an earlier test left
 * in the worker: the caller runs that test again alone (a timeout aside, which says "Test timeout expired"). */
harness_result harness_batch_take(harness_batch *b, int index, const char *name);
/* Forgets the queued tests no worker has started (after a timeout). */
void harness_batch_drop_queued(harness_batch *b);
void harness_batch_close(harness_batch *b);
/* In a warm process that a runner made its worker (HARNESS_WARM_WORKER, warm.h): the worker's loop, on the
 * runner's pipes. Never returns. */
void harness_batch_serve(const harness_test *tests, int count, const char *suite_name, double timeout,
                         int from_runner, int to_runner);

/* Starts a report: nothing shown yet. */
void report_begin(int use_colour);
/* The report will show count tests (report_test for those that run): a later failure then says in full only
 * what leaves room for the tests still to come on one screen. */
void report_expect_tests(int count);
/* Prints one test's lines: the ✓ or ✗ line and, for a failure, its message as the learner reads it. */
void report_test(const char *name, int outcome, const char *msg, double timeout, const char *green,
                 const char *red, const char *reset);
/* The same with a tag in brackets after the name (in the learner's language: which backend showed it), or
 * for HARNESS_NOT_RUN a "-" line whose tag says why the test did not run. */
void report_test_tagged(const char *name, const char *tag, int outcome, const char *msg, double timeout,
                        const char *green, const char *red, const char *reset);
/* A failure's message as text for a file (TAP, XML): its lines with each finding in words, malloc'ed; *tools
 * receives one "finding: ..." line per finding (emu_record.h, EMU_ENCODE_TOOLS), malloc'ed too. */
char *report_plain(const char *msg, char **tools);
void harness_write_tap(const char *path, const harness_result *r, int count);
void harness_write_xml(const char *path, const char *suite, const harness_result *r, int count, double seconds);

/* Run in each test's process before the test: shows at most the first lines its kernels print. */
void harness_capture_output(void);
/* The exercise's tests, so that the capture can name the test (harness_run calls it). */
void harness_capture_names(const harness_test *tests);

/* An input of total_bytes that holds chunk (chunk_bytes, a multiple of 4096) over and over, for inputs too
 * large to copy in one piece: on the emulator the chunk's pages mapped again and again, copy on write
 * (8 GiB cost the memory of one chunk), on a GPU cudaMalloc and one copy per chunk. NULL, with the reason
 * in why ("because ..."), when the device has no room for it. Freed with cudaFree. */
void *dev_input_repeated(const void *chunk, size_t chunk_bytes, size_t total_bytes, char *why, size_t len);
/* The backend's way to do that, or NULL (then dev_input_repeated copies). */
void *backend_repeated(const void *chunk, size_t chunk_bytes, size_t total_bytes);

/* On the emulator, lets each launch of this test run 16 warp instructions per element of an input of n
 * (the budget harness_run gives the large input), so that a kernel that never ends still stops. */
void harness_budget_for(size_t n);

/* The backend the tests run on: "GPU (NVIDIA H100 80GB HBM3)" or "emulator on CPU"; NULL when neither. */
const char *harness_backend(void);

/* The backend's findings since the last call (the emulator's diagnostics, as records: emu_record.h; none on a
 * GPU): a malloc'ed array of *count records, NULL when there are none. */
emu_record *backend_take_findings(int *count);
/* The same, as lines for a failure's message (one encoded record each, which the report turns into words):
 * how many findings there were. Guard findings wait for the test's own check, as after a launch. *question
 * (when not NULL) gets the question of the first finding at the learner's line, or NULL. */
int harness_findings_lines(char *buf, size_t len, const char **question);
int backend_is_emulator(void);
/* On the emulator, makes its GPU one of sms SMs for the rest of this test (called before the test's first CUDA
 * call: a kernel may keep what it asked); nothing on a GPU, whose SMs are what they are. */
void backend_emulate_sms(int sms);
/* The emulator decodes the program's kernels now, before the tests are forked, so that no test decodes them
 * again (exercise 12's Thrust and CUB took a third of its suite's time to decode, once in each test); nothing
 * on a GPU. */
void backend_load_kernels(void);
/* Tells the backend that only [base, base + bytes) of base's allocation is the array called name: the
 * emulator reports every access of a kernel to the rest (the guards). Nothing on a GPU. */
void backend_guard(const void *base, size_t bytes, const char *name, size_t elem_size);

/* The counters of the launches since the last call (see emu_metrics in checker/emu/emu.h). Returns 0
 * where the backend has none: a GPU. Tests that grade a concept by its numbers need the emulator. */
int backend_take_metrics(emu_metrics *out);

#endif

/* ---- Sizes ------------------------------------------------------------------------------------------ */

/* The course's edge sizes, ascending, up to and including `limit`: 1, 31, 32, 33, 255, 256, 257, primes,
 * powers of two, and harness_large_n(). Returns how many were written to out (at most 64). */
int harness_sizes(size_t limit, size_t *out);

/* ---- Block partials (v1-v5: one partial sum per block) ---------------------------------------------- */

/* A launcher that writes one partial sum per block to d_out and returns how many blocks it launched. */
typedef int (*partials_launcher)(const int *d_in, int *d_out, int n, int block);

typedef struct partials_spec {
    partials_launcher launch;
    const char *name;          /* "reduce_v1", for messages */
    int elems_per_thread;      /* 1 for v1/v2, 2 for v3-v5 (the first add during load) */
    const char *grid_hint;     /* why the grid must be what it is */
    const char *partial_hint;  /* a question towards the usual cause of a wrong partial */
} partials_spec;

/* Runs the launcher on n fresh random ints with the given block size and checks: the number of blocks,
 * every block's partial sum, that nothing outside d_out was written, and that d_in is unchanged. */
void expect_block_partials(const partials_spec *spec, size_t n, int block, uint64_t salt);

/* expect_block_partials for each n of a list, with the salts salt, salt + 1, ... */
void expect_block_partials_each(const partials_spec *spec, const size_t *sizes, size_t count, int block,
                                uint64_t salt);
#define EXPECT_BLOCK_PARTIALS_EACH(spec, block, salt, ...)                                                   \
    do {                                                                                                     \
        static const size_t sizes_[] = {__VA_ARGS__};                                                        \
        expect_block_partials_each((spec), sizes_, sizeof sizes_ / sizeof sizes_[0], (block), (salt));       \
    } while (0)

/* ==== Floats (exercises 09-10): guarded float buffers, poison NaN, references and comparisons ==========
 * Added with harness_floats.c. Kept in its own block so that the int helpers above stay as they are. */
#ifndef HARNESS_FLOATS_H
#define HARNESS_FLOATS_H

/* Sits around float inputs: reading it makes a max (or a sum) huge, and a dot product overflow to inf.
 * A min needs the negative one (-HARNESS_GUARD_FLOAT) to change visibly. */
#define HARNESS_GUARD_FLOAT 1e30f
/* Fills float outputs before a run: a quiet NaN whose payload (0xDEAD) no arithmetic produces, so "never
 * written" is told apart from a NaN that the learner's code computed. */
#define HARNESS_POISON_FLOAT_BITS 0x7FC0DEADu

/* An input of n floats between guards of the given value; an output of n floats poisoned with the NaN. */
dev_buffer dev_input_floats(const float *h, size_t n, float guard);
dev_buffer dev_output_floats(size_t n);

float harness_poison_float(void);
/* 1 when x has the poison's exact bits. */
int harness_is_poison_float(float x);
/* 1 when the two are the same value: equal (so +0 == -0), or both NaN. */
int harness_same_float(float expected, float actual);

/* Writes x as a learner reads it: "-inf", "NaN", "the poison NaN", or %.9g. */
void harness_describe_float(float x, char *buf, size_t len);
/* Describes how a float result differs from the expected one, as a sentence fragment: the poison left,
 * the guard value (an element outside [0, n) was read), an infinity or NaN that should not be there, or
 * the difference. guard is the value the input was surrounded with (0 when there was none). */
void harness_explain_float(double expected, float actual, float guard, char *buf, size_t len);

/* References in double, compensated (Neumaier), so that their own error (about 2^-53 of the result) is
 * negligible beside float's 2^-24. abs_sum (may be NULL) receives the sum of the magnitudes, which every
 * error bound of a float sum is proportional to. */
double harness_sum_floats(const float *h, size_t n, double *abs_sum);
double harness_dot_floats(const float *a, const float *b, size_t n, double *abs_sum);

#define HARNESS_FLOAT_UNIT (1.0 / 16777216.0) /* u = 2^-24, the unit roundoff of float (round to nearest) */

/* The rounding bound of a float sum of n terms (each rounded once, as a product is) added by a grid-stride
 * loop of a few dozen terms per thread below a tree of log2(n) levels: any order a GPU reduction uses.
 * abs_sum is the sum of the terms' magnitudes. */
double harness_tree_sum_tolerance(size_t n, double abs_sum);

#endif /* HARNESS_FLOATS_H */

/* ---- One total (ex01, ex08, ex11: the whole sum in d_out[0]) ------------------------------------------- */

/* A launcher that leaves the sum of d_in[0..n) in d_out[0]. */
typedef void (*total_launcher)(const int *d_in, int *d_out, int n);

typedef struct total_spec {
    total_launcher launch;
    const char *name;          /* "reduce_atomic", for messages */
    const char *nothing_hint;  /* d_out[0] was never written */
    const char *zero_hint;     /* the right sum plus what d_out held: an accumulator not set to 0 */
    const char *wrong_hint;    /* any other wrong total (a suite may pass its own per call) */
} total_spec;

/* Runs the launcher `calls` times into the same output on n fresh random ints whose first one sits
 * offset_ints ints past the start of an aligned allocation, and checks d_out[0] after each call, that
 * nothing else of d_out was written, and that d_in is unchanged. wrong_hint, when not NULL, is the hint
 * for any wrong total but an accumulator not zeroed (a test that knows the likely cause better). */
void expect_int_total(const total_spec *spec, size_t n, size_t offset_ints, int calls, uint64_t salt,
                      const char *wrong_hint);

/* ---- What the host side of the learner's code asked of the runtime (exercise 12) ----------------------- */

/* The counts since the last call (see emu_activity in checker/emu/emu.h: allocations, waits for the
 * device, launches and those on the default stream); out may be NULL to forget them. Returns 0 where the
 * backend cannot count them: a GPU. Tests that grade how a library is used need the emulator. */
int backend_take_activity(emu_activity *out);

/* In a test's process: abort() (an uncaught C++ exception, a failed assert) fails the test with a sentence
 * and the emulator's findings instead of crashing it (harness_abort.c; harness_capture_output calls it). */
void harness_catch_abort(void);

/* In a test's process: a segmentation fault in host code that touched device memory (on the emulator, whose
 * device memory the host cannot touch, as beside a GPU) fails the test with the line and the fix; any crash
 * after findings fails with them (harness_fault.c; harness_capture_output calls it). */
void harness_catch_faults(void);
/* The backend's word on a fault at addr (instruction pc; write 1, read 0, unknown -1): 1 when addr is device
 * memory and a finding now says so (the emulator), 0 otherwise (a GPU: its runtime cannot tell). */
int backend_host_fault(const void *addr, const void *pc, int write);

/* A count as a sentence says it: "once", "twice", "3 times". */
void harness_times(uint64_t count, char *buf, size_t len);

/* ==== 16-bit floats (exercises 13-15): fp16 and bf16 on the host, their buffers and poison ============
 * Added with harness_halves.c, in its own block. The device sees __half or __nv_bfloat16; the suites see
 * their bits as uint16_t. */
#ifndef HARNESS_HALVES_H
#define HARNESS_HALVES_H

typedef enum harness_half_kind { HARNESS_F16, HARNESS_BF16 } harness_half_kind;

/* Fills 16-bit float outputs before a run: a NaN in both formats whose payload no arithmetic produces
 * (the GPU's NaNs are 0x7FFF). */
#define HARNESS_POISON_HALF_BITS 0x7FDEu

const char *harness_half_name(harness_half_kind k);                  /* "fp16" or "bf16" */
float harness_half_to_float(harness_half_kind k, uint16_t h);        /* exact */
uint16_t harness_float_to_half(harness_half_kind k, float f);        /* to nearest, ties to even */
/* n random values in [lo, hi), each rounded to the format (seeded like harness_random_floats). */
void harness_random_halves(harness_half_kind k, uint16_t *out, size_t n, float lo, float hi, uint64_t salt);
/* A malloc'ed float copy of n 16-bit floats (exact). */
float *harness_halves_to_floats(harness_half_kind k, const uint16_t *h, size_t n);
/* An input of n 16-bit floats between guards of the given bits, its start offset_bytes past an aligned
 * address; an output of n poisoned with HARNESS_POISON_HALF_BITS. */
dev_buffer dev_input_halves(const uint16_t *h, size_t n, uint16_t guard, size_t offset_bytes);
dev_buffer dev_output_halves(size_t n);
/* Writes h as a learner reads it: "the poison NaN (0x7FDE)", "NaN", "+inf", or its value. */
void harness_describe_half(harness_half_kind k, uint16_t h, char *buf, size_t len);
/* malloc that fails the test with a sentence when the host is out of memory (never returns NULL). */
void *harness_alloc(size_t bytes);
/* An output of n 16-bit floats poisoned like dev_output_halves, its start offset_bytes past an aligned address. */
dev_buffer dev_output_halves_at(size_t n, size_t offset_bytes);

/* Part III's references and bounds (harness_rows.c): one row's moments in double; softmax's relative bound
 * (shift |x_i - m|, range the row's finite max - min, scale |m| where exponents are computed relative to 0,
 * else 0; the caller adds what flushing may lose); a LayerNorm (rms 0) or RMSNorm (rms 1) output with its
 * bound in the 16-bit output type out; the mean and L2 norm of a row of 16-bit values with their bounds. */
typedef struct harness_moments { double mean, var, abs_mean, ms, max, min_finite; } harness_moments;
void harness_row_moments(const float *x, int cols, harness_moments *s);
double harness_softmax_tolerance(double shift, double range, double scale, int cols, int f16_out);
void harness_norm_expected(int rms, const harness_moments *s, double x, double gamma, double beta, int cols,
                           double eps, harness_half_kind out, double *want, double *tol);
void harness_row_stats_expected(const float *row, int cols, double want[2], double tol[2]);
/* A concept test's check of the global reads since the last backend_take_metrics (m): the rows' bytes read
 * `reads` times, besides `extra` bytes (weights), in accesses that move little more than they ask for. Fails
 * saying which it saw: the rows read more times (how many), or read as often as they should but scattered. */
void harness_expect_reads(const emu_metrics *m, uint64_t bytes, int reads, uint64_t extra, const char *what,
                          const char *reads_hint, const char *scatter_hint);

#endif /* HARNESS_HALVES_H */

/* ==== Evidence: what came back, and the known mistake it matches (harness_evidence.c) ==================
 * A failure's words and its hint follow what the learner's code did: the outputs still holding the poison
 * (and which ones), off by a constant factor or a constant, NaN or inf (where), just past the bound, or
 * equal to what a known mistake gives on the same input (a suite's "bug models"). Each piece of evidence is
 * also one machine-readable line, "evidence: TAG key=value ...", in the failed test's TAP block, where
 * `make hint` reads it (checker/scripts/hint.sh). */
#ifndef HARNESS_EVIDENCE_H
#define HARNESS_EVIDENCE_H

#define HARNESS_EVIDENCE_PREFIX "evidence: "

/* Records one piece of evidence for this test's failure: "TAG", then the key=value pairs of fmt (fmt may be
 * NULL). harness_fail_at carries the lines in the failure's message; the report does not show them, the
 * TAP file gives each its own line. */
void harness_evidence(const char *tag, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The lines recorded so far in this test's process, each "evidence: ...\n" ("" when none). */
const char *harness_evidence_lines(void);
/* Forgets the lines recorded with this tag. */
void harness_evidence_drop(const char *tag);

/* An output as a check compares it: rows x cols values, row-major (rows = 1 for a flat array), as doubles. */
typedef struct harness_output {
    size_t rows, cols;
    const double *want;             /* the right values */
    const double *got;              /* what came back, NaN and inf as they are */
    const unsigned char *unwritten; /* 1 where the output still holds the poison; NULL when none does */
    const double *tol;              /* the error each output may have, or NULL: tol_all for every one */
    double tol_all;
    double model_rel;               /* how far (relatively) an output may stand from a bug model's and still
                                       match it: the model and the learner's code round differently (0 for
                                       exact results) */
} harness_output;

/* A known mistake, as a table row of a suite: the output it gives on the test's own input. */
typedef struct harness_bug_model {
    const char *name;      /* the evidence's name for it, "max-from-zero" */
    /* Writes the outputs the mistake gives on this test's input (ctx: the suite's own description of it),
     * harness_unwritten() where it writes nothing; returns 0 where the mistake is not in play (not in this
     * function, or not told apart from the right output on this input). param: the row's own (a block
     * size, say, for a mistake whose output depends on how the work is split; see HARNESS_EACH_BLOCK). */
    int (*compute)(const void *ctx, int param, double *out);
    int param;
    const char *sentence;  /* N_(): what the outputs then are, "they are what a softmax whose max starts at 0
                              gives: ..." (a fragment that follows "but it is X: ") */
    const char *hint;      /* N_(): the question the report asks */
    int lesson_hint;       /* the lesson's hint that `make hint` starts at (0: hints.txt decides) */
} harness_bug_model;

/* One row per block size a learner may choose, 32 to 1024, for a mistake whose output depends on how the
 * threads share the work: {name, compute, 32, ...}, {name, compute, 64, ...}, ... */
#define HARNESS_EACH_BLOCK(name, compute, sentence, hint, lesson_hint)                                       \
    {name, compute, 32, sentence, hint, lesson_hint}, {name, compute, 64, sentence, hint, lesson_hint},     \
    {name, compute, 128, sentence, hint, lesson_hint}, {name, compute, 256, sentence, hint, lesson_hint},   \
    {name, compute, 512, sentence, hint, lesson_hint}, {name, compute, 1024, sentence, hint, lesson_hint}

/* What the evidence came to, for the suite's message. */
enum harness_seen {
    SEEN_NOTHING,     /* every output right */
    SEEN_MODEL,       /* the outputs are a bug model's (two models: both are named) */
    SEEN_UNWRITTEN,   /* some outputs still hold the poison */
    SEEN_PARTIAL_POISON, /* some outputs hold the poison with some of their low bytes written (a memset or a
                            copy of fewer bytes than the element) */
    SEEN_NONFINITE,   /* NaN or inf where the result is finite */
    SEEN_FACTOR,      /* every wrong output is the right one times one factor */
    SEEN_ROW_FACTOR,  /* each wrong row is the right row times a factor of its own */
    SEEN_OFFSET,      /* every wrong output is off by one constant */
    SEEN_NEAR_BOUND,  /* every wrong output is just past the bound: a systematic rounding */
    SEEN_PATTERN,     /* only some rows or columns are wrong */
    SEEN_UNEXPLAINED, /* wrong, in no way the checker knows */
};

#define HARNESS_CANDIDATES 8

typedef struct harness_diagnosis {
    enum harness_seen seen;
    const harness_bug_model *model, *also; /* the mistake the outputs match, and a second one they match too */
    const harness_bug_model *candidates[HARNESS_CANDIDATES]; /* every one they match (ncandidates) */
    int ncandidates;
    const harness_bug_model *models;       /* the table they came from */
    const char *hint;                      /* the model's question (translated), or NULL */
    double factor, offset, ratio;          /* SEEN_FACTOR's factor (the range of SEEN_ROW_FACTOR's in factor
                                              and offset), SEEN_OFFSET's constant, the worst error / bound */
    size_t wrong, count;                   /* how many outputs are wrong, of how many */
    char words[1400];                      /* what was seen, a fragment for "..., but it is X: <words>." */
    char where[400];                       /* which outputs are wrong (or unwritten), "rows 3 to 7" ("" when
                                              that says nothing: all of them, or one) */
} harness_diagnosis;

/* The question for what d saw: a bug model's own; where_hint (an N_() string, or NULL) for outputs left
 * unwritten or wrong in some rows or columns only; scale_hint for outputs off by a factor; else NULL (the report
 * says what it saw and asks nothing). */
const char *harness_diagnosis_hint(const harness_diagnosis *d, const char *where_hint, const char *scale_hint);

/* The value a bug model writes where the mistake leaves the output unwritten. */
double harness_unwritten(void);

/* Looks at o: first for the first bug model of the table (ending with a zero row; NULL for none) whose
 * outputs match it, then for the shapes of the error above. Records the evidence and fills d. */
void harness_diagnose(const harness_output *o, const harness_bug_model *models, const void *ctx,
                      harness_diagnosis *d);

/* When the outputs matched several bug models: keeps those that the outputs o of another input (ctx), one
 * that tells them apart, match as well, and records the evidence again; when none does, the diagnosis is
 * SEEN_UNEXPLAINED. */
void harness_narrow(const harness_output *o, const void *ctx, harness_diagnosis *d);

/* After a run of the learner's code that is the checker's own question (a second input that tells two bug
 * models apart, a count on ones): forgets what the backend found during it, which is no test's finding. */
void harness_forget_findings(void);

/* For an int total of h[0..n) that came back wrong: which elements it holds, when it is one of the usual
 * subsets (only the first k, all but the first k, every m-th, all but a head and a tail); records the
 * evidence, writes a fragment ("it is the sum of the first 256 elements only: ...") and returns 1, or 0. */
int harness_explain_subset(const int *h, size_t n, int got, char *buf, size_t len);

#endif /* HARNESS_EVIDENCE_H */

/* ==== One report on a GPU machine (harness_merge.c) ===================================================
 * The GPU's suite writes each test's verdict to a file as the test ends (--results FILE); the emulator's
 * suite reads them (--gpu-results FILE) and prints one line per test with both verdicts. */
#ifndef HARNESS_MERGE_H
#define HARNESS_MERGE_H

/* The GPU's side: starts the file (its backend's label, NULL when it found no device, and its timeout per
 * test), adds a test's verdict (key: the test's untranslated name), and says that every verdict is in. */
void merge_results_start(const char *path, const char *backend, double timeout);
void merge_results_add(const char *key, const harness_result *r);
void merge_results_end(void);

/* The emulator's side: the verdicts the GPU's suite writes to path. A wait ends when the verdict comes, or
 * when none can come: the GPU's run ended, or it wrote nothing for longer than its timeout per test and
 * margin seconds. */
typedef struct gpu_verdicts gpu_verdicts;
gpu_verdicts *gpu_verdicts_open(const char *path, double margin);
/* Waits for the GPU's run to start: the label of its backend ("the GPU (NVIDIA H100 80GB HBM3)"), NULL
 * when it found no device or never started (*started says which). */
const char *gpu_verdicts_backend(gpu_verdicts *v, int *started);
/* 1 when key's verdict is in, or none will come: waiting for it would not wait. */
int gpu_verdicts_has(gpu_verdicts *v, const char *key);
/* Waits for key's verdict: NULL when none came (it is then counted as missing). */
const harness_result *gpu_verdicts_wait(gpu_verdicts *v, const char *key);
/* The same, without counting a verdict that never came (a look before the test's own line). */
const harness_result *gpu_verdicts_peek(gpu_verdicts *v, const char *key);
/* Waits for the GPU's run to end, as long as a verdict would be waited for. */
void gpu_verdicts_finish(gpu_verdicts *v);
void gpu_verdicts_close(gpu_verdicts *v);

/* A test as the one report shows it. */
typedef struct merged_test {
    int outcome;          /* of the message shown: a test passes only where no backend failed it */
    const char *message;  /* the emulator's when it failed (its findings name the cause), else the GPU's */
    const char *tag;      /* which backend showed it ("fails on the GPU too"), or why it did not run; or NULL */
    int both_failed;      /* the emulator failed it and the GPU did too */
} merged_test;
/* The emulator's result (NOT_RUN where it does not run the test) beside the GPU's (NULL: no verdict). */
merged_test merge_decide(const harness_result *emu, const harness_result *gpu);
/* Waits for the GPU's verdict on key, then prints the test's lines (report_test_tagged). */
merged_test merge_report_test(gpu_verdicts *v, const char *key, const char *name, const harness_result *emu,
                              double timeout, const char *green, const char *red, const char *reset);
/* When verdicts never came: one line that says what was seen; returns how many are missing. */
int merge_report_missing(const gpu_verdicts *v);

#endif /* HARNESS_MERGE_H */

/* ==== Running a covering set (harness_space_run.c): its cases, and for int inputs their sizes and values ===
 * A test runs the cases of its concern; a case's size is written against the design's multiples and its
 * values are drawn from a named range. */
#ifndef HARNESS_SPACE_RUN_H
#define HARNESS_SPACE_RUN_H

typedef int (*harness_case_filter)(const harness_cover *c, size_t k, const void *ctx);
typedef void (*harness_case_run)(const harness_cover *c, size_t k, uint64_t salt, const void *ctx);
/* Builds the space's covering set and runs run(c, k, salt + 16 k, ctx) for each case k that wanted(c, k, ctx)
 * accepts (wanted NULL: every case): a case may draw its parts from salt + 0 to salt + 15. A filter that accepts no case is the suite's own error: the test fails,
 * so that no test passes having tried nothing. */
void harness_cover_run(const harness_space *s, harness_case_filter wanted, harness_case_run run, uint64_t salt,
                       const void *ctx);
/* Case k's size, declared as a number ("33"), as K u + C ("2b+1", "b-1", "1024b-1") where u is one of the
 * letters of `units` and stands for of[its place] (units "bs", of {block, stride}), or as "large"
 * (harness_large_n()). */
size_t harness_case_size(const harness_cover *c, size_t k, const char *dim, const char *units, const size_t *of);
/* The range [lo, hi] that n ints are drawn from, by name: "mixed" ([-r, r] with r = harness_safe_int_range(n),
 * what every test drew before spaces were declared), "negative" ([-r, -1]), "largest" ([m - m/2, m] with
 * m = INT_MAX / n: the largest magnitudes for which every partial sum of the n values fits in an int, one sign so
 * that the total is about INT_MAX / 2 or more, where a float accumulator or a narrow type loses digits). */
void harness_value_range(const char *label, size_t n, int *lo, int *hi);
/* 1 when [lo, hi] is the "mixed" range, which messages leave unsaid. */
int harness_values_are_default(size_t n, int lo, int hi);
/* After a wrong int sum of n values from [lo, hi] other than the mixed range: when it is off by less than one
 * value and by no more than float's rounding of such sums, appends that to why, records the evidence
 * "rounding" and returns the hint that asks about a float or narrow accumulator; else NULL. */
const char *harness_explain_rounding(long long expected, long long got, size_t n, int lo, int hi, char *why,
                                     size_t len);

/* v1-v5 over a covering set whose dimensions are "block", "n" (written against b, the block: "2b+1") and
 * "values"; ctx is the partials_spec. The filters: fewer elements than one block covers, more but not a
 * multiple of it, a whole number of blocks. */
void partials_case_run(const harness_cover *c, size_t k, uint64_t salt, const void *spec);
int partials_case_block(const harness_cover *c, size_t k);
size_t partials_case_n(const harness_cover *c, size_t k);
int partials_case_fewer(const harness_cover *c, size_t k, const void *spec);
int partials_case_not_a_multiple(const harness_cover *c, size_t k, const void *spec);
int partials_case_whole_blocks(const harness_cover *c, size_t k, const void *spec);

/* expect_block_partials and expect_int_total on values drawn from [lo, hi]. */
void expect_block_partials_in(const partials_spec *spec, size_t n, int block, int lo, int hi, uint64_t salt);
void expect_int_total_in(const total_spec *spec, size_t n, size_t offset_ints, int calls, int lo, int hi,
                         uint64_t salt, const char *wrong_hint);

#endif /* HARNESS_SPACE_RUN_H */

/* ---- Places in an input (harness_places.c) ----------------------------------------------------------------
 * Puts v into x[0..n) at the places `where` names, as a declared input space lists them: "first", "last",
 * "inside" (one random index, neither the first nor the last when n > 2), "every-7" (3, 10, 17, ...),
 * "thread-first" (every multiple of 32 but 0: lane 0's first value in each warp of a grid-stride loop; 0 when
 * n <= 32), "only" (everywhere). Returns the inside index (drawn from salt whatever the place). Another name is
 * the suite's own error: it aborts. */
#ifndef HARNESS_PLACES_H
#define HARNESS_PLACES_H
size_t harness_place_floats(float *x, size_t n, const char *where, float v, uint64_t salt);
#endif
