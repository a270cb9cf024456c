// bench_allreduce.cu - `make bench` for Part IV: the all-reduces of exercises 17 and 19 (the references, and
// yours once they pass) beside NCCL's ncclAllReduce, on every GPU of the machine (and on 2 of them as well,
// where there are more), at 16 KB to 1 GB of floats (below 1 MB, where tensor-parallel inference lives and
// latency decides, the one-shot of exercise 19 is the contender to watch).
//
// Method (nccl-tests'): each contender's result is checked once per size (allreduce_check.cuh); then, after 5
// calls of warm-up, each rank times 20 calls back to back with CUDA events on its own stream, and the slowest
// rank's average is the time. algbw = bytes / time; busbw = algbw x 2 (ranks - 1) / ranks, what each rank's
// links carry in a ring, a figure comparable across numbers of ranks. In-place contenders start from zeros,
// which repeated sums keep (no inf builds up); the time does not depend on the values.
//
//   bench_allreduce MAX_LOG2 CSV            times 2^14 to 2^MAX_LOG2 bytes (powers of 4; fewer where memory
//                                           is short), prints the tables and writes CSV (- for none)
//   bench_allreduce MAX_LOG2 - --check      checks every contender at 2^12 to 2^MAX_LOG2 bytes, no timing:
//                                           how `make test` runs it on the emulator's devices
//   bench_allreduce LOG2 CSV --speed [--library]
//                                           times what is linked at 2^LOG2 bytes on every GPU, and NCCL with
//                                           --library, and writes only the CSV: the speed line of a passing
//                                           grade (checker/scripts/speed-allreduce.sh), with your kernel linked
//                                           (and the reference, the first time on a GPU)
// CSV: size,ranks,contender,us,algbw,busbw,ok (size in bytes, GB/s of 10^9 bytes; a wrong result: ok 0, no time).

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(expr)                                                                                     \
    do {                                                                                                \
        cudaError_t err_ = (expr);                                                                      \
        if (err_ != cudaSuccess) {                                                                      \
            fprintf(stderr, "bench_allreduce: %s failed at %s:%d: %s\n", #expr, __FILE__, __LINE__,     \
                    cudaGetErrorString(err_));                                                          \
            exit(1);                                                                                    \
        }                                                                                               \
    } while (0)

#include "allreduce_ranks.cuh"
#include "allreduce_contenders.cuh"
#include "allreduce_check.cuh"

#define WARMUP_CALLS 5
#define TIMED_CALLS 20

// The slowest rank's average time of one call, in microseconds; 0 when a call failed (why says so).
static double time_contender(const contender &c, const ranks_set &s, size_t n, char *why, size_t why_size)
{
    for (int r = 0; r < s.ranks; r++) {
        CHECK(cudaSetDevice(s.devices[r]));
        CHECK(cudaMemsetAsync(s.d_a[r], 0, n * sizeof(float), s.streams[r]));
    }
    for (int k = 0; k < WARMUP_CALLS; k++)
        if (!contender_call(c, s, n, why, why_size)) return 0;
    for (int r = 0; r < s.ranks; r++) {
        CHECK(cudaSetDevice(s.devices[r]));
        CHECK(cudaEventRecord(s.start[r], s.streams[r]));
    }
    for (int k = 0; k < TIMED_CALLS; k++)
        if (!contender_call(c, s, n, why, why_size)) return 0;
    for (int r = 0; r < s.ranks; r++) {
        CHECK(cudaSetDevice(s.devices[r]));
        CHECK(cudaEventRecord(s.stop[r], s.streams[r]));
    }
    float slowest = 0;
    for (int r = 0; r < s.ranks; r++) {
        float ms;
        CHECK(cudaEventSynchronize(s.stop[r]));
        CHECK(cudaEventElapsedTime(&ms, s.start[r], s.stop[r]));
        slowest = std::max(slowest, ms);
    }
    return slowest * 1000.0 / TIMED_CALLS;
}

static const char *size_text(size_t bytes, char *text, size_t size)
{
    if (bytes >= (1u << 30)) snprintf(text, size, "%zu GB", bytes >> 30);
    else if (bytes >= (1u << 20)) snprintf(text, size, "%zu MB", bytes >> 20);
    else snprintf(text, size, "%zu KB", bytes >> 10);
    return text;
}

enum mode { TIME, CHECK_ONLY, SPEED };

