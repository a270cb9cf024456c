#!/usr/bin/env bash
# regrade-times.sh [NN | NN:PATCH]... - how long a learner waits for a regrade after an edit, on this machine's
# backend and with SIM=1, in the same minute: the measure of issue 31 ("a GPU grade as quick as the
# emulator's"). For each exercise (all when none is named), in a scratch copy of the course: the solution (or
# the solution with a corpus patch applied: NN:checker/corpus/exNN/NAME.patch) in the exercise's file, `make
# exNN` once (it builds what a first grade builds), then a comment appended and `make exNN` timed until it
# exits, then another comment and `make exNN SIM=1` timed the same way. Prints one table row per exercise.
set -u
. checker/scripts/lib.sh
root=$(pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
items=("$@")
[ ${#items[@]} -gt 0 ] || mapfile -t items < <(exercise_numbers)
seconds() { local start=$EPOCHREALTIME; "$@" >/dev/null 2>&1; awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }'; }
# make exNN decides the backend itself (a GPU when nvidia-smi finds one): the first column is its regrade.
printf '| %-40s | %14s | %15s | %5s |\n' exercise "make exNN" "make exNN SIM=1" ratio
printf '| %-40s | %14s | %15s | %5s |\n' --- --- --- ---
for item in "${items[@]}"; do
    nn=${item%%:*} patch=
    [ "$item" != "$nn" ] && patch=${item#*:}
    dir="$work/ex$nn"
    rel=$(scratch_copy "$dir" "$nn" "$root")
    # What a learner's course keeps between grades on this machine (this GPU's reference times, the timing
    # program's main), so that the untimed first make is not the GPU's first day.
    [ -d "$STATE_DIR/bench-cache" ] && mkdir -p "$dir/$STATE_DIR" && cp -R "$STATE_DIR/bench-cache" "$dir/$STATE_DIR/"
    [ -d "$BUILD/gpu/speed" ] && mkdir -p "$dir/build/gpu/speed" && cp "$BUILD"/gpu/speed/bench_main*.o "$dir/build/gpu/speed/" 2>/dev/null
    if [ -n "$patch" ]; then corpus_apply "$patch" "$dir/$rel" || { echo "| ex$nn $patch | does not apply |"; continue; }
    else cp "$(solution_file "$nn")" "$dir/$rel"; fi
    (cd "$dir" && make --no-print-directory "ex$nn" >/dev/null 2>&1)
    echo "// an edit" >>"$dir/$rel"
    mine=$(cd "$dir" && seconds make --no-print-directory "ex$nn")
    echo "// another edit" >>"$dir/$rel"
    sim=$(cd "$dir" && seconds make --no-print-directory "ex$nn" SIM=1)
    printf '| %-40s | %14s | %15s | %5s |\n' "ex$nn${patch:+ $(basename "$patch" .patch)}" "$mine s" "$sim s" \
        "$(awk -v a="$mine" -v b="$sim" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')"
done
