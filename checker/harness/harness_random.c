/* harness_random.c - the run's seed and the deterministic random inputs drawn from it. */
#include "harness.h"

#include <limits.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static uint64_t run_seed;
static int seed_ready;

uint64_t harness_seed(void)
{
    if (!seed_ready) {
        const char *env = getenv("SEED");
        if (env && *env)
            run_seed = strtoull(env, NULL, 10);
        else
            run_seed = ((uint64_t)time(NULL) * 2654435761u ^ (uint64_t)getpid()) % 1000000007u;
        seed_ready = 1;
    }
    return run_seed;
}

/* splitmix64: small, fast, and good enough to make test data that no kernel can predict. */
static uint64_t next_random(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

void harness_random_ints(int *out, size_t n, int lo, int hi, uint64_t salt)
{
    uint64_t state = harness_seed() * 31 + salt;
    uint64_t span = (uint64_t)((int64_t)hi - lo + 1);
    for (size_t i = 0; i < n; i++)
        out[i] = (int)(lo + (int64_t)(next_random(&state) % span));
}

void harness_random_floats(float *out, size_t n, float lo, float hi, uint64_t salt)
{
    uint64_t state = harness_seed() * 37 + salt;
    for (size_t i = 0; i < n; i++) {
        double unit = (double)(next_random(&state) >> 11) / 9007199254740992.0;
        out[i] = (float)(lo + (hi - lo) * unit);
    }
}

int harness_safe_int_range(size_t n)
{
    /* Any partial sum of n values in [-r, r] stays within n*r; keep that under a quarter of INT_MAX. */
    size_t r = n ? (size_t)(INT_MAX / 4) / n : 1000;
    if (r > 1000) r = 1000;
    return r < 1 ? 1 : (int)r;
}

int64_t harness_sum_ints(const int *h, size_t from, size_t to)
{
    int64_t s = 0;
    for (size_t i = from; i < to; i++) s += h[i];
    return s;
}
