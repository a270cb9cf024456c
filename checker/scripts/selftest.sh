#!/usr/bin/env bash
# selftest.sh - `make test`: the course verifies itself. Every reference solution must pass its hidden
# suite, every skeleton must compile and fail it, every wrong kernel of the corpus (checker/corpus/, each a
# patch against a reference solution) must be caught with every diagnosis its header names (# expect:),
# every correct but unusual kernel (checker/unusual/, patches too) must pass, every
# bad input (checker/badinputs/, run through grade.sh by badinputs.sh) must end in one clear message with
# the learner's file unchanged, the batch workers of a GPU's grade must give the verdicts each test gets alone
# (batch-check.sh), every realistic mistake (corpus entries with "# report-" lines, graded
# through grade.sh by mistakes.sh) must get the report its entry describes, and the harness's and the
# emulator's own tests must pass. `make bench`'s program is built from the references (on ints, and on
# floats by checker/bench/as_float.sed) and each version's sums are checked. The lessons' ladders
# and SASS boxes are compared with what their commands print now, so are `make show`'s pictures (with its own
# checks: checker/show/check_show.py), the measurement candidates of
# checker/bench/candidates/ and rows-candidates/ must still apply to the solutions, and the Chinese edition must be in step
# with the English one (editions.py, report-editions.py).
# The classroom's workflow must pass actionlint, and `make classroom` must grade three checkouts as they are.
# Every verification is one job of one queue, longest first (as long as it took last time here, else a
# guess), run nproc at a time, so that both cores of a small machine stay busy to the end.
# Each verification's line appears as it ends, numbered "[ k/N]"; the header's N and the footer's count
# are the same verifications. A table of caught and missed per exercise follows.
# What it needs beyond a learner's tools (xgettext, Chromium, cuobjdump and nvdisasm, actionlint) deps.sh
# --test installs meanwhile; the checks that use them wait for it.
# On a GPU machine each kernel runs on the GPU and on the emulator: a solution must pass both, and a
# wrong kernel must be caught by at least one (several bugs give the right sum on real hardware).
set -u
. checker/scripts/lib.sh
# The corpus's expectations quote the English report: every check here runs in English, whatever the
# developer's locale (checker/scripts/report-editions.py checks the Chinese edition).
export COURSE_LANG=en
# make test runs nproc verifications at once: each suite then runs its tests one at a time (a learner's grade
# runs them side by side, harness_main.c), or a 32-core machine would run 32 suites of 16 workers each.
export HARNESS_JOBS=1
# The compilers' versions, which the compile cache's every key names, asked once (nvcc-cached.sh --tools).
KERNEL_CACHE_TOOLS=$(checker/scripts/nvcc-cached.sh --tools 2>/dev/null) && export KERNEL_CACHE_TOOLS
work="$BUILD/$BACKEND/selftest"
rm -rf "$work"
mkdir -p "$work"
# The tools only some checks need install while the kernels are graded (mostly a download): those checks
# wait for them (with_dev_tools).
( checker/scripts/deps.sh --test >"$work/deps.log" 2>&1; touch "$work/deps.done" ) &
with_dev_tools() {
    local waited=0
    while [ ! -e "$work/deps.done" ] && [ $waited -lt 900 ]; do sleep 1; waited=$((waited + 1)); done
    PATH=$(dev_tools_path)
    export PATH
}
jobs=$(nproc 2>/dev/null || echo 2)
backends=$BACKEND
[ "$BACKEND" = gpu ] && [ -n "${EMU_LIB:-}" ] && backends="gpu emu"

