#!/usr/bin/env bash
# build-suite.sh NN SOURCE OUTDIR [BACKEND] - compiles one kernel file against exercise NN's hidden suite.
# Writes OUTDIR/suite. Exit status: 0 built, 3 the kernel file does not compile, 4 it does not link.
# Compiler messages go to OUTDIR/build.log; the learner-facing explanation goes to stdout.
set -u
. checker/scripts/lib.sh
nn=$1 src=$2 out=$3 backend=${4:-$BACKEND}
mkdir -p "$out"
log="$out/build.log"

if [ ! -s "$src" ]; then
    sayf 'The file %s is missing or empty, so there is nothing to grade.' "$src"
    sayf "Run \`make reset ex%s\` to get the exercise's starting file back." "$nn"
    exit 3
fi

if [ "$backend" = emu ]; then
    flags="${EMU_NVCCFLAGS} ${EMU_HOST_CHECKS:-} -O3"
    backend_obj="$BUILD/obj/backend_emu.o"
    link_libs="${EMU_LIB} ${EMU_LDFLAGS}"
else
    flags="${GPU_NVCCFLAGS}"
    backend_obj="$BUILD/obj/backend_gpu.o"
    link_libs="${GPU_LDFLAGS}"
fi

# The contract header is force-included: a learner who changes a signature gets a compile error that
# points at the line, instead of a wrong call at run time.
if ! $NVCC $flags -I"$CUDA_HOME/include/cccl" -include "checker/contracts/ex$nn.h" -c "$src" \
        -o "$out/kernel.o" >"$log" 2>&1; then
    say "$(joined "$BOLD$(textf 'Your file does not compile yet.')$RESET" "$(textf 'nvcc says:')")"
    # nvcc writes file(line); editors turn file:line into a link.
    sed -E 's/^([^ :(]+\.cu)\(([0-9]+)\): /\1:\2: /' "$log" | grep -v '^$' | head -n 30 | sed 's/^/    /'
    # A changed signature: the contract's declaration clashes with the learner's definition.
    if grep -qE "contracts/ex$nn.h|has \"C\" linkage|incompatible with previous" "$log"; then
        sayf 'The checker calls the functions declared in %s: keep their names and parameter types exactly as the skeleton has them.' "checker/contracts/ex$nn.h"
    fi
    exit 3
fi

if ! $CXX -o "$out/suite" "$out/kernel.o" "$BUILD/obj/suites/ex$nn.o" "$BUILD"/obj/harness_*.o "$BUILD"/obj/i18n_*.o \
        "$backend_obj" $link_libs $(pkg-config --libs check) -lm >>"$log" 2>&1; then
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
