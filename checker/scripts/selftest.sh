#!/usr/bin/env bash
# selftest.sh - `make test`: the course verifies itself. Every reference solution must pass its hidden
# suite, every skeleton must compile and fail it, every wrong kernel of the corpus must be caught with the
# diagnosis it names, and the harness's and the emulator's own tests must pass.
set -u
. checker/scripts/lib.sh
work="$BUILD/$BACKEND/selftest"
rm -rf "$work"
mkdir -p "$work"
jobs=$(nproc 2>/dev/null || echo 2)

# ---- The list of verifications: label|exercise|source|expect|pattern -------------------------------
items="$work/items"
: >"$items"
for nn in $(exercise_numbers); do
    file=$(exercise_file "$nn")
    sol=$(solution_file "$nn")
    echo "solution $sol|$nn|$sol|pass|" >>"$items"
    # The skeleton as committed, so that a learner's own progress does not change the verdict.
    skel="$work/skeletons/ex$nn/$(basename "$file")"
    mkdir -p "$(dirname "$skel")"
    git show "HEAD:$file" >"$skel" 2>/dev/null || cp "$file" "$skel"
    echo "skeleton $file|$nn|$skel|fail|" >>"$items"
    for bad in checker/corpus/ex"$nn"/*.cu; do
        [ -e "$bad" ] || continue
        pattern=$(sed -n 's:^// expect\: *::p' "$bad" | head -n 1)
        echo "wrong kernel $bad|$nn|$bad|fail|$pattern" >>"$items"
    done
done

# ---- Build and run each one (in parallel; each writes its own folder) ------------------------------
run_item() {
    local index=$1 line
    line=$(sed -n "${index}p" "$items")
    IFS='|' read -r label nn src expect pattern <<<"$line"
    local out="$work/item$index"
    checker/scripts/build-suite.sh "$nn" "$src" "$out" >"$out.build" 2>&1
    echo $? >"$out.buildstatus"
    if [ "$(cat "$out.buildstatus")" = 0 ]; then
        HARNESS_TIMEOUT=${HARNESS_TIMEOUT:-} NO_COLOR=1 timeout 1200 "$out/suite" --summary >"$out.log" 2>&1
    else
        : >"$out.log"
    fi
}
export -f run_item
export items work
count=$(wc -l <"$items")
say "make test: building and running $count verifications on backend '$BACKEND' ($jobs at a time)..."
seq 1 "$count" | xargs -P "$jobs" -I{} bash -c '. checker/scripts/lib.sh; run_item {}'

# ---- Verdicts -----------------------------------------------------------------------------------------
passed=0 failed=0 skipped=0 skipped_tests=0
verdict() { printf '  %s %s\n' "$1" "$2"; }
for index in $(seq 1 "$count"); do
    IFS='|' read -r label nn src expect pattern <<<"$(sed -n "${index}p" "$items")"
    out="$work/item$index"
    build=$(cat "$out.buildstatus")
    result=$(grep '^RESULT ' "$out.log" | tail -n 1)
    p=$(sed -n 's/.*passed=\([0-9]*\).*/\1/p' <<<"$result"); p=${p:-0}
    f=$(sed -n 's/.*failed=\([0-9]*\).*/\1/p' <<<"$result"); f=${f:-0}
    s=$(sed -n 's/.*skipped=\([0-9]*\).*/\1/p' <<<"$result"); s=${s:-0}
    why=""
    if [ "$build" != 0 ]; then
        ok=0; why="does not build: $(head -n 3 "$out.build" | tr '\n' ' ')"
    elif [ -z "$result" ]; then
        ok=0; why="the suite ended without a result: $(tail -n 3 "$out.log" | tr '\n' ' ')"
    elif [ "$f" = 0 ] && [ "$s" != 0 ] && [ "$expect" = fail ]; then
        ok=skip
    elif [ "$expect" = pass ]; then
        if [ "$f" = 0 ]; then ok=1; [ "$s" != 0 ] && ok=skip; else ok=0; why="$f of $((p + f)) tests fail"; fi
    else
        if [ "$f" = 0 ]; then ok=0; why="no test failed";
        elif [ -n "$pattern" ] && ! grep -qF -- "$pattern" "$out.log"; then ok=0; why="failed, but without '$pattern'";
        else ok=1; fi
    fi
    skipped_tests=$((skipped_tests + s))
    case $ok in
    1) passed=$((passed + 1)); verdict "${GREEN}✓${RESET}" "$label" ;;
    skip) skipped=$((skipped + 1)); verdict "${DIM}-${RESET}" "$label ${DIM}(skipped: no device)${RESET}" ;;
    *) failed=$((failed + 1)); verdict "${RED}✗${RESET}" "$label: $why (log: $out.log)" ;;
    esac
done

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

say ""
if [ "$skipped" -gt 0 ]; then
    say "$skipped verifications ($skipped_tests kernel tests) were skipped, not passed: this machine has no GPU"
    say "and the checker was built without the emulator."
fi
say "make test: $passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
