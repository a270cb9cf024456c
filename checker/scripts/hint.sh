#!/usr/bin/env bash
# hint.sh NN - shows the next hint of exercise NN, one at a time. The hints are the numbered (or bulleted)
# items of the "## Hints" section of the exercise's lesson.md (in Chinese, of lesson.zh-CN.md's section in
# the same place, "## 提示": the same hints in the same order). The first one shown is the one that
# answers the symptom of the last grade's first failure (checker/suites/hints.txt maps symptoms to hint
# numbers), or that failure's own question where no lesson hint answers its strongest evidence; each call
# then shows the next, wrapping around, and once every hint was shown, all of them. A new first failure (a
# different test, or different evidence) starts a new run of hints from its own. Works before and after
# success.
#   hint.sh record NN TAP   after a grade: remembers the hint for the first failure in TAP (grade.sh)
#   hint.sh describe NN     "a question about this failure (hint 3 of 5)", for the report's last line
#   hint.sh --key K [--more] NN   as `make watch` shows it: key K gives the next one; --more, a hint right
#                           after another, without the title and the advice the first one gave
# State: .state/hints/exNN ("START SHOWN FAILURE OWN": the hint the run of hints began at, how many were
# shown since, which failure it began from, 1 while that failure's own question is still to come),
# .state/hints/exNN.symptom ("HINT MATCHED FAILURE": the hint for the last grade's first failure, how it
# was chosen, and which failure that is) and .state/hints/exNN.question (that failure's own question, and
# on its second line the place of its finding).
# Exit status: 0 a hint was shown, 2 no such exercise or no hints.
set -u
. checker/scripts/lib.sh
manifest=checker/suites/hints.txt
mkdir -p "$STATE_DIR/hints"