# ---- The list of verifications: label|exercise|source|expect|patterns|gpu-only -------------------------
# patterns: the texts a wrong kernel's report must contain, separated by the unit separator (0x1f).
items="$work/items"
: >"$items"
sep=$'\x1f'
# Each corpus entry's header, read for every entry of an exercise in one pass (lib.sh's corpus_header reads
# one key of one entry): "ENTRY<tab>REPORT<tab>PATTERNS<tab>GPU-ONLY", REPORT 1 for an entry with "# report-"
# lines, PATTERNS its "# expect:" values joined by the separator, GPU-ONLY 1 for "# gpu-only".
corpus_headers() {   # ENTRY...
    awk -v sep="$sep" '
        function out() { print entry "\t" report "\t" patterns "\t" (gpu ? 1 : "") }
        FNR == 1 { if (entry != "") out(); entry = FILENAME; header = 1; report = gpu = count = 0; patterns = "" }
        /^--- / { header = 0 }
        header && /^# report-[a-z]*(:|$)/ { report = 1 }
        header && /^# expect(:|$)/ { value = $0; sub(/^# expect(: *)?/, "", value)
                                     patterns = count++ ? patterns sep value : value }
        header && /^# gpu-only(:|$)/ { gpu = 1 }
        END { if (entry != "") out() }' "$@"
}
# The kernel of a corpus entry (checker/corpus, checker/unusual: a patch against a reference, see lib.sh) is
# written by its own job (run_item), where make show writes it too (corpus_source).
for nn in $(exercise_numbers); do
    test_selects "$nn" || continue
    file=$(exercise_file "$nn")
    sol="solutions/${file##*/}"
    echo "solution $sol|$nn|$sol|pass||" >>"$items"
    # The skeleton as committed, so that a learner's own progress does not change the verdict.
    skel="$work/skeletons/ex$nn/${file##*/}"
    mkdir -p "${skel%/*}"
    git show "HEAD:$file" >"$skel" 2>/dev/null || cp "$file" "$skel"
    echo "skeleton $file|$nn|$skel|fail||" >>"$items"
    # Entries with "# report-" lines are realistic mistakes, graded through grade.sh by mistakes.sh below;
    # header keys other than expect and gpu-only are for such other checks.
    entries=(checker/corpus/ex"$nn"/*.patch)
    [ -e "${entries[0]}" ] &&
        while IFS=$'\t' read -r bad report patterns gpu_only; do
            [ "$report" = 1 ] && continue
            echo "wrong kernel $bad|$nn|$(corpus_source "$bad")|fail|$patterns|$gpu_only" >>"$items"
        done < <(corpus_headers "${entries[@]}")
    for good in checker/unusual/ex"$nn"/*.patch; do
        [ -e "$good" ] || continue
        echo "unusual kernel $good|$nn|$(corpus_source "$good")|pass||" >>"$items"
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
        # A kernel that must fail, on a machine with too few GPUs for the tests that would show it (Part IV's
        # rings on one GPU: a ring of 1 leaves every buffer as it was, right even for a skeleton).
        if [ "$s" != 0 ]; then outcome=skip
        elif grep -q '(not run here: ' "$out.log"; then outcome=skip skip_reason="too few devices on $1"
        else why="no test failed on $1"; outcome=fail; fi
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
    local index=$1 line backend outcomes="" whys="" skipped_here=0 skip_reason=""
    line=$(sed -n "${index}p" "$items")
    IFS='|' read -r label nn src expect patterns gpu_only <<<"$line"
    # A corpus entry's kernel, written here (a patch that no longer applies leaves NAME.cu.error to report).
    case $label in
    "wrong kernel "* | "unusual kernel "*)
        mkdir -p "${src%/*}"
        corpus_apply "${label#* kernel }" "$src" 2>"$src.error" || rm -f "$src" ;;
    esac
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
        # A kernel expected to fail runs up to the first failure after which its report holds every diagnosis
        # the entry expects (harness_main.c's all_said), or to the suite's end.
        local stop=""
        [ "$expect" = fail ] && stop=1
        [ "$(cat "$out.buildstatus")" = 0 ] &&
            HARNESS_STOP_AT_FAILURE=$stop HARNESS_STOP_WHEN_SAID=${stop:+$patterns} NO_COLOR=1 \
                timeout 1200 "$out/suite" --summary >"$out.log" 2>&1
        judge "$backend" "$index" "$expect" "$patterns"
        # What the suite tries, for the table at the end: its declared input space's covering set.
        [[ "$label" == solution* ]] && [ "$(cat "$out.buildstatus")" = 0 ] &&
            "$out/suite" --space >"$work/space-$nn" 2>&1
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
    echo "$ok|$label|$nn|$skipped_here|kernel" >"$work/verdicts/$index"
    case $ok in
    1) finished "${GREEN}✓${RESET}" "$label" ;;
    skip) local reason=${skip_reason:-no device}; [ -n "$gpu_only" ] && reason="needs a GPU"
          finished "${DIM}-${RESET}" "$label ${DIM}(skipped: $reason)${RESET}" ;;
    *) finished "${RED}✗${RESET}" "$label:$whys (logs: $work/*/item$index.log)" ;;
    esac
}

