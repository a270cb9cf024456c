#!/usr/bin/env bash
# classroom-test.sh WORKDIR - make test's check of `make classroom`: three checkouts made in WORKDIR, one with
# exercise 01 solved, one broken (01 a wrong kernel of the corpus, 02 a syntax error), one untouched, must
# give three rows that say so, a TAP and a JUnit file each, and be left byte for byte as they were. Also:
# every starting file of today is in checker/starting-files.sha256 (what "not started" is measured by).
set -u
. checker/scripts/lib.sh
work=${1:-$BUILD/classroom-test}
rm -rf "$work"
mkdir -p "$work/submissions"
work=$(cd "$work" && pwd)
fail() { echo "$*"; exit 1; }

for nn in $(exercise_numbers); do
    path=$(exercise_file "$nn")
    sum=$(git show "HEAD:$path" 2>/dev/null | sha256sum | cut -c1-64)
    grep -qx "$sum  $path" checker/starting-files.sha256 ||
        fail "checker/starting-files.sha256 lacks today's $path: add the line '$sum  $path' (keep the old ones)"
done

# Three checkouts: the exercises as the course ships them, then each learner's work.
for who in solved broken untouched; do
    mkdir -p "$work/submissions/$who"
    git archive HEAD exercises | tar -x -C "$work/submissions/$who"
done
one=$(exercise_file 01) two=$(exercise_file 02)
cp "$(solution_file 01)" "$work/submissions/solved/$one"
corpus_apply checker/corpus/ex01/plain_add.patch "$work/submissions/broken/$one" || fail "the corpus entry does not apply"
printf '// a learner mid-edit\n__global__ void broken( {\n' >>"$work/submissions/broken/$two"
before=$(cd "$work/submissions" && find . -type f -print0 | sort -z | xargs -0 sha256sum)

CLASSROOM_OUT="$work/out" checker/scripts/classroom.sh "$work/submissions" >"$work/classroom.log" 2>&1 ||
    fail "make classroom failed: $(tail -n 1 "$work/classroom.log") (log: $work/classroom.log)"
after=$(cd "$work/submissions" && find . -type f -print0 | sort -z | xargs -0 sha256sum)
[ "$before" = "$after" ] || fail "make classroom changed a submission"

# row NAME: that submission's row of grades.csv, its cells one a line (ex01, ex02, ..., done, note).
row() { python3 -c 'import csv, sys
for r in csv.reader(open(sys.argv[1])):
    if r[0] == sys.argv[2]: print("\n".join(r[1:]))' "$work/out/grades.csv" "$1" >"$work/row"; cat "$work/row"; }
last=$(exercise_numbers | wc -l)
[ "$(wc -l <"$work/out/grades.csv")" = 4 ] || fail "grades.csv has $(wc -l <"$work/out/grades.csv") lines, not a header and 3 rows"
[ "$(row solved | head -n 1)" = done ] || fail "solved: ex01 is '$(row solved | head -n 1)', not done"
[ "$(row solved | sed -n 2p)" = "not started" ] || fail "solved: ex02 is '$(row solved | sed -n 2p)', not 'not started'"
[ "$(row solved | sed -n "$((last + 1))p")" = "1/$last" ] || fail "solved: not 1/$last done"
first=$(row broken | head -n 1)
[[ "$first" == "failing: "* ]] || fail "broken: ex01 is '$first', not failing"
# On a GPU machine both backends grade, and the cell names the one that failed: "failing: NAME (gpu)".
test=${first#failing: } tap_backend=$BACKEND
case $test in *" (gpu)" | *" (emu)") tap_backend=${test##* (}; tap_backend=${tap_backend%)}; test=${test% (*} ;; esac
grep -qF "not ok" "$work/out/work/broken/ex01.$tap_backend.tap" &&
    grep -qF -- "- $test" "$work/out/work/broken/ex01.$tap_backend.tap" ||
    fail "broken: ex01's first failure '$first' is not a failed test of its TAP file"
[[ "$(row broken | sed -n 2p)" == "failing: does not compile: "*"$two:"* ]] ||
    fail "broken: ex02 is '$(row broken | sed -n 2p)', not 'failing: does not compile: $two:LINE: ...'"
[ "$(row untouched | head -n "$last" | sort -u)" = "not started" ] || fail "untouched: not every exercise is 'not started'"
for who in solved broken untouched; do
    grep -q '^1\.\.[0-9]' "$work/out/$who.tap" || fail "$who.tap has no plan line"
    python3 -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' "$work/out/$who.xml" 2>/dev/null ||
        fail "$who.xml is not XML"
done
echo "3 checkouts, 3 rows: solved 1/$last done, broken: ex01 ${first#failing: }, ex02 does not compile; untouched 0/$last"
