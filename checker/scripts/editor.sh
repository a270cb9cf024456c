#!/usr/bin/env bash
# editor.sh [--quiet] - writes compile_commands.json (gitignored) at the repository root, so that clangd, and
# the editors that use it (VS Code, Vim, Emacs, CLion...), understand every exercise and solution file: CUDA
# mode, the toolkit's headers, and the exercise's contract header, force-included as the checker does.
# clangd parses CUDA as clang does, so the flags are clang's, not nvcc's; sm_80 is the newest GPU that
# clang 14 knows, and it accepts every construct the course uses.
set -u
. checker/scripts/lib.sh
root=$(pwd)
cuda=${CUDA_HOME:-/usr/local/cuda}
arch=${CLANGD_GPU_ARCH:-sm_80}

# JSON string: the course's paths hold no quotes or backslashes, but escape them anyway.
json() { local s=${1//\\/\\\\}; printf '"%s"' "${s//\"/\\\"}"; }

entry() {
    local nn=$1 src=$2 sep=$3 arg first=1
    printf '%s  {"directory": %s, "file": %s, "arguments": [' "$sep" "$(json "$root")" "$(json "$root/$src")"
    for arg in clang++ -x cuda "--cuda-gpu-arch=$arch" "--cuda-path=$cuda" -std=c++17 \
               -Wno-unknown-cuda-version "-I$cuda/include/cccl" -include "$root/checker/contracts/ex$nn.h" \
               -c "$root/$src"; do
        [ $first = 1 ] || printf ', '
        first=0
        json "$arg"
    done
    printf ']}'
}

tmp=compile_commands.json.tmp
{
    echo "["
    sep=" "
    for nn in $(exercise_numbers); do
        [ -f "checker/contracts/ex$nn.h" ] || continue
        for src in $(exercise_file "$nn") $(solution_file "$nn"); do
            [ -f "$src" ] || continue
            entry "$nn" "$src" "$sep"
            echo
            sep=","
        done
    done
    # The references that are no exercise's solution (v2_strided_index.cu) belong to the nearest exercise.
    for src in solutions/*.cu; do
        grep -q "\"$root/$src\"" "$tmp" 2>/dev/null && continue
        base=$(basename "$src")
        nn=$(for n in $(exercise_numbers); do
            s=$(solution_file "$n"); [ "${s%%_*}" = "solutions/${base%%_*}" ] && { echo "$n"; break; }
        done)
        [ -n "$nn" ] && { entry "$nn" "$src" "$sep"; echo; sep=","; }
    done
    echo "]"
} >"$tmp" && mv "$tmp" compile_commands.json || { rm -f "$tmp"; sayf 'Could not write compile_commands.json here.'; exit 1; }

[ "${1:-}" = --quiet ] && exit 0
sayf 'Wrote compile_commands.json: clangd now reads each exercise file as CUDA, with the contract header the checker force-includes. Editors that use clangd pick it up when they next open a .cu file here.'
if ! command -v clangd >/dev/null 2>&1; then
    say "$DIM$(textf '(clangd is not installed here: e.g. sudo apt-get install clangd, or the clangd extension of your editor.)')$RESET"
fi
