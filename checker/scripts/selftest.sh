#!/usr/bin/env bash
# selftest.sh - `make test`: the course verifies itself. Every reference solution must pass its hidden
# suite, every skeleton must compile and fail it, every wrong kernel of the corpus (checker/corpus/) must be
# caught with the diagnosis it names, every correct but unusual kernel (checker/unusual/) must pass, every
# bad input (checker/badinputs/, run through grade.sh by badinputs.sh) must end in one clear message with
# the learner's file unchanged, and the harness's and the emulator's own tests must pass. A table of caught
# and missed per exercise follows the per-item lines. Last, `make bench`'s program is built from the
# references (on ints, and on floats by checker/bench/as_float.sed) and each version's sums are checked.
# Then the lessons' ladders and SASS boxes are compared with what their commands print now, and the
# measurement candidates of checker/bench/candidates/ must still apply to the solutions.
# On a GPU machine each verification runs on the GPU and on the emulator: a solution must pass both, and a
# wrong kernel must be caught by at least one (several bugs give the right sum on real hardware).
set -u
. checker/scripts/lib.sh
work="$BUILD/$BACKEND/selftest"
rm -rf "$work"
mkdir -p "$work"
jobs=$(nproc 2>/dev/null || echo 2)
backends=$BACKEND
[ "$BACKEND" = gpu ] && [ -n "${EMU_LIB:-}" ] && backends="gpu emu"

# ---- The list of verifications: label|exercise|source|expect|pattern|gpu-only -------------------------
items="$work/items"
: >"$items"
for nn in $(exercise_numbers); do
    file=$(exercise_file "$nn")
    sol=$(solution_file "$nn")
    echo "solution $sol|$nn|$sol|pass||" >>"$items"
    # The skeleton as committed, so that a learner's own progress does not change the verdict.
    skel="$work/skeletons/ex$nn/$(basename "$file")"
    mkdir -p "$(dirname "$skel")"
    git show "HEAD:$file" >"$skel" 2>/dev/null || cp "$file" "$skel"
    echo "skeleton $file|$nn|$skel|fail||" >>"$items"
    for bad in checker/corpus/ex"$nn"/*.cu; do
        [ -e "$bad" ] || continue
        pattern=$(sed -n 's:^// expect\: *::p' "$bad" | head -n 1)
        gpu_only=$(grep -q '^// gpu-only' "$bad" && echo 1)
        echo "wrong kernel $bad|$nn|$bad|fail|$pattern|$gpu_only" >>"$items"
    done
    for good in checker/unusual/ex"$nn"/*.cu; do
        [ -e "$good" ] || continue
        echo "unusual kernel $good|$nn|$good|pass||" >>"$items"
    done
done

# ---- Build and run each one on each backend (in parallel; each writes its own files) --------------------
run_item() {
    local index=$1 backend=$2 line
    line=$(sed -n "${index}p" "$items")
    IFS='|' read -r label nn src expect pattern gpu_only <<<"$line"
    local out="$work/$backend/item$index"
    mkdir -p "$out"
    checker/scripts/build-suite.sh "$nn" "$src" "$out" "$backend" >"$out.build" 2>&1
    echo $? >"$out.buildstatus"
    : >"$out.log"
    if [ "$(cat "$out.buildstatus")" = 0 ]; then
        NO_COLOR=1 timeout 1200 "$out/suite" --summary >"$out.log" 2>&1
    fi
}
export -f run_item
export items work
count=$(wc -l <"$items")
say "make test: $count verifications, each on: $backends ($jobs at a time)..."
# The kernels that never return first: they run longest, and would otherwise finish last, alone.
slow_first() { grep -n 'never_returns\|grid_barrier\|endless' "$items" | cut -d: -f1; grep -vn 'never_returns\|grid_barrier\|endless' "$items" | cut -d: -f1; }
for backend in $backends; do
    slow_first | sed "s/\$/ $backend/"
done | xargs -P "$jobs" -L 1 bash -c '. checker/scripts/lib.sh; run_item "$0" "$1"'
# The bad inputs go through the learner's own path, grade.sh, in scratch copies of the exercises.
say "make test: the bad inputs, through grade.sh in scratch copies of the exercises..."
JOBS=$jobs checker/scripts/badinputs.sh "$work/badinputs" >"$work/badinputs.log" 2>&1

# ---- Verdicts -----------------------------------------------------------------------------------------
# One backend's outcome of one item: sets outcome (pass, fail or skip) and, for a failure, why.
judge() {
    local out="$work/$1/item$2" expect=$3 pattern=$4 result p f s
    why=""
    if [ "$(cat "$out.buildstatus")" != 0 ]; then
        why="does not build: $(grep -v '^$' "$out.build" | head -n 3 | tr '\n' ' ')"; outcome=fail; return
    fi
    result=$(grep '^RESULT ' "$out.log" | tail -n 1)
    if [ -z "$result" ]; then
        why="the suite ended without a result: $(tail -n 3 "$out.log" | tr '\n' ' ')"; outcome=fail; return
    fi
    p=$(sed -n 's/.*passed=\([0-9]*\).*/\1/p' <<<"$result")
    f=$(sed -n 's/.*failed=\([0-9]*\).*/\1/p' <<<"$result")
    s=$(sed -n 's/.*skipped=\([0-9]*\).*/\1/p' <<<"$result")
    skipped_tests=$((skipped_tests + s))
    outcome=pass
    if [ "$expect" = pass ]; then
        if [ "$f" != 0 ]; then why="$f of $((p + f)) tests fail on $1"; outcome=fail
        elif [ "$p" = 0 ] || [ "$s" != 0 ]; then outcome=skip; fi
    elif [ "$f" = 0 ]; then
        if [ "$s" != 0 ]; then outcome=skip; else why="no test failed on $1"; outcome=fail; fi
    # The diagnosis must be in a failure's text, not on a passing test's line. The report wraps long
    # lines, so both are compared with every run of spaces and line breaks made one space.
    elif [ -n "$pattern" ] && ! grep -v '^  ✓' "$out.log" | tr -s ' \n' '  ' |
            grep -qF -- "$(tr -s ' ' <<<"$pattern")"; then
        why="failed on $1, but the report lacks '$pattern'"; outcome=fail
    fi
}

