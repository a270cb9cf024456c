#!/usr/bin/env bash
# selftest.sh - `make test`: the course verifies itself. Every reference solution must pass its hidden
# suite, every skeleton must compile and fail it, every wrong kernel of the corpus (checker/corpus/, each a
# patch against a reference solution) must be caught with every diagnosis its header names (# expect:),
# every correct but unusual kernel (checker/unusual/, patches too) must pass, every
# bad input (checker/badinputs/, run through grade.sh by badinputs.sh) must end in one clear message with
# the learner's file unchanged, every realistic mistake (corpus entries with "# report-" lines, graded
# through grade.sh by mistakes.sh) must get the report its entry describes, and the harness's and the
# emulator's own tests must pass. Last, `make bench`'s program is built from the references (on ints, and
# on floats by checker/bench/as_float.sed) and each version's sums are checked. Then the lessons' ladders
# and SASS boxes are compared with what their commands print now, the measurement candidates of
# checker/bench/candidates/ must still apply to the solutions, and the Chinese edition must be in step
# with the English one (editions.py, report-editions.py).
# Each verification's line appears as it ends, numbered "[ k/N]"; the header's N and the footer's count
# are the same verifications. A table of caught and missed per exercise follows.
# On a GPU machine each kernel runs on the GPU and on the emulator: a solution must pass both, and a
# wrong kernel must be caught by at least one (several bugs give the right sum on real hardware).
set -u
. checker/scripts/lib.sh
# The corpus's expectations quote the English report: every check here runs in English, whatever the
# developer's locale (checker/scripts/report-editions.py checks the Chinese edition).
export COURSE_LANG=en
work="$BUILD/$BACKEND/selftest"
rm -rf "$work"
mkdir -p "$work"
jobs=$(nproc 2>/dev/null || echo 2)
backends=$BACKEND
[ "$BACKEND" = gpu ] && [ -n "${EMU_LIB:-}" ] && backends="gpu emu"