# ---- The other verifications, each one job: "ok|label|exercise|skipped tests|kind" in verdicts/ID ------
# verdict ID OK LABEL [KIND]: records a verification that is not a kernel (kind check, bad or mistake) and
# prints its line; OK is 1, 0, skip or wait, LABEL its text (for a failure: its text and why).
verdict() {
    local id=$1 ok=$2 label=$3 kind=${4:-check}
    echo "$ok|$label|00|0|$kind" >"$work/verdicts/$id"
    case $ok in
    1) finished "${GREEN}✓${RESET}" "$label" ;;
    0) finished "${RED}✗${RESET}" "$label" ;;
    wait) finished "${DIM}-${RESET}" "$label ${DIM}(waiting)${RESET}" ;;
    *) finished "${DIM}-${RESET}" "$label" ;;
    esac
}

# A bad input or a realistic mistake, through its script's --one: "ok NAME: ...", "FAIL ..." or "WAIT ...".
# KIND (badinputs or mistakes) names its verdicts' kind and its folder in work/.
run_scripted() {   # ID SCRIPT KIND-LABEL KIND ARG
    local id=$1 script=$2 what=$3 kind=$4 line
    line=$("$script" --one "$5" "$work/$kind" 2>>"$work/$what.log" | tail -n 1)
    case "$line" in
    "ok "*) verdict "$id" 1 "$what ${line#ok }" "$kind" ;;
    "WAIT "*) verdict "$id" wait "$what ${line#WAIT }" "$kind" ;;
    "FAIL "*) verdict "$id" 0 "$what ${line#FAIL }" "$kind" ;;
    *) verdict "$id" 0 "$what $5: no result (log: $work/$what.log)" "$kind" ;;
    esac
}

# check_cmd ID LABEL LOG COMMAND...: one verdict from the command's exit status and last line.
check_cmd() {
    local id=$1 label=$2 log=$3
    shift 3
    if "$@" >"$log" 2>&1; then verdict "$id" 1 "$label: $(tail -n 1 "$log")"
    else verdict "$id" 0 "$label: $(tail -n 1 "$log") (log: $log)"; fi
}

