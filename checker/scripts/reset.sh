#!/usr/bin/env bash
# reset.sh NN - puts exercise NN's starting file back, after saving the learner's version as a backup, and
# forgets the exercise's progress, its last results and its hints, so that `make check`, `make metrics`
# and .state/ all see a starting file.
set -u
. checker/scripts/lib.sh
nn=$1
dir=$(exercise_dir "$nn")
require_exercise "$nn" reset

# The starting file as the course shipped it: from the repository you cloned, else from this clone's HEAD.
name=$(git ls-tree --name-only HEAD "$dir/" 2>/dev/null | grep '\.cu$' | head -n 1)
if [ -z "$name" ]; then
    sayf 'Cannot find the starting file of exercise %s in git, so nothing was changed.' "$nn"
    exit 1
fi
for rev in '@{upstream}' HEAD; do
    if git show "$rev:$name" >"$STATE_DIR.reset.tmp" 2>/dev/null; then break; fi
done
if [ ! -s "$STATE_DIR.reset.tmp" ]; then
    rm -f "$STATE_DIR.reset.tmp"
    sayf 'Cannot read the starting file of exercise %s from git, so nothing was changed.' "$nn"
    exit 1
fi

# What .state/ knows about the exercise goes with the learner's version (the backup keeps the file).
forget_exercise() {
    checker/scripts/progress.sh forget "$nn"
    rm -f "$STATE_DIR/ex$nn".*.tap "$STATE_DIR/hints/ex$nn" "$STATE_DIR/hints/ex$nn.symptom"
}

if [ -f "$name" ] && cmp -s "$name" "$STATE_DIR.reset.tmp"; then
    rm -f "$STATE_DIR.reset.tmp"
    forget_exercise
    sayf '%s is already the starting file: nothing to reset.' "$name"
    exit 0
fi
if [ -f "$name" ] && ! backup=$(backup_keep "$nn" "$name"); then
    sayf 'Could not save a backup of %s, so nothing was changed.' "$name"
    exit 1
fi
mv "$STATE_DIR.reset.tmp" "$name"
forget_exercise
sayf '%s is back to its starting state. Read %s and run `make ex%s`.' "$name" "$(exercise_lesson "$nn")" "$nn"
if [ -n "${backup:-}" ]; then
    sayf 'Your version is kept in %s; `make restore ex%s` puts it back.' "$backup" "$nn"
fi
