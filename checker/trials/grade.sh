#!/usr/bin/env bash
# grade.sh CHECKOUT OUTFILE [PATCH...] - grades the trial mistakes (checker/trials/exNN/*.patch beside this
# script, or the PATCHes named) as a learner meets them, at CHECKOUT's committed HEAD, and writes one
# markdown table row per mistake to OUTFILE.
#
# CHECKOUT itself is never touched: it is cloned into a scratch folder, where each mistake is the reference
# solution with its patch applied (corpus_apply, checker/scripts/lib.sh), put in place of the learner's file
# (exercises/NN-*/<the solution's file name>); then `make exNN` and `make hint exNN`, as a learner types
# them, with a fresh .state each time (no progress or hint left from the mistake before). The columns:
# exercise | mistake | verdict (caught / PASSED) | the first failed test and the first words of its
# diagnosis | the hint `make hint` showed. Each report and hint is kept in the scratch folder, whose path is
# printed at the end. SEED=N in the environment gives every grade the same inputs (as `SEED=N make exNN`
# does); without it each grade draws its own, and the table says which. Works on any checkout whose
# Makefile has the exNN and hint goals and whose lib.sh has corpus_apply (147620c and later).
set -u
trials=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 2 ] && [ -d "$1" ] || { echo "usage: $0 CHECKOUT OUTFILE [PATCH...]" >&2; exit 2; }
checkout=$(cd "$1" && pwd)
outfile=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
shift 2
patches=("$@")
[ ${#patches[@]} -gt 0 ] || patches=("$trials"/ex*/*.patch)
for i in "${!patches[@]}"; do patches[i]=$(cd "$(dirname "${patches[i]}")" && pwd)/$(basename "${patches[i]}"); done

scratch=$(mktemp -d /tmp/trials-grade.XXXXXX)
git -c advice.detachedHead=false clone -q "$checkout" "$scratch/course" || exit 2
cd "$scratch/course" || exit 2
. checker/scripts/lib.sh

# cell TEXT WIDTH: TEXT on one line, '|' escaped, cut to about WIDTH characters at a word.
cell() {
    tr '\n' ' ' <<<"$1" | tr -s ' ' | sed 's/^ //; s/ $//; s/|/\\|/g' |
        awk -v w="$2" '{ if (length($0) > w) { s = substr($0, 1, w); sub(/ [^ ]*$/, "", s); $0 = s " ..." } print }'
}

# first_failure REPORT: the first failed test's name ("✗ NAME"), a tab, and its message up to the report's
# own "Hint:" or the next test's line; or nothing.
first_failure() {
    awk '/^ *✗/ && !found { found = 1; sub(/^ *✗ */, ""); printf "%s\t", $0; next }
         found && (/^ *(✓|✗)/ || /^ *Hint:/ || !NF) { exit }
         found { printf "%s ", $0 }' "$1"
}

printf '| exercise | mistake | verdict | first failed test: diagnosis | make hint |\n' >"$outfile"
printf '| --- | --- | --- | --- | --- |\n' >>"$outfile"
for patch in "${patches[@]}"; do
    nn=$(basename "$(dirname "$patch")" | sed 's/^ex//')
    name=$(basename "$patch" .patch)
    log="$scratch/ex$nn-$name"
    sol=$(corpus_base "$patch")
    file="$(exercise_dir "$nn")/$(basename "$sol")"
    echo "ex$nn/$name ..." >&2
    rm -rf .state
    git checkout -q -- exercises
    if ! corpus_apply "$patch" "$file" 2>"$log.apply"; then
        printf '| %s | %s | not graded | %s | |\n' "$nn" "$name" "$(cell "$(cat "$log.apply")" 100)" >>"$outfile"
        continue
    fi
    NO_COLOR=1 timeout 900 nice make --no-print-directory -s "ex$nn" </dev/null >"$log.report" 2>&1
    rc=$?
    NO_COLOR=1 nice make --no-print-directory -s hint "ex$nn" </dev/null >"$log.hint" 2>&1
    # The seed the report printed ("SEED=N make exNN replays this run"): the verdict of a mistake that only
    # some inputs show may change with it.
    seed=$(grep -o 'SEED=[0-9]*' "$log.report" | head -n 1)
    if [ $rc = 0 ]; then
        verdict=PASSED words=""
    else
        verdict=caught
        failure=$(first_failure "$log.report")
        if [ -n "$failure" ]; then
            words="$(cell "${failure%%$'\t'*}" 200): $(cell "${failure#*$'\t'}" 100)"
        else   # no test failed (it did not build, or the suite did not run): the report's first lines
            words="(no failed test) $(cell "$(grep -v '^make' "$log.report" | head -n 4)" 100)"
        fi
    fi
    # The hint from its "Hint K of N:" line on, without the closing advice.
    hint=$(sed -n '/^Hint [0-9]/,$p' "$log.hint" | grep -v -e '^make' -e '^Try to answer')
    [ -n "$hint" ] || hint=$(grep -v '^make' "$log.hint")
    printf '| %s | %s | %s | %s | %s |\n' "$nn" "$name" "$verdict${seed:+ ($seed)}" "$words" \
        "$(cell "$hint" 110)" >>"$outfile"
done
git checkout -q -- exercises
echo "reports and hints: $scratch/ex*.report, *.hint" >&2
