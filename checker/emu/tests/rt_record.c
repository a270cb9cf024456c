/* rt_record.c - findings as records (emu_record.h): the line that carries one from a test's process to the
 * report reads back as it was written, tools get the documented keys, the words name both places, and the
 * runtime keeps each finding once, with the count its launch's end gives it. */
#include <stdlib.h>
#include <string.h>

#include "../emu.h"
#include "emu_check.h"

/* A race between two warps, as the engine files it: both accesses, their threads and the array. */
static emu_record a_race(void)
{
    emu_record r;
    emu_record_init(&r, EMU_FD_RACE);
    snprintf(r.at.file, sizeof r.at.file, "exercises/02-interleaved/v1 interleaved.cu");
    r.at.line = 25;
    r.at.label = EMU_LABEL_READ;
    r.other = r.at;
    r.other.line = 20;
    r.other.label = EMU_LABEL_WRITE;
    r.other.has_thread = 1;
    r.other.thread[0] = 31;
    snprintf(r.kernel, sizeof r.kernel, "reduce_v1_kernel");
    r.has_thread = 1;
    r.block[0] = 2;
    r.thread[0] = 32;
    r.other.block[0] = 2;
    snprintf(r.array, sizeof r.array, "sdata");
    r.count = 39;
    r.lanes = 0xffff0000u;
    snprintf(r.text, sizeof r.text, "reads shared memory sdata[1] that \"thread\" wrote\\after the last barrier.\nA race.");
    return r;
}

static void test_a_record_reads_back_as_it_was_written(void)
{
    emu_record r = a_race(), back;
    char line[8192];
    size_t n = emu_record_encode(&r, EMU_ENCODE_ALL, line, sizeof line);
    CHECK(n == strlen(line) && !strchr(line, '\n'), "one line: %s", line);
    CHECK(emu_record_is_line(line, n), "recognised as a record: %s", line);
    CHECK(emu_record_decode(line, n, &back), "decoded: %s", line);
    CHECK(back.kind == EMU_FD_RACE && back.at.line == 25 && back.other.line == 20, "kind and lines: %s", line);
    CHECK(!strcmp(back.at.file, r.at.file) && !strcmp(back.other.file, r.other.file), "files with a space: %s", back.at.file);
    CHECK(back.at.label == EMU_LABEL_READ && back.other.label == EMU_LABEL_WRITE, "labels: %s", line);
    CHECK(back.other.has_thread && back.other.thread[0] == 31 && back.other.block[0] == 2, "the other thread: %s", line);
    CHECK(back.has_thread && back.thread[0] == 32 && back.block[0] == 2 && !strcmp(back.kernel, "reduce_v1_kernel"),
          "kernel, block and thread: %s", line);
    CHECK(!strcmp(back.array, "sdata") && back.count == 39 && back.lanes == 0xffff0000u, "array, count, lanes: %s", line);
    CHECK(!strcmp(back.text, r.text), "the text with quotes, a backslash and a newline: %s", back.text);
    CHECK(!emu_record_decode("finding: kind=\"no such kind\" at=x.cu:1", 37, &back), "an unknown kind is no record");
    CHECK(!emu_record_is_line("Hint: finding: kind=x", 21), "a hint is no record");
}

static void test_tools_get_the_documented_keys_in_order(void)
{
    emu_record r = a_race();
    char line[8192];
    emu_record_encode(&r, EMU_ENCODE_TOOLS, line, sizeof line);
    const char *want = "finding: kind=\"race between warps\" at=\"exercises/02-interleaved/v1 interleaved.cu:25\" "
                       "other=\"exercises/02-interleaved/v1 interleaved.cu:20\" array=sdata count=39 ";
    CHECK(!strncmp(line, want, strlen(want)), "the line starts with kind, at, other, array, count: %s", line);
    CHECK(!strstr(line, "text="), "no text for tools: %s", line);
    emu_record once;
    emu_record_init(&once, EMU_FD_GUARD_READ);
    snprintf(once.at.file, sizeof once.at.file, "k.cu");
    once.at.line = 3;
    emu_record_encode(&once, EMU_ENCODE_TOOLS, line, sizeof line);
    CHECK(!strcmp(line, "finding: kind=\"read outside the input\" at=k.cu:3"), "only what it has: %s", line);
    for (int k = 0; k < EMU_FD_COUNT; k++) {
        const char *noun = emu_kind_noun(k);
        CHECK(emu_kind_of(noun, strlen(noun)) == k, "kind %d's noun names it: %s", k, noun);
    }
}

