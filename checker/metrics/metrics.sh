#!/usr/bin/env bash
# metrics.sh - the emulator's counters for one kernel file, a learner's beside the reference's.
#   metrics.sh block NN FILE   after `make exNN`: the exercise's metrics block (nothing when it has none,
#                              or when FILE does not build or run correctly: the tests already said why)
#   metrics.sh table           `make metrics`: every reference version in one table, and yours where done
#   metrics.sh line NN FUNCTION SHAPE FILE   the raw line of checker/metrics/metrics.c's program
#   metrics.sh program NN FUNCTION SHAPE FILE DIR   that program, built into DIR/metrics (`make show` runs it
#                              on its own launch; DIR/build.log says why when it does not build)
# Versions, the metrics each lesson shows, and the sentences come from checker/metrics/manifest.txt.
set -u
. checker/scripts/lib.sh

N=${METRICS_N:-1048576} BLOCK=${METRICS_BLOCK:-256}
work="$BUILD/emu/metrics"
manifest=checker/metrics/manifest.txt

# ---- Running one file ------------------------------------------------------------------------------------

# The program's line for one kernel file, cached by everything that decides it (the same file, the same
# emulator, the same input give the same counters).
metrics_line() {
    local nn=$1 fn=$2 shape=$3 src=$4 key dir obj
    [ -n "${EMU_LIB:-}" ] && [ -f "$EMU_LIB" ] && [ -s "$src" ] || return 1
    key=$({ cat "$src" "checker/contracts/ex$nn.h" checker/metrics/metrics.c "$EMU_LIB";
            echo "$fn $shape $N $BLOCK"; } | md5sum | cut -c1-16)
    dir="$work/$key"
    [ -f "$dir/failed" ] && return 1
    if [ ! -f "$dir/line" ]; then
        metrics_program "$nn" "$fn" "$shape" "$src" "$dir" &&
        timeout --foreground 120 "$dir/metrics" "$N" "$BLOCK" >"$dir/line.new" 2>"$dir/run.log" &&
        mv "$dir/line.new" "$dir/line"
        local status=$?
        rm -f "$dir/metrics" "$dir/line.new"  # only the line and the logs stay
        [ $status = 0 ] || { touch "$dir/failed"; return 1; }
    fi
    cat "$dir/line"
}

# metrics_program NN FUNCTION SHAPE FILE DIR: checker/metrics/metrics.c's program for one kernel file, built
# into DIR/metrics (the compilers' messages in DIR/build.log).
metrics_program() {
    local nn=$1 fn=$2 shape=$3 src=$4 dir=$5 obj status
    [ -n "${EMU_LIB:-}" ] && [ -f "$EMU_LIB" ] && [ -s "$src" ] || return 1
    mkdir -p "$dir"
    # Named by this process: make test may build the same program in two jobs at once.
    obj="$dir/kernel.$$.o"
    # `make exNN` has just compiled the learner's file for the emulator: with the same flags, or on a GPU
    # machine once for both backends (the GPU's code and the emulator's PTX, which the emulator's suite
    # links too). Either object is this file's, if it is newer than the file.
    local learner="" built
    for built in "$BUILD/emu/learner/ex$nn/kernel.o" "$BUILD/gpu/learner/ex$nn/kernel.o"; do
        [ "$built" -nt "$src" ] && { [ -z "$learner" ] || [ "$built" -nt "$learner" ]; } && learner=$built
    done
    if [ "$src" = "$(exercise_file "$nn")" ] && [ -n "$learner" ]; then
        cp "$learner" "$obj"
    else
        # The suite's flags, through its cache: a reference that make test or make bench compiled is not
        # compiled again.
        checker/scripts/nvcc-cached.sh "$obj" "$src" $(kernel_nvcc_flags emu) -include "checker/contracts/ex$nn.h" \
            -c >"$dir/build.log" 2>&1 || return 1
    fi
    $CC -std=c11 -O2 -Ichecker/emu/nccl -I"$CUDA_HOME/include" -DMETRICS_FN="$fn" -DMETRICS_SHAPE="METRICS_${shape^^}" \
        -include "checker/contracts/ex$nn.h" -c checker/metrics/metrics.c -o "$dir/metrics.$$.o" \
        >>"$dir/build.log" 2>&1 &&
    $CXX "$dir/metrics.$$.o" "$obj" "$BUILD/obj/i18n_i18n.o" $EMU_LDFLAGS -o "$dir/metrics" >>"$dir/build.log" 2>&1
    status=$?
    rm -f "$obj" "$dir/metrics.$$.o"
    return $status
}

