/* test_library_ptx.c - the PTX that CUB's and Thrust's kernels use beyond the course's own, written by hand
 * so that each edge is pinned down: bmsk in both modes (values from the PTX ISA's semantics; make
 * gpu-compare checks the same table on a GPU), mov.pred with -1, a kernel parameter's address taken into a
 * register and read through it (and a read past the parameters, which is a finding), griddepcontrol. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../emu.h"

static int failures;
#define CHECK(cond, ...) do { if (!(cond)) { failures++; printf("FAIL %s:%d: ", __FILE__, __LINE__); printf(__VA_ARGS__); printf("\n"); } } while (0)

static const char *head = ".version 9.0\n.target sm_90\n.address_size 64\n";

static emu_module *load(const char *body)
{
    char text[8192], err[512] = "";
    snprintf(text, sizeof text, "%s%s", head, body);
    emu_module *m = emu_module_load(text, strlen(text), err, sizeof err);
    CHECK(m != NULL, "the module loads: %s", err);
    return m;
}

/* out[t] = bmsk.clamp(a[t], b[t]), out[32 + t] = bmsk.wrap(a[t], b[t]) */
static const char *bmsk_ptx =
    ".visible .entry bm(\n.param .u64 bm_param_0,\n.param .u64 bm_param_1,\n.param .u64 bm_param_2\n)\n{\n"
    ".reg .b32 %r<8>;\n.reg .b64 %rd<12>;\n"
    "griddepcontrol.wait;\n"
    "ld.param.u64 %rd1, [bm_param_0];\nld.param.u64 %rd2, [bm_param_1];\nld.param.u64 %rd3, [bm_param_2];\n"
    "mov.u32 %r1, %tid.x;\nmul.wide.u32 %rd4, %r1, 4;\n"
    "add.s64 %rd5, %rd1, %rd4;\nadd.s64 %rd6, %rd2, %rd4;\nadd.s64 %rd7, %rd3, %rd4;\n"
    "ld.global.u32 %r2, [%rd5];\nld.global.u32 %r3, [%rd6];\n"
    "bmsk.clamp.b32 %r4, %r2, %r3;\nbmsk.wrap.b32 %r5, %r2, %r3;\n"
    "st.global.u32 [%rd7], %r4;\nst.global.u32 [%rd7+128], %r5;\n"
    "griddepcontrol.launch_dependents;\nret;\n}\n";

/* A parameter's address: out[0] = a + b read through it, out[1] = 7 when mov.pred %p, -1 made p true;
 * with bad = 1 a lane reads 4 bytes past the parameters. */
static const char *param_ptx =
    ".visible .entry pa(\n.param .u64 pa_param_0,\n.param .u32 pa_param_1,\n.param .u32 pa_param_2,\n"
    ".param .u32 pa_param_3\n)\n{\n"
    ".reg .pred %p<3>;\n.reg .b32 %r<8>;\n.reg .b64 %rd<4>;\n"
    "ld.param.u64 %rd1, [pa_param_0];\n"
    "mov.b64 %rd2, pa_param_1;\n"
    "ld.param.u32 %r1, [%rd2];\nld.param.u32 %r2, [%rd2+4];\nld.param.u32 %r6, [%rd2+8];\n"
    "add.s32 %r3, %r1, %r2;\nst.global.u32 [%rd1], %r3;\n"
    "mov.u32 %r4, 0;\nmov.pred %p1, -1;\n@%p1 mov.u32 %r4, 7;\nst.global.u32 [%rd1+4], %r4;\n"
    "setp.ne.s32 %p2, %r6, 0;\n@!%p2 bra $L_done;\nld.param.u32 %r5, [%rd2+12];\nst.global.u32 [%rd1+8], %r5;\n"
    "$L_done:\nret;\n}\n";

int main(void)
{
    char buf[8192];
    emu_findings_take(buf, sizeof buf);

    /* a, b, then what .clamp and .wrap give (PTX ISA, bmsk: "Semantics") */
    static const unsigned table[][4] = {
        {0, 0, 0, 0}, {1, 2, 0x6, 0x6}, {0, 32, 0xffffffffu, 0}, {4, 32, 0xfffffff0u, 0},
        {28, 8, 0xf0000000u, 0xf0000000u}, {32, 4, 0, 0xf}, {33, 2, 0, 0x6}, {31, 1, 0x80000000u, 0x80000000u},
        {5, 0, 0, 0}, {0, 31, 0x7fffffffu, 0x7fffffffu}, {16, 40, 0xffff0000u, 0x00ff0000u},
        {0xffffffffu, 3, 0, 0x80000000u},
    };
    enum { ROWS = sizeof table / sizeof table[0] };
    static unsigned a[32], b[32], out[64];
    for (int i = 0; i < ROWS; i++) { a[i] = table[i][0]; b[i] = table[i][1]; }
    emu_mem_register(a, sizeof a, "a", 1);
    emu_mem_register(b, sizeof b, "b", 1);
    emu_mem_register(out, sizeof out, "out", 0);
    emu_module *m = load(bmsk_ptx);
    if (m) {
        void *pa = a, *pb = b, *po = out;
        void *args[] = { &pa, &pb, &po };
        emu_launch_result r;
        emu_launch(emu_module_kernel(m, "bm"), (emu_dim3){ 1, 1, 1 }, (emu_dim3){ ROWS, 1, 1 }, 0, args, &r);
        CHECK(r.error == 0, "bmsk kernel: error %d", r.error);
        for (int i = 0; i < ROWS; i++) {
            CHECK(out[i] == table[i][2], "bmsk.clamp(%u, %u) = 0x%08x, expected 0x%08x", a[i], b[i], out[i], table[i][2]);
            CHECK(out[32 + i] == table[i][3], "bmsk.wrap(%u, %u) = 0x%08x, expected 0x%08x", a[i], b[i], out[32 + i],
                  table[i][3]);
        }
        emu_module_free(m);
    }

    m = load(param_ptx);
    if (m) {
        const emu_kernel *k = emu_module_kernel(m, "pa");
        void *po = out;
        unsigned x = 40, y = 2, bad = 0;
        void *args[] = { &po, &x, &y, &bad };
        emu_launch_result r;
        memset(out, 0, sizeof out);
        emu_launch(k, (emu_dim3){ 1, 1, 1 }, (emu_dim3){ 32, 1, 1 }, 0, args, &r);
        CHECK(r.error == 0 && out[0] == 42 && out[1] == 7,
              "a parameter read through its address and mov.pred -1: error %d, out %u %u (expected 0, 42 7)",
              r.error, out[0], out[1]);
        CHECK(emu_findings_take(buf, sizeof buf) == 0, "no finding for good parameter reads: %s", buf);
        bad = 1;
        emu_launch(k, (emu_dim3){ 1, 1, 1 }, (emu_dim3){ 32, 1, 1 }, 0, args, &r);
        emu_findings_take(buf, sizeof buf);
        CHECK(r.error == 700 && strstr(buf, "offset 20 of the kernel's parameters, which are 20 bytes"),
              "a read past the parameters: error %d (expected 700), findings: %s", r.error, buf);
        emu_module_free(m);
    }
    emu_mem_unregister(a);
    emu_mem_unregister(b);
    emu_mem_unregister(out);
    if (!failures) printf("library PTX tests passed\n");
    return failures ? 1 : 0;
}
