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

# On a GPU the emulator grades too: several classic bugs give the right sum on real hardware. The learner's
# file is compiled once for both (the GPU's code and the PTX the emulator reads, linked twice), the two
# suites run side by side, and the report is one: the GPU's suite writes each test's verdict to a file as
# it ends, and the emulator's prints each test's line with the GPU's verdict beside its own
# (checker/harness/harness_merge.c). Its verdict is the grade's.
both=""
[ "$BACKEND" = gpu ] && [ -n "${EMU_LIB:-}" ] && both=1

# How many of the GPU's tests run side by side, each in its own process (which starts CUDA again: CPU work
# that need not wait for the test before). Half the cores (the emulator's suite runs beside them),
# at most 8; one at a time where a GPU is in exclusive-process mode, which refuses a second context.
gpu_jobs() {
    local cores
    case $(gpu_seen mode) in '' | Default) ;; *) echo 1; return ;; esac
    cores=$(nproc 2>/dev/null || echo 2)
    cores=$((cores / 2))
    echo $((cores < 1 ? 1 : cores > 8 ? 8 : cores))
}

# On a GPU, the processes that run the GPU's tests (the batch workers) and the speed line's program are started
# before the compile, and make their CUDA contexts while it runs: about 0.2 s each, one after another in the
# driver (checker/harness/warm.h). Not where the GPU takes one context at a time (exclusive-process mode: a
# waiting process would hold it).
warm_pids=() warm_dir=""
start_warm() {
    local jobs name
    jobs=${HARNESS_JOBS:-$(gpu_jobs)}
    [ "$jobs" -gt 1 ] && [ -x "$BUILD/bin/warm-run" ] && warm_dir=$(mktemp -d) || return 0
    # As many as the runner's workers (harness_main.c: 4 at most), then the speed line's.
    for name in $(seq -f 'worker.%g' 0 $((jobs < 4 ? jobs - 1 : 3))) speed; do
        "$BUILD/bin/warm-run" serve "$warm_dir/$name" </dev/null >/dev/null 2>&1 &
        warm_pids+=($!)
    done
    export HARNESS_WARM_DIR=$warm_dir
}
stop_warm() {
    [ ${#warm_pids[@]} = 0 ] || kill "${warm_pids[@]}" 2>/dev/null
    [ -z "$warm_dir" ] || rm -rf "$warm_dir"
}

# Builds and runs the learner's file on one backend (on a GPU: on both, the GPU's run in the background);
# returns the exit status of the suite whose report is shown.
gpu_run="" metrics_run=""
# The emulator's counters of the learner's kernel (shown only if every test passes), started beside the suite
# at a lower priority: they use what the suites leave of the cores, and cost a failing grade little. In a
# process group of their own, which a failing grade ends whole (the program they run too).
start_metrics() {
    setsid nice -n 10 checker/metrics/metrics.sh block "$nn" "$file" >"$BUILD/emu/learner/ex$nn/metrics.txt" 2>&1 &
    metrics_run=$!
}
run_on() {
    local backend=$1 out="$BUILD/$1/learner/ex$nn"
    progress_note "$(textf 'Compiling %s with nvcc...' "$file")"
    # What the build says waits until the progress line is gone: printed over it, a shorter line would
    # leave the end of "Compiling ..." behind.
    local status=0 how=$backend
    if [ -n "$both" ]; then
        how=both
        start_warm
        trap stop_warm EXIT
    fi
    mkdir -p "$out"
    checker/scripts/build-suite.sh "$nn" "$file" "$out" "$how" "$BUILD/emu/learner/ex$nn" >"$out/build.said" 2>&1 ||
        status=$?
    progress_done
    cat "$out/build.said"
    if [ $status != 0 ]; then
        say ""
        sayf 'Fix the first error above in %s, then run `make ex%s` again.' "$file" "$nn"
        checker/scripts/progress.sh record "$nn" failing
        exit "$status"
    fi
    # The compiler's warnings about the learner's file, above the tests (once, not per backend).
    if ! is_starting_file "$file"; then
        local warnings
        warnings=$(nvcc_warnings "$file" "$out/build.log")
        [ -n "$warnings" ] && say "$BOLD$(textf 'nvcc warns about your file:')$RESET" && say "$warnings" && say ""
    fi
    mkdir -p "$STATE_DIR"
    if [ -z "$both" ]; then
        [ "$backend" = gpu ] && export HARNESS_JOBS=${HARNESS_JOBS:-$(gpu_jobs)}
        # (Not in make test, which asks each suite for one job at a time and keeps the cores busy itself.)
        if [ "$backend" = emu ] && [ -n "${EMU_LIB:-}" ] && [ "${HARNESS_JOBS:-}" != 1 ]; then
            start_metrics
            trap 'kill -- -"$metrics_run" 2>/dev/null' EXIT
        fi
        timeout --foreground 1800 "$out/suite" --tap "$STATE_DIR/ex$nn.$backend.tap"
        return
    fi
    # Both suites draw the same inputs: one seed, which the report prints.
    export SEED=${SEED:-$(( (RANDOM << 15 | RANDOM) % 1000000007 ))}
    local verdicts="$out/verdicts"
    rm -f "$verdicts"
    # The GPU's run; its last line, whatever way it ends, says so (the emulator's side then stops waiting).
    # The speed line's timing program links meanwhile (CPU work: the GPU's tests wait on the GPU).
    (
        checker/scripts/speed.sh build "$nn" >"$out/speed.said" 2>&1 &
        speed_build=$!
        HARNESS_JOBS=${HARNESS_JOBS:-$(gpu_jobs)} timeout 1800 "$out/suite" --tap "$STATE_DIR/ex$nn.gpu.tap" --results "$verdicts" >"$out/report.txt" 2>&1 &
        gpu_suite=$!
        trap 'kill "$gpu_suite" "$speed_build" 2>/dev/null' TERM
        wait "$gpu_suite"
        status=$?
        printf 'exit\t%s\n' "$status" >>"$verdicts"
        # Passed on the GPU: the speed line's timing starts now, while the emulator's suite still runs (the
        # GPU is free; the emulator's verdict decides whether the line is shown).
        wait "$speed_build"
        [ "$status" = 0 ] && checker/scripts/speed.sh run "$nn" >>"$out/speed.said" 2>&1
    ) &
    gpu_run=$!
    start_metrics
    trap 'kill "$gpu_run" 2>/dev/null; kill -- -"$metrics_run" 2>/dev/null; stop_warm' EXIT
    timeout --foreground 1800 "$BUILD/emu/learner/ex$nn/suite" --tap "$STATE_DIR/ex$nn.emu.tap" --gpu-results "$verdicts"
}

if [ "$BACKEND" = emu ]; then
    if [ -n "${HAVE_GPU:-}" ]; then
        say "$DIM$(textf "No GPU here (SIM=1): the course's emulator runs your kernels (a GPU's answers, no timings).")$RESET"
    else
        say "$DIM$(textf "No GPU here: the course's emulator runs your kernels (a GPU's answers, no timings).")$RESET"
    fi
fi
run_on "$BACKEND"
status=$?
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
    # On a GPU, the speed: the learner's kernel and a copy timed (by the GPU's run, as soon as it passed), the
    # rest from make bench's tables.
    if [ -n "$gpu_run" ]; then
        if checker/scripts/speed.sh first "$nn"; then
            progress_note "$(textf 'Timing the reference on this GPU, once: later grades reuse its times...')"
        else
            progress_note "$(textf 'Timing your kernel on the GPU...')"
        fi
        wait "$gpu_run"
        progress_done
        cat "$BUILD/gpu/learner/ex$nn/speed.said" 2>/dev/null   # why there is no speed line, if it says so
        checker/scripts/speed.sh show "$nn"
    else
        checker/scripts/speed.sh "$nn"
    fi
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
        # In `make watch` (WATCH_HINT_KEY) a key gives the hint.
        if [ -n "${WATCH_HINT_KEY:-}" ]; then
            sayf 'Stuck? Press %s for %s.' "$WATCH_HINT_KEY" "$(checker/scripts/hint.sh describe "$nn")"
        else
            sayf 'Stuck? `make hint ex%s` asks %s.' "$nn" "$(checker/scripts/hint.sh describe "$nn")"
        fi
    fi
fi
exit $status