// Every contender at every size on one set of ranks (NCCL among them when with_nccl); returns the number of
// wrong results.
static int bench_set(int ranks, int min_log2, int max_log2, mode m, bool with_nccl, FILE *csv)
{
    ranks_set s;
    ranks_open(s, ranks, (size_t)1 << max_log2, with_nccl);
    std::vector<contender> list = contenders(with_nccl);
    for (contender &c : list) contender_begin(c, s);
    if (m == TIME)
        printf("\n=== %d GPUs: time of one all-reduce of floats in place (the slowest rank's average of %d calls\n"
               "back to back); algbw = bytes / time, busbw = algbw x 2(%d - 1)/%d\n"
               "  %-8s %-22s %11s %13s %13s %7s\n", ranks, TIMED_CALLS, ranks, ranks, "size", "contender",
               "time (us)", "algbw (GB/s)", "busbw (GB/s)", "x NCCL");
    int wrong = 0;
    for (int lg = min_log2; lg <= max_log2; lg += 2) {
        size_t bytes = (size_t)1 << lg, n = bytes / sizeof(float);
        char size[16];
        size_text(bytes, size, sizeof size);
        double nccl_us = 0;
        bool first = true;
        for (const contender &c : list) {
            const char *skip = contender_skip(c, s, bytes);
            if (skip) {
                if (*skip && m == TIME) printf("  %-8s %-22s %s\n", first ? size : "", c.name, skip);
                first = first && !*skip;
                continue;
            }
            char why[200] = "";
            bool ok = check_contender(c, s, n, why, sizeof why);
            double us = ok && m != CHECK_ONLY ? time_contender(c, s, n, why, sizeof why) : 0;
            ok = ok && (m == CHECK_ONLY || us > 0);
            wrong += !ok;
            if (m == CHECK_ONLY) {
                if (!ok) printf("%s, %d ranks, %s: %s: not timed\n", c.name, ranks, size, why);
                continue;
            }
            double algbw = ok ? bytes / us / 1e3 : 0, busbw = algbw * 2 * (ranks - 1) / ranks;
            if (!c.ring && !c.shot && ok) nccl_us = us;
            if (csv) {
                if (ok) fprintf(csv, "%zu,%d,%s,%.2f,%.2f,%.2f,1\n", bytes, ranks, c.name, us, algbw, busbw);
                else fprintf(csv, "%zu,%d,%s,,,,0\n", bytes, ranks, c.name);
            }
            if (m == SPEED) continue;
            if (!ok) printf("  %-8s %-22s not timed:\n    %s\n", first ? size : "", c.name, why);
            else if (nccl_us) printf("  %-8s %-22s %11.1f %13.1f %13.1f %7.2f\n", first ? size : "", c.name, us, algbw,
                                     busbw, nccl_us / us);
            else printf("  %-8s %-22s %11.1f %13.1f %13.1f\n", first ? size : "", c.name, us, algbw, busbw);
            fflush(stdout);
            first = false;
        }
    }
    for (contender &c : list) contender_end(c, s);
    ranks_close(s);
    return wrong;
}

int main(int argc, char **argv)
{
    int max_log2 = argc > 1 ? atoi(argv[1]) : 30;
    const char *csv_path = argc > 2 && strcmp(argv[2], "-") ? argv[2] : NULL;
    mode m = argc > 3 && !strcmp(argv[3], "--check") ? CHECK_ONLY : argc > 3 && !strcmp(argv[3], "--speed") ? SPEED : TIME;
    int count = 0;
    CHECK(cudaGetDeviceCount(&count));
    count = std::min(count, MAX_RANKS);
    if (count < 2) {
        fprintf(stderr, "bench_allreduce: an all-reduce across GPUs needs at least 2, and this machine has %d.\n", count);
        return 2;
    }
    int min_log2 = m == CHECK_ONLY ? 12 : m == SPEED ? max_log2 : 14;
    if (m != CHECK_ONLY) {
        // Two buffers of the largest size on every device, with room to spare (fewer sizes where it is short).
        size_t room = ranks_room(count, (size_t)1 << max_log2, (size_t)1 << min_log2);
        while (((size_t)1 << max_log2) > room) max_log2 -= 2;
    }
    if (m == TIME) {
        cudaDeviceProp prop;
        CHECK(cudaGetDeviceProperties(&prop, 0));
        printf("GPUs: %d x %s.\n"
               "Each contender's result is checked at each size (every rank the same bits, the sum within\n"
               "rounding) before it is timed; x NCCL is NCCL's time over the contender's.\n",
               count, prop.name);
    }
    FILE *csv = csv_path ? fopen(csv_path, "w") : NULL;
    if (csv) fprintf(csv, "size,ranks,contender,us,algbw,busbw,ok\n");
    bool with_nccl = m != SPEED || (argc > 4 && !strcmp(argv[4], "--library"));
    int wrong = bench_set(count, min_log2, max_log2, m, with_nccl, csv);
    if (count > 2 && m != SPEED) wrong += bench_set(2, min_log2, max_log2, m, with_nccl, csv);
    if (csv) fclose(csv);
    if (m == CHECK_ONLY) printf("bench_allreduce --check: %d wrong results\n", wrong);
    return wrong ? 1 : 0;
}