# ---- The list of verifications: label|exercise|source|expect|patterns|gpu-only -------------------------
# patterns: the texts a wrong kernel's report must contain, separated by the unit separator (0x1f).
items="$work/items"
: >"$items"
sep=$'\x1f'
# The kernel of a corpus entry (checker/corpus, checker/unusual: a patch against a reference, see lib.sh),
# written to work/KIND/exNN/NAME.cu; a patch that no longer applies leaves NAME.cu.error to report instead.
entry_source() {
    local entry=$1 kind=$2 nn=$3 src
    src="$work/$kind/ex$nn/$(basename "$entry" .patch).cu"
    mkdir -p "$(dirname "$src")"
    corpus_apply "$entry" "$src" 2>"$src.error" || rm -f "$src"
    echo "$src"
}
for nn in $(exercise_numbers); do
    test_selects "$nn" || continue
    file=$(exercise_file "$nn")
    sol=$(solution_file "$nn")
    echo "solution $sol|$nn|$sol|pass||" >>"$items"
    # The skeleton as committed, so that a learner's own progress does not change the verdict.
    skel="$work/skeletons/ex$nn/$(basename "$file")"
    mkdir -p "$(dirname "$skel")"
    git show "HEAD:$file" >"$skel" 2>/dev/null || cp "$file" "$skel"
    echo "skeleton $file|$nn|$skel|fail||" >>"$items"
    # Entries with "# report-" lines are realistic mistakes, graded through grade.sh by mistakes.sh below;
    # header keys other than expect and gpu-only are for such other checks.
    for bad in checker/corpus/ex"$nn"/*.patch; do
        [ -e "$bad" ] || continue
        [ -n "$(corpus_header "$bad" 'report-[a-z]*' | head -n 1)" ] && continue
        patterns=$(corpus_header "$bad" expect | paste -sd "$sep" -)
        gpu_only=$(corpus_header "$bad" gpu-only | wc -l | sed 's/^0$//; s/^[1-9].*/1/')
        echo "wrong kernel $bad|$nn|$(entry_source "$bad" corpus "$nn")|fail|$patterns|$gpu_only" >>"$items"
    done
    for good in checker/unusual/ex"$nn"/*.patch; do
        [ -e "$good" ] || continue
        echo "unusual kernel $good|$nn|$(entry_source "$good" unusual "$nn")|pass||" >>"$items"
    done
done

# ---- Verdicts -----------------------------------------------------------------------------------------
# One backend's outcome of one item: sets outcome (pass, fail or skip) and, for a failure, why.
judge() {
    local out="$work/$1/item$2" expect=$3 patterns=$4 result p f s
    why="" tests_skipped=0
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
    tests_skipped=$s
    outcome=pass
    if [ "$expect" = pass ]; then
        if [ "$f" != 0 ]; then why="$f of $((p + f)) tests fail on $1"; outcome=fail
        elif [ "$p" = 0 ] || [ "$s" != 0 ]; then outcome=skip; fi
    elif [ "$f" = 0 ]; then
        if [ "$s" != 0 ]; then outcome=skip; else why="no test failed on $1"; outcome=fail; fi
    # Each diagnosis must be in a failure's text, not on a passing test's line. The report wraps long
    # lines, so both are compared with every run of spaces and line breaks made one space.
    else
        local report
        report=$(grep -v '^  ✓' "$out.log" | tr -s ' \n' '  ')
        while IFS= read -r -d "$sep" pattern; do
            [ -z "$pattern" ] || grep -qF -- "$(tr -s ' ' <<<"$pattern")" <<<"$report" && continue
            why="failed on $1, but the report lacks '$pattern'"; outcome=fail; return
        done <<<"$patterns$sep"
    fi
}

# Prints one verification's line as soon as it is known, numbered in the order they finish: "[ 37/143]".
# Several run at once, so the count is taken under a lock; each line is one write.
finished() {   # MARK TEXT
    local k
    k=$(flock "$work/count" bash -c 'k=$(( $(cat "$1") + 1 )); echo "$k" >"$1"; echo "$k"' _ "$work/count")
    printf '  [%*d/%d] %s %s\n' "${#total}" "$k" "$total" "$1" "$2"
}

# Builds one item and runs it on each backend, then judges it and prints its line; its verdict goes to
# $work/verdicts/INDEX as "ok|label|exercise|skipped tests" (ok: 1, 0 or skip) for the table at the end.
run_item() {
    local index=$1 line backend outcomes="" whys="" skipped_here=0
    line=$(sed -n "${index}p" "$items")
    IFS='|' read -r label nn src expect patterns gpu_only <<<"$line"
    for backend in $backends; do
        local out="$work/$backend/item$index"
        mkdir -p "$out"
        if [ -f "$src" ]; then
            checker/scripts/build-suite.sh "$nn" "$src" "$out" "$backend" >"$out.build" 2>&1
            echo $? >"$out.buildstatus"
        else
            cp "$src.error" "$out.build"; echo 1 >"$out.buildstatus"   # a corpus patch that does not apply
        fi
        : >"$out.log"
        if [ "$(cat "$out.buildstatus")" = 0 ]; then
            NO_COLOR=1 timeout 1200 "$out/suite" --summary >"$out.log" 2>&1
        fi
        judge "$backend" "$index" "$expect" "$patterns"
        [ "$outcome" = fail ] && whys="$whys $why"
        outcomes="$outcomes $outcome"
        skipped_here=$((skipped_here + ${tests_skipped:-0}))
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
    echo "$ok|$label|$nn|$skipped_here" >"$work/verdicts/$index"
    case $ok in
    1) finished "${GREEN}✓${RESET}" "$label" ;;
    skip) local reason="no device"; [ -n "$gpu_only" ] && reason="needs a GPU"
          finished "${DIM}-${RESET}" "$label ${DIM}(skipped: $reason)${RESET}" ;;
    *) finished "${RED}✗${RESET}" "$label:$whys (logs: $work/*/item$index.log)" ;;
    esac
}

# ---- What runs: the items, the bad inputs, the realistic mistakes, and four groups of other checks -------
count=$(wc -l <"$items")
bad_count=$(checker/scripts/badinputs.sh --count)
mistake_count=$(checker/scripts/mistakes.sh --count)
lesson_checks=7   # the lessons' ladders, SASS boxes and candidates, the corpus's form, the editions and the outputs' form (below)
total=$((count + bad_count + mistake_count + 2 + $(wc -w <<<"$backends") + lesson_checks))
echo 0 >"$work/count"
mkdir -p "$work/verdicts"
export -f run_item judge finished
export items work total backends sep
verification_s() { [ "$1" = 1 ] && echo "1 verification" || echo "$1 verifications"; }
say "make test: $(verification_s "$total"), $jobs at a time, each line as it ends: $count kernels (each on:"
say "$backends), $bad_count bad inputs, $mistake_count realistic mistakes, and the harness's, the emulator's,"
say "the benchmark's and the lessons' own checks."

# The kernels that never return, and exercise 08's (its 8 GiB test), first: they run longest, and would
# otherwise finish last, alone.
slow='never_returns\|grid_barrier\|endless\||08|'
slow_first() { grep -n "$slow" "$items" | cut -d: -f1; grep -vn "$slow" "$items" | cut -d: -f1; }
slow_first | xargs -P "$jobs" -n 1 bash -c '. checker/scripts/lib.sh; run_item "$0"'

