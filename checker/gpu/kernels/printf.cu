// printf.cu - printf inside kernels: one thread printing every conversion the lessons might use (ints of
// each width, hex, octal, chars, strings, floats in %f/%e/%g, width, precision, flags, '*' widths, %%,
// inf and NaN), and 64 threads printing one line each (compared as sorted lines: the order in which
// different threads' lines come out is not defined).
//
// stdout is redirected to a temporary file around each launch; the text that arrives is recorded as a case
// of kind "txt" (its bytes in hex).

#include <algorithm>
#include <math.h>
#include <stdlib.h>
#include <string>
#include <unistd.h>
#include <vector>
#include "../cases.h"

__global__ void k_printf_one(const float *f, const int *i, const double *d)
{
    if (threadIdx.x != 0 || blockIdx.x != 0)
        return;
    printf("ints: %d %i %u %x %X %o %5d|%-5d|%05d %+d\n", i[0], i[1], (unsigned)i[2], i[3], i[4], i[5], i[6],
           i[7], i[8], i[9]);
    // No %hh: the GPU's printf does not know that size (an H100 printed bytes of the format string in its
    // place, and the values after it wrong); the emulator reports it (emu/tests/test_printf_formats.cu).
    printf("wide: %ld %lld %llu %llx %hd %hu\n", (long)i[0] * 100000, (long long)i[1] * -3000000000LL,
           (unsigned long long)i[2] << 20, (unsigned long long)i[3] << 33, (short)i[4], (unsigned short)i[5]);
    printf("chars: %c%c%c [%s] [%10s] [%-6s] [%.3s] %%\n", 'a' + (i[0] & 7), 'Z', '0' + (i[1] & 7), "text",
           "right", "left", "truncated");
    printf("floats: %f %.3f %10.2f %-10.1f| %e %.2E %g %G %g\n", f[0], f[1], f[2], f[3], f[4], f[5], f[6],
           f[7], f[8]);
    printf("more: %+.4f % .3e %#g %#.0f %08.3f %.0e %.10g\n", f[9], f[10], f[11], f[12], f[13], f[14], f[15]);
    printf("doubles: %.15g %.17e %f %a\n", d[0], d[1], d[2], d[3]);
    printf("specials: %f %f %f %e %g %5.1f|\n", INFINITY, -INFINITY, f[16], -f[16], 0.0f * -1.0f, -0.0);
    // A width from an argument, not a precision: the GPU's printf has no %.*f (an H100 printed "%.*f" itself,
    // or wrong digits); the emulator reports it (emu/tests/test_printf_formats.cu).
    printf("star: [%*d] [%-*d] [%*.2f]\n", 6, i[0], 6, i[1], 9, f[1]);
    printf("no arguments at all\n");
    printf("%d%d%d%s%c\n", 1, 2, 3, "four", '5');
}

__global__ void k_printf_lanes(const int *i)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t % 3 != 2)
        printf("lane %2d of block %d: value %d, half %.1f\n", threadIdx.x % 32, blockIdx.x, i[t], i[t] * 0.5f);
}

// Runs launch() with stdout going to a temporary file; returns what was printed.
template <class F>
static int capture(std::string &text, F launch)
{
    char path[] = "/tmp/same_answers_printf_XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0)
        return 0;
    fflush(stdout);
    int saved = dup(1);
    dup2(fd, 1);
    cudaError_t err = launch();
    if (err == cudaSuccess)
        err = cudaDeviceSynchronize();
    fflush(stdout);
    dup2(saved, 1);
    close(saved);
    FILE *f = fdopen(fd, "r");
    rewind(f);
    char buf[4096];
    size_t got;
    while ((got = fread(buf, 1, sizeof buf, f)) > 0)
        text.append(buf, got);
    fclose(f);
    unlink(path);
    return err == cudaSuccess;
}

static void record_text(const char *name, const std::string &text)
{
    std::vector<uint32_t> words((text.size() + 3) / 4, 0);
    memcpy(words.data(), text.data(), text.size());
    record(name, "txt", 0, words.data(), words.size());
}

void run_printf_cases(void)
{
    float h_f[17] = {3.14159265f, -2.5f, 1234.5678f, 0.1f, 6.02214076e23f, 1.0e-20f, 0.0001234f, 123456789.0f,
                     100000.0f, 2.0f / 3.0f, -1.0f / 3.0f, 1.0f, 2.5f, -3.14159f, 12345.0f, 0.3f, NAN};
    int h_i[10] = {42, -7, -1, (int)0xdeadbeefu, 48879, 511, -123, 77, -9, 5};
    double h_d[4] = {0.1, 1.0 / 3.0, 1e300, 1.0};
    float *d_f = (float *)dev_copy(h_f, sizeof h_f);
    int *d_i = (int *)dev_copy(h_i, sizeof h_i);
    double *d_d = (double *)dev_copy(h_d, sizeof h_d);
    std::string one;
    if (!d_f || !d_i || !d_d ||
        !capture(one, [&] { k_printf_one<<<2, 32>>>(d_f, d_i, d_d); return cudaGetLastError(); })) {
        record_error("printf:one_thread", "the printf kernel failed");
    } else {
        record_text("printf:one_thread", one);
    }

    std::vector<int> h_v(128);
    uint64_t s = 51;
    for (int &v : h_v)
        v = rng_int(&s, -100000, 100000);
    int *d_v = (int *)dev_copy(h_v.data(), h_v.size() * sizeof(int));
    std::string lanes;
    if (!d_v || !capture(lanes, [&] { k_printf_lanes<<<2, 64>>>(d_v); return cudaGetLastError(); })) {
        record_error("printf:many_threads_sorted", "the printf kernel failed");
    } else {
        std::vector<std::string> lines;
        size_t start = 0;
        while (start < lanes.size()) {
            size_t end = lanes.find('\n', start);
            if (end == std::string::npos)
                end = lanes.size() - 1;
            lines.push_back(lanes.substr(start, end - start + 1));
            start = end + 1;
        }
        std::sort(lines.begin(), lines.end());
        std::string sorted;
        for (auto &l : lines)
            sorted += l;
        record_text("printf:many_threads_sorted", sorted);
    }
    cudaFree(d_f);
    cudaFree(d_i);
    cudaFree(d_d);
    cudaFree(d_v);
}