harness_tests() {
    local hp hf log="$work/harness-tests.log"
    NO_COLOR=1 "$BUILD/harness-tests" --summary >"$log" 2>&1
    hp=$(sed -n 's/^RESULT passed=\([0-9]*\).*/\1/p' "$log")
    hf=$(sed -n 's/^RESULT .*failed=\([0-9]*\).*/\1/p' "$log")
    if [ -n "$hp" ] && [ "$hf" = 0 ]; then verdict harness 1 "the harness's own tests: $hp passed"
    else verdict harness 0 "the harness's own tests: ${hf:-no result}${hf:+ failed} (log: $log)"; fi
}
emu_tests() {
    local line ep ef log="$work/emu-test.log"
    if [ -z "${EMU_LIB:-}" ]; then verdict emu-test skip "the emulator's own tests ${DIM}(skipped: no emulator here)${RESET}"; return; fi
    line=$(make --no-print-directory -s emu-test 2>&1 | tee "$log" | tail -n 1)
    ep=$(sed -n 's/.*: \([0-9]*\) passed.*/\1/p' <<<"$line")
    ef=$(sed -n 's/.* \([0-9]*\) failed.*/\1/p' <<<"$line")
    if [ -n "$ep" ] && [ "${ef:-0}" = 0 ]; then verdict emu-test 1 "the emulator's own tests: $ep passed"
    else verdict emu-test 0 "the emulator's own tests: ${line:-no result} (log: $log)"; fi
}
# Every reference, on ints and as floats (checker/bench/as_float.sed), run once per size, sums checked.
bench_check() {   # BACKEND
    local log="$work/bench-check-$1.log"
    if checker/scripts/bench.sh --check "$1" >"$log" 2>&1; then
        verdict "bench-$1" 1 "make bench's program on $1: every version's sums right"
    else verdict "bench-$1" 0 "make bench's program on $1: $(tail -n 1 "$log") (log: $log)"; fi
}
# Part IV's all-reduces (checker/bench/bench_allreduce.cu) on the devices of BACKEND, results checked once per
# size; a GPU machine of one GPU has no ring to run them on.
allreduce_check() {   # BACKEND
    local log="$work/allreduce-check-$1.log" line
    if checker/scripts/bench-allreduce.sh --check "$1" >"$log" 2>&1; then
        line=$(tail -n 1 "$log")
        case $line in
        "not run:"*) verdict "allreduce-$1" skip "make bench's all-reduces on $1 ${DIM}(${line#not run: })${RESET}" ;;
        *) verdict "allreduce-$1" 1 "make bench's all-reduces on $1: every contender's result right" ;;
        esac
    else verdict "allreduce-$1" 0 "make bench's all-reduces on $1: $(tail -n 1 "$log") (log: $log)"; fi
}
sass_boxes() {
    with_dev_tools
    if command -v cuobjdump >/dev/null 2>&1 && command -v nvdisasm >/dev/null 2>&1; then
        check_cmd sass "SASS boxes (checker/scripts/sass.sh --check)" "$work/sass.log" checker/scripts/sass.sh --check
    else
        verdict sass skip "SASS boxes ${DIM}(skipped: cuobjdump or nvdisasm is not on PATH, and deps.sh --test could not install them: $BUILD/.pypi-tools.log)${RESET}"
    fi
}
# A check that runs on the emulator, skipped where there is none; --dev-tools: it waits for deps.sh --test's
# tools first. make show: the lessons' pictures are its drawings of the references, and its own checks (the
# last line says whether the page was checked in a browser, which deps.sh --test installs, or by its
# structure). The batch workers of a GPU's grade are checked on the emulator too (batch-check.sh says why).
emulator_check() {   # [--dev-tools] ID LABEL LOG COMMAND...
    local tools=""
    [ "$1" = --dev-tools ] && tools=1 && shift
    if [ -z "${EMU_LIB:-}" ]; then verdict "$1" skip "$2 ${DIM}(skipped: no emulator here)${RESET}"; return; fi
    [ -z "$tools" ] || with_dev_tools
    check_cmd "$@"
}
candidates_apply() {
    local patch
    for patch in checker/bench/candidates/*.patch checker/bench/rows-candidates/*.patch; do
        corpus_apply "$patch" "$work/candidates/$(basename "$patch" .patch).cu" || return 1
    done
    echo "$(ls checker/bench/candidates/*.patch checker/bench/rows-candidates/*.patch | wc -l) patches apply to today's solutions"
}
# Corpus and unusual entries are patches (lib.sh); a file stored whole would never be run.
corpus_all_patches() {
    local whole
    whole=$(find checker/corpus checker/unusual -type f ! -name '*.patch' | sort)
    [ -z "$whole" ] || { echo "stored whole, so never run (make each a patch, see lib.sh): $whole" | tr '\n' ' '; return 1; }
    echo "$(find checker/corpus checker/unusual -name '*.patch' | wc -l) entries, every one a patch"
}
report_editions() {
    with_dev_tools
    if command -v msgfmt >/dev/null 2>&1 && command -v xgettext >/dev/null 2>&1; then
        check_cmd report-editions "Chinese report (checker/scripts/report-editions.py)" "$work/report-editions.log" \
            python3 checker/scripts/report-editions.py
    else
        verdict report-editions skip "Chinese report ${DIM}(skipped: gettext's msgfmt or xgettext is not on PATH; deps.sh installs them)${RESET}"
    fi
}
# The classroom's workflow (.github/workflows/) as actionlint reads it.
workflow_lint() {
    with_dev_tools
    if ! ls .github/workflows/*.yml >/dev/null 2>&1; then
        verdict workflow 1 "the classroom workflow: none in .github/workflows/, nothing to check"; return
    fi
    if ! command -v actionlint >/dev/null 2>&1; then
        verdict workflow skip "the classroom workflow ${DIM}(skipped: actionlint is not on PATH, and deps.sh --test could not install it: $BUILD/.pypi-tools.log)${RESET}"
        return
    fi
    local log="$work/actionlint.log"
    if actionlint -no-color .github/workflows/*.yml >"$log" 2>&1; then
        verdict workflow 1 "the classroom workflow: actionlint finds nothing in $(echo .github/workflows/*.yml)"
    else verdict workflow 0 "the classroom workflow: actionlint: $(head -n 1 "$log") (log: $log)"; fi
}
# make classroom on three checkouts made here: one solved, one broken, one untouched.
classroom_check() {
    check_cmd classroom "make classroom (checker/scripts/classroom-test.sh)" "$work/classroom.log" \
        checker/scripts/classroom-test.sh "$work/classroom"
}

# run_job KIND ARG: one verification; its time goes to work/durations, which orders the next make test.
run_job() {
    local start=$EPOCHREALTIME label
    case $1 in
    item) run_item "$2"; label=$(sed -n "${2}p" "$items" | cut -d'|' -f1) ;;
    bad) label=$(sed -n "${2}p" "$work/bad.list"); run_scripted "bad$2" checker/scripts/badinputs.sh "bad input" badinputs "$label" ;;
    mistake) label=$(sed -n "${2}p" "$work/mistakes.list"); run_scripted "mistake$2" checker/scripts/mistakes.sh mistake mistakes "$label" ;;
    check) label=$2
        case $2 in
        harness) harness_tests ;;
        emu-test) emu_tests ;;
        bench-*) bench_check "${2#bench-}" ;;
        allreduce-*) allreduce_check "${2#allreduce-}" ;;
        ladders) check_cmd ladders "ladders (checker/bench/ladder.py --check)" "$work/ladders.log" python3 checker/bench/ladder.py --check ;;
        sass) sass_boxes ;;
        show-lessons) emulator_check --dev-tools show-lessons "make show's pictures in the lessons (checker/show/lessons.py --check)" \
            "$work/show-lessons.log" python3 checker/show/lessons.py --check ;;
        show) emulator_check --dev-tools show "make show (checker/show/check_show.py)" "$work/show.log" python3 checker/show/check_show.py ;;
        candidates) check_cmd candidates "the lessons' candidate kernels" "$work/candidates.log" candidates_apply ;;
        corpus-form) check_cmd corpus-form "the corpus's entries" "$work/corpus-form.log" corpus_all_patches ;;
        editions) check_cmd editions "Chinese pages (checker/scripts/editions.py)" "$work/editions.log" python3 checker/scripts/editions.py ;;
        report-editions) report_editions ;;
        workflow) workflow_lint ;;
        classroom) classroom_check ;;
        batch) emulator_check batch "batch workers (batch-check.sh)" "$work/batch.log" \
            checker/scripts/batch-check.sh "$work/batch-check" ;;
        # The learner-facing outputs of make's targets: 100 columns, commands whole, reset and restore.
        outputs) check_cmd outputs "the targets' outputs (checker/scripts/outputs.sh)" "$work/outputs.log" \
            checker/scripts/outputs.sh "$work/outputs" ;;
        esac ;;
    esac
    echo "$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')	$label" >>"$work/durations"
}

# ---- The queue: every verification, longest first, so that both cores stay busy to the end ---------------
# A job's length is its time in the last make test here (BUILD/BACKEND/selftest-durations), else a guess
# from what was measured on 2 cores (emulator on CPU): nvcc takes about 2 s of CPU a file, Thrust and CUB
# (exercise 12) about 10; exercise 08's n = 2^31 - 1 test about 8 on the emulator; the emulator's own
# tests 85, make bench's program 55 (each a few dozen compiles), make show's pictures 40, the SASS boxes 20.
count=$(wc -l <"$items")
checker/scripts/badinputs.sh --list >"$work/bad.list"
checker/scripts/mistakes.sh --list >"$work/mistakes.list"
bad_count=$(wc -l <"$work/bad.list")
mistake_count=$(wc -l <"$work/mistakes.list")
checks="harness emu-test $(printf 'bench-%s ' $backends)$(printf 'allreduce-%s ' $backends)ladders sass show-lessons show candidates corpus-form editions report-editions workflow classroom outputs batch"
guess() {   # NN KIND: sets s, the seconds (without a process: a guess is made for every job)
    s=3
    case $1 in 08) s=11 ;; 12) s=14 ;; esac
    [ "$2" = grade ] && s=$((s + 1))
}
{
    index=0
    while IFS='|' read -r label nn _; do
        index=$((index + 1)); guess "$nn" item; printf '%s\t%s\titem %s\n' "$s" "$label" "$index"
    done <"$items"
    index=0
    while IFS= read -r line; do
        nn=${line#*|}; nn=${nn%%|*}
        index=$((index + 1)); guess "$nn" grade; printf '%s\t%s\tbad %s\n' "$s" "$line" "$index"
    done <"$work/bad.list"
    index=0
    while IFS= read -r entry; do
        nn=${entry%/*}; nn=${nn##*/ex}
        index=$((index + 1)); guess "$nn" grade; printf '%s\t%s\tmistake %s\n' "$s" "$entry" "$index"
    done <"$work/mistakes.list"
    for c in $checks; do
        case $c in emu-test) s=85 ;; bench-*) s=55 ;; allreduce-*) s=8 ;; show-lessons) s=40 ;; sass | show) s=20 ;;
                   report-editions | classroom) s=10 ;; outputs | batch) s=30 ;; *) s=1 ;; esac
        printf '%s\t%s\tcheck %s\n' "$s" "$c" "$c"
    done
} >"$work/queue"
durations="$BUILD/$BACKEND/selftest-durations"
# Each job's label as run_job writes it: a bad input's and a mistake's are their --list lines.
awk -F'\t' 'NR == FNR { last[$2] = $1; next } { if ($2 in last) $1 = last[$2]; print $1 "\t" $3 }' OFS='\t' \
    "$durations" "$work/queue" 2>/dev/null >"$work/queue.timed" || cut -f1,3 "$work/queue" >"$work/queue.timed"
