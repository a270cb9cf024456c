#!/usr/bin/env bash
# progress.sh record NN STATE | forget NN | state NN - the learner's progress, kept in .state/ (gitignored),
# never in the exercise files. STATE is done or failing; an exercise once done stays done (its solution
# stays open) until it is forgotten: `make reset` forgets it, and `make check` forgets a starting file.
set -u
. checker/scripts/lib.sh
file="$STATE_DIR/progress"
mkdir -p "$STATE_DIR"
touch "$file"

case "${1:-show}" in
record)
    nn=$2 state=$3
    old=$(awk -v n="$nn" '$1 == n { print $2 }' "$file")
    [ "$old" = done ] && state=done
    { grep -v "^$nn " "$file"; echo "$nn $state $(date +%Y-%m-%d)"; } | sort >"$file.new" && mv "$file.new" "$file"
    ;;
forget)
    grep -v "^$2 " "$file" >"$file.new"; mv "$file.new" "$file"
    ;;
state)
    awk -v n="$2" '$1 == n { print $2 }' "$file"
    ;;
esac