passed=0 failed=0 skipped=0 skipped_tests=0
verdict() { printf '  %s %s\n' "$1" "$2"; }
# For the table: per exercise, wrong kernels caught / missed / skipped and unusual kernels accepted /
# rejected (indexed by the exercise number as a decimal).
declare -a caught missed wskip accepted rejected
for index in $(seq 1 "$count"); do
    IFS='|' read -r label nn src expect pattern gpu_only <<<"$(sed -n "${index}p" "$items")"
    outcomes="" whys=""
    for backend in $backends; do
        judge "$backend" "$index" "$expect" "$pattern"
        [ "$outcome" = fail ] && whys="$whys $why"
        outcomes="$outcomes $outcome"
    done
    case "$label" in
    wrong*) # caught by at least one backend
        if [[ " $outcomes " == *" pass "* ]]; then ok=1
        elif [ -n "$gpu_only" ] && [ "$BACKEND" != gpu ]; then ok=skip
        elif [[ " $outcomes " == *" fail "* ]]; then ok=0
        else ok=skip; fi ;;
    *)      # right on every backend
        if [[ " $outcomes " == *" fail "* ]]; then ok=0
        elif [[ " $outcomes " == *" skip "* ]]; then ok=skip
        else ok=1; fi ;;
    esac
    e=$((10#$nn))
    case "$label:$ok" in
    wrong*:1) caught[e]=$(( ${caught[e]:-0} + 1 )) ;;
    wrong*:skip) wskip[e]=$(( ${wskip[e]:-0} + 1 )) ;;
    wrong*) missed[e]=$(( ${missed[e]:-0} + 1 )) ;;
    unusual*:1) accepted[e]=$(( ${accepted[e]:-0} + 1 )) ;;
    unusual*:skip) ;;
    unusual*) rejected[e]=$(( ${rejected[e]:-0} + 1 )) ;;
    esac
    case $ok in
    1) passed=$((passed + 1)); verdict "${GREEN}✓${RESET}" "$label" ;;
    skip) skipped=$((skipped + 1))
          reason="no device"; [ -n "$gpu_only" ] && reason="needs a GPU"
          verdict "${DIM}-${RESET}" "$label ${DIM}(skipped: $reason)${RESET}" ;;
    *) failed=$((failed + 1)); verdict "${RED}✗${RESET}" "$label:$whys (logs: $work/*/item$index.log)" ;;
    esac
done

# ---- Bad inputs: one line each from badinputs.sh ----------------------------------------------------------
bad_ok=0 bad_failed=0
say ""
say "Bad inputs, graded by grade.sh in scratch copies (log: $work/badinputs.log):"
while IFS= read -r line; do
    case "$line" in
    "ok "*) bad_ok=$((bad_ok + 1)); verdict "${GREEN}✓${RESET}" "bad input ${line#ok }" ;;
    "FAIL "*) bad_failed=$((bad_failed + 1)); verdict "${RED}✗${RESET}" "bad input ${line#FAIL }" ;;
    esac
done <"$work/badinputs/results"
if [ $((bad_ok + bad_failed)) = 0 ]; then
    bad_failed=1; verdict "${RED}✗${RESET}" "bad inputs: no result (log: $work/badinputs.log)"
fi
passed=$((passed + bad_ok)); failed=$((failed + bad_failed))

