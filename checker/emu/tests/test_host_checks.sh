#!/bin/sh
# test_host_checks.sh - host code built as the course builds the learner's (EMU_HOST_CHECKS): device memory is
# not the host's to touch (a read, a write, a read past the end, a read inside a call the line makes: each a
# finding at the learner's line, also inside printf's _FORTIFY_SOURCE wrapper, and nothing claimed for other addresses), the runtime's copies and kernels still reach it, and undefined behaviour is
# a finding at its line, then SIGTRAP (but not inside a toolkit header). See host_checks.cu.
set -u
dir=$(dirname "$0")
out=$BUILD/emu/tests
src=$dir/host_checks.cu
: "${EMU_HOST_CHECKS:?the settings of emu.mk, exported by make}"
status=0
# line MARK: the line of src that carries the comment MARK.
line() { grep -n "// $1\$" "$src" | cut -d: -f1; }
# expect MODE TEXT [ARG]: the case's output contains TEXT.
expect() {
    got=$(EMU_QUIET=1 "$out/host_checks" "$1" ${3:-} 2>&1)
    case "$got" in
    *"$2"*) echo "ok $1: $2" ;;
    *) echo "FAIL $1: wanted '$2', got:"; echo "$got" | sed 's/^/    /'; status=1 ;;
    esac
}
# Twice: unoptimised, as the emulator's build has it (EMU_HOST_OPT), and at -O3, as a GPU machine's one object
# for both backends has it (inlined calls, values in registers).
for opt in "${EMU_HOST_OPT:-}" -O3; do
    $NVCC $EMU_NVCCFLAGS $EMU_HOST_CHECKS $opt -c "$src" -o "$out/host_checks.o" &&
        $CC "$out/host_checks.o" "$EMU_LIB" -lstdc++ -lm -o "$out/host_checks" || exit 1
    expect views "views ok"
    expect read "$src:$(line 'HOST READ'): your host code reads byte 28 of the 4000 bytes from cudaMalloc"
    expect write "$src:$(line 'HOST WRITE'): your host code writes byte 0 of the 4000 bytes"
    expect past "$src:$(line 'HOST READ PAST'): your host code reads 0 bytes past the end of the 4000 bytes"
    expect accumulate "$src:$(line 'HOST CALL'): the call at this line runs on the CPU and touches byte 0 of the 4000 bytes from cudaMalloc there (in c++/"
    expect memcpy "$src:$(line 'HOST LIBRARY CALL'): the call at this line runs on the CPU and touches byte 0 of the 4000 bytes from cudaMalloc there (in a library)" 4000
    expect printf "$src:$(line 'HOST PRINTF'): your host code reads byte 12 of the 4000 bytes from cudaMalloc"
    expect other "signal SIGSEGV, not device memory"
    expect overflow "$src:$(line 'HOST OVERFLOW'): your host code computes 2147483600 + 255 in int" 2147483600
    expect overflow "signal SIGTRAP" 2147483600
    expect overflow "grid 3 without a finding" 700
    expect header "header overflow passed silently" 2147483600
done
# The same read inside printf's inline wrapper (_FORTIFY_SOURCE, which some compilers turn on by default): the
# learner's own read of the argument, at the learner's line.
$NVCC $EMU_NVCCFLAGS $EMU_HOST_CHECKS -Xcompiler -D_FORTIFY_SOURCE=2 -O3 -c "$src" -o "$out/host_checks_fortified.o" &&
    $CC "$out/host_checks_fortified.o" "$EMU_LIB" -lstdc++ -lm -o "$out/host_checks" || exit 1
expect printf "$src:$(line 'HOST PRINTF'): your host code reads byte 12 of the 4000 bytes from cudaMalloc"
exit $status
