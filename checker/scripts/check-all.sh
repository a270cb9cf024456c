#!/usr/bin/env bash
# check-all.sh - grades every exercise quietly and prints one line each, then a progress bar.
# FORMAT=tap or FORMAT=xml also leaves one file per exercise in RESULTS (default build/results/): Check's
# TAP or XML output, for teachers and CI; an exercise that does not compile gets a file that says so.
# On a GPU the emulator grades too, as with `make exNN`. Exit status: 0 every exercise done, 1 otherwise.
set -u
. checker/scripts/lib.sh

format=${FORMAT:-}
results=${RESULTS:-$BUILD/results}
case $format in
'') ;;
tap | xml) mkdir -p "$results" && rm -f "$results"/ex*.tap "$results"/ex*.xml ;;
*) sayf 'FORMAT=%s is not one I know: use FORMAT=tap or FORMAT=xml.' "$format"; exit 2 ;;
esac
backends=$BACKEND
[ "$BACKEND" = gpu ] && [ -n "${EMU_LIB:-}" ] && backends="gpu emu"

# A result file for an exercise whose file does not build, so that every exercise has one.
write_unbuilt() {
    local nn=$1 backend=$2 why=$3 f="$results/ex$1${2:+.$2}.$format"
    case $format in
    tap) printf '1..1\nnot ok 1 - ex%s: %s\n' "$nn" "$why" >"$f" ;;
    xml) printf '<?xml version="1.0"?>\n<testsuites xmlns="http://check.sourceforge.net/ns">\n  <suite>\n    <title>%s</title>\n    <test result="error">\n      <path>.</path>\n      <fn>build:0</fn>\n      <id>builds</id>\n      <iteration>0</iteration>\n      <description>%s</description>\n      <message>%s</message>\n    </test>\n  </suite>\n</testsuites>\n' "$nn" "builds" "$why" >"$f" ;;
    esac
}

# The table: the title column takes what 100 columns leave; a longer title goes on over a second line,
# broken between words (or Chinese characters). Columns are measured in display width.
title_width=$((100 - 2 - 5 - 8 - 17))
row() {   # NN TITLE TESTS STATE
    local first=1 part
    while IFS= read -r part; do
        if [ $first = 1 ]; then printf '  %s\t%s\t%s\t%s\n' "$1" "$part" "$3" "$4"
        else printf '  %s\t%s\n' "" "$part"; fi
        first=0
    done < <(wrap_to "$title_width" <<<"$2") | columns -6 -"$title_width" -7 0
}

done_count=0 total=0 first_open=""
not_started=$(textf 'not started')
# TRANSLATORS: the headings of make check's table: exercise number, title, tests passed, state.
printf '%s  %s\t%s\t%s\t%s%s\n' "$BOLD" "$(textf 'ex')" "$(textf 'exercise')" "$(textf 'tests')" "$(textf 'state')" \
    "$RESET" | columns -6 -"$title_width" -7 0
for nn in $(exercise_numbers); do
    total=$((total + 1))
    file=$(exercise_file "$nn")
    title=$(exercise_title "$nn")
    # An untouched starting file is "not started", whatever its tests would say (a skeleton may pass some):
    # it is graded only when result files are asked for.
    if [ -n "$file" ] && is_starting_file "$file"; then
        checker/scripts/progress.sh forget "$nn"
        first_open=${first_open:-$nn}
        [ -z "$format" ] && { row "$nn" "$title" "-" "$not_started"; continue; }
    fi
    # Each backend's counts are added up: on a GPU, a test fails if it fails on either.
    passed=0 failed=0 skipped=0 built=1
    for backend in $backends; do
        out="$BUILD/$backend/learner/ex$nn"
        suffix=$([ "$backends" != "$BACKEND" ] && echo ".$backend")
        progress_note "$(textf 'Grading exercise %s...' "$nn")"
        if [ -z "$file" ] || ! checker/scripts/build-suite.sh "$nn" "$file" "$out" "$backend" >/dev/null 2>&1; then
            built=0
            [ -n "$format" ] && write_unbuilt "$nn" "${suffix#.}" "$(textf '%s does not compile or link' "${file:-$(textf 'its file')}")"
            break
        fi
        report=()
        [ -n "$format" ] && report=(--"$format" "$results/ex$nn$suffix.$format")
        result=$(NO_COLOR=1 timeout 1800 "$out/suite" --summary "${report[@]}" 2>/dev/null | grep '^RESULT ' | tail -n 1)
        p=$(sed -n 's/.*passed=\([0-9]*\).*/\1/p' <<<"$result")
        f=$(sed -n 's/.*failed=\([0-9]*\).*/\1/p' <<<"$result")
        s=$(sed -n 's/.*skipped=\([0-9]*\).*/\1/p' <<<"$result")
        passed=$((passed + ${p:-0})) failed=$((failed + ${f:-1})) skipped=$((skipped + ${s:-0}))
    done
    progress_done
    if [ -n "$file" ] && is_starting_file "$file"; then
        row "$nn" "$title" "$passed/$((passed + failed))" "$not_started"
        continue
    fi
    if [ $built = 0 ]; then
        first_open=${first_open:-$nn}
        row "$nn" "$title" "-" "$RED$(textf 'does not compile')$RESET"
        checker/scripts/progress.sh record "$nn" failing
        continue
    fi
    tests="$passed/$((passed + failed))"
    if [ "$failed" = 0 ] && [ "$skipped" = 0 ]; then
        state="$GREEN$(textf '✓ done')$RESET"; done_count=$((done_count + 1))
        checker/scripts/progress.sh record "$nn" done
    elif [ "$failed" = 0 ]; then
        state="$DIM$(textf 'no device')$RESET"
    else
        state=$(textf 'in progress')
        checker/scripts/progress.sh record "$nn" failing
    fi
    row "$nn" "$title" "$tests" "$state"
    [ "$failed" = 0 ] && [ "$skipped" = 0 ] || first_open=${first_open:-$nn}
done

width=33 filled=$((done_count * 33 / (total > 0 ? total : 1)))
bar=$(printf '%*s' "$filled" '' | tr ' ' '#')$(printf '%*s' $((width - filled)) '' | tr ' ' '.')
say ""
sayf 'Progress: [%s] %s of %s exercises done.' "$bar" "$done_count" "$total"
# Next: the first exercise that is not done now (this run's verdicts, not an older record).
first=$first_open
if [ -n "$first" ]; then
    sayf 'Next: `make ex%s` (%s), or `make watch` to grade it on every save.' "$first" "$(exercise_lesson "$first")"
    [ -n "$format" ] && sayf 'The %s results are in %s/, one file per exercise.' "$format" "$results"
    exit 1
fi
say "$GREEN$(textf 'Every exercise is done.')$RESET"
[ -n "$format" ] && sayf 'The %s results are in %s/, one file per exercise.' "$format" "$results"
exit 0