# The hint (a number) for a failure (the failed test's name and TAP block, read on stdin), strongest
# evidence first:
#  1. a finding of the emulator at a line of the learner's code ("finding: kind=KIND at=FILE:LINE"), or
#     an output that is the poison partly overwritten ("evidence: poison-partial"): the first line of the
#     manifest for exercise NN whose key is "finding:KIND" or "evidence:poison-partial" for one of them;
#  2. the lesson hint that the bug model it matches names ("evidence: bug-model name=N hint=K"), when every
#     model it matches names the same one (two that disagree leave the choice to the table, unless a line
#     "evidence: settled name=N" says which of them a second input showed it to be);
#  3. the first line of the manifest whose key is one of its evidence or finding lines (where 1 found
#     evidence, a line "evidence:TAG" no longer counts: the shape of the error is weaker evidence):
#     "evidence:TAG [key=value...]" matches a line "evidence: TAG key=value..." that starts with it;
#     "finding:KIND" matches a finding of that kind (the emulator's tag "[KIND at FILE:LINE]" in the
#     message, or a "finding: kind=KIND ..." line, KIND quoted or with its spaces made hyphens);
#  4. only for a failure that carries no evidence (a check that did not look at what came back): the first
#     line whose text is in the failure's name or message, in English (the emulator's tags stay English) or
#     in the learner's language.
# A line with no text matches any failure: its number is followed by "any" (the hint is where to start, not
# an answer to this failure), or by "own" where 1 found evidence that no line answers: the failure's own
# question (a finding's) then comes first. Nothing when no line matches.
# The manifest's lines for exercise NN, in order, as "HINT|TEXT".
manifest_lines() {
    awk -F'|' -v nn="$1" '
        function trim(s) { gsub(/^[ \t]+|[ \t]+$/, "", s); return s }
        /^[ \t]*(#|$)/ { next }
        trim($1) == nn { print trim($3) "|" trim($2) }' "$manifest"
}

# What a failure's block (stdin) says as data, one a line: "evidence:TAG key=value...", "finding:KIND", and
# "placed:KIND" for each finding at a line of the learner's code (its "at=" names one).
failure_facts() {
    awk '/^ *evidence: / { sub(/^ *evidence: /, ""); print "evidence:" $0; next }
         /^ *finding: / && match($0, /kind=("[^"]*"|[^ ]*)/) { k = substr($0, RSTART + 5, RLENGTH - 5)
                                                              gsub(/"/, "", k); print "finding:" k
                                                              if ($0 ~ / at=[^ ]*:[0-9]/) print "placed:" k; next }
         /^ *\[[^]]*\] / { k = $0; sub(/^ *\[/, "", k); sub(/\].*/, "", k); sub(/ at .*/, "", k)
                           print "finding:" k }'
}

# Which failure a TAP block (stdin, its "not ok" line first) is, the same from one seed to the next: its
# test, the kinds and places of its findings, the tags of its evidence and the names of its bug models,
# without their numbers (another seed's n moves them), as one checksum.
failure_identity() {
    awk 'NR == 1 { sub(/^not ok [0-9]+ - /, ""); print; next }
         /^ *finding: / { k = ""; a = ""
                          if (match($0, /kind=("[^"]*"|[^ ]*)/)) k = substr($0, RSTART, RLENGTH)
                          if (match($0, / at=[^ ]*/)) a = substr($0, RSTART, RLENGTH)
                          print "finding " k a; next }
         /^ *evidence: bug-model / { match($0, /name=[^ ]*/); print "model " substr($0, RSTART, RLENGTH); next }
         /^ *evidence: / { print "evidence " $2 }' | cksum | cut -d' ' -f1
}

symptom_hint() {
    local nn=$1 failure translated facts hints fact key
    failure=$(cat)
    [ -f "$manifest" ] || return 0
    facts=$(failure_facts <<<"$failure")
    # 1. A finding at the learner's line, or an output that is the poison partly overwritten: the lesson
    #    hint for it, else its own question.
    local strong
    strong=$(sed -n 's/^placed:\(.*\)/finding:\1/p' <<<"$facts"; grep '^evidence:poison-partial' <<<"$facts")
    if [ -n "$strong" ]; then
        local line_hint
        line_hint=$(manifest_lines "$nn" | while IFS='|' read -r hint text; do
                        [[ $text == finding:* || $text == evidence:* ]] || continue
                        while IFS= read -r fact; do
                            case "$fact " in "$text "*) echo "$hint"; break 2 ;; esac
                        done <<<"$strong"
                    done)
        if [ -n "$line_hint" ]; then echo "$line_hint"; return 0; fi
    fi
    facts=$(grep -v '^placed:' <<<"$facts")
    # Two models that one input could not tell apart, settled by another input: the one it settled on.
    local settled
    settled=$(sed -n 's/^evidence:settled name=\([^ ]*\).*/\1/p' <<<"$facts" | head -n 1)
    [ -n "$settled" ] && facts=$(grep -v '^evidence:bug-model ' <<<"$facts"
                                 grep "^evidence:bug-model name=$settled\( \|$\)" <<<"$facts")
    hints=$(sed -n 's/^evidence:bug-model .*hint=\([0-9][0-9]*\).*/\1/p' <<<"$facts" | sort -u)
    if [ -n "$hints" ] && [ "$(wc -l <<<"$hints")" = 1 ] &&
        [ "$(grep -c '^evidence:bug-model ' <<<"$facts")" = "$(grep -c '^evidence:bug-model .*hint=' <<<"$facts")" ]; then
        echo "$hints"
        return 0
    fi
    # Where no lesson hint answers the evidence (strong, or the shape of what came back that no line names), or
    # only a word of the test's name or message points at one, the failure's own question (the report's, chosen
    # from what came back) comes first, then the lesson hint.
    local own=any
    grep -q '^ *\(Hint\|提示\)[:：] *[^ ]' <<<"$failure" && own=own
    manifest_lines "$nn" |
    while IFS='|' read -r hint text; do
        case $text in
        evidence:* | finding:*)
            # The shape of the error is weaker evidence than a finding at the learner's line.
            [ -n "$strong" ] && [[ $text == evidence:* ]] && continue
            while IFS= read -r fact; do
                [ -n "$fact" ] || continue
                key=$text
                [[ $key == finding:* ]] && [ "${fact//-/ }" = "$key" ] && fact=$key
                case "$fact " in "$key "* | "$key"[=-]*) echo "$hint"; break 2 ;; esac
            done <<<"$facts"
            continue ;;
        esac
        if [ -z "$text" ]; then echo "$hint $own"; break; fi
        grep -q '^evidence:' <<<"$facts" && continue
        translated=$text
        [ "$(course_language)" != en ] && translated=$(course_phrase "$text")
        if grep -qF -e "$text" -e "$translated" <<<"$failure"; then echo "$hint $own"; break; fi
    done
}

