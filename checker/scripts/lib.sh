# lib.sh - what the course's scripts share: where things are, colours, and messages.
# Sourced, not run. Expects to be called from the repository root (the Makefile does that).

if [ -t 1 ] && [ -z "${NO_COLOR:-}" ]; then
    BOLD=$'\033[1m' GREEN=$'\033[32m' RED=$'\033[31m' DIM=$'\033[2m' RESET=$'\033[0m'
else
    BOLD='' GREEN='' RED='' DIM='' RESET=''
fi

BUILD=${BUILD:-build}
BACKEND=${BACKEND:-gpu}
STATE_DIR=${STATE_DIR:-.state}

# All exercise numbers, in order. (These helpers run no process: every script asks them, some for every entry.)
exercise_numbers() {
    local dir
    for dir in exercises/[0-9][0-9]-*/; do
        dir=${dir%/}
        dir=${dir##*/}
        echo "${dir:0:2}"
    done
}

# For course developers: TEST_ONLY="14 16" (or "14,16") makes `make test` verify those exercises' kernels,
# bad inputs and realistic mistakes alone; its other checks still run. Unset: every exercise.
test_selects() {   # NN
    [ -z "${TEST_ONLY:-}" ] && return 0
    [[ " ${TEST_ONLY//,/ } " == *" $1 "* ]]
}

exercise_dir() {
    local dirs=(exercises/"$1"-*/)
    [ -d "${dirs[0]}" ] && echo "${dirs[0]%/}"
    return 0
}

# The learner's kernel file of exercise NN (the one .cu in its folder).
exercise_file() {
    local dir files
    dir=$(exercise_dir "$1")
    [ -n "$dir" ] || return 0
    files=("$dir"/*.cu)
    [ -e "${files[0]}" ] || [ -L "${files[0]}" ] && echo "${files[0]}"
    return 0
}

# The reference solution has the same file name under solutions/.
solution_file() {
    local file
    file=$(exercise_file "$1") && [ -n "$file" ] && echo "solutions/${file##*/}"
}

# ---- The learner's language (checker/i18n) ----------------------------------------------------------------
# Every sentence a script prints is a msgid of the course's catalog (checker/po/zh_CN/*.po), printed through
# course-text: in Chinese when the learner asked for it (COURSE_LANG=zh, or a zh_CN locale), wrapped by
# display width (a Chinese character takes two columns). Before the checker is built (deps.sh runs first),
# the same text in English.
COURSE_TEXT=${COURSE_TEXT:-$BUILD/bin/course-text}

# sayf FORMAT [ARG...]: FORMAT (a literal, so that it is extracted) in the learner's language, each %s
# filled with the next ARG (a translation may number them: %2$s), wrapped to 100 columns.
sayf() {
    if [ -x "$COURSE_TEXT" ]; then "$COURSE_TEXT" say "$@"; return; fi
    local format=$1
    shift
    # shellcheck disable=SC2059 # the format is the message
    say "$(printf -- "$format" "$@")"
}

# textf FORMAT [ARG...]: the same, not wrapped and without a newline, for "$(textf ...)".
textf() {
    if [ -x "$COURSE_TEXT" ]; then "$COURSE_TEXT" text "$@"; return; fi
    local format=$1
    shift
    # shellcheck disable=SC2059
    printf -- "$format" "$@"
}

# course_tr MSGID: a msgid that comes from a data file (checker/metrics/manifest.txt), translated as it is.
course_tr() { if [ -x "$COURSE_TEXT" ]; then "$COURSE_TEXT" tr "$1"; else printf '%s' "$1"; fi; }

# course_phrase TEXT: a phrase that failures contain (checker/suites/hints.txt), in the learner's language:
# a translation that contains the English phrase contains this (checker/scripts/report-editions.py).
course_phrase() { if [ -x "$COURSE_TEXT" ]; then "$COURSE_TEXT" phrase "$1"; else printf '%s\n' "$1"; fi; }

# text_width TEXT: the columns TEXT takes in a terminal.
text_width() { if [ -x "$COURSE_TEXT" ]; then "$COURSE_TEXT" width "$1"; else echo "${#1}"; fi; }

# wrap_to WIDTH [HANG]: each line of stdin wrapped to WIDTH columns (course-text wrap; fold without it).
wrap_to() {
    if [ -x "$COURSE_TEXT" ]; then "$COURSE_TEXT" wrap "$@"; else fold -s -w "$1" | sed 's/ *$//'; fi
}

# columns WIDTH...: stdin's tab-separated fields as columns, by display width (see course_text.c's cols:
# n right-aligns in n columns, -n left-aligns, 0 leaves as is).
columns() {
    if [ -x "$COURSE_TEXT" ]; then "$COURSE_TEXT" cols "$@"; return; fi
    awk -F'\t' -v spec="$*" 'BEGIN { n = split(spec, w, " ") }
        { line = ""; for (i = 1; i <= NF; i++) { f = w[i] + 0 ? "%" w[i] "s" : "%s"
          line = line (i > 1 ? " " : "") sprintf(f, $i) } print line }'
}

# The learner's language: zh_CN or en (English also when course-text is not built yet).
course_language() {
    [ -n "${course_language_cached:-}" ] ||
        course_language_cached=$({ [ -x "$COURSE_TEXT" ] && "$COURSE_TEXT" lang; } || echo en)
    echo "$course_language_cached"
}

# lesson_page PAGE: PAGE (README.md, lessons/X.md, exercises/NN-name/lesson.md), or its Chinese twin
# (X.zh-CN.md beside it) when the learner reads Chinese and the twin exists.
lesson_page() {
    local twin=${1%.md}.zh-CN.md
    if [ "$(course_language)" != en ] && [ -f "$twin" ]; then echo "$twin"; else echo "$1"; fi
}

# The lesson of exercise NN in the learner's language.
exercise_lesson() { lesson_page "$(exercise_dir "$1")/lesson.md"; }

# lesson_section PAGE HEADING: the heading of PAGE (a lesson, or its twin) that stands where HEADING
# ("## Hints") stands in the English page: editions.py keeps the editions' headings in the same order.
lesson_section() {
    local english=${1%.zh-CN.md}
    english=${english%.md}.md
    awk -v want="$2" '
        FNR == 1 { file++ }
        file == 1 && /^## / { k++; if ($0 == want && !at) at = k }
        file == 2 && /^## / { j++; if (j == at) { print; exit } }' "$english" "$1"
}

# A one-line title: the lesson's first "# " heading (its first line links to the lesson's other edition),
# without its '#' and without an "Exercise NN:" (练习 NN：) in front (the number is shown beside it),
# starting with a capital unless it starts with a version name (v1). In the learner's language.
exercise_title() {
    sed -n 's/^# \{1,\}//p' "$(exercise_lesson "$1")" 2>/dev/null | head -n 1 |
        sed -e 's/^Exercise [0-9]*: *//' -e 's/^练习 *[0-9]*\(：\|:\) *//' -e '/^v[0-9]/!s/^\([a-z]\)/\U\1/'
}

# joined A B: two pieces of one line (a bold label, then a sentence): a space between them, none where the
# line is Chinese at the seam (after a full-width mark, or between two Chinese characters).
joined() {
    local LC_ALL=C a=$1 b=$2 esc=$'\033'
    a=${a%"$esc"\[*m} b=${b#"$esc"\[*m}   # a colour at the seam takes no room
    case $a in
    *。 | *： | *； | *， | *！ | *？ | *）) printf '%s%s' "$1" "$2" ;;
    *) if [[ ${a: -1} > $'\177' && ${b:0:1} > $'\177' ]]; then printf '%s%s' "$1" "$2"
       else printf '%s %s' "$1" "$2"; fi ;;
    esac
}

# Prints its arguments as one line; a longer one than 100 columns is broken between words (or between two
# Chinese characters), its later lines indented as the first one is.
say() {
    local line="$*" indent
    if [ "${#line}" -le 50 ]; then printf '%s\n' "$line"; return; fi
    if [ -x "$COURSE_TEXT" ]; then printf '%s\n' "$line" | "$COURSE_TEXT" wrap; return; fi
    indent=${line%%[! ]*}
    printf '%s\n' "$line" | fold -s -w $((100 - ${#indent})) | sed -e 's/ *$//' -e "2,\$s/^/$indent/"
}

# At a terminal, names a step that may take a while ("Compiling ...") until the next line replaces it.
progress_note() { [ -t 1 ] && printf '%s%s%s\r' "$DIM" "$*" "$RESET"; return 0; }
progress_done() { [ -t 1 ] && printf '\033[K'; return 0; }

# nvcc_warnings SOURCE LOG: nvcc's warnings about SOURCE in LOG, each once, as "SOURCE:LINE: text" with the
# line of code under it. nvcc writes each twice (host and device passes) as "SOURCE(LINE): warning #N-D:
# text", with its own, preprocessed, copy of the line; the learner's own line is the one to show.
nvcc_warnings() {
    local src=$1 log=$2 line text code
    sed -n 's/^\(.*\)(\([0-9][0-9]*\)): warning #[0-9A-Z-]*: \(.*\)$/\1|\2|\3/p' "$log" |
        awk -F'|' -v src="$src" '$1 == src && !seen[$2 "|" $3]++ { print $2 "|" $3 }' | head -n 8 |
        while IFS='|' read -r line text; do
            code=$(sed -n "${line}p" "$src" | sed 's/^[[:space:]]*//' | cut -c1-88)
            say "  $src:$line: $text"
            [ -n "$code" ] && say "      $code"
        done
}

# True when the learner's file is still the starting file as the course shipped it: the version of the
# repository it was cloned from (so that a learner who commits their work is not "not started"), else
# this clone's HEAD.
is_starting_file() {
    local rev
    for rev in '@{upstream}' HEAD; do
        git rev-parse -q --verify "$rev" >/dev/null 2>&1 || continue
        git show "$rev:$1" 2>/dev/null | cmp -s - "$1"
        return
    done
    return 1
}

# PATH with the course developer's tools that `deps.sh --test` installs from PyPI in front (.deps/tools:
# actionlint in bin/, cuobjdump and nvdisasm in nvidia/cuNN/bin/), where they are.
dev_tools_path() {
    local dir p=$PATH
    for dir in "$PWD"/.deps/tools/nvidia/cu*/bin "$PWD/.deps/tools/bin"; do
        [ -d "$dir" ] && p="$dir:$p"
    done
    echo "$p"
}

# gpu_seen arch|mode|count|name: one part of what checker/scripts/gpu-seen.sh says of this machine's GPUs,
# which make asked once for this command (COURSE_GPU_SEEN); arch "none" and count 0 where there is no GPU.
gpu_seen() {
    local seen=${COURSE_GPU_SEEN:-} arch mode count name
    [ -n "$seen" ] || seen=$(sh checker/scripts/gpu-seen.sh)
    read -r arch mode count name <<<"$seen"
    case $1 in
    arch) echo "$arch" ;;
    mode) echo "${mode:-}" ;;
    count) echo "${count:-0}" ;;
    name) echo "${name:-}" ;;
    esac
}