static void test_the_words_name_both_places(void)
{
    emu_record r = a_race();
    char head[8192], second[1024];
    emu_record_words(&r, 1, head, sizeof head, second, sizeof second);
    const char *want = "exercises/02-interleaved/v1 interleaved.cu:25 (the read): Race between warps: in kernel "
                       "reduce_v1_kernel, block (2,0,0), thread (32,0,0): reads shared memory";
    CHECK(!strncmp(head, want, strlen(want)), "place, label, kind, thread: %s", head);
    CHECK(strstr(head, "It happened 39 times in this launch; only the first is described.") != NULL, "the count: %s", head);
    CHECK(!strcmp(second, "exercises/02-interleaved/v1 interleaved.cu:20: the write it races with, by thread (31,0,0)"),
          "the other access: %s", second);
    r.other.block[0] = 5;
    emu_record_words(&r, 1, head, sizeof head, second, sizeof second);
    CHECK(strstr(second, "by thread (31,0,0) of block (5,0,0)") != NULL, "another block is named: %s", second);

    emu_record call;
    emu_record_init(&call, EMU_FD_MEMBERS);
    snprintf(call.at.file, sizeof call.at.file, "v6.cu");
    call.at.line = 30;
    call.at.label = EMU_LABEL_CALLEE;
    snprintf(call.at.func, sizeof call.at.func, "warp_reduce");
    call.other = call.at;
    call.other.line = 57;
    call.other.label = EMU_LABEL_CALL;
    snprintf(call.text, sizeof call.text, "text");
    emu_record_words(&call, 0, head, sizeof head, second, sizeof second);
    CHECK(!strcmp(head, "v6.cu:30 (in warp_reduce): text"), "the line in the callee, no kind on stderr: %s", head);
    CHECK(!strcmp(second, "v6.cu:57: the call of warp_reduce"), "the learner's call: %s", second);

    emu_record host;
    emu_record_init(&host, EMU_FD_RUNTIME);
    snprintf(host.text, sizeof host.text, "cudaMemcpy copies past the end.");
    emu_record_words(&host, 1, head, sizeof head, second, sizeof second);
    CHECK(!strcmp(head, "cudaMemcpy copies past the end.") && !second[0], "a runtime call's finding is its text: %s", head);
}

static void test_the_runtime_keeps_each_finding_once_with_its_count(void)
{
    int n;
    free(emu_records_take(&n));
    emu_record r = a_race();
    r.count = 0;
    emu_finding_record(&r);
    emu_finding_record(&r);
    emu_finding_count(EMU_FD_RACE, &r.at, 7);
    emu_finding("a %s of the host", "finding");
    emu_record *taken = emu_records_take(&n);
    CHECK(n == 2 && taken, "two distinct findings kept, got %d", n);
    CHECK(n == 2 && taken[0].count == 7 && taken[0].other.line == 20, "the race, counted: %lu", taken ? taken[0].count : 0);
    CHECK(n == 2 && taken[1].kind == EMU_FD_RUNTIME && !strcmp(taken[1].text, "a finding of the host"),
          "the host's finding: %s", n == 2 ? taken[1].text : "");
    free(taken);
    taken = emu_records_take(&n);
    CHECK(n == 0 && !taken, "taken once: %d", n);
}

int main(void)
{
    test_a_record_reads_back_as_it_was_written();
    test_tools_get_the_documented_keys_in_order();
    test_the_words_name_both_places();
    test_the_runtime_keeps_each_finding_once_with_its_count();
    return CHECK_DONE();
}