# The first failed test of a TAP file (this checker's: "not ok N - NAME" and a YAML message block).
first_failure() {
    awk '/^not ok / { if (found) exit; found = 1; print; next }
         found && /^ok / { exit }
         found { print }' "$1" 2>/dev/null
}

if [ "${1:-}" = record ]; then
    nn=$2 tap=$3
    failure=$(first_failure "$tap")
    hint="" symptom="$STATE_DIR/hints/ex$nn.symptom"
    [ -n "$failure" ] && hint=$(symptom_hint "$nn" <<<"$failure")
    if [ -n "$failure" ]; then
        set -- $hint
        echo "${1:-0} ${2:--} $(failure_identity <<<"$failure")" >"$symptom"
        # The failure's own question, for a finding that no lesson hint answers, and the finding's line.
        { sed -n 's/^ *\(Hint\|提示\)[:：] *//p' <<<"$failure" | head -n 1
          sed -n 's/^ *finding: .* at=\([^ ]*:[0-9][0-9]*\).*/\1/p' <<<"$failure" | head -n 1; } \
            >"$STATE_DIR/hints/ex$nn.question"
    else
        rm -f "$symptom" "$STATE_DIR/hints/ex$nn.question"
    fi
    exit 0
fi

describe=0 key="" more=0
[ "${1:-}" = describe ] && { describe=1; shift; }
[ "${1:-}" = --key ] && { key=$2; shift 2; }
[ "${1:-}" = --more ] && { more=1; shift; }
nn=${1:-}
require_exercise "$nn" hint
lesson=$(exercise_lesson "$nn")
section=$(lesson_section "$lesson" "## Hints")

# One hint per line: an item starts with "1. " or "- " and goes on over its indented lines, joined by a
# space (none between two Chinese lines: bytes above 0x7f on both sides, read as bytes under LC_ALL=C).
hints=$(LC_ALL=C awk -v section="$section" '
    /^## / { inside = ($0 == section); next }
    !inside { next }
    /^([0-9]+\.|[-*]) / { if (item != "") print item; sub(/^([0-9]+\.|[-*]) +/, ""); item = $0; next }
    /^[ \t]+[^ \t]/ && item != "" { sub(/^[ \t]+/, "")
                                      wide = substr(item, length(item), 1) > "\177" && substr($0, 1, 1) > "\177"
                                      item = item (wide ? "" : " ") $0; next }
    /^[ \t]*$/ { next }
    END { if (item != "") print item }
' "$lesson")
count=$(printf '%s\n' "$hints" | grep -c .)

# Where the run of hints stands: start (1-based), shown, the failure it began from, and whether that
# failure's own question is still to come. A new first failure starts a new run at its hint.
state_file="$STATE_DIR/hints/ex$nn"
start="" shown="" began="" own=0
[ -f "$state_file" ] && read -r start shown began own _ <"$state_file"
case ${shown:-x} in '' | *[!0-9]*) shown=${start:-0} start=1 ;; esac   # the older one-number state: seen
case ${start:-x} in '' | *[!0-9]*) start=1 ;; esac
[ "${own:-0}" = 1 ] || own=0
symptom="" matched="" failure=""
[ -f "$STATE_DIR/hints/ex$nn.symptom" ] && read -r symptom matched failure _ <"$STATE_DIR/hints/ex$nn.symptom"
case $symptom in '' | *[!0-9]*) symptom="" ;; esac
[ "$symptom" = 0 ] && symptom=""
question="" place=""
[ -s "$STATE_DIR/hints/ex$nn.question" ] && { read -r question; read -r place; } <"$STATE_DIR/hints/ex$nn.question"
if [ -n "$failure" ] && [ "$failure" != "${began:-}" ]; then
    start=${symptom:-1} shown=0 began=$failure own=0
    [ "$matched" = own ] && [ -n "$question" ] && own=1
fi
[ "$start" -ge 1 ] && [ "$start" -le "$count" ] || start=1
[ -n "$question" ] || own=0
save_state() { echo "$start $shown ${began:--} $own" >"$state_file"; }

