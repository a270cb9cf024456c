#!/usr/bin/env bash
# extract.sh OUTDIR - takes the course's translatable text out of its sources, one template per part of the
# catalog: OUTDIR/PART.pot for each part of PARTS below (checker/po/zh_CN/PART.po translates it). A msgid
# belongs to the first part that has it, so that the parts can be translated side by side and joined.
# What is marked: in C, _("..."), N_("..."), _n("...", "...", n), P_("...") (in context "phrase") and
# the emulator's message functions (emu_text.h); in the scripts, sayf '...', textf '...' and course_tr
# '...' (lib.sh); in Python (checker/show), _("..."), N_("..."), _n("...", "...", n) and _c(context, "...")
# (lang.py); the sentences of checker/metrics/manifest.txt (moved, why); the texts of
# checker/suites/hints.txt (in context "phrase": a phrase of a failure's text, see hint.sh).
set -euo pipefail
out=${1:?usage: extract.sh OUTDIR}
mkdir -p "$out"

# PART: its sources.
PARTS=(
    "report: checker/harness/*.c checker/i18n/*.c checker/emu/*.c checker/emu/*.h"
    "tests-01-08: checker/suites/ex0[1-8].c"
    "tests-09-15: checker/suites/ex09.c checker/suites/ex1[0-9].c checker/suites/ranks.h"
    "scripts: checker/scripts/*.sh checker/metrics/metrics.sh checker/metrics/manifest.txt checker/suites/hints.txt"
    "show: checker/show/*.py"
)
# The keywords of the C sources and of the scripts (lib.sh), with the ones that take a printf format.
C_KEYS=(-k_ -kN_ -k_n:1,2 -kemu_text -kemu_ntext:1,2 -kemu_ptx_fail:2 -kemu_finding:1 -kemu_diag_report:2
        --flag=emu_finding:1:c-format --flag=emu_diag_report:2:c-format --flag=emu_ptx_fail:2:c-format)
SH_KEYS=(-k -ksayf -ktextf -kcourse_tr --flag=sayf:1:c-format --flag=textf:1:c-format)
PY_KEYS=(-k -k_ -kN_ -k_n:1,2 -k_c:1c,2)
COMMON=(--from-code=UTF-8 --no-wrap --add-comments=TRANSLATORS: --force-po)

# A template for the lines of a data file that a script translates: FILE AWK-PROGRAM, which prints
# "LINE CONTEXT TEXT" for each, separated by the unit separator \037 (CONTEXT may be empty).
data_pot() {
    printf 'msgid ""\nmsgstr "Content-Type: text/plain; charset=UTF-8\\n"\n\n'
    awk "$2" "$1" | while IFS=$'\037' read -r line context text; do
        printf '#: %s:%s\n' "$1" "$line"
        [ -n "$context" ] && printf 'msgctxt "%s"\n' "$context"
        printf 'msgid "%s"\nmsgstr ""\n\n' "$(sed 's/\\/\\\\/g; s/"/\\"/g' <<<"$text")"
    done
}
manifest_texts='/^[ \t]+(moved|why)[ \t]/ { t = $0; sub(/^[ \t]*[a-z]+[ \t]+/, "", t); print NR "\037\037" t }'
hints_texts='/^[ \t]*(#|$)/ { next } { n = split($0, f, "|"); t = f[2]; gsub(/^[ \t]+|[ \t]+$/, "", t)
             if (t != "" && t !~ /^(evidence|finding):/) print NR "\037phrase\037" t }'

# Each part in turn: its C sources, its scripts and its data files, each with its own keywords, then
# joined without the msgids of the parts before it (-x).
excluded=()
for part in "${PARTS[@]}"; do
    name=${part%%:*}
    c=() sh=() py=() pieces=()
    for f in ${part#*:}; do
        case $f in
        *.c | *.h) c+=("$f") ;;
        *.sh) sh+=("$f") ;;
        *.py) py+=("$f") ;;
        *manifest.txt) data_pot "$f" "$manifest_texts" >"$out/$name.manifest.pot"; pieces+=("$out/$name.manifest.pot") ;;
        *hints.txt) data_pot "$f" "$hints_texts" >"$out/$name.hints.pot"; pieces+=("$out/$name.hints.pot") ;;
        *) echo "extract.sh: no rule for $f" >&2; exit 1 ;;
        esac
    done
    if [ ${#c[@]} -gt 0 ]; then
        xgettext "${COMMON[@]}" -L C "${C_KEYS[@]}" -o "$out/$name.c.pot" "${c[@]}"
        # P_("phrase") in C: the same context as hints.txt's phrases.
        xgettext "${COMMON[@]}" -L C -k -kP_ -o - "${c[@]}" |
            awk '/^msgid "[^"]/ { print "msgctxt \"phrase\"" } { print }' >"$out/$name.phrases.pot"
        pieces+=("$out/$name.c.pot" "$out/$name.phrases.pot")
    fi
    if [ ${#sh[@]} -gt 0 ]; then
        xgettext "${COMMON[@]}" -L Shell "${SH_KEYS[@]}" -o "$out/$name.sh.pot" "${sh[@]}"
        pieces+=("$out/$name.sh.pot")
    fi
    if [ ${#py[@]} -gt 0 ]; then
        xgettext "${COMMON[@]}" -L Python "${PY_KEYS[@]}" -o "$out/$name.py.pot" "${py[@]}"
        pieces+=("$out/$name.py.pot")
    fi
    xgettext "${COMMON[@]}" --package-name=cuda-reduction-course "${excluded[@]}" -o "$out/$name.pot" "${pieces[@]}"
    rm -f "${pieces[@]}"
    excluded+=("-x$out/$name.pot")
done
