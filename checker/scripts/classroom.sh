#!/usr/bin/env bash
# classroom.sh DIR - `make classroom SUBMISSIONS=DIR`: grades every course checkout under DIR (one folder per
# learner; DIR itself when it is one) with this checkout's checker, several at a time, into
# $BUILD/classroom/: grades.csv (a row per submission, a column per exercise: done, failing and its first
# failure, or not started) and NAME.tap and NAME.xml (JUnit) per submission, plus NAME.md, the same as a
# page (the workflow's job summary).
# Only each submission's exercises/*/*.cu is read: its tests, checker and Makefile are this checkout's, so a
# fork that changed its copy of the tests is graded by the real ones. Each submission is graded in its own
# scratch folder under $BUILD/classroom/work/; a file that does not compile, hangs (CLASSROOM_SECONDS per
# exercise, default 600) or crashes fails its exercise; nothing in a submission is written to.
# A file is "not started" when it is a starting file the course shipped (checker/starting-files.sha256).
set -u
. checker/scripts/lib.sh
root=$(pwd)
subs=${1:-}
if [ -z "$subs" ] || [ ! -d "$subs" ]; then
    sayf 'Say which folder holds the checkouts, one per learner: make classroom SUBMISSIONS=DIR'
    exit 2
fi
subs=$(cd "$subs" && pwd)
out=${CLASSROOM_OUT:-$BUILD/classroom}
limit=${CLASSROOM_SECONDS:-600}
jobs=${JOBS:-$(nproc 2>/dev/null || echo 2)}
backends=$BACKEND
[ "$BACKEND" = gpu ] && [ -n "${EMU_LIB:-}" ] && backends="gpu emu"
rm -rf "$out"
mkdir -p "$out/work"
out=$(cd "$out" && pwd)

# The submissions: DIR itself when it is a checkout, else each folder in it, in order. A folder without
# exercises/ gets a row that says so.
if [ -d "$subs/exercises" ]; then echo "$subs" >"$out/submissions"
else find "$subs" -mindepth 1 -maxdepth 1 -type d ! -name '.*' | LC_ALL=C sort >"$out/submissions"; fi
count=$(wc -l <"$out/submissions")
# Each one's name in file names: its folder's name with anything but letters, digits, '.', '_' and '-' made
# '_', and a number after it where two would be the same.
while IFS= read -r sub; do
    printf '%s\t%s\n' "$(basename "$sub" | LC_ALL=C sed 's/[^A-Za-z0-9._-]/_/g')" "$sub"
done <"$out/submissions" | awk -F'\t' '{ n = $1; if (seen[n]++) n = n "_" seen[$1]; print n "\t" $2 }' >"$out/names"
if [ "$count" = 0 ]; then
    sayf 'There is no folder in %s: put one checkout per learner there.' "$subs"
    exit 2
fi

# starting NN FILE: true when FILE is exercise NN's starting file as the course shipped it at any time
# (checker/starting-files.sha256: a learner may have cloned an older version). Not "as this checkout has
# it": in a learner's own checkout (the workflow) that is the learner's last commit.
starting() {
    local sum
    sum=$(sha256sum <"$2" | cut -c1-64)
    grep -qx "$sum  $(exercise_file "$1")" checker/starting-files.sha256 2>/dev/null
}