if [ $describe = 1 ]; then
    # (Each textf starts its line: xgettext finds a keyword only there.)
    if [ $own = 1 ]; then
        textf "the question of your first failure, then the lesson's hints"
    elif [ "$count" = 0 ]; then
        textf 'nothing: the lesson has no hints'
    elif [ "$shown" -ge "$count" ]; then
        textf 'all %s hints again' "$count"
    elif [ -n "$symptom" ] && [ "$matched" != any ] && [ "$matched" != own ] && [ "$shown" = 0 ]; then
        textf 'a question about this failure (hint %s of %s)' "$start" "$count"
    else
        textf 'a question that points the way (hint %s of %s)' "$(( (start - 1 + shown) % count + 1 ))" "$count"
    fi
    echo
    exit 0
fi
if [ "$count" = 0 ] && [ $own = 0 ]; then
    sayf 'The lesson %s has no "## Hints" section, so there is no hint to give.' "$lesson"
    exit 2
fi

# Prints text after a bold label, wrapped to fit 100 columns, its later lines under its text.
labelled() {
    local label=$1 text=$2 space=" "
    case $label in *：) space="" ;; esac   # no space after a full-width colon
    printf '%s\n' "$BOLD$label$RESET$space$text" |
        if [ -x "$COURSE_TEXT" ]; then "$COURSE_TEXT" wrap 100 $(($(text_width "$label$space"))); else cat; fi
}
# Prints hint K (1-based).
show() { labelled "$(textf 'Hint %s of %s:' "$1" "$count")" "$(printf '%s\n' "$hints" | sed -n "${1}p")"; }

# What gives the next hint: `make hint exNN`, or in `make watch`, its key.
again() {
    if [ -z "$key" ]; then
        textf '`make hint ex%s` again gives hint %s of %s.' "$nn" "$1" "$count"
        return
    fi
    textf 'Press %s for hint %s of %s.' "$key" "$1" "$count"
}
# A hint says to try it first; in `make watch`, a hint after another (--more) says only what the key does.
try_first() {
    if [ $more = 1 ]; then say "$(again "$1")"
    else say "$(joined "$(textf 'Try to answer it before you change the code.')" "$(again "$1")")"; fi
}

if [ $own = 1 ]; then
    own=0
    save_state
    if [ $more = 0 ]; then
        sayf 'Exercise %s: %s' "$nn" "$(exercise_title "$nn")"
    fi
    # Its question speaks of "the line above": the heading names it.
    if [ -n "$place" ]; then
        say "$DIM$(textf 'The question of the first failure of your last `make ex%s`, about %s:' "$nn" "$place")$RESET"
    else
        say "$DIM$(textf 'The question of the first failure of your last `make ex%s`:' "$nn")$RESET"
    fi
    say ""
    labelled "$(textf 'Question:')" "$question"
    say ""
    [ "$count" -gt 0 ] && try_first "$(( (start - 1 + shown) % count + 1 ))"
    exit 0
fi

if [ "$shown" -ge "$count" ]; then
    sayf 'You have seen all %s hints of exercise %s (%s). Here they are again:' "$count" "$nn" "$(exercise_title "$nn")"
    say ""
    for k in $(seq 1 "$count"); do show "$k"; done
    say ""
    sayf 'The lesson, %s, explains the ideas behind them; `make ex%s` shows what the tests say now.' "$lesson" "$nn"
    exit 0
fi

k=$(( (start - 1 + shown) % count + 1 ))
shown=$((shown + 1))
save_state
if [ $more = 0 ]; then
    sayf 'Exercise %s: %s' "$nn" "$(exercise_title "$nn")"
fi
[ "$shown" = 1 ] && [ -n "$symptom" ] && [ "$matched" != any ] && [ "$matched" != own ] && [ "$start" = "$k" ] &&
    say "$DIM$(textf 'The hint for the first failure of your last `make ex%s`:' "$nn")$RESET"
[ $more = 1 ] || say ""
show "$k"
say ""
if [ "$shown" -lt "$count" ]; then
    try_first "$(( (start - 1 + shown) % count + 1 ))"
elif [ -n "$key" ]; then
    sayf 'That was the last hint of exercise %s you had not seen. Press %s to see all %s.' "$nn" "$key" "$count"
else
    sayf 'That was the last hint of exercise %s you had not seen. `make hint ex%s` again shows all %s.' "$nn" "$nn" \
        "$count"
fi