# nccl_home: the folder of the real NCCL that a GPU's build compiles and links against (include/nccl.h and
# lib/libnccl.so.2): the course's copy of the nvidia-nccl-cu13 wheel (.deps/nccl, deps.sh installs it), the
# wheel in python's site-packages, or the toolkit's own copy; nothing when there is none. The emulator's build
# never needs it: it has its own nccl.h and implementation (checker/emu/nccl, emu_nccl.c).
nccl_home() {
    local d site
    site=$(python3 -c 'import importlib.util as u; s = u.find_spec("nvidia.nccl"); print(list(s.submodule_search_locations)[0])' 2>/dev/null)
    for d in "$PWD/.deps/nccl/nvidia/nccl" "$site" "$CUDA_HOME"; do
        [ -n "$d" ] && [ -f "$d/include/nccl.h" ] && { echo "$d"; return 0; }
    done
    return 0
}

# needs_nccl NN: whether exercise NN's contract uses NCCL (its functions take communicators).
needs_nccl() {
    grep -q '#include <nccl.h>' "checker/contracts/ex$1.h" 2>/dev/null
}

# nccl_gpu_flags compile|link: what a GPU's build of an NCCL exercise adds (empty where NCCL is missing: the
# compiler or the linker then names nccl.h or ncclAllReduce).
nccl_gpu_flags() {
    local home lib
    home=$(nccl_home)
    [ -n "$home" ] || return 0
    if [ "$1" = compile ]; then echo "-I$home/include"; return 0; fi
    for lib in "$home/lib" "$home/lib64"; do
        [ -e "$lib/libnccl.so.2" ] && { echo "-L$lib -l:libnccl.so.2 -Wl,-rpath,$lib"; return 0; }
    done
}

