#!/usr/bin/env bash
# nvcc-cached.sh OUT SOURCE FLAGS... - `$NVCC FLAGS SOURCE -o OUT` through a cache kept by content, so that
# a file compiled once is not compiled again: `make test` compiles each reference solution for its suite,
# for make bench's program and for the lessons' SASS boxes, and a second `make test` or a regrade with
# nothing changed finds every object here. nvcc's messages are kept with the object and said again.
#
# An object is found again only for the same nvcc, host compiler, folder, source path and flags, and the
# same bytes in the source and in every file it included (nvcc -MD lists them, the toolkit's headers too):
# what a compile read decides its key, and a file changed while it compiled is not kept. Builds for
# -arch=native (the GPU in this machine, whichever it is) are not kept. KERNEL_CACHE is the folder
# (default $BUILD/cache/nvcc; "none": no cache); it keeps the 600 objects used last.
#   nvcc-cached.sh --tools   what make test exports as KERNEL_CACHE_TOOLS (see the recipe below)
set -u
nvcc=${NVCC:-nvcc}
nvcc_tools() { "$nvcc" --version; gcc --version 2>/dev/null | head -n 1; }
[ "${1:-}" = --tools ] && { printf 'nvcc=%s\n' "$nvcc"; nvcc_tools; exit; }
out=$1 src=$2
shift 2
# The compile itself: nvcc's steps with the host's and the device's front ends side by side.
compile=$(dirname "$0")/nvcc-sides.sh
cache=${KERNEL_CACHE:-${BUILD:-build}/cache/nvcc}
plain() { exec "$compile" "$@" "$src" -o "$out"; }
[ "$cache" = none ] && plain "$@"
case " $* " in *native*) plain "$@" ;; esac
mkdir -p "$cache" 2>/dev/null || plain "$@"

# The recipe: everything but the files' bytes. nvcc runs the host compiler it finds on PATH (gcc), unless
# -ccbin or NVCC_CCBIN names another; that one's version then comes in through the flags. make test, which
# compiles some 400 files, asks the compilers for their versions once (KERNEL_CACHE_TOOLS, --tools's lines:
# they serve a compile by the same nvcc).
tools=${KERNEL_CACHE_TOOLS:-}
[ "${tools%%$'\n'*}" = "nvcc=$nvcc" ] && tools=${tools#*$'\n'} || tools=$(nvcc_tools)
recipe=$({ printf '%s\n' "$tools"; pwd; printf '%s\n' "$src" "$@"; env | grep '^NVCC_' | sort; } | sha256sum)
recipe=${recipe:0:32}
deps="$cache/$recipe.deps"

# key_of LIST: the recipe and each listed file's path and bytes (a file gone since: no line, another key).
key_of() { { echo "$recipe"; tr '\n' '\0' <"$1" | xargs -0 -r sha256sum 2>/dev/null; } | sha256sum | cut -c1-40; }

# One compile per recipe at a time: a second asker waits, then finds the first one's object.
exec 9>"$cache/$recipe.lock"
flock 9
if [ -f "$deps" ]; then
    key=$(key_of "$deps")
    if [ -f "$cache/$key.o" ] && cp "$cache/$key.o" "$out" 2>/dev/null; then
        touch "$cache/$key.o"
        cat "$cache/$key.log" >&2
        exit 0
    fi
fi

tmp="$cache/.$recipe.$$"
trap 'rm -f "$tmp".*' EXIT
touch "$tmp.start"
before=$(sha256sum <"$src")
"$compile" "$@" "$src" -o "$out" -MD -MF "$tmp.d" -MT target >"$tmp.log" 2>&1
status=$?
cat "$tmp.log" >&2
[ $status = 0 ] || exit $status
# The dependency list as make writes it ("target: a b \<newline> c", a space in a name as "\ "), one a line.
sed -e ':a' -e '/\\$/{N;s/\\\n//;ba' -e '}' -e 's/^target *: *//' -e 's/\\ /\x01/g' "$tmp.d" | tr -s ' \t' '\n\n' |
    grep -v '^$' | tr '\001' ' ' >"$tmp.list"
grep -qxF -- "$src" "$tmp.list" || exit 0   # not the list expected: compiled, not kept
# A file that changed while nvcc read it: the object is of neither version. (The source, which a learner
# saves, is compared by its bytes too: a time stamp may not move within a few milliseconds.)
[ "$(sha256sum <"$src")" = "$before" ] || exit 0
newer=$(tr '\n' '\0' <"$tmp.list" | xargs -0 -r sh -c 'find "$@" -newer "$0" -print -quit' "$tmp.start" 2>/dev/null)
[ -z "$newer" ] || exit 0
key=$(key_of "$tmp.list")
cp "$out" "$tmp.o" && mv "$tmp.o" "$cache/$key.o" && mv "$tmp.log" "$cache/$key.log" && mv "$tmp.list" "$deps"
# Keep the 600 objects used last.
objects=("$cache"/*.o)
if [ ${#objects[@]} -gt 600 ]; then
    ls -t "$cache"/*.o | tail -n +501 | while IFS= read -r old; do rm -f "$old" "${old%.o}.log"; done
    find "$cache" -maxdepth 1 \( -name '*.deps' -o -name '*.lock' \) -mtime +30 -delete 2>/dev/null
fi
exit 0
