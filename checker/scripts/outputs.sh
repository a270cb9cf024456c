#!/usr/bin/env bash
# outputs.sh [WORKDIR] - the learner-facing output of make's targets, checked for form in a scratch copy of
# the course (never the real exercises/ or .state/): every line fits 100 columns, in English and Chinese;
# a command the learner is told to type (`make ...`) is never broken across lines; `make reset` then
# `make restore` give the file back; a compile error leaves nothing of the progress line behind; a wrong
# word with an action is answered once; `make` in exercises/ and in every exercise's folder says
# something useful; a prediction is not offered against a version the learner has not met.
# Prints "ok: ..." or "FAIL: ..." per check, then "N checks, M failed"; exit status 1 when one failed.
set -u
. checker/scripts/lib.sh
root=$(pwd)
work=${1:-$BUILD/outputs}
rm -rf "$work"
mkdir -p "$work"
work=$(cd "$work" && pwd)
checks=0 failed=0
ok() { checks=$((checks + 1)); echo "ok: $1"; }
fail() { checks=$((checks + 1)); failed=$((failed + 1)); echo "FAIL: $1"; [ -n "${2:-}" ] && sed 's/^/    /' "$2" | head -n 12; }

# fits LABEL FILE: no line of FILE wider than 100 columns, and no `command` left open at a line's end.
fits() {
    local widest open
    widest=$(while IFS= read -r line; do text_width "$line"; echo; done <"$2" | sort -n | tail -n 1)
    open=$(awk '{ sub(/^ *```.*/, ""); n = gsub(/`/, "`") } n % 2 { print; exit }' "$2")
    if [ "${widest:-0}" -gt 100 ]; then fail "$1: a line is $widest columns wide" "$2"
    elif [ -n "$open" ]; then fail "$1: a command is broken across lines: $open"
    else ok "$1 fits 100 columns, its commands whole"; fi
}

# make metrics's counters computed here first, where the references' objects are in make test's compile
# cache: the scratch course below then finds every line in build/emu/metrics (linked) instead of compiling
# each reference again in a folder of its own.
mkdir -p "$BUILD/emu/metrics"
checker/metrics/metrics.sh table >/dev/null 2>&1

# The course in a scratch folder: the tools linked, the exercises copied, a git repository of its own for
# `make reset` (which takes the starting file from git), progress in its own .state/.
scratch="$work/course"
mkdir -p "$scratch/build/emu"
for part in checker lessons solutions Makefile README.md; do ln -s "$root/$part" "$scratch/$part"; done
real_build=$(cd "$root/$BUILD" && pwd)
for part in obj bin locale; do [ -e "$real_build/$part" ] && ln -s "$real_build/$part" "$scratch/build/$part"; done
[ -e "$real_build/emu/libcudaemu.a" ] && ln -s "$real_build/emu/libcudaemu.a" "$scratch/build/emu/libcudaemu.a"
[ -e "$real_build/emu/metrics" ] && ln -s "$real_build/emu/metrics" "$scratch/build/emu/metrics"
cp -R "$root/exercises" "$scratch/exercises"
(cd "$scratch" && git init -q && git add exercises && git -c user.name=course -c user.email=course@localhost \
    commit -q -m "the exercises as shipped") || fail "a scratch git repository for make reset"
# A make run here must not inherit the make that runs this script (its flags, its goals).
in_scratch() { (cd "$scratch" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL BUILD=build STATE_DIR=.state NO_COLOR=1 "$@"); }

# ---- make metrics, in both languages (the counters are cached in build/emu/metrics by content) ---------
for lang in en zh; do
    in_scratch env COURSE_LANG=$lang checker/metrics/metrics.sh table >"$work/metrics.$lang" 2>&1
    fits "make metrics ($lang)" "$work/metrics.$lang"
done

# ---- make solution: a learner's file with a line longer than the terminal -------------------------------
for nn in 06 10; do
    file=$(cd "$scratch" && exercise_file "$nn")
    cp "$root/$(cd "$root" && solution_file "$nn")" "$scratch/$file"
    sed -i '0,/^    [a-z].*;$/s//& \/\/ a comment that runs on and on past the hundredth column, so that the diff has to break it somewhere/' \
        "$scratch/$file"
    in_scratch checker/scripts/progress.sh record "$nn" done
    in_scratch env ALL=1 checker/scripts/solution.sh "$nn" >"$work/solution.$nn" 2>&1
    fits "make solution ex$nn" "$work/solution.$nn"
    grep -q 'hundredth' "$work/solution.$nn" || fail "make solution ex$nn shows the long line" "$work/solution.$nn"