# Exits with status 2 and a sentence unless NN names an exercise; ACTION is the make target that was used
# ("hint", "solution"...), for the example in the sentence.
require_exercise() {
    local nn=$1 action=${2:-}
    [ -n "$nn" ] && [ -n "$(exercise_dir "$nn")" ] && return 0
    if [ -n "$action" ]; then
        sayf "There is no exercise '%s'. Say which one, e.g. \`make %s ex05\`; the exercises are:" "$nn" "$action"
    else
        sayf "There is no exercise '%s'. The exercises are:" "$nn"
    fi
    say "$(exercise_numbers | tr '\n' ' ')"
    exit 2
}

# The nvcc flags that build a whole program, host code and kernels, for BACKEND: gpu (the CUDA runtime)
# or emu (linked against the emulator; its host code at EMU_HOST_OPT, see emu.mk).
program_nvcc_flags() {
    if [ "$1" = gpu ]; then echo "$GPU_NVCCFLAGS"; else echo "$EMU_NVCCFLAGS ${EMU_HOST_OPT:-} -std=c++17"; fi
}

# rows_library NN SOURCE LIB: a Part III kernel file as a shared library of exercise NN's contract functions, with
# the GPU's flags (rows_torch.py, rows_candidates.py and profile_rows.sh load it); nvcc's words go to LIB.log.
# The developers' scripts that call it outside make get the Makefile's GPU flags for this machine's GPU.
rows_library() {
    local flags=${GPU_NVCCFLAGS:--arch=${GPU_ARCH:-native} -O3 -lineinfo -std=c++17 -Xcompiler -fPIC}
    # shellcheck disable=SC2086 # the flags are words
    ${NVCC:-nvcc} $flags -shared -include "checker/contracts/ex$1.h" "$2" -o "$3" 2>"$3.log"
}