total=$(wc -l <"$work/queue.timed")
echo 0 >"$work/count"
mkdir -p "$work/verdicts"
: >"$work/durations"
export -f run_item judge finished verdict run_scripted with_dev_tools emulator_check check_cmd harness_tests emu_tests bench_check allreduce_check sass_boxes \
    candidates_apply corpus_all_patches report_editions workflow_lint classroom_check run_job
export items work total backends sep
verification_s() { [ "$1" = 1 ] && echo "1 verification" || echo "$1 verifications"; }
say "make test: $(verification_s "$total"), $jobs at a time, each line as it ends: $count kernels (each on:"
say "$backends), $bad_count bad inputs, $mistake_count realistic mistakes, and the harness's, the emulator's,"
say "the benchmark's, the lessons' and the classroom's own checks."

sort -t$'\t' -k1,1 -rn -s "$work/queue.timed" | cut -f2 |
    xargs -P "$jobs" -L 1 bash -c '. checker/scripts/lib.sh; run_job "$0" "$1"'
cp "$work/durations" "$durations" 2>/dev/null

passed=0 failed=0 skipped=0 skipped_tests=0 failures=()
bad_ok=0 bad_failed=0 mistakes_ok=0 mistakes_failed=0 mistakes_waiting=0
# For the table: per exercise, wrong kernels caught / missed / skipped and unusual kernels accepted /
# rejected (indexed by the exercise number as a decimal).
declare -a caught missed wskip accepted rejected
while IFS=$'\t' read -r _ job; do
    case $job in
    item*) id=${job#item } ;;
    bad*) id=bad${job#bad } ;;
    mistake*) id=mistake${job#mistake } ;;
    *) id=${job#check } ;;
    esac
    if ! IFS='|' read -r ok label nn skipped_here kind <"$work/verdicts/$id" 2>/dev/null; then
        ok=0 label=$job nn=00 skipped_here=0 kind=check
        finished "${RED}✗${RESET}" "$job: no result (logs: $work/)"
    fi
    skipped_tests=$((skipped_tests + ${skipped_here:-0}))
    e=$((10#$nn))
    case "${kind:-kernel}:$label:$ok" in
    kernel:wrong*:1) caught[e]=$(( ${caught[e]:-0} + 1 )) ;;
    kernel:wrong*:skip) wskip[e]=$(( ${wskip[e]:-0} + 1 )) ;;
    kernel:wrong*) missed[e]=$(( ${missed[e]:-0} + 1 )) ;;
    kernel:unusual*:1) accepted[e]=$(( ${accepted[e]:-0} + 1 )) ;;
    kernel:unusual*:skip) ;;
    kernel:unusual*) rejected[e]=$(( ${rejected[e]:-0} + 1 )) ;;
    badinputs:*:1) bad_ok=$((bad_ok + 1)) ;;
    badinputs:*) bad_failed=$((bad_failed + 1)) ;;
    mistakes:*:1) mistakes_ok=$((mistakes_ok + 1)) ;;
    mistakes:*:wait) mistakes_waiting=$((mistakes_waiting + 1)) ;;
    mistakes:*) mistakes_failed=$((mistakes_failed + 1)) ;;
    esac
    case $ok in
    1) passed=$((passed + 1)) ;;
    skip | wait) skipped=$((skipped + 1)) ;;
    *) failed=$((failed + 1)); failures+=("$label") ;;
    esac
