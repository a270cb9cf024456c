/* test_engine_parse.c - the engine never crashes on bad PTX, names what it cannot run, and counts bank conflicts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../emu.h"

static int failures;
#define CHECK(cond, ...) do { if (!(cond)) { failures++; printf("FAIL %s:%d: ", __FILE__, __LINE__); printf(__VA_ARGS__); printf("\n"); } } while (0)

static const char *head = ".version 9.0\n.target sm_90\n.address_size 64\n";

static emu_module *load(const char *body, char *err, size_t n)
{
    char text[8192];
    snprintf(text, sizeof text, "%s%s", head, body);
    return emu_module_load(text, strlen(text), err, n);
}

int main(void)
{
    char err[512], buf[8192];
    /* Malformed inputs: a NULL module and a sentence, never a crash. */
    const char *bad[] = {
        ".visible .entry k(\n.param .u64 p\n)\n{\n.reg .b32 %r<2>;\nbra $L__nowhere;\nret;\n}\n",
        ".visible .entry k()\n{\n.reg .b32 %r<2>;\nadd.s32 %r1, %r9, 1;\n",
        ".visible .entry k()\n{\nmov.u32 %r1, 0f;\n}\n",
        ".global .u32 x[",
        "{{{{ ]]] ;;; %%%",
        ".visible .entry k()\n{\n.reg .b32 %r<2>;\nld.global.u32 %r1, [;\n}\n",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        err[0] = 0;
        emu_module *m = load(bad[i], err, sizeof err);
        CHECK(!m && err[0], "bad PTX %zu gave %s (err '%s')", i, m ? "a module" : "no message", err);
        emu_module_free(m);
    }
    emu_module_free(emu_module_load("", 0, err, sizeof err));
    emu_module_free(emu_module_load(NULL, 0, err, sizeof err));

    /* An instruction the engine does not run: the module loads; running it is error 715, named with its line. */
    const char *unsup =
        ".visible .entry k(\n.param .u64 k_param_0\n)\n{\n.reg .b32 %r<4>;\n.reg .b64 %rd<3>;\n.loc 1 7 3\n"
        "mov.u32 %r1, 5;\ndp4a.u32.u32 %r2, %r1, %r1, %r1;\nret;\n}\n.file 1 \"/tmp/learner.cu\"\n";
    emu_module *m = load(unsup, err, sizeof err);
    CHECK(m != NULL, "a module with an unsupported instruction loads (%s)", err);
    if (m) {
        const emu_kernel *k = emu_module_kernel(m, "k");
        CHECK(k && emu_kernel_param_count(k) == 1 && emu_kernel_param_size(k, 0) == 8, "kernel k and its parameter");
        void *p = NULL;
        void *args[] = { &p };
        emu_launch_result r;
        emu_findings_take(buf, sizeof buf);
        emu_launch(k, (emu_dim3){ 1, 1, 1 }, (emu_dim3){ 32, 1, 1 }, 0, args, &r);
        CHECK(r.error == 715, "unsupported instruction: error %d, expected 715", r.error);
        emu_findings_take(buf, sizeof buf);
        CHECK(strstr(buf, "dp4a.u32.u32") && strstr(buf, "learner.cu:7"), "the finding names the instruction and line: %s", buf);
        emu_module_free(m);
    }

    /* Bank conflicts: a 32-way conflict costs 31 extra wavefronts; the same word is a broadcast. */
    const char *banks =
        ".visible .entry b(\n.param .u64 b_param_0\n)\n{\n.reg .b32 %r<8>;\n.reg .b64 %rd<4>;\n"
        ".shared .align 4 .b8 s[4096];\n"
        "mov.u32 %r1, %tid.x;\nshl.b32 %r2, %r1, 7;\nmov.u32 %r3, s;\nadd.s32 %r4, %r3, %r2;\n"
        "st.shared.u32 [%r4], %r1;\nbar.sync 0;\nld.shared.u32 %r5, [%r3];\n"
        "shl.b32 %r6, %r1, 2;\nadd.s32 %r7, %r3, %r6;\nst.shared.u32 [%r7], %r5;\nret;\n}\n";
    m = load(banks, err, sizeof err);
    CHECK(m != NULL, "bank conflict kernel loads: %s", err);
    if (m) {
        const emu_kernel *k = emu_module_kernel(m, "b");
        CHECK(k && emu_kernel_static_shared(k) == 4096, "static shared is 4096");
        void *p = NULL;
        void *args[] = { &p };
        emu_launch_result r;
        emu_launch(k, (emu_dim3){ 1, 1, 1 }, (emu_dim3){ 32, 1, 1 }, 0, args, &r);
        CHECK(r.error == 0, "bank kernel error %d", r.error);
        CHECK(r.metrics.shared_store_instructions == 2 && r.metrics.shared_store_bank_conflicts == 31,
              "stores %llu conflicts %llu, expected 2 and 31", (unsigned long long)r.metrics.shared_store_instructions,
              (unsigned long long)r.metrics.shared_store_bank_conflicts);
        CHECK(r.metrics.shared_load_instructions == 1 && r.metrics.shared_load_bank_conflicts == 0,
              "a broadcast load has no conflict (%llu)", (unsigned long long)r.metrics.shared_load_bank_conflicts);
        CHECK(r.metrics.barriers == 1 && r.metrics.warp_instructions == 11, "barriers %llu, warp instructions %llu",
              (unsigned long long)r.metrics.barriers, (unsigned long long)r.metrics.warp_instructions);
        emu_module_free(m);
    }
    emu_findings_take(buf, sizeof buf);
    if (!failures) printf("engine parse and metrics tests passed\n");
    return failures ? 1 : 0;
}
