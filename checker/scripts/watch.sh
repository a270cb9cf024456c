#!/usr/bin/env bash
# watch.sh [NN] - grades exercise NN (default: the first one not done) every time its file is saved.
# File events come from inotifywait when it is installed (package inotify-tools); the file's time stamp
# and size are also checked every second, which is all there is where events do not arrive (WSL on a
# Windows drive, network file systems). Keys, when stdin is a terminal: r re-runs, h shows the next hint,
# n moves to the next exercise once this one passes, q quits. Without a terminal it just keeps watching.
# Exit status: 0 on q or Ctrl-C, 2 no such exercise.
set -u
. checker/scripts/lib.sh

nn=${1:-}
if [ -z "$nn" ]; then
    nn=$(for n in $(exercise_numbers); do
        [ "$(checker/scripts/progress.sh state "$n")" = done ] || { echo "$n"; break; }
    done)
    if [ -z "$nn" ]; then
        sayf 'Every exercise is done, so there is nothing to watch by default. `make watch ex05` watches exercise 05.'
        exit 0
    fi
fi
require_exercise "$nn" watch

interactive=0
[ -t 0 ] && interactive=1
events="" watcher=""
finish() {
    [ -n "$watcher" ] && kill "$watcher" 2>/dev/null
    [ -n "$events" ] && rm -f "$events"
    [ $interactive = 1 ] && stty echo 2>/dev/null
    say ""
    sayf 'Stopped watching exercise %s. Your file is as you saved it; `make watch` starts again.' "$nn"
    exit 0
}
trap finish INT TERM

# File events: a background inotifywait appends a line to $events for every write or rename in the folder
# (editors often save by writing a new file and renaming it over the old one).
start_events() {
    [ -n "$watcher" ] && kill "$watcher" 2>/dev/null
    watcher=""
    command -v inotifywait >/dev/null 2>&1 || return
    [ -n "$events" ] || events=$(mktemp)
    : >"$events"
    inotifywait -m -q -e close_write,moved_to,create --format '%f' "$(exercise_dir "$nn")" >>"$events" 2>/dev/null &
    watcher=$!
}

signature() { stat -c '%.9Y %s %i' "$file" 2>/dev/null || echo missing; }

clear_screen() { if [ -t 1 ]; then printf '\033[H\033[2J'; else say "" && say "----"; fi; }

# Grades once; sets passed to 1 or 0. The first hint after a grade (key h) says to try it before the code.
more_hints=""
grade() {
    clear_screen
    more_hints=""
    say "$DIM$(date +%H:%M:%S) $(textf 'make ex%s (watching %s)' "$nn" "$file")$RESET"
    local key=""
    [ $interactive = 1 ] && key=h   # the report's last line then names the key, not `make hint`
    if WATCH_HINT_KEY=$key checker/scripts/grade.sh "$nn"; then passed=1; else passed=0; fi
    say ""
    if [ $interactive = 0 ]; then
        say "$DIM$(textf 'Watching %s: save it to grade again; Ctrl-C stops.' "$file")$RESET"
    elif [ $passed = 1 ] && [ -n "$(next_exercise)" ]; then
        say "$(joined "$BOLD$(textf 'Press n for the next exercise (ex%s), q to quit;' "$(next_exercise)")$RESET" \
            "$(textf 'or keep editing: each save grades again.')")"
    else
        say "$DIM$(textf 'Watching %s: each save grades again. Keys: r re-run, h next hint, q quit.' "$file")$RESET"
    fi
}

next_exercise() { exercise_numbers | awk -v n="$nn" '$1 > n { print; exit }'; }

# Switches to exercise $1: its file, its events, and a first grading.
switch_to() {
    nn=$1
    file=$(exercise_file "$nn")
    [ -n "$file" ] || file="$(exercise_dir "$nn")/$(textf '(its .cu file)')"
    start_events
    last=$(signature)
    grade
}

if ! command -v inotifywait >/dev/null 2>&1; then
    say "$DIM$(textf "Watching by checking the file's time stamp every second (install inotify-tools for file events).")$RESET"
    sleep 1
fi
# The checker's parts are built once, here; grade.sh then only builds the learner's file.
"${MAKE:-make}" --no-print-directory -s checker || exit $?
switch_to "$nn"

while :; do
    key=""
    if [ $interactive = 1 ]; then
        read -rsn1 -t 1 key || key=""
    else
        sleep 1
    fi
    case $key in
    q | Q) finish ;;
    r | R) switch_to "$nn"; continue ;;
    h | H) say ""; checker/scripts/hint.sh --key h $more_hints "$nn"; more_hints=--more; continue ;;
    n | N)
        if [ "$passed" = 1 ] && [ -n "$(next_exercise)" ]; then
            switch_to "$(next_exercise)"
        else
            sayf 'Exercise %s does not pass yet: n moves on once it does.' "$nn"
        fi
        continue ;;
    esac
    now=$(signature)
    fired=0
    [ -n "$events" ] && [ -s "$events" ] && grep -qxF "$(basename "$file")" "$events" && fired=1
    if [ "$now" != "$last" ] || [ $fired = 1 ]; then
        # Let the editor finish writing: wait until the file stops changing.
        sleep 0.3
        while [ "$(signature)" != "$now" ]; do now=$(signature); sleep 0.3; done
        [ -n "$events" ] && : >"$events"
        last=$now
        grade
    fi
done
