#!/usr/bin/env bash
# grade.sh NN - builds the learner's exercise NN against its hidden tests, runs them, shows the report,
# records progress and says what to do next. Never writes to the learner's files.
set -u
. checker/scripts/lib.sh
nn=$1
require_exercise "$nn"
file=$(exercise_file "$nn")
dir=$(exercise_dir "$nn")
if [ -z "$file" ]; then
    sayf 'The folder %s has no .cu file to grade. Run `make reset ex%s` to get the starting file back.' "$dir" "$nn"
    exit 2
fi

# On a GPU the emulator grades too: several classic bugs give the right sum on real hardware. Its second
# opinion gives the verdict. The learner's file is compiled once for both (the GPU's code and the PTX the
# emulator reads, linked twice), and the emulator's tests run beside the GPU's, their report held back
# until the GPU's is shown.
second_opinion=""
[ "$BACKEND" = gpu ] && [ -n "${EMU_LIB:-}" ] && second_opinion=1

# Builds and runs the learner's file on one backend (on a GPU with the second opinion: both, the emulator's
# run in the background into its report file); returns the suite's exit status.
emu_run="" metrics_run=""
run_on() {
    local backend=$1 out="$BUILD/$1/learner/ex$nn"
    shift
    progress_note "$(textf 'Compiling %s with nvcc...' "$file")"
    local how=$backend
    [ -n "$second_opinion" ] && how=both
    checker/scripts/build-suite.sh "$nn" "$file" "$out" "$how" "$BUILD/emu/learner/ex$nn" || {
        local status=$?
        say ""
        sayf 'Fix the first error above in %s, then run `make ex%s` again.' "$file" "$nn"
        checker/scripts/progress.sh record "$nn" failing
        exit "$status"
    }
    progress_done
    # The compiler's warnings about the learner's file, above the tests (once, not per backend).
    if ! is_starting_file "$file"; then
        local warnings
        warnings=$(nvcc_warnings "$file" "$out/build.log")
        [ -n "$warnings" ] && say "$BOLD$(textf 'nvcc warns about your file:')$RESET" && say "$warnings" && say ""
    fi
    mkdir -p "$STATE_DIR"
    if [ -n "$second_opinion" ]; then
        COURSE_COLOR=$([ -t 1 ] && echo 1) timeout 1800 "$BUILD/emu/learner/ex$nn/suite" \
            --tap "$STATE_DIR/ex$nn.emu.tap" --second-opinion >"$BUILD/emu/learner/ex$nn/report.txt" 2>&1 &
        emu_run=$!
        # The emulator's counters too (shown only if every test passes): the GPU machine has cores to spare.
        checker/metrics/metrics.sh block "$nn" "$file" >"$BUILD/emu/learner/ex$nn/metrics.txt" 2>&1 &
        metrics_run=$!
        trap 'kill "$emu_run" "$metrics_run" 2>/dev/null' EXIT
    fi
    timeout --foreground 1800 "$out/suite" --tap "$STATE_DIR/ex$nn.$backend.tap" "$@"
}

if [ "$BACKEND" = emu ]; then
    if [ -n "${HAVE_GPU:-}" ]; then
        say "$DIM$(textf "No GPU here (SIM=1): the course's emulator runs your kernels (a GPU's answers, no timings).")$RESET"
    else
        say "$DIM$(textf "No GPU here: the course's emulator runs your kernels (a GPU's answers, no timings).")$RESET"
    fi
fi
if [ -n "$second_opinion" ]; then run_on gpu --opinion-follows; else run_on "$BACKEND"; fi
status=$?
if [ -n "$second_opinion" ]; then
    say ""
    say "$DIM$(textf "The same tests on the course's emulator, which also finds races, out-of-bounds accesses and other bugs a GPU can hide:")$RESET"
    progress_note "$(textf "Waiting for the emulator's run...")"
    wait "$emu_run" || status=1
    progress_done
    cat "$BUILD/emu/learner/ex$nn/report.txt"
fi
# The hint follows the first failure; on a GPU, the emulator's when it has one: it names the cause (a race,
# a read past n) where the GPU only shows a wrong sum.
tap="$STATE_DIR/ex$nn.$BACKEND.tap"
[ "$BACKEND" = gpu ] && grep -q '^not ok' "$STATE_DIR/ex$nn.emu.tap" 2>/dev/null && tap="$STATE_DIR/ex$nn.emu.tap"
checker/scripts/hint.sh record "$nn" "$tap"
if [ $status -eq 0 ]; then
    # The emulator's counters for this kernel beside the reference's (only for a kernel that runs right:
    # one that does not would only repeat the report above, or never end).
    if [ -n "$metrics_run" ]; then
        progress_note "$(textf "Counting your kernel's instructions and memory accesses on the emulator...")"
        wait "$metrics_run"
        progress_done
        cat "$BUILD/emu/learner/ex$nn/metrics.txt"
    elif [ -n "${EMU_LIB:-}" ]; then
        progress_note "$(textf "Counting your kernel's instructions and memory accesses on the emulator...")"
        checker/metrics/metrics.sh block "$nn" "$file"
        progress_done
    fi
    # On a GPU, the speed: the learner's kernel and a copy timed now, the rest from make bench's tables.
    checker/scripts/speed.sh "$nn"
    say ""
    checker/scripts/progress.sh record "$nn" done
    checker/scripts/predict.sh show "$nn"
    next=$(exercise_numbers | awk -v n="$nn" '$1 > n { print; exit }')
    if [ -n "$next" ]; then
        say "$(joined "$GREEN$(textf 'Well done.')$RESET" \
            "$(textf 'Next: read %s, then run `make ex%s`.' "$(exercise_lesson "$next")" "$next")")"
        checker/scripts/predict.sh offer "$next"
    else
        say "$(joined "$GREEN$(textf 'Well done: that was the last exercise.')$RESET" \
            "$(textf 'Run `make check` to see the whole course.')")"
    fi
    sayf '`make solution ex%s` shows the reference solution beside yours.' "$nn"
else
    checker/scripts/progress.sh record "$nn" failing
    if is_starting_file "$file"; then
        sayf 'This is still the starting file: fill in its TODOs, from TODO 1, then run `make ex%s` again.' "$nn"
    else
        sayf 'Stuck? `make hint ex%s` asks %s.' "$nn" "$(checker/scripts/hint.sh describe "$nn")"
    fi
fi
exit $status