# grade_one NAME SUBMISSION: every exercise of one submission, one line each in work/NAME/results.tsv:
# NN, state (done, failing, not-started), the first failure, and the backends' TAP files.
grade_one() {
    local name=$1 sub=$2 dir="$out/work/$1" nn exdir mine file rel status result tap first
    scratch_course "$dir" "$root"
    : >"$dir/results.tsv"
    basename "$sub" >"$dir/folder"
    if [ ! -d "$sub/exercises" ]; then
        printf 'none\tnot-a-checkout\t%s\t\n' "$(textf 'no exercises/ folder: not a checkout of the course')" >>"$dir/results.tsv"
        return
    fi
    for nn in $(exercise_numbers); do
        exdir=$(exercise_dir "$nn")
        rel=$(exercise_file "$nn")
        # The learner's file: the same name in the folder of the same number, else that folder's one .cu.
        mine=$(ls "$sub"/exercises/"$nn"-*/"$(basename "$rel")" 2>/dev/null | head -n 1)
        [ -n "$mine" ] || mine=$(ls "$sub"/exercises/"$nn"-*/*.cu 2>/dev/null | head -n 1)
        if [ -z "$mine" ]; then
            printf '%s\tfailing\t%s\t\n' "$nn" "$(textf 'no .cu file in its folder')" >>"$dir/results.tsv"; continue
        fi
        if starting "$nn" "$mine"; then
            printf '%s\tnot-started\t\t\n' "$nn" >>"$dir/results.tsv"; continue
        fi
        mkdir -p "$dir/$exdir"
        file="$dir/$rel"
        cp "$mine" "$file"
        tap="" first="" status=done
        for backend in $backends; do
            local report="$dir/ex$nn.$backend.report"
            (cd "$dir" && BUILD=build timeout -k 10 "$limit" checker/scripts/build-suite.sh "$nn" "$rel" \
                "build/$backend/learner/ex$nn" "$backend") >"$report" 2>&1 </dev/null
            result=$?
            if [ $result != 0 ]; then
                status=failing
                if [ $result -ge 124 ]; then first=$(textf 'the compile did not end within %s s' "$limit")
                elif [ $result = 4 ]; then first=$(textf 'does not link: %s' "$(grep -v '^$' "$report" | head -n 1)")
                else first=$(textf 'does not compile: %s' "$(grep -m 1 -E ':[0-9]+: (error|catastrophe)' "$report" |
                                                             sed 's/^ *//' | cut -c1-160)"); fi
                break
            fi
            (cd "$dir" && NO_COLOR=1 timeout -k 10 "$limit" \
                "build/$backend/learner/ex$nn/suite" --summary --tap "$dir/ex$nn.$backend.tap") >"$report" 2>&1 </dev/null
            result=$?
            tap="$tap $dir/ex$nn.$backend.tap"
            if [ $result -ge 124 ]; then
                status=failing first=$(textf 'the tests did not end within %s s' "$limit"); break
            fi
            if ! grep -q '^RESULT ' "$report"; then
                status=failing first=$(textf 'the tests ended without a result (the program crashed)'); break
            fi
            if grep -q '^not ok ' "$dir/ex$nn.$backend.tap" 2>/dev/null; then
                status=failing first=$(sed -n 's/^not ok [0-9]* - //p' "$dir/ex$nn.$backend.tap" | head -n 1)
                [ "$backends" = "$BACKEND" ] || first="$first ($backend)"
                break
            fi
        done
        printf '%s\t%s\t%s\t%s\n' "$nn" "$status" "$first" "${tap# }" >>"$dir/results.tsv"
    done
}

# Grades one submission ("NAME<TAB>FOLDER") in its own process, then prints "NAME<TAB>done<TAB>failing<TAB>not
# started".
grade_submission() {
    local name=${1%%$'\t'*} sub=${1#*$'\t'}
    grade_one "$name" "$sub" >"$out/work/$name.log" 2>&1
    printf '%s\t%s\t%s\t%s\n' "$name" "$(grep -c $'\tdone\t' "$out/work/$name/results.tsv")" \
        "$(grep -c $'\tfailing\t' "$out/work/$name/results.tsv")" "$(grep -c $'\tnot-started\t' "$out/work/$name/results.tsv")"
}

export -f grade_one grade_submission starting scratch_course
export out root limit backends
sayf 'Grading %s submissions from %s, %s at a time, with the tests of this checkout (%s):' "$count" "$subs" "$jobs" "$backends"
k=0
while IFS=$'\t' read -r name d f s; do
    k=$((k + 1))
    printf '  [%*d/%d] %s\n' "${#count}" "$k" "$count" "$(textf '%s: %s done, %s failing, %s not started' "$name" "$d" "$f" "$s")"
done < <(tr '\n' '\0' <"$out/names" |
         xargs -0 -P "$jobs" -I{} bash -c '. checker/scripts/lib.sh; grade_submission "$1"' _ {})

python3 checker/scripts/classroom-results.py "$out" $(exercise_numbers) || exit 1
sayf 'The grades: %s (a row per submission); one TAP and one JUnit file per submission beside it.' "$out/grades.csv"