passed=0 failed=0 skipped=0 skipped_tests=0
# For the table: per exercise, wrong kernels caught / missed / skipped and unusual kernels accepted /
# rejected (indexed by the exercise number as a decimal).
declare -a caught missed wskip accepted rejected
for index in $(seq 1 "$count"); do
    IFS='|' read -r ok label nn skipped_here <"$work/verdicts/$index" 2>/dev/null || { ok=0 label=? nn=00 skipped_here=0; }
    skipped_tests=$((skipped_tests + ${skipped_here:-0}))
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
    1) passed=$((passed + 1)) ;;
    skip) skipped=$((skipped + 1)) ;;
    *) failed=$((failed + 1)) ;;
    esac
done

# ---- Bad inputs and realistic mistakes: through grade.sh in scratch copies, one line each as they end ----
# Their scripts print "ok NAME: ..." or "FAIL NAME: why" (or, for a mistake whose report waits on work
# not merged yet, "WAIT NAME: why"); this counts them into got_ok, got_fail and got_wait.
stream_results() {   # KIND EXPECTED
    local line kind=$1 expected=$2
    got_ok=0 got_fail=0 got_wait=0
    while IFS= read -r line; do
        case "$line" in
        "ok "*) got_ok=$((got_ok + 1)); finished "${GREEN}✓${RESET}" "$kind ${line#ok }" ;;
        "FAIL "*) got_fail=$((got_fail + 1)); finished "${RED}✗${RESET}" "$kind ${line#FAIL }" ;;
        "WAIT "*) got_wait=$((got_wait + 1)); finished "${DIM}-${RESET}" "$kind ${line#WAIT } ${DIM}(waiting)${RESET}" ;;
        esac
    done
    local missing=$((expected - got_ok - got_fail - got_wait))
    if [ "$missing" -gt 0 ]; then
        got_fail=$((got_fail + missing))
        for _ in $(seq 1 "$missing"); do finished "${RED}✗${RESET}" "$kind: no result (log: $work/$kind.log)"; done
    fi
}
stream_results "bad input" "$bad_count" < <(JOBS=$jobs checker/scripts/badinputs.sh "$work/badinputs" 2>"$work/bad input.log")
bad_ok=$got_ok bad_failed=$got_fail
stream_results "mistake" "$mistake_count" < <(JOBS=$jobs checker/scripts/mistakes.sh "$work/mistakes" 2>"$work/mistake.log")
mistakes_ok=$got_ok mistakes_failed=$got_fail mistakes_waiting=$got_wait
passed=$((passed + bad_ok + mistakes_ok)) failed=$((failed + bad_failed + mistakes_failed))
skipped=$((skipped + mistakes_waiting))

# ---- The harness's and the emulator's own tests, and make bench's program: one verification each --------
hp=""
NO_COLOR=1 "$BUILD/harness-tests" --summary >"$work/harness-tests.log" 2>&1
hp=$(sed -n 's/^RESULT passed=\([0-9]*\).*/\1/p' "$work/harness-tests.log")
hf=$(sed -n 's/^RESULT .*failed=\([0-9]*\).*/\1/p' "$work/harness-tests.log")
if [ -n "$hp" ] && [ "$hf" = 0 ]; then
    passed=$((passed + 1)); finished "${GREEN}✓${RESET}" "the harness's own tests: $hp passed"
else
    failed=$((failed + 1)); finished "${RED}✗${RESET}" "the harness's own tests: ${hf:-no result}${hf:+ failed} (log: $work/harness-tests.log)"
fi
if [ -n "${EMU_LIB:-}" ]; then
    emu_line=$(make --no-print-directory -s emu-test 2>&1 | tee "$work/emu-test.log" | tail -n 1)
    ep=$(sed -n 's/.*: \([0-9]*\) passed.*/\1/p' <<<"$emu_line")
    ef=$(sed -n 's/.* \([0-9]*\) failed.*/\1/p' <<<"$emu_line")
    if [ -n "$ep" ] && [ "${ef:-0}" = 0 ]; then
        passed=$((passed + 1)); finished "${GREEN}✓${RESET}" "the emulator's own tests: $ep passed"
    else
        failed=$((failed + 1)); finished "${RED}✗${RESET}" "the emulator's own tests: ${emu_line:-no result} (log: $work/emu-test.log)"
    fi
else
    skipped=$((skipped + 1)); finished "${DIM}-${RESET}" "the emulator's own tests ${DIM}(skipped: no emulator here)${RESET}"
