#!/usr/bin/env bash
# show.sh NN - `make show exNN`: runs the learner's file of exercise NN on a small launch on the emulator
# (checker/show/launches.txt), with the emulator's trace on (checker/emu/emu_trace.c), runs the reference
# solution the same way, and draws what the kernel did (checker/show/show.py): in the terminal, and as the
# page build/show/exNN.html. On a GPU machine too: the picture is the emulator's run.
# Settings (make variables or the environment): VIEW= another picture (lanes banks sectors shuffles
# launches rows stages), N= BLOCK= COLS= ROWS= another launch (COLS= alone keeps at least 2 rows), FILE=
# another kernel file, REF=1 the reference's picture as well as its numbers, PICTURE=1 the picture alone,
# without colour (as the lessons show it: checker/show/lessons.py checks them).
set -u
. checker/scripts/lib.sh
nn=${1:-}
require_exercise "$nn" show
work="$BUILD/show"
mkdir -p "$work"

if [ -z "${EMU_LIB:-}" ] || [ ! -f "$EMU_LIB" ]; then
    sayf "make show draws what the course's emulator saw your kernel do, and the emulator is not built here: run \`make ex%s\` first, which builds it (or says why it cannot)." "$nn"
    exit 2
fi

file=${FILE:-$(exercise_file "$nn")}
ref=$(solution_file "$nn")
# A corpus entry (a bug stored as a patch against a reference, see lib.sh) is drawn as that kernel, from where
# make test grades it (its compile is then make test's).
if [ "${file%.patch}" != "$file" ] && [ -f "$file" ]; then
    patched=$(corpus_source "$file")
    corpus_apply "$file" "$patched" || exit 2
    file=$patched
fi
if [ ! -s "$file" ]; then
    sayf "There is no kernel file to draw: %s is missing or empty. \`make reset ex%s\` puts the starting file back." "$file" "$nn"
    exit 2
fi

# The launch: the table's line for this file's name, else the exercise's own; N, BLOCK, COLS, VIEW override it.
launch_of() {   # FILE
    awk -v nn="$nn" -v name="$(basename "$1")" '!/^#/ && $1 == nn && $2 == name { print; found = 1; exit }
        END { if (!found) exit 1 }' checker/show/launches.txt ||
        awk -v nn="$nn" '!/^#/ && $1 == nn && $2 == "-" { print; exit }' checker/show/launches.txt
}
read -r _ _ fn shape n block cols view < <(launch_of "$file")
read -r _ _ ref_fn ref_shape _ < <(launch_of "$ref")
if [ -z "${fn:-}" ]; then
    sayf 'make show has no launch for exercise %s yet (checker/show/launches.txt).' "$nn"
    exit 2
fi
for setting in N BLOCK COLS ROWS; do
    value=${!setting:-}
    if [ -n "$value" ] && ! [[ "$value" =~ ^[1-9][0-9]{0,8}$ ]]; then
        sayf '%s=%s: a launch is drawn with whole numbers from 1 up (N=4096, COLS=2000).' "$setting" "$value"
        exit 2
    fi
done
rowwise=$([ "$cols" != - ] && echo 1)
n=${N:-$n} block=${BLOCK:-$block} cols=${COLS:-$cols} view=${VIEW:-$view}
[ "$block" = - ] && block=256
[ "$cols" = - ] && cols=1024
# Part III: ROWS= rows of the launch's columns; COLS= alone keeps the elements' count, and at least 2 rows.
if [ -n "$rowwise" ] && [ -n "${ROWS:-}" ]; then
    n=$((ROWS * cols))
elif [ -n "$rowwise" ] && [ -z "${N:-}" ] && [ -n "${COLS:-}" ]; then
    rows=$((n / cols))
    n=$(((rows > 2 ? rows : 2) * cols))
fi

# traced_run DIR TRACE FINDINGS: DIR's metrics program run once with the trace on, into DIR/TRACE, its
# findings into DIR/FINDINGS, its line of make metrics' numbers into DIR/numbers; its exit status.
traced_run() {
    EMU_TRACE="$1/$2" EMU_TRACE_BLOCKS=8 EMU_TRACE_LIMIT=100000 EMU_BUDGET=4000000 EMU_QUIET=1 \
        timeout 120 "$1/metrics" "$n" "$block" "$cols" >"$1/numbers" 2>"$1/$3"
}