# The nvcc flags that compile one kernel file for BACKEND (its contract is force-included after them):
# build-suite.sh's, and make bench's for the same file, so that it is compiled once (nvcc-cached.sh). The
# emulator's (and "both", one object for a GPU and its emulator) carry the host-code checks (emu.mk).
kernel_nvcc_flags() {
    case $1 in
    emu) echo "$EMU_NVCCFLAGS ${EMU_HOST_CHECKS:-} ${EMU_HOST_OPT:-} -I$CUDA_HOME/include/cccl" ;;
    both) echo "${BOTH_NVCCFLAGS:-$GPU_NVCCFLAGS} ${EMU_HOST_CHECKS:-} -I$CUDA_HOME/include/cccl" ;;
    *) echo "$GPU_NVCCFLAGS -I$CUDA_HOME/include/cccl" ;;
    esac
}

# The functions exercise NN's contract declares (checker/contracts/exNN.h), one name a line. A declaration may
# span lines (exercises 16 to 19 break long ones): the preprocessor's lines and the comments are taken out, and
# what is left is read one declaration at a time, up to its ';'.
contract_functions() {
    grep -v '^[[:space:]]*#' "checker/contracts/ex$1.h" | tr '\n' ' ' |
        sed 's:/\*\([^*]\|\*[^/]\)*\*/::g' | tr ';{}' '\n\n\n' |
        sed -n 's/^[[:space:]]*[A-Za-z_][A-Za-z_0-9 *]*[ *]\([a-z_0-9]*\)(.*)[[:space:]]*$/\1/p'
}

# localize_object OBJ NN [PREFIX]: makes every global symbol of OBJ local but the functions of exercise
# NN's contract, so that helpers with the same name in two files cannot collide at link time; with PREFIX
# those are renamed PREFIX<name>, so that two versions of one function link side by side. Its COMDAT groups
# (an inline function not inlined, such as dim3's constructor in unoptimised host code) become plain
# sections: the linker keeps one group of a name and drops the others, with the local copy each file calls.
localize_object() {
    local obj=$1 nn=$2 prefix=${3:-} keep=() rename=() fn
    for fn in $(contract_functions "$nn"); do
        keep+=(--keep-global-symbol="$fn")
        rename+=(--redefine-sym "$fn=$prefix$fn")
    done
    objcopy "${keep[@]}" --remove-section=.group "$obj" || return 1
    [ -z "$prefix" ] || objcopy "${rename[@]}" "$obj"
}

