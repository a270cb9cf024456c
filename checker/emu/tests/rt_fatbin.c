/* rt_fatbin.c - finding the PTX in fat binaries built by hand: the newest usable entry wins, and
 * binaries without PTX, with compressed PTX or with a bad wrapper are refused with a sentence. */
#include <string.h>

#include "../emu_rt.h"
#include "emu_check.h"

typedef struct { int magic, version; const unsigned long long *data; void *filename; } wrapper;

static unsigned long long image[512];  /* 8-byte aligned, like nvcc's */
static size_t used;

static void begin(void)
{
    memset(image, 0, sizeof image);
    used = 16;
}

/* Appends an entry of the given kind and arch holding text (NUL-padded to a multiple of 8). */
static void entry(uint16_t kind, uint32_t arch, uint64_t flags, const char *text)
{
    unsigned char *e = (unsigned char *)image + used;
    uint64_t payload = (strlen(text) + 1 + 7) / 8 * 8;
    uint32_t header = 0x48;
    memcpy(e + 0, &kind, 2);
    memcpy(e + 4, &header, 4);
    memcpy(e + 8, &payload, 8);
    memcpy(e + 28, &arch, 4);
    memcpy(e + 40, &flags, 8);
    memcpy(e + header, text, strlen(text));
    used += header + payload;
}

static wrapper end(void)
{
    uint32_t magic = 0xBA55ED50u;
    uint16_t version = 1, hsize = 16;
    uint64_t size = used - 16;
    unsigned char *h = (unsigned char *)image;
    memcpy(h, &magic, 4);
    memcpy(h + 4, &version, 2);
    memcpy(h + 6, &hsize, 2);
    memcpy(h + 8, &size, 8);
    return (wrapper){0x466243B1, 1, image, NULL};
}

int main(void)
{
    const char *ptx;
    size_t len;
    char err[300];

    begin();
    entry(2, 90, 0x11, "ELF...");
    entry(1, 52, 0x11, ".version 7.0 sm_52");
    entry(1, 90, 0x11, ".version 9.0 sm_90");
    entry(1, 100, 0x11, ".version 9.0 sm_100");
    wrapper w = end();
    CHECK(emu_fatbin_ptx(&w, &ptx, &len, err, sizeof err) == 0, "found: %s", err);
    CHECK(len == strlen(".version 9.0 sm_90") && strncmp(ptx, ".version 9.0 sm_90", len) == 0,
          "the compute_90 entry, without its padding: %.*s", (int)len, ptx);

    begin();
    entry(2, 90, 0x11, "ELF only");
    w = end();
    CHECK(emu_fatbin_ptx(&w, &ptx, &len, err, sizeof err) == -1, "no PTX");
    CHECK(strstr(err, "built without PTX; build with -gencode arch=compute_90,code=compute_90") != NULL, "%s", err);

    begin();
    entry(1, 90, 0x11 | 0x2000, "compressed bytes");
    w = end();
    CHECK(emu_fatbin_ptx(&w, &ptx, &len, err, sizeof err) == -1, "compressed");
    CHECK(strstr(err, "-Xfatbin -compress=false") != NULL, "%s", err);

    begin();
    entry(1, 100, 0x11, ".version 9.0 sm_100");
    w = end();
    CHECK(emu_fatbin_ptx(&w, &ptx, &len, err, sizeof err) == -1 && strstr(err, "compute_100"), "%s", err);

    w.magic = 1234;
    CHECK(emu_fatbin_ptx(&w, &ptx, &len, err, sizeof err) == -1 && strstr(err, "not a fat binary"), "%s", err);
    CHECK(emu_fatbin_ptx(NULL, &ptx, &len, err, sizeof err) == -1, "NULL wrapper");
    return CHECK_DONE();
}