done <"$work/queue.timed"

# What deps.sh --test said (it installed something, or could not).
[ -s "$work/deps.log" ] && cat "$work/deps.log"

# ---- The table: caught / missed per exercise -------------------------------------------------------------
say ""
say "The checker against the corpus (wrong kernels must be caught, unusual correct ones accepted), and"
say "what each suite tries (checker/spaces/): the dimensions of its input, their values, and its cases:"
printf '  %-8s %7s %7s %8s   %9s %9s   %5s %6s %5s\n' exercise caught missed skipped accepted rejected dims values cases
tc=0 tm=0 ts=0 ta=0 tr=0
for nn in $(exercise_numbers); do
    e=$((10#$nn))
    c=${caught[e]:-0} m=${missed[e]:-0} k=${wskip[e]:-0} a=${accepted[e]:-0} r=${rejected[e]:-0}
    tc=$((tc + c)) tm=$((tm + m)) ts=$((ts + k)) ta=$((ta + a)) tr=$((tr + r))
    space=$(sed -n 's/^dimensions=\([0-9]*\) values=\([0-9]*\) cases=\([0-9]*\)$/\1 \2 \3/p' "$work/space-$nn" 2>/dev/null)
    read -r sd sv sc <<<"${space:-- - -}"
    printf '  %-8s %7d %7d %8d   %9d %9d   %5s %6s %5s\n' "ex$nn" "$c" "$m" "$k" "$a" "$r" "$sd" "$sv" "$sc"
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
# The failures again, last: a log that shows only its end (CI's) still names them.
if [ "$failed" -gt 0 ]; then
    say "Failed (their lines above say where the logs are):"
    for label in "${failures[@]}"; do printf '  ✗ %s\n' "$label"; done
fi
say "make test: $(verification_s "$total"): $passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