# run_traced SRC FUNCTION SHAPE: the kernel file SRC run once with the trace on, in a folder named by
# everything that decides the run (cached: the same file gives the same trace). Prints the folder; in it
# trace (the emulator's), findings (the program's stderr: the emulator's findings, one record a line, in
# the learner's language, and exercise 16's path), numbers (make metrics' line for the run, when it was
# right and found nothing) and, when the file did not build, build.log. The findings' words depend on the
# language and its catalog: a run that found something keeps its program, to say them again in another.
run_traced() {
    local src=$1 fn=$2 shape=$3 key dir lang
    key=$({ cat "$src" "checker/contracts/ex$nn.h" checker/metrics/metrics.c "$EMU_LIB" "$0";
            echo "$fn $shape $n $block $cols"; } | md5sum | cut -c1-16)
    lang=$({ echo "${COURSE_LANG:-} ${LANGUAGE:-} ${LC_ALL:-} ${LC_MESSAGES:-} ${LANG:-}";
             cat "$BUILD"/locale/*/LC_MESSAGES/*.mo 2>/dev/null; } | md5sum | cut -c1-8)
    dir="$work/runs/$key"
    mkdir -p "$work/runs"
    # One process at a time per run: two asking for the same one (make test's checks side by side, two
    # terminals) would otherwise build into one folder together and link half-written objects.
    exec 8>"$dir.lock"
    flock 8
    if [ ! -f "$dir/done" ]; then
        rm -rf "$dir"
        mkdir -p "$dir"
        if checker/metrics/metrics.sh program "$nn" "$fn" "$shape" "$src" "$dir"; then
            traced_run "$dir" trace "findings.$lang"
            echo $? >"$dir/status"
            grep -q '^finding: ' "$dir/findings.$lang" || rm -f "$dir/metrics"
        fi
        touch "$dir/done"
    elif [ ! -f "$dir/findings.$lang" ]; then
        if [ -x "$dir/metrics" ]; then
            traced_run "$dir" trace.again "findings.$lang"
            rm -f "$dir/trace.again"
        else
            cat "$dir"/findings.* >"$dir/findings.$lang" 2>/dev/null
        fi
    fi
    cp "$dir/findings.$lang" "$dir/findings" 2>/dev/null
    touch "$dir"   # the newest: kept below
    exec 8>&-
    echo "$dir"
}

progress_note "$(textf 'Running %s on the emulator with the trace on...' "$file")"
mine=$(run_traced "$file" "$fn" "$shape")
theirs=""
[ "$file" != "$ref" ] && [ -n "${ref_fn:-}" ] && theirs=$(run_traced "$ref" "$ref_fn" "$ref_shape")
progress_done
# A trace takes up to a few MB: the 48 newest runs are kept (a learner's edits each make one; make test makes 40).
ls -dt "$work"/runs/*/ 2>/dev/null | tail -n +49 | while IFS= read -r old; do rm -rf "$old" "${old%/}.lock"; done
if [ ! -f "$mine/trace" ] && [ -f "$mine/status" ]; then
    # it built and ran, and the emulator traced nothing: no kernel was launched (a skeleton's TODOs)
    sayf '%s launched no kernel, so there is nothing to draw yet.' "$file"
    exit 2
fi
if [ ! -f "$mine/trace" ]; then
    sayf "%s does not compile, so there is nothing to draw. The compiler's first errors:" "$file"
    grep -m 5 'error' "$mine/build.log" | cut -c1-200 | sed 's/^/  /' | wrap_to 100 4
    exit 2
fi

# For the tests (checker/show/check_show.py): the folders of the two runs, and no drawing.
if [ -n "${SHOW_RUNS:-}" ]; then printf '%s\n%s\n' "$mine" "$theirs"; exit 0; fi
args=(--exercise "$nn" --file "$file" --function "$fn" --view "$view" --launch "$n $block $cols $shape"
      --trace "$mine/trace" --findings "$mine/findings" --page "$work/ex$nn.html")
[ -n "$theirs" ] && [ -f "$theirs/trace" ] && args+=(--ref-file "$ref" --ref-trace "$theirs/trace")
[ -n "${REF:-}" ] && [ "${REF:-0}" != 0 ] && args+=(--ref-picture)
[ -n "${PICTURE:-}" ] && [ "${PICTURE:-0}" != 0 ] && args+=(--lesson)
[ -n "${VIEW:-}" ] && args+=(--view-asked)
exec python3 checker/show/show.py "${args[@]}"
