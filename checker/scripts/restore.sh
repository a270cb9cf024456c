#!/usr/bin/env bash
# restore.sh NN - `make restore exNN`: puts the newest backup of exercise NN (.state/backups/, which `make
# reset` writes) back in place of the exercise's file, and keeps the file it replaces as a backup too, so
# that a second `make restore` swaps them back. Grading starts again from that file: run `make exNN`.
set -u
. checker/scripts/lib.sh
nn=$1
require_exercise "$nn" restore
backup=$(backup_latest "$nn")
if [ -z "$backup" ]; then
    sayf 'Exercise %s has no backup to put back: `make reset ex%s` keeps one of the file it replaces.' "$nn" "$nn"
    exit 1
fi
# The file the backup replaces: the exercise's .cu file, or, when it was deleted, the backup's name there.
name=$(exercise_file "$nn")
[ -n "$name" ] || name="$(exercise_dir "$nn")/$(basename "$backup" | sed 's/^ex[0-9]*-[0-9]*-[0-9.]*-//')"
if [ -f "$name" ] && cmp -s "$name" "$backup"; then
    sayf '%s is already the same as its newest backup, %s: nothing to restore.' "$name" "$backup"
    exit 0
fi
kept=""
if [ -f "$name" ] && ! kept=$(backup_keep "$nn" "$name"); then
    sayf 'Could not save a backup of %s, so nothing was changed.' "$name"
    exit 1
fi
cp -p "$backup" "$name"
checker/scripts/progress.sh forget "$nn"
sayf '%s is back as it was in %s. Run `make ex%s` to grade it.' "$name" "$backup" "$nn"
[ -n "$kept" ] && sayf 'The file it replaced is kept in %s: `make restore ex%s` again swaps them back.' "$kept" "$nn"
exit 0
