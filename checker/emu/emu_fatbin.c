/* emu_fatbin.c - finds the PTX text inside the fat binary that nvcc embeds in every object. */
#define _POSIX_C_SOURCE 200809L  /* strnlen */
#include <stdio.h>
#include <string.h>

#include "emu_rt.h"

/* The layout, as nvcc 12-13 writes it (fatbinary_section.h declares only the wrapper). */
#define EMU_WRAPPER_MAGIC  0x466243B1u  /* __fatBinC_Wrapper_t.magic */
#define EMU_FATBIN_MAGIC   0xBA55ED50u  /* the fat binary's own header */
#define EMU_KIND_PTX       1
#define EMU_KIND_ELF       2
#define EMU_FLAG_COMPRESSED      0x2000ull
#define EMU_FLAG_COMPRESSED_ZSTD 0x8000ull

typedef struct {
    int magic, version;
    const unsigned long long *data;
    void *filename_or_fatbins;
} emu_fatbin_wrapper;

typedef struct {
    uint32_t magic;
    uint16_t version, header_size;
    uint64_t fat_size;  /* bytes of entries after this header */
} emu_fatbin_header;

typedef struct {
    uint16_t kind, unknown0;
    uint32_t header_size;
    uint64_t payload_size;
    uint32_t compressed_size, unknown1;
    uint16_t minor, major;
    uint32_t arch;  /* 90 for compute_90 */
    uint32_t name_offset, name_len;
    uint64_t flags, zero, decompressed_size;
} emu_fatbin_entry;

static const char emu_msg_no_ptx[] =
    N_("this program was built without PTX; build with -gencode arch=compute_90,code=compute_90");
static const char emu_msg_compressed[] =
    N_("this program's PTX is compressed; build with -Xfatbin -compress=false");
static const char emu_msg_bad_wrapper[] =
    N_("this program's device code is not a fat binary the emulator understands "
    "(built with -rdc=true? the emulator needs whole-program compilation)");
static const char emu_msg_too_new[] =
    N_("this program's PTX is for compute_%u; the emulator runs compute_90 or older: "
    "build with -gencode arch=compute_90,code=compute_90");

int emu_fatbin_ptx(const void *wrapper, const char **ptx, size_t *len, char *err, size_t errlen)
{
    const emu_fatbin_wrapper *w = wrapper;
    if (!w || (uint32_t)w->magic != EMU_WRAPPER_MAGIC || w->version != 1 || !w->data) {
        snprintf(err, errlen, "%s", emu_text(emu_msg_bad_wrapper));
        return -1;
    }
    const unsigned char *fat = (const unsigned char *)w->data;
    emu_fatbin_header h;
    memcpy(&h, fat, sizeof h);
    if (h.magic != EMU_FATBIN_MAGIC || h.header_size < sizeof h) {
        snprintf(err, errlen, "%s", emu_text(emu_msg_bad_wrapper));
        return -1;
    }

    /* Of several PTX entries, take the newest architecture the emulator supports. */
    const emu_fatbin_entry *best = NULL;
    int compressed = 0;
    unsigned too_new = 0;
    const unsigned char *p = fat + h.header_size, *end = p + h.fat_size;
    while (p + sizeof(emu_fatbin_entry) <= end) {
        const emu_fatbin_entry *e = (const emu_fatbin_entry *)p;
        if (e->header_size < sizeof *e || (uint64_t)e->header_size + e->payload_size > (uint64_t)(end - p))
            break;
        if (e->kind == EMU_KIND_PTX) {
            if ((e->flags & (EMU_FLAG_COMPRESSED | EMU_FLAG_COMPRESSED_ZSTD)) || e->compressed_size)
                compressed = 1;
            else if (e->arch > 90)
                too_new = e->arch;
            else if (!best || e->arch > best->arch)
                best = e;
        }
        p += e->header_size + e->payload_size;
    }
    if (!best) {
        if (compressed) snprintf(err, errlen, "%s", emu_text(emu_msg_compressed));
        else if (too_new) snprintf(err, errlen, emu_text(emu_msg_too_new), too_new);
        else snprintf(err, errlen, "%s", emu_text(emu_msg_no_ptx));
        return -1;
    }
    const char *text = (const char *)best + best->header_size;
    *ptx = text;
    *len = strnlen(text, best->payload_size);  /* the payload is padded with NULs */
    return 0;
}