# kernel_object BACKEND NN SRC OBJ [PREFIX]: SRC compiled as build-suite.sh compiles exercise NN's file for
# BACKEND (the contract force-included, through nvcc-cached.sh: make bench, the speed line and the suites
# share one compile), then localize_object'ed with PREFIX. nvcc's words go to OBJ.log.
kernel_object() {
    local backend=$1 nn=$2 src=$3 obj=$4 prefix=${5:-}
    # shellcheck disable=SC2046 # the flags are words
    checker/scripts/nvcc-cached.sh "$obj" "$src" $(kernel_nvcc_flags "$backend") -include "checker/contracts/ex$nn.h" \
        -c 2>"$obj.log" && localize_object "$obj" "$nn" "$prefix"
}

# metric_label KEY [cell]: how the lessons name a metric of checker/metrics (predict.sh, metrics.sh), in the
# learner's language; with "cell", the name of the pair a table cell shows ("loads / stores").
metric_label() {
    case $1:${2:-} in
    warp_instructions:*) textf 'warp instructions (PTX)' ;;
    active_lanes:cell) textf 'active lanes per PTX instruction (of 32)' ;;
    active_lanes:*) textf 'active lanes per PTX instruction' ;;
    divergent_branches:*) textf 'divergent branches in PTX' ;;
    shared:cell) textf 'shared-memory loads / stores' ;;
    shared:*) textf 'shared-memory loads and stores' ;;
    bank_conflicts:*) textf 'shared-memory bank conflicts' ;;
    global_loads:cell) textf 'global load requests / sectors' ;;
    global_loads:*) textf 'global load requests' ;;
    sectors_per_request:*) textf '32-byte sectors per load request' ;;
    barriers_per_block:*) textf '__syncthreads() per block' ;;
    atomics:*) textf 'atomic instructions' ;;
    blocks:*) textf 'blocks launched' ;;
    warps_per_row:*) textf 'warps per row' ;;
    read_bytes:*) textf 'bytes the loads ask for' ;;
    dsmem_loads:*) textf "loads from other blocks' shared memory" ;;
    *) printf '%s' "$1" ;;
    esac
}

# ---- Grading a file as a learner would, without touching the real exercise -------------------------------

# scratch_course DIR [ROOT]: makes DIR a course without exercises, where checker/scripts/grade.sh and
# build-suite.sh run with BUILD=build: the checker, the Makefile and the lessons linked from ROOT (default:
# this one), and the checker's built objects linked read-only (what is built there goes to DIR/build).
scratch_course() {
    local dir=$1 root=${2:-$(pwd)} real_build
    real_build=$(cd "$root/$BUILD" && pwd)
    rm -rf "$dir"
    mkdir -p "$dir/exercises" "$dir/build/emu"
    ln -s "$root/checker" "$dir/checker"
    ln -s "$root/Makefile" "$dir/Makefile"
    ln -s "$root/lessons" "$dir/lessons"
    ln -s "$real_build/obj" "$dir/build/obj"
    # The language's tool and catalog (checker/i18n), when built.
    [ -e "$real_build/bin" ] && ln -s "$real_build/bin" "$dir/build/bin"
    [ -e "$real_build/locale" ] && ln -s "$real_build/locale" "$dir/build/locale"
    [ -e "$real_build/emu/libcudaemu.a" ] && ln -s "$real_build/emu/libcudaemu.a" "$dir/build/emu/libcudaemu.a"
    # Whether gold links C++ here (build-suite.sh asks once per build folder).
    [ -e "$real_build/.gold-links" ] && cp "$real_build/.gold-links" "$dir/build/"
    return 0
}

# scratch_copy DIR NN: makes DIR a scratch repository in which `checker/scripts/grade.sh NN` grades
# exercise NN as `make exNN` does: the checker, the Makefile and the lessons linked from ROOT (default: this
# one), a copy of the exercise's folder, and the checker's built objects linked read-only (the learner's
# build goes to DIR/build). Prints the exercise file's path inside DIR, as the course ships it.
scratch_copy() {
    local dir=$1 nn=$2 root=${3:-$(pwd)} exdir rel
    scratch_course "$dir" "$root"
    exdir=$(cd "$root" && exercise_dir "$nn")
    cp -R "$root/$exdir" "$dir/exercises/"
    # The skeleton's name as committed (the learner's own copy may be the one deleted).
    rel=$(cd "$root" && git ls-files "$exdir" 2>/dev/null | grep '\.cu$' | head -n 1)
    [ -n "$rel" ] || rel=$(cd "$root" && exercise_file "$nn")
    echo "$rel"
}