fi
# Every reference, on ints and as floats (checker/bench/as_float.sed), run once per size, sums checked.
for backend in $backends; do
    log="$work/bench-check-$backend.log"
    checker/scripts/bench.sh --check "$backend" >"$log" 2>&1
    status=$?
    line=$(tail -n 1 "$log")
    if [ $status = 0 ]; then
        passed=$((passed + 1)); finished "${GREEN}✓${RESET}" "make bench's program on $backend: every version's sums right"
    else
        failed=$((failed + 1)); finished "${RED}✗${RESET}" "make bench's program on $backend: $line (log: $log)"
    fi
done

# ---- The lessons' numbers and listings: each is what its command prints now ---------------------------------
lesson_check() {   # LABEL LOG COMMAND...: one verdict from the command's exit status and last line
    local label=$1 log=$2
    shift 2
    if "$@" >"$log" 2>&1; then
        passed=$((passed + 1)); finished "${GREEN}✓${RESET}" "$label: $(tail -n 1 "$log")"
    else
        failed=$((failed + 1)); finished "${RED}✗${RESET}" "$label: $(tail -n 1 "$log") (log: $log)"
    fi
}
lesson_check "ladders (checker/bench/ladder.py --check)" "$work/ladders.log" python3 checker/bench/ladder.py --check
if command -v cuobjdump >/dev/null 2>&1 && command -v nvdisasm >/dev/null 2>&1; then
    lesson_check "SASS boxes (checker/scripts/sass.sh --check)" "$work/sass.log" checker/scripts/sass.sh --check
else
    skipped=$((skipped + 1))
    finished "${DIM}-${RESET}" "SASS boxes ${DIM}(skipped: cuobjdump or nvdisasm is not on PATH; .ci/run installs them)${RESET}"
fi
candidates_apply() {
    local patch
    for patch in checker/bench/candidates/*.patch; do
        corpus_apply "$patch" "$work/candidates/$(basename "$patch" .patch).cu" || return 1
    done
    echo "$(ls checker/bench/candidates/*.patch | wc -l) patches apply to today's solutions"
}
lesson_check "device-lessons.sh's candidates" "$work/candidates.log" candidates_apply
# Corpus and unusual entries are patches (lib.sh); a file stored whole would never be run.
corpus_all_patches() {
    local whole
    whole=$(find checker/corpus checker/unusual -type f ! -name '*.patch' | sort)
    [ -z "$whole" ] || { echo "stored whole, so never run (make each a patch, see lib.sh): $whole" | tr '\n' ' '; return 1; }
    echo "$(find checker/corpus checker/unusual -name '*.patch' | wc -l) entries, every one a patch"
}
lesson_check "the corpus's entries" "$work/corpus-form.log" corpus_all_patches
# The Chinese edition in step with the English one: the pages, and the report (its catalog and a grade).
lesson_check "Chinese pages (checker/scripts/editions.py)" "$work/editions.log" python3 checker/scripts/editions.py
if command -v msgfmt >/dev/null 2>&1 && command -v xgettext >/dev/null 2>&1; then
    lesson_check "Chinese report (checker/scripts/report-editions.py)" "$work/report-editions.log" \
        python3 checker/scripts/report-editions.py
else
    skipped=$((skipped + 1))
    finished "${DIM}-${RESET}" "Chinese report ${DIM}(skipped: gettext's msgfmt or xgettext is not on PATH; deps.sh installs them)${RESET}"
fi

# The learner-facing outputs of make's targets: 100 columns, commands whole, reset and restore (outputs.sh).
lesson_check "the targets' outputs (checker/scripts/outputs.sh)" "$work/outputs.log" checker/scripts/outputs.sh "$work/outputs"

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
say "  bad inputs: $bad_ok handled, $bad_failed not (a non-zero exit, one clear message, in time, the file unchanged)"
say "  realistic mistakes: $mistakes_ok reported as they should be, $mistakes_failed not, $mistakes_waiting waiting"
if [ "$mistakes_waiting" -gt 0 ]; then
    while IFS= read -r line; do say "    waiting: $line"; done < <(checker/scripts/mistakes.sh --waiting)
fi


say ""
if [ "$skipped" -gt 0 ]; then
    were=$([ "$skipped" = 1 ] && echo "was" || echo "were")
    say "$(verification_s "$skipped") $were skipped or waiting, not passed: the lines marked - above say why."
    [ "$skipped_tests" -gt 0 ] && say "($skipped_tests kernel tests did not run.)"
fi
say "make test: $(verification_s "$total"): $passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