# ---- The table: caught / missed per exercise -------------------------------------------------------------
say ""
say "The checker against the corpus (wrong kernels must be caught, unusual correct ones accepted):"
printf '  %-8s %7s %7s %8s   %9s %9s\n' exercise caught missed skipped accepted rejected
tc=0 tm=0 ts=0 ta=0 tr=0
for nn in $(exercise_numbers); do
    e=$((10#$nn))
    c=${caught[e]:-0} m=${missed[e]:-0} k=${wskip[e]:-0} a=${accepted[e]:-0} r=${rejected[e]:-0}
    tc=$((tc + c)) tm=$((tm + m)) ts=$((ts + k)) ta=$((ta + a)) tr=$((tr + r))
    printf '  %-8s %7d %7d %8d   %9d %9d\n' "ex$nn" "$c" "$m" "$k" "$a" "$r"
done
printf '  %-8s %7d %7d %8d   %9d %9d\n' total "$tc" "$tm" "$ts" "$ta" "$tr"
say "  bad inputs: $bad_ok handled, $bad_failed not (each: a non-zero exit, one clear message, in time, the file unchanged)"

# ---- The harness's and the emulator's own tests -------------------------------------------------------
say ""
say "The harness's own tests:"
NO_COLOR=1 "$BUILD/harness-tests" --summary >"$work/harness-tests.log" 2>&1
hp=$(sed -n 's/^RESULT passed=\([0-9]*\).*/\1/p' "$work/harness-tests.log")
hf=$(sed -n 's/^RESULT .*failed=\([0-9]*\).*/\1/p' "$work/harness-tests.log")
if [ -z "$hp" ]; then
    failed=$((failed + 1)); verdict "${RED}✗${RESET}" "harness tests: no result (log: $work/harness-tests.log)"
else
    passed=$((passed + hp)); failed=$((failed + hf))
    verdict "$([ "$hf" = 0 ] && echo "${GREEN}✓${RESET}" || echo "${RED}✗${RESET}")" "harness tests: $hp passed, $hf failed"
fi
if [ -n "${EMU_LIB:-}" ]; then
    say ""
    say "The emulator's own tests:"
    emu_line=$(make --no-print-directory -s emu-test 2>&1 | tee "$work/emu-test.log" | tail -n 1)
    ep=$(sed -n 's/.*: \([0-9]*\) passed.*/\1/p' <<<"$emu_line")
    ef=$(sed -n 's/.* \([0-9]*\) failed.*/\1/p' <<<"$emu_line")
    if [ -z "$ep" ]; then
        failed=$((failed + 1)); verdict "${RED}✗${RESET}" "emulator tests: no result (log: $work/emu-test.log)"
    else
        passed=$((passed + ep)); failed=$((failed + ${ef:-0}))
        verdict "$([ "${ef:-0}" = 0 ] && echo "${GREEN}✓${RESET}" || echo "${RED}✗${RESET}")" "$emu_line"
    fi
fi

# ---- make bench's program, run once per version and size with its sums checked ---------------------------
say ""
say "The benchmark's versions (every reference, on ints and as floats), each run and checked:"
for backend in $backends; do
    log="$work/bench-check-$backend.log"
    checker/scripts/bench.sh --check "$backend" >"$log" 2>&1
    status=$?
    line=$(tail -n 1 "$log")
    if [ $status = 0 ]; then
        passed=$((passed + 1)); verdict "${GREEN}✓${RESET}" "bench on $backend: every result right"
    else
        failed=$((failed + 1)); verdict "${RED}✗${RESET}" "bench on $backend: $line (log: $log)"
    fi
done

# ---- The lessons' numbers and listings: each is what its command prints now ---------------------------------
say ""
say "The lessons' ladders, SASS boxes and measurement candidates, against what their commands print now:"
lesson_check() {   # LABEL LOG COMMAND...: one verdict from the command's exit status and last line
    local label=$1 log=$2
    shift 2
    if "$@" >"$log" 2>&1; then
        passed=$((passed + 1)); verdict "${GREEN}✓${RESET}" "$label: $(tail -n 1 "$log")"
    else
        failed=$((failed + 1)); verdict "${RED}✗${RESET}" "$label: $(tail -n 1 "$log") (log: $log)"
    fi
}
lesson_check "ladders (checker/bench/ladder.py --check)" "$work/ladders.log" python3 checker/bench/ladder.py --check
if command -v cuobjdump >/dev/null 2>&1 && command -v nvdisasm >/dev/null 2>&1; then
    lesson_check "SASS boxes (checker/scripts/sass.sh --check)" "$work/sass.log" checker/scripts/sass.sh --check
else
    verdict "${DIM}-${RESET}" "SASS boxes ${DIM}(not compared: cuobjdump or nvdisasm is not on PATH; .ci/run installs them)${RESET}"
fi
candidates_apply() {
    local patch
    for patch in checker/bench/candidates/*.patch; do
        corpus_apply "$patch" "$work/candidates/$(basename "$patch" .patch).cu" || return 1
    done
    echo "$(ls checker/bench/candidates/*.patch | wc -l) patches apply to today's solutions"
}
lesson_check "device-lessons.sh's candidates" "$work/candidates.log" candidates_apply

say ""
if [ "$skipped" -gt 0 ]; then
    say "$skipped verifications were skipped, not passed ($skipped_tests kernel tests did not run): they need a"
    say "device this machine lacks (the lines marked - above say which)."
fi
say "make test: $passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