# ---- The learner's backups (.state/backups/): reset keeps the file it replaces, restore puts one back -----

# backup_keep NN FILE: copies FILE to a new backup of exercise NN and prints the backup's path; fails (and
# prints nothing) when it cannot. Names sort by time; two in the same second get a number.
backup_keep() {
    local nn=$1 file=$2 stamp path k=1
    stamp="$STATE_DIR/backups/ex$nn-$(date +%Y%m%d-%H%M%S)"
    path="$stamp-$(basename "$file")"
    while [ -e "$path" ]; do k=$((k + 1)); path="$stamp.$(printf '%02d' "$k")-$(basename "$file")"; done
    mkdir -p "$STATE_DIR/backups" && cp -p "$file" "$path" && echo "$path"
}

# backup_latest NN: the newest backup of exercise NN, or nothing (by name: cp -p keeps the file's own time).
# Sorted byte by byte: a locale's collation skips punctuation, and put "STAMP.02-" before "STAMP-" (seen on
# a GPU machine, where make reset and two make restores ran within one second).
backup_latest() { ls "$STATE_DIR"/backups/ex"$1"-* 2>/dev/null | LC_ALL=C sort | tail -n 1; }

# ---- Corpus entries: a bug stored as a patch against a reference solution --------------------------------
# An entry (checker/corpus/exNN/NAME.patch) is a unified diff of one file under solutions/, preceded by
# header lines "# key: value" (or "# key" alone) that say what the bug is and what its report must show.

# corpus_header ENTRY KEY: the values of ENTRY's "# KEY: value" header lines, one a line, in order.
corpus_header() {
    sed -n -e '/^--- /q' -e "s/^# $2\$//p" -e "s/^# $2: *//p" "$1"
}

# corpus_base ENTRY: the file under solutions/ that ENTRY patches (its "--- a/solutions/..." line).
corpus_base() {
    sed -n 's:^--- \(a/\)\{0,1\}\(solutions/[^[:space:]]*\).*:\2:p' "$1" | head -n 1
}

# corpus_apply ENTRY OUT: writes to OUT the reference solution with ENTRY's patch applied; fails, saying
# why on stderr, when the patch no longer applies cleanly (the solution changed under it). An OUT that holds
# those bytes already is left as it is (another job may be compiling it); otherwise it is replaced whole.
corpus_apply() {
    local base tmp="$2.$BASHPID.tmp"
    base=$(corpus_base "$1")
    [ -n "$base" ] && [ -f "$base" ] || { echo "$1: names no file under solutions/ to patch" >&2; return 1; }
    mkdir -p "$(dirname "$2")"
    patch --quiet --force --fuzz=0 --no-backup-if-mismatch --reject-file=- --output="$tmp" "$base" <"$1" >&2 ||
        { rm -f "$tmp"; echo "$1: does not apply to $base any more" >&2; return 1; }
    if cmp -s "$tmp" "$2"; then rm -f "$tmp"; return 0; fi
    [ ! -e "$2" ] || chmod --reference="$2" "$tmp" 2>/dev/null
    mv -f "$tmp" "$2"
}

# corpus_source ENTRY: where make test and make show write the kernel of ENTRY (checker/KIND/exNN/NAME.patch):
# BUILD/entries/KIND/exNN/NAME.cu, one path for both, so that one compiles it for the other (nvcc-cached.sh
# finds an object by its source's path and bytes).
# (make test asks it for every entry before its jobs start: the usual KIND/exNN/NAME.patch is taken apart
# without a process.)
corpus_source() {
    local folder kind
    if [[ $1 =~ ^(.*/)?([^/]+)/([^/]+)/([^/]+)$ ]]; then
        folder=${BASH_REMATCH[3]} kind=${BASH_REMATCH[2]}
        echo "$BUILD/entries/$kind/$folder/${BASH_REMATCH[4]%.patch}.cu"
        return
    fi
    folder=$(dirname "$1")
    echo "$BUILD/entries/$(basename "$(dirname "$folder")")/$(basename "$folder")/$(basename "$1" .patch).cu"
}