# The manifest's versions, one line each: name|nn|function|shape|solution|previous|show|moved|why
versions() {
    awk '/^#/ || /^[ \t]*$/ { next }
         /^[^ \t]/ { if (name) print rec(); name = $1; nn = $2; fn = $3; shape = $4; sol = $5; prev = $6
                     show = moved = why = ""; next }
         { key = $1; sub(/^[ \t]*[a-z]+[ \t]+/, "")
           if (key == "show") show = $0; else if (key == "moved") moved = $0; else if (key == "why") why = $0 }
         function rec() { return name "|" nn "|" fn "|" shape "|" sol "|" prev "|" show "|" moved "|" why }
         END { if (name) print rec() }' "$manifest"
}

# A version by name; the version that exercise NN's block shows (the one with a `show` line).
version_of() { versions | awk -F'|' -v k="$1" '$1 == k { print; exit }'; }
version_of_exercise() { versions | awk -F'|' -v n="$1" '$2 == n && $7 != "" { print; exit }'; }

# ---- Formatting (awk, shared by the block and the table) -------------------------------------------------

# parse() reads a key=value line into an array; cell() and label() show one metric; fill() fills a sentence
# from the arrays x (this version) and p (the previous one). The caller's awk program follows, with -v
# labels (metric=label pairs separated by \037: metric_label's words), zero_word, all_word and times_format
# (awk_words). Its lines go through `columns` (tab-separated fields, by display width) and `wrap_to`.
read -r -d '' AWK_LIB <<'AWK'
function parse(line, arr,    i, kv, n, f) {
    n = split(line, f, " ")
    for (i = 1; i <= n; i++) { split(f[i], kv, "="); arr[kv[1]] = kv[2] }
}
function group(v,    s) {                # 2707456 -> 2,707,456; 9.0 -> 9; other decimals stay
    if (v ~ /\.0$/) sub(/\.0$/, "", v)
    if (v ~ /\./) return v
    s = ""
    while (length(v) > 3) { s = "," substr(v, length(v) - 2) s; v = substr(v, 1, length(v) - 3) }
    return v s
}
function cell(arr, m) {                   # one metric as shown, from one version's numbers
    if (m == "shared") return group(arr["shared_loads"]) " / " group(arr["shared_stores"])
    if (m == "global_loads") return group(arr["load_requests"]) " / " group(arr["load_sectors"])
    return group(arr[m])
}
function label(m,    n, i, kv, f) {
    n = split(labels, f, "\037")
    for (i = 1; i <= n; i++) { split(f[i], kv, "="); if (kv[1] == m) return substr(f[i], length(m) + 2) }
    return m
}
function times(a, b,    t) {              # how many times smaller b is than a: "3.1x" (times_format's {n})
    if (b + 0 == 0) return a + 0 == 0 ? zero_word : all_word
    t = times_format
    sub(/\{n\}/, sprintf(a / b >= 10 ? "%.0f" : "%.1f", a / b), t)
    return t
}
function more(a, b) { return b > 0 ? a / b : (a > 0 ? 1e9 : 1) }
function max(a, b) { return a > b ? a : b }
function fill(t,    out, k, m) {       # {x.M}, {p.M}, {r.M}
    out = ""
    while (match(t, /\{[xpr]\.[a-z_]+\}/)) {
        k = substr(t, RSTART + 1, 1); m = substr(t, RSTART + 3, RLENGTH - 4)
        out = out substr(t, 1, RSTART - 1)
        if (k == "x") out = out (x[m] + 0 == 0 && m !~ /lanes|per/ ? zero_word : group(x[m]))
        else if (k == "p") out = out group(p[m])
        else out = out times(p[m], x[m])
        t = substr(t, RSTART + RLENGTH)
    }
    return out t
}
AWK

# The awk variables of AWK_LIB's words, for metrics M... (each once).
awk_words() {
    local m labels=""
    for m in "$@"; do labels="$labels$m=$(metric_label "$m" cell)"$'\037'; done
    # TRANSLATORS: a count of zero in a sentence of checker/metrics/manifest.txt ("no atomics", "no fewer
    # warp instructions"), and "all" where everything went ("all fewer"); a number may read better.
    printf '%s\n' -v "labels=$labels" -v "zero_word=$(course_tr 'no')" -v "all_word=$(course_tr 'all')" \
        -v "times_format=$(# TRANSLATORS: {r.M} of the manifest: how many times fewer ("runs 3.1x fewer warp
                           # instructions"); a language may say "1/{n}" where its sentence reads "only 1/3.1 of".
                           course_tr '{n}x')"
}

