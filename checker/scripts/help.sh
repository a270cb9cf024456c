#!/usr/bin/env bash
# help.sh FIRST LAST - `make help`: every target in one line each, in the learner's language. FIRST and LAST
# are the first and last exercise goals (ex01, ex15); BACKEND (the Makefile's) says what grades here.
set -u
. checker/scripts/lib.sh
first=${1:-ex01} last=${2:-ex01}

sayf 'The GPU reduction course. Start with: make ex01'
say ""
# TRANSLATORS: make help's lines: the target, padded to 22 columns, then what it does.
{
    printf '  make exNN\t%s\n' "$(textf "build your exercise NN (%s to %s), run its hidden tests, show the report" "$first" "$last")"
    printf '  make check\t%s\n' "$(textf 'grade every exercise and show your progress')"
    printf '  make watch\t%s\n' "$(textf 'grade the first exercise not done at each save (make watch exNN: that one)')"
    printf '  make hint exNN\t%s\n' "$(textf "a hint for exercise NN's first failure, a question; again for the next one")"
    printf '  make solution exNN\t%s\n' "$(textf 'once NN passes: the reference solution, a diff against yours, what comes next')"
    printf '  make predict exNN\t%s\n' "$(textf 'before running NN: say which metric you expect to move; the report compares')"
    printf '  make show exNN\t%s\n' "$(textf 'draw what your kernel did on a small launch: lanes, banks, sectors, a page')"
    printf '  make reset exNN\t%s\n' "$(textf "put exercise NN's starting file back (yours is kept in .state/backups/)")"
    printf '  make restore exNN\t%s\n' "$(textf "put your file back after make reset (the file it replaces is kept too)")"
    printf '  make editor\t%s\n' "$(textf 'write compile_commands.json, for clangd in VS Code, Vim or Emacs')"
    printf '  make test\t%s\n' "$(textf 'verify the course itself: every solution passes, every skeleton fails')"
    printf '  make bench\t%s\n' "$(textf 'on GPUs: every version and yours timed beside CUB, and Part IV beside NCCL')"
    printf '  make metrics\t%s\n' "$(textf "every version's counters on the emulator, yours beside them (no GPU needed)")"
    printf '  make classroom\t%s\n' "$(textf 'teachers: grade every checkout in SUBMISSIONS=DIR into build/classroom/')"
    printf '  make gpu-compare\t%s\n' "$(textf 'course developers, on a GPU: the emulator gives the same answers as the GPU')"
    printf '  make ncu-compare\t%s\n' "$(textf "course developers, on a GPU: the emulator's metrics beside Nsight Compute's")"
    printf '  make help\t%s\n' "$(textf 'show this list')"
} | columns -22 0 | wrap_to 100 23
say ""
sayf "Settings: SIM=1 runs kernels on the emulator even on a GPU machine; SEED=n replays a run; make check FORMAT=tap (or xml) also writes one result file per exercise to %s/results/; NO_COLOR=1 turns colours off. Inside an exercise's folder, make grades that exercise." \
    "$BUILD"
sayf 'In scripts, make exits 0 when all it was asked passed, else 2 (README: "Exit status").'
sayf 'For the report in Chinese: COURSE_LANG=zh (or a zh_CN locale); COURSE_LANG=en for English.'
if [ "${BACKEND:-gpu}" = emu ]; then
    sayf 'This machine grades on: emu (the emulator on CPU).'
else
    sayf 'This machine grades on: %s.' "${BACKEND:-gpu}"
fi
