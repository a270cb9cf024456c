#!/usr/bin/env bash
# nvcc-sides.sh NVCC_ARGS... - `$NVCC NVCC_ARGS...` for one .cu file compiled to an object (-c), with the
# host's front end and the device's run side by side. nvcc runs its steps one after the other: the host's
# preprocessor and cudafe++, then the device's preprocessor, cicc, ptxas and fatbinary, then the host
# compiler on what cudafe++ wrote, which includes the fatbinary. The two front ends read the same source
# and share only the module id that cudafe++ writes for cicc; written here first, they run at once. For
# exercise 12 (Thrust and CUB) each front end is about a third of the compile.
#
# The steps are nvcc's own (`nvcc --dryrun`), run as nvcc runs them; what a step says is said in nvcc's
# order, and a failed step ends the compile as it ends nvcc's (the host's front end first: nvcc's errors,
# once). Whatever does not have the expected shape (no -c, several sources, another toolkit's steps) is left
# to nvcc itself, and so is a machine without a free core. -MD -MF FILE -MT TARGET lists the files both
# preprocessors read.
set -u
nvcc=${NVCC:-nvcc}
plain() { exec "$nvcc" "$@"; }
# Side by side only where a core is free for the second side: on a busy machine (make test's jobs, other work)
# the two sides share the cores nvcc alone would have, and cost 4 to 7 % more CPU (measured here). The
# processes running right now, this one aside, must leave a core free. NVCC_SIDES=1 runs the sides whatever
# the machine does (make test's bad inputs check this path that way), NVCC_SIDES=0 never.
# On a GPU machine too: the regrades of exercises 01, 12, 13, 14 and 16 built this way passed on an H200, their
# compile 0.8 s to 2.2 s shorter (checker/bench/results/nvidia-h200-2026-11-29-regrade-parts.md).
cores=$(nproc 2>/dev/null || echo 1)
read -r _ _ _ running _ </proc/loadavg 2>/dev/null || running=1/0
free=$((cores - ${running%%/*}))   # this process aside, the cores no process runs on
case ${NVCC_SIDES:-auto} in
0) plain "$@" ;;
1) ;;
*) [ "$free" -ge 1 ] || plain "$@" ;;
esac
# And where more cores are free than the two sides take, cicc and ptxas optimise the file's functions on
# them (nvcc -split-compile): the same instructions, in another order (exercise 16's solution, for
# compute_90 and sm_90: its PTX and its SASS hold the same lines, sorted, with and without; checked here).
split=""
[ "$free" -ge 4 ] && split=-split-compile=$((free - 1 > 8 ? 8 : free - 1))

# The arguments without nvcc's dependency options, which are the preprocessors' here.
args=() deps="" target="" out="" compile=0
while [ $# -gt 0 ]; do
    case $1 in
    -MD) deps=pending ;;
    -MF) deps=$2; shift ;;
    -MT) target=$2; shift ;;
    -o) out=$2; args+=("$1" "$2"); shift ;;
    -c) compile=1; args+=("$1") ;;
    *) args+=("$1") ;;
    esac
    shift
done
set -- "${args[@]}" $split
[ "$deps" = pending ] && plain "$@" -MD
[ $compile = 1 ] && [ -n "$out" ] || plain "$@" ${deps:+-MD -MF "$deps"} ${target:+-MT "$target"}
tmp=""
again() { [ -z "$tmp" ] || rm -rf "$tmp"; plain "$@" ${deps:+-MD -MF "$deps"} ${target:+-MT "$target"}; }

tmp=$(mktemp -d) || again "$@"
# The device's side runs in a process group of its own, so that a failed host side stops all of it.
side=""
trap '[ -z "$side" ] || kill -- "-$side" 2>/dev/null; rm -rf "$tmp"' EXIT
"$nvcc" --dryrun "$@" -keep -keep-dir "$tmp" >"$tmp/dryrun" 2>&1 || again "$@"

# nvcc's steps: "#$ NAME=value" settings, then one command a line; any other line is nvcc's own word.
host=() device=() final="" module_id="" said=()
while IFS= read -r line; do
    case $line in
    '#$ '*) line=${line#'#$ '} ;;
    *) said+=("$line"); continue ;;
    esac
    if [[ $line =~ ^([A-Za-z_][A-Za-z_0-9]*)=\"?([^\"\ ]*)\"?\ *$ ]]; then
        export "${BASH_REMATCH[1]}=${BASH_REMATCH[2]}"
        continue
    fi
    [[ $line =~ ^[A-Za-z_][A-Za-z_0-9]*= ]] && continue   # a list of words no step reads (checked below)
    if [[ $line == cudafe++\ * ]]; then
        [[ $line =~ --gen_module_id_file\ --module_id_file_name\ \"([^\"]+)\" ]] || again "$@"
        module_id=${BASH_REMATCH[1]}
        host+=("${line/--gen_module_id_file /}")
    elif [[ $line == *' -E '* ]]; then
        # A preprocessor: the device's defines __CUDA_ARCH__.
        if [[ $line == *-D__CUDA_ARCH__=* ]]; then
            device+=("$line${deps:+ -MD -MF \"$tmp/deps.${#device[@]}\" -MT \"${target:-$out}\"}")
        else
            host+=("$line${deps:+ -MD -MF \"$tmp/deps.host\" -MT \"${target:-$out}\"}")
        fi
    elif [[ $line =~ ^(\"\$CICC_PATH/cicc\"|cicc|ptxas|fatbinary)\  ]]; then
        device+=("$line")
    elif [[ $line == *' -c '* ]] && [ -z "$final" ]; then
        final=$line
    else
        again "$@"   # a step this script does not know: nvcc runs it
    fi
done <"$tmp/dryrun"
# Every variable a step reads must be one of the settings above.
for step in "${host[@]}" "${device[@]}" "$final"; do
    for name in $(grep -o '\$[A-Za-z_{][A-Za-z_0-9]*' <<<"$step" | tr -d '${' | sort -u); do
        [ -n "${!name+set}" ] || again "$@"
    done
done
[ ${#host[@]} = 2 ] && [ ${#device[@]} -ge 2 ] && [ -n "$final" ] && [ -n "$module_id" ] || again "$@"
[[ ${device[*]} == *"--module_id_file_name \"$module_id\""* ]] || again "$@"

# The module id names this file's registration for the runtime; cudafe++ reads it when it does not make
# it. Made from the source's path and the arguments, as unique as nvcc's (which hashes the path and time).
src=$(basename "$module_id" .module_id)
hash() { printf '%s' "$*" | sha256sum | cut -c1-8; }
printf '_%s_%s_%s_cu_%s' "$(hash "$(pwd)" "$@")" $((${#src} + 3)) "$src" "$(hash "$@" "$out")" |
    tr -c 'A-Za-z0-9_' '_' >"$module_id"

# The host's compile includes the stub that cicc writes (the kernels' registration) and the device's code,
# which fatbinary writes as a C file of 8-byte words (a 4 MB fatbinary is 10 MB of text). Here it runs once
# cicc is done, beside ptxas and fatbinary: compiled to assembly with a stand-in that has the assembler take
# the fatbinary's bytes from its file (.incbin), and assembled once they are written (exercise 16's solution:
# its host compile, 1.0 s here, beside ptxas's 1.5 s). The stand-in is what fatbinary writes, its words
# aside: checked against fatbinary's own file each time, and where they differ (another toolkit's layout)
# the host compiles again with fatbinary's, as nvcc would.
embedded="" fatbin="" early="" last_cicc=""
for i in "${!device[@]}"; do
    step=${device[$i]}
    [[ $step =~ ^(\"\$CICC_PATH/cicc\"|cicc)\  ]] && last_cicc=$i
    [[ $step == fatbinary\ * ]] || continue
    [[ $step =~ --create=\"([^\"]+)\" ]] && fatbin=${BASH_REMATCH[1]}
    [[ $step =~ --embedded-fatbin=\"([^\"]+)\" ]] && embedded=${BASH_REMATCH[1]}
    if [ -n "$fatbin" ] && [ -n "$embedded" ] && [[ $final == *" -c "*" -o \"$out\""* ]] &&
        [[ $final != *" -o \"$out\""*" -o "* ]]; then
        device[$i]=${step/--embedded-fatbin=\"$embedded\"/--embedded-fatbin=\"$embedded.nvcc\"}
        early=${final/ -c / -S }
        early=${early/-o \"$out\"/-o \"$tmp/host.s\"}
    fi
done
stand_in() {   # the C file fatbinary writes, its words taken from the fatbinary's file
    cat <<EOF
#ifndef __SKIP_INTERNAL_FATBINARY_HEADERS
#include "fatbinary_section.h"
#endif
#define __CUDAFATBINSECTION  ".nvFatBinSegment"
#define __CUDAFATBINDATASECTION  ".nv_fatbin"
asm(
".section .nv_fatbin, \\"a\\"\\n"
".align 8\\n"
"fatbinData:\\n"
".incbin \\"$fatbin\\"\\n.balign 8\\n"
".text\\n");
#ifdef __cplusplus
extern "C" {
#endif
extern const unsigned long long fatbinData[];
#ifdef __cplusplus
}
#endif
#ifdef __cplusplus
extern "C" {
#endif
static const __fatBinC_Wrapper_t __fatDeviceText __attribute__ ((aligned (8))) __attribute__ ((section (__CUDAFATBINSECTION)))= 
	{ 0x466243b1, 1, fatbinData, 0 };
#ifdef __cplusplus
}
#endif
EOF
}
# Both files without their words, and with the array's length left out.
layout() { grep -v '^"\.quad \|^"\.incbin ' "$1" | sed 's/fatbinData\[[0-9]*\]/fatbinData[]/'; }
[ -n "$last_cicc" ] || early=""
[ -z "$early" ] || stand_in >"$embedded" || early=""
[ -z "$early" ] || device[$last_cicc]+=' && : >"$tmp/cicc.done"'

run_side() {   # NAME STEP...: the steps in order, what they say in $tmp/NAME.said
    local name=$1 step
    shift
    for step in "$@"; do
        eval "$step" >>"$tmp/$name.said" 2>&1 || return
    done
}
set -m
run_side device "${device[@]}" &
side=$!
set +m
run_side host "${host[@]}"
status=$?
# The host's compile, while the device's side runs: what it says is said after the device's side, as nvcc
# runs it after.
early_status=1
if [ $status = 0 ] && [ -n "$early" ]; then
    while [ ! -e "$tmp/cicc.done" ] && kill -0 "$side" 2>/dev/null; do sleep 0.02; done
    [ ! -e "$tmp/cicc.done" ] || { eval "$early" >"$tmp/early.said" 2>&1; early_status=$?; }
fi
[ ${#said[@]} = 0 ] || printf '%s\n' "${said[@]}" >&2
cat "$tmp/host.said" >&2 2>/dev/null
[ $status = 0 ] || exit $status
wait "$side"
status=$?
side=""
cat "$tmp/device.said" >&2 2>/dev/null
[ $status = 0 ] || exit $status
if [ -n "$early" ] && cmp -s <(layout "$embedded") <(layout "$embedded.nvcc"); then
    cat "$tmp/early.said" >&2
    [ $early_status = 0 ] || exit $early_status
    eval "cc=(${final%% *})"
    "${cc[@]}" -c "$tmp/host.s" -o "$out" >&2 || exit
else
    [ -z "$early" ] || mv "$embedded.nvcc" "$embedded"
    eval "$final" >&2 || exit
fi
[ -z "$deps" ] || cat "$tmp"/deps.* >"$deps"