# kv KEY LINE: the value of KEY in a key=value line of the metrics program.
kv() { tr ' ' '\n' <<<"$2" | sed -n "s/^$1=//p"; }

# ---- After `make exNN` -----------------------------------------------------------------------------------

block() {
    local nn=$1 file=$2 rec name fn shape sol prev show moved why mine ref before=""
    rec=$(version_of_exercise "$nn")
    [ -n "$rec" ] || return 0
    IFS='|' read -r name _ fn shape sol prev show moved why <<<"$rec"
    mine=$(metrics_line "$nn" "$fn" "$shape" "$file") || return 0
    ref=$(metrics_line "$nn" "$fn" "$shape" "solutions/$sol") || return 0
    if [ "$prev" != - ]; then
        local prec pnn pfn pshape psol
        prec=$(version_of "$prev")
        IFS='|' read -r _ pnn pfn pshape psol _ <<<"$prec"
        before=$(metrics_line "$pnn" "$pfn" "$pshape" "solutions/$psol") || before=""
    fi
    [ -n "$before" ] || before=$ref
    local head words sentence
    if [ -n "$(kv cols "$ref")" ]; then head=$(textf 'Metrics on the emulator (n = %s, rows of %s)' "$(kv n "$ref")" "$(kv cols "$ref")")
    elif [ "$shape" = partials ]; then head=$(textf 'Metrics on the emulator (n = %s, block %s)' "$(kv n "$ref")" "$(kv block "$ref")")
    else head=$(textf 'Metrics on the emulator (n = %s)' "$(kv n "$ref")"); fi
    mapfile -t words < <(awk_words $show)
    # TRANSLATORS: {moved} and {why} are the two halves of a sentence of checker/metrics/manifest.txt.
    sentence=$(course_tr '{moved}; {why}.')
    sentence=${sentence/\{moved\}/$(course_tr "$moved")}
    sentence=${sentence/\{why\}/$(course_tr "$why")}
    say ""
    awk "${words[@]}" -v shown="$show" -v sentence="$sentence" -v head="$head" -v yours="$(textf 'yours')" \
        -v reference="$(textf 'reference (%s)' "$name")" \
        -v differs="$(course_tr 'Where yours differs most: {metric}, {yours} against {reference}.')" \
        -v mine="$mine" -v ref="$ref" -v before="$before" -v bold="$BOLD" -v dim="$DIM" -v reset="$RESET" \
        "$AWK_LIB"'
    BEGIN {
        parse(mine, y); parse(ref, x); parse(before, p)
        printf "%s%s\t%s\t%s%s\n", bold, head, yours, reference, reset
        k = split(shown, ms, " ")
        worst = ""; worst_ratio = 1.25
        for (i = 1; i <= k; i++) {
            printf "  %s\t%s\t%s\n", label(ms[i]), cell(y, ms[i]), cell(x, ms[i])
            # Yours as a multiple of the reference, for counts only (fewer lanes or sectors per
            # request are not simply worse); the largest, from 1.25x up, gets a line of its own.
            if (ms[i] == "shared") r = more(y["shared_loads"] + y["shared_stores"], x["shared_loads"] + x["shared_stores"])
            else if (ms[i] == "global_loads") r = max(more(y["load_requests"], x["load_requests"]), more(y["load_sectors"], x["load_sectors"]))
            else if (ms[i] == "active_lanes" || ms[i] == "sectors_per_request") r = 0
            else r = more(y[ms[i]], x[ms[i]])
            if (r > worst_ratio) { worst = ms[i]; worst_ratio = r }
        }
        print "→ " fill(sentence)
        if (worst != "") {
            line = differs
            sub(/\{metric\}/, label(worst), line); sub(/\{yours\}/, cell(y, worst), line)
            sub(/\{reference\}/, cell(x, worst), line)
            print dim line reset
        }
    }' | columns -44 18 18 | wrap_to 96 2
}

# ---- `make metrics` --------------------------------------------------------------------------------------

