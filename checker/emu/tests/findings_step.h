// findings_step.h - for the emulator's tests of CUDA programs: after a step, print how many findings it made
// and whether one of them has the expected words (printing all of them to stderr when none has).
#ifndef FINDINGS_STEP_H
#define FINDINGS_STEP_H

#include <cstdio>
#include <cstring>

extern "C" int emu_findings_take(char *buf, size_t len);

static char findings_words[65536];

static void findings(const char *step, const char *key)
{
    int count = emu_findings_take(findings_words, sizeof findings_words);
    printf("%s: %d finding%s", step, count, count == 1 ? "" : "s");
    const char *hit = key ? strstr(findings_words, key) : NULL;
    printf("%s\n", hit ? " (as expected)" : key && count ? " (without the expected words)" : "");
    if (key && !hit) fprintf(stderr, "%s\n", findings_words);
}

#endif
