#!/usr/bin/env bash
# grade.sh NN - builds the learner's exercise NN against its hidden tests, runs them, shows the report,
# records progress and says what to do next. Never writes to the learner's files.
set -u
. checker/scripts/lib.sh
nn=$1
file=$(exercise_file "$nn")
dir=$(exercise_dir "$nn")
if [ -z "$dir" ]; then
    say "There is no exercise $nn. The exercises are: $(exercise_numbers | tr '\n' ' ')"
    exit 2
fi
if [ -z "$file" ]; then
    say "The folder $dir has no .cu file to grade. Run \`make reset ex$nn\` to get the starting file back."
    exit 2
fi

# Builds and runs the learner's file on one backend; returns the suite's exit status.
run_on() {
    local backend=$1 out="$BUILD/$1/learner/ex$nn"
    checker/scripts/build-suite.sh "$nn" "$file" "$out" "$backend" || {
        local status=$?
        say ""
        say "Fix the first error above in $file, then run \`make ex$nn\` again."
        checker/scripts/progress.sh record "$nn" failing
        exit "$status"
    }
    mkdir -p "$STATE_DIR"
    timeout --foreground 1800 "$out/suite" --tap "$STATE_DIR/ex$nn.$backend.tap"
}

if [ "$BACKEND" = emu ]; then
    say "${DIM}No GPU here${HAVE_GPU:+ (SIM=1)}: your kernels run on the course's emulator, which gives the answers a GPU would, but no timings.${RESET}"
fi
run_on "$BACKEND"
status=$?
# On a GPU the emulator grades too: several classic bugs give the right sum on real hardware.
if [ "$BACKEND" = gpu ] && [ -n "${EMU_LIB:-}" ]; then
    say ""
    say "${DIM}The same tests on the course's emulator, which also finds races, out-of-bounds accesses and other bugs a GPU can hide:${RESET}"
    run_on emu || status=1
fi
say ""
if [ $status -eq 0 ]; then
    checker/scripts/progress.sh record "$nn" done
    next=$(exercise_numbers | awk -v n="$nn" '$1 > n { print; exit }')
    if [ -n "$next" ]; then
        say "${GREEN}Well done.${RESET} Next: read $(exercise_dir "$next")/lesson.md, then run \`make ex$next\`."
    else
        say "${GREEN}Well done: that was the last exercise.${RESET} Run \`make check\` to see the whole course."
    fi
else
    checker/scripts/progress.sh record "$nn" failing
    say "Edit $file and run \`make ex$nn\` again; the lesson is $dir/lesson.md."
fi
exit $status