table() {
    if [ -z "${EMU_LIB:-}" ] || [ ! -f "$EMU_LIB" ]; then
        sayf "make metrics runs every version on the course's emulator, and it is not built here: run \`make test\` to see why."
        return 1
    fi
    sayf 'Running every reference version (and yours, for the exercises you have done) once on the emulator, on %s ints, in blocks of %s threads where the version takes a block size...' "$N" "$BLOCK"
    mkdir -p "$work"
    # Each version in the background; each writes its own line file.
    local rows="$work/table" name nn fn shape sol rest i=0
    rm -rf "$rows"; mkdir -p "$rows"
    while IFS='|' read -r name nn fn shape sol rest; do
        i=$((i + 1))
        (metrics_line "$nn" "$fn" "$shape" "solutions/$sol" >"$rows/$i.ref" 2>/dev/null) &
        if [ "$(checker/scripts/progress.sh state "$nn")" = done ] && [ -n "$(exercise_file "$nn")" ] &&
           [ "$(version_of_exercise "$nn" | cut -d'|' -f1)" = "$name" ]; then
            (metrics_line "$nn" "$fn" "$shape" "$(exercise_file "$nn")" >"$rows/$i.yours" 2>/dev/null) &
        fi
    done < <(versions)
    wait
    i=0
    # Every row once, its fields separated by tabs: the name, then the ten counters as shown.
    local table
    table=$(
        while IFS='|' read -r name nn fn shape sol rest; do
            i=$((i + 1))
            echo "$name ($nn)|$(cat "$rows/$i.ref")"
            [ -s "$rows/$i.yours" ] && echo "  $(textf 'yours')|$(cat "$rows/$i.yours")"
            [ -e "$rows/$i.yours" ] && [ ! -s "$rows/$i.yours" ] && echo "  $(textf 'yours')|failed"
        done < <(versions) |
        awk -F'|' -v not_run="$(textf '(did not run)')" \
            -v failed="$(textf '(your file did not build or run correctly here)')" "$AWK_LIB"'
        {
            if ($2 == "") { print $1 "\t" not_run; next }
            if ($2 == "failed") { print $1 "\t" failed; next }
            delete a; parse($2, a)
            print $1 "\t" group(a["blocks"]) "\t" group(a["warp_instructions"]) "\t" a["active_lanes"] "\t" \
                  group(a["divergent_branches"]) "\t" a["barriers_per_block"] "\t" group(a["atomics"]) "\t" \
                  cell(a, "shared") "\t" group(a["bank_conflicts"]) "\t" cell(a, "global_loads")
        }')
    # Two tables, the warps' work and then memory, so that each fits 100 columns beside the longest name.
    local names heads
    names=$(cut -f1 <<<"$table" | awk '{ if (length($0) > w) w = length($0) } END { print w + 1 }')
    # TRANSLATORS: the headings of make metrics' tables, between |s: keep the |s, and each as short.
    heads=$(textf 'version (ex)|blocks|warp instr|lanes|diverg.|barriers|atomics|shared ld / st|conflicts|global req / sect')
    heads=${heads//|/$'\t'}
    { echo "$BOLD$(cut -f1-7 <<<"$heads")$RESET"; cut -f1-7 <<<"$table"; } | columns "-$names" 6 10 5 8 8 7
    say ""
    { echo "$BOLD$(cut -f1,8-10 <<<"$heads")$RESET"; awk -F'\t' 'NF < 8 { print $1 "\t" $2; next }
        { print $1 "\t" $8 "\t" $9 "\t" $10 }' <<<"$table"; } | columns "-$names" 17 9 17
    say ""
    sayf "lanes: active lanes per warp instruction (of 32); diverg.: divergent branches; barriers: __syncthreads() per block. Counted as Nsight Compute counts them, but in PTX, not in the GPU's machine code (SASS): nvcc turns short ifs into predicated instructions with no branch, so a GPU shows no divergent branches where PTX has them. Compare versions with each other. Each counter: %s, \"The counters\". Your exercises appear here once \`make exNN\` passes." \
        "$(lesson_page lessons/reading-the-report.md)"
}

case "${1:-}" in
block) block "$2" "$3" ;;
table) table ;;
line) metrics_line "$2" "$3" "$4" "$5" ;;
program) metrics_program "$2" "$3" "$4" "$5" "$6" ;;
*) say "usage: metrics.sh block NN FILE | table | line NN FUNCTION SHAPE FILE | program NN FUNCTION SHAPE FILE DIR"; exit 2 ;;
esac
