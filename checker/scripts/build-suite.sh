#!/usr/bin/env bash
# build-suite.sh NN SOURCE OUTDIR [BACKEND [EMU_OUTDIR]] - compiles one kernel file against exercise NN's
# hidden suite. Writes OUTDIR/suite. BACKEND "both" (a GPU machine, where the emulator grades too) compiles
# the file once, with the GPU's code and the emulator's PTX, and links it twice: OUTDIR/suite for the GPU,
# EMU_OUTDIR/suite for the emulator. Exit status: 0 built, 3 the kernel file does not compile, 4 it does not
# link.
# Compiler messages go to OUTDIR/build.log; the learner-facing explanation goes to stdout.
set -u
. checker/scripts/lib.sh
nn=$1 src=$2 out=$3 backend=${4:-$BACKEND} emu_out=${5:-}
mkdir -p "$out"
log="$out/build.log"

if [ ! -s "$src" ]; then
    sayf 'The file %s is missing or empty, so there is nothing to grade.' "$src"
    sayf "Run \`make reset ex%s\` to get the exercise's starting file back." "$nn"
    exit 3
fi

# Whether gold links a C++ program with libstdc++ here: asked once, the answer kept in BUILD.
gold_links() {
    local answer="$BUILD/.gold-links"
    if [ ! -f "$answer" ]; then
        local probe
        probe=$(mktemp -d)
        if command -v ld.gold >/dev/null 2>&1 && echo 'int main() { return 0; }' >"$probe/p.cpp" &&
                $CXX -fuse-ld=gold "$probe/p.cpp" -lstdc++ -o "$probe/p" >/dev/null 2>&1 && "$probe/p"; then
            echo yes >"$answer"
        else
            echo no >"$answer"
        fi
        rm -rf "$probe"
    fi
    [ "$(cat "$answer")" = yes ]
}

# The backend object and libraries a suite links against, for one backend.
link_for() {
    if [ "$1" = emu ]; then
        backend_obj="$BUILD/obj/backend_emu.o"
        link_libs="${EMU_LIB} ${EMU_LDFLAGS}"
        # gold links a suite in a quarter of the time bfd takes (0.05 s of CPU against 0.2 s, measured here),
        # where it links C++ at all (on one GPU machine it could not open the toolchain's libstdc++.so).
        gold_links && link_libs="-fuse-ld=gold $link_libs"
    else
        backend_obj="$BUILD/obj/backend_gpu.o"
        link_libs="$BUILD/obj/ubsan_quiet.o ${GPU_LDFLAGS} $nccl_link"
    fi
}
flags=$(kernel_nvcc_flags "$backend")
# An NCCL exercise on a GPU compiles against the real nccl.h and links libnccl; on the emulator the course's own
# (checker/emu/nccl) is already in the emulator's flags.
nccl_link=""
if needs_nccl "$nn" && [ "$backend" != emu ]; then
    flags="$flags $(nccl_gpu_flags compile)"
    nccl_link=$(nccl_gpu_flags link)
fi

# The contract header is force-included: a learner who changes a signature gets a compile error that
# points at the line, instead of a wrong call at run time. A file compiled before with the same bytes is
# not compiled again (nvcc-cached.sh).
if ! checker/scripts/nvcc-cached.sh "$out/kernel.o" "$src" $flags -include "checker/contracts/ex$nn.h" -c \
        >"$log" 2>&1; then
    say "$(joined "$BOLD$(textf 'Your file does not compile yet.')$RESET" "$(textf 'nvcc says:')")"
    # nvcc writes file(line); editors turn file:line into a link.
    sed -E 's/^([^ :(]+\.cu)\(([0-9]+)\): /\1:\2: /' "$log" | grep -v '^$' | head -n 30 | sed 's/^/    /'
    # A changed signature: the contract's declaration clashes with the learner's definition.
    if grep -qE "contracts/ex$nn.h|has \"C\" linkage|incompatible with previous" "$log"; then
        sayf 'The checker calls the functions declared in %s: keep their names and parameter types exactly as the skeleton has them.' "checker/contracts/ex$nn.h"
    fi
    exit 3
fi

# link_suite BACKEND DIR [-shared]: the suite for one backend, from the one object; with -shared, DIR/suite.so,
# the same suite as a shared object, which a GPU's grade runs in its warm processes (checker/harness/warm.h).
link_suite() {
    local program=suite
    link_for "$1"
    mkdir -p "$2"
    [ "${3:-}" = -shared ] && program=suite.so
    $CXX ${3:-} -o "$2/$program" "$out/kernel.o" "$BUILD/obj/suites/ex$nn.o" "$BUILD"/obj/harness_*.o \
        "$BUILD"/obj/i18n_*.o "$backend_obj" $link_libs $(pkg-config --libs check) -lm
}
# A GPU's suite as a shared object too (SUITE_SHARED=1: on the emulator as well, make test's check of the warm
# processes), linked beside the programs; where it does not link, the runner starts its workers itself.
shared=""
rm -f "$out/suite.so"
if [ "$backend" = both ] || [ "${SUITE_SHARED:-}" = 1 ]; then
    (link_suite "$([ "$backend" = both ] && echo gpu || echo "$backend")" "$out" -shared >"$out/shared.log" 2>&1 ||
        rm -f "$out/suite.so") &
    shared=$!
fi
linked=0
if [ "$backend" = both ]; then
    link_suite gpu "$out" >>"$log" 2>&1 && link_suite emu "${emu_out:-$out.emu}" >>"$log" 2>&1 && linked=1
else
    link_suite "$backend" "$out" >>"$log" 2>&1 && linked=1
fi
[ -z "$shared" ] || wait "$shared"
if [ $linked = 0 ]; then
    missing=$(grep -o "undefined reference to \`[^']*'" "$log" | sed "s/undefined reference to \`//; s/'//" |
              grep -v '^__cuda' | sort -u | tr '\n' ' ')
    if [ -n "$missing" ]; then
        say "$(joined "$BOLD$(textf 'Your file compiles, but it does not define')$RESET" "$missing")"
        sayf 'Keep the extern "C" functions of the skeleton, with the same names: the checker calls them.'
    else
        say "$(joined "$BOLD$(textf 'Your file compiles, but it does not link.')$RESET" "$(textf 'The linker says:')")"
        head -n 20 "$log" | sed 's/^/    /'
    fi
    exit 4
fi
exit 0
