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
[ -n "$name" ] || { say "Cannot find the starting file of exercise $nn in git, so nothing was changed."; exit 1; }
for rev in '@{upstream}' HEAD; do
    if git show "$rev:$name" >"$STATE_DIR.reset.tmp" 2>/dev/null; then break; fi
done
if [ ! -s "$STATE_DIR.reset.tmp" ]; then
    rm -f "$STATE_DIR.reset.tmp"
    say "Cannot read the starting file of exercise $nn from git, so nothing was changed."
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
    say "$name is already the starting file: nothing to reset."
    exit 0
fi
if [ -f "$name" ]; then
    backup="$STATE_DIR/backups/ex$nn-$(date +%Y%m%d-%H%M%S)-$(basename "$name")"
    mkdir -p "$(dirname "$backup")"
    cp -p "$name" "$backup" || { say "Could not save a backup of $name, so nothing was changed."; exit 1; }
fi
mv "$STATE_DIR.reset.tmp" "$name"
forget_exercise
say "$name is back to its starting state. Read $dir/lesson.md and run \`make ex$nn\`."
if [ -n "${backup:-}" ]; then
    say "Your version is kept in $backup; to get it back:"
    say "    cp $backup $name"
fi