done

# ---- make reset, then make restore (twice: it swaps) -----------------------------------------------------
file=$(cd "$scratch" && exercise_file 05)
echo "// the learner's own line" >>"$scratch/$file"
cp "$scratch/$file" "$work/mine.cu"
in_scratch checker/scripts/reset.sh 05 >"$work/reset" 2>&1
fits "make reset ex05" "$work/reset"
grep -q '`make restore ex05`' "$work/reset" && ok "make reset names \`make restore ex05\` on one line" ||
    fail "make reset names \`make restore ex05\` on one line" "$work/reset"
in_scratch checker/scripts/restore.sh 05 >"$work/restore" 2>&1
fits "make restore ex05" "$work/restore"
cmp -s "$scratch/$file" "$work/mine.cu" && ok "make restore puts the learner's file back" ||
    fail "make restore puts the learner's file back" "$work/restore"
in_scratch checker/scripts/restore.sh 05 >"$work/restore2" 2>&1
(cd "$scratch" && git diff --quiet -- "$file") && ok "make restore again swaps back to the file it replaced" ||
    fail "make restore again swaps back to the file it replaced" "$work/restore2"

# ---- A compile error at a terminal: the progress line is gone before nvcc's messages --------------------
# The terminal's screen, as the learner sees it: a carriage return goes back to the line's start, and
# ESC [ K clears the rest of the line.
screen() {
    python3 -c '
import re, sys
for raw in sys.stdin.read().replace("\r\n", "\n").split("\n"):
    line, col = [], 0
    for part in re.split(r"(\r|\x1b\[K|\x1b\[[0-9;]*m)", raw):
        if part == "\r": col = 0
        elif part == "\x1b[K": del line[col:]
        elif part.startswith("\x1b"): pass
        else:
            for ch in part:
                if col < len(line): line[col] = ch
                else: line.append(ch)
                col += 1
    print("".join(line))'
}
file=$(cd "$scratch" && exercise_file 02)
sed -i '0,/^    unsigned int tid = threadIdx.x;$/s//& oops/' "$scratch/$file"
in_scratch script -qec "checker/scripts/grade.sh 02" /dev/null </dev/null >"$work/compile.raw" 2>&1
screen <"$work/compile.raw" >"$work/compile"
if ! grep -q 'nvcc says:' "$work/compile"; then fail "a compile error is reported" "$work/compile"
elif grep -q 'nvcc says:.*nvcc\.\.\.' "$work/compile"; then fail "a compile error leaves the progress line behind" "$work/compile"
else ok "a compile error leaves nothing of the progress line behind"; fi
(cd "$scratch" && git checkout -q -- "$file")

# ---- A wrong word with an action: one answer (make keeps going at a terminal) ---------------------------
in_scratch script -qec "make hint 5" /dev/null </dev/null >"$work/hint5" 2>&1
said=$(grep -c 'did you mean' "$work/hint5")
[ "$said" = 1 ] && ok "make hint 5 says 'did you mean' once" || fail "make hint 5 says 'did you mean' $said times" "$work/hint5"

# ---- make in exercises/ and in every exercise's folder ---------------------------------------------------
in_scratch make --no-print-directory -C exercises >"$work/exercises" 2>&1
if grep -q 'No targets' "$work/exercises" || ! grep -q '`make exNN`' "$work/exercises"; then
    fail "make in exercises/ says where grading happens" "$work/exercises"
else fits "make in exercises/" "$work/exercises"; fi
missing=""
for dir in "$root"/exercises/[0-9][0-9]-*/; do
    grep -qx 'include ../../checker/exercise.mk' "$dir/Makefile" 2>/dev/null || missing="$missing $(basename "$dir")"
done
[ -z "$missing" ] && ok "every exercise's folder has its forwarding Makefile" || fail "no forwarding Makefile in:$missing"

# ---- The prediction offered after exercise 13: no name from inside exercise 14 ---------------------------
in_scratch checker/scripts/predict.sh offer 14 >"$work/offer" 2>&1
grep -q 'softmax-two-pass' "$work/offer" && fail "the offer for ex14 names a version the learner has not met" "$work/offer" ||
    ok "the offer for ex14 names no version of ex14 itself"

# ---- make help ----------------------------------------------------------------------------------------------
for lang in en zh; do
    in_scratch env COURSE_LANG=$lang checker/scripts/help.sh ex01 ex15 >"$work/help.$lang" 2>&1
    fits "make help ($lang)" "$work/help.$lang"
done

echo "$checks checks, $failed failed"
[ "$failed" = 0 ]
