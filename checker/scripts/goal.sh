#!/usr/bin/env bash
# goal.sh - one sentence for a make goal the Makefile has no rule for, instead of make's "No rule to make
# target". The exercises are whatever folders exercises/NN-*/ exist.
#   goal.sh unknown NAME              `make NAME`, which has no rule (ex5, ex12, chek)
#   goal.sh action ACTION [WORDS...]  `make hint ex5`: WORDS are the other goals given with the action
#   goal.sh exercises                 `make` alone in exercises/: where grading happens (exit status 0)
# Exit status: 2 (nothing was done).
set -u
. checker/scripts/lib.sh

# "ex01 to ex11", or the list when the numbers have gaps.
exercise_list() {
    local nums first last count
    nums=$(exercise_numbers)
    first=$(head -n 1 <<<"$nums") last=$(tail -n 1 <<<"$nums") count=$(grep -c . <<<"$nums")
    if [ "$count" -gt 2 ] && [ $((10#$last - 10#$first + 1)) = "$count" ]; then
        textf 'ex%s to ex%s' "$first" "$last"; echo
    else
        sed 's/^/ex/' <<<"$nums" | paste -sd' '
    fi
}

# The exercise a mistyped name means: ex5 or ex005 for ex05, 5 for ex05; nothing when there is none.
meant_exercise() {
    local digits
    digits=$(sed -n 's/^\(ex\)\{0,1\}0*\([0-9]\{1,3\}\)$/\2/p' <<<"$1")
    [ -n "$digits" ] && [ "$digits" -le 999 ] || return 1
    local nn
    nn=$(printf '%02d' "$((10#$digits))")
    [ -n "$(exercise_dir "$nn")" ] && echo "ex$nn"
}

# The sentence for NAME used where an exercise belongs; ACTION is the make target it came with, if any.
about_exercise() {
    local name=$1 action=${2:-} meant
    if meant=$(meant_exercise "$name") && [ "$meant" != "$name" ]; then
        sayf 'There is no exercise %s: did you mean `%s`?' "$name" "make${action:+ $action} $meant"
    elif [[ $name =~ ^ex[0-9]+$ ]]; then
        sayf 'There is no exercise %s (yet): the exercises are %s.' "$name" "$(exercise_list)"
    else
        sayf 'make has no target %s: `make help` lists them; the exercises are %s.' "$name" "$(exercise_list)"
    fi
}

case "${1:-}" in
unknown) about_exercise "$2" ;;
action)
    action=$2
    shift 2
    if [ $# = 0 ]; then
        sayf 'Say which exercise, e.g. `make %s ex05`.' "$action"
    else
        for word in "$@"; do about_exercise "$word" "$action"; done
    fi
    ;;
exercises)
    sayf 'Each exercise has a folder here: run `make` inside one to grade it, or `make exNN` here or at the top of the repository (%s). `make help` lists everything else.' "$(exercise_list)"
    exit 0 ;;
*) say "usage: goal.sh unknown NAME | action ACTION [WORDS...] | exercises" ;;
esac
exit 2
