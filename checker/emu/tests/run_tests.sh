#!/bin/sh
# run_tests.sh - builds and runs the emulator's tests; `make emu-test` calls it with the settings below.
#
# Add a test by adding files to this folder:
#   test_NAME.c    a C program linked with the whole library           passes when it exits 0
#   test_NAME.cu   a CUDA program built with EMU_NVCCFLAGS, linked with the whole library
#   rt_NAME.c, rt_NAME.cu   the same, linked with the runtime half and fake_engine.c instead of the engine
# and, beside any of them, optionally:
#   NAME.expected  its standard output must be exactly this file (e.g. test_sum.expected)
#   NAME.findings  each line of this file must appear in its standard error (the emulator's findings)
#   NAME.exit      the exit status it must end with, when not 0 (one number)
# Scripts rt_NAME.sh and test_NAME.sh run with BUILD, CC, NVCC, EMU_* set; they pass when they exit 0
# ($BUILD/emu/tests/fake_engine.o is built by then).
# Set EMU_TEST=pattern to run only the tests whose names contain pattern.
# The last line is always "emu-test: N passed, M failed"; the exit status is 1 when M > 0.

: "${BUILD:=build}" "${CC:=cc}" "${NVCC:=nvcc}" "${CUDA_HOME:=/usr/local/cuda}"
: "${EMU_CFLAGS:=-std=c11 -O2 -Wall -Wextra -g -I$CUDA_HOME/include}"
: "${EMU_NVCCFLAGS:=-cudart none -gencode arch=compute_90,code=compute_90 -Xfatbin -compress=false -lineinfo}"
: "${EMU_LIB:=$BUILD/emu/libcudaemu.a}" "${EMU_LIB_OK:=1}"

dir=$(dirname "$0")
out="$BUILD/emu/tests"
mkdir -p "$out"
passed=0
failed=0

pass() { passed=$((passed + 1)); echo "PASS $1"; }
fail() { failed=$((failed + 1)); echo "FAIL $1: $2"; }

if [ "$EMU_LIB_OK" = 1 ]; then pass "the library builds"; else fail "the library builds" "see the compiler's messages above"; fi

# run_one NAME EXE: runs it and checks its exit status, output and findings against the files beside it.
run_one() {
    name=$1 exe=$2 base=$dir/$1
    want_exit=0
    [ -f "$base.exit" ] && want_exit=$(cat "$base.exit")
    timeout 120 "$exe" >"$out/$name.stdout" 2>"$out/$name.stderr"
    status=$?
    if [ "$status" != "$want_exit" ]; then
        fail "$name" "exit status $status, expected $want_exit; its stderr:"
        sed 's/^/    /' "$out/$name.stderr" | head -20
        return
    fi
    if [ -f "$base.expected" ] && ! cmp -s "$base.expected" "$out/$name.stdout"; then
        fail "$name" "its output differs from $name.expected:"
        diff "$base.expected" "$out/$name.stdout" | head -20 | sed 's/^/    /'
        return
    fi
    if [ -f "$base.findings" ]; then
        missing=$(grep -v '^$' "$base.findings" | while IFS= read -r line; do
            grep -qF -- "$line" "$out/$name.stderr" || echo "$line"; done)
        if [ -n "$missing" ]; then
            fail "$name" "these findings are missing from its stderr:"
            echo "$missing" | sed 's/^/    /'
            sed 's/^/    stderr: /' "$out/$name.stderr" | head -20
            return
        fi
    fi
    pass "$name"
}

# build_and_run FILE: compiles, links against the library or the runtime half, runs.
build_and_run() {
    src=$1
    file=$(basename "$src")
    name=${file%.*}
    case "$name" in *"${EMU_TEST:-}"*) ;; *) return ;; esac
    case "$name" in
    rt_*) link="$EMU_RT_OBJS $out/fake_engine.o" ;;
    *)
        if [ "$EMU_LIB_OK" != 1 ]; then fail "$name" "not built: the library does not build"; return; fi
        link=$EMU_LIB ;;
    esac
    case "$file" in
    *.c)  cmd="$CC $EMU_CFLAGS -Wno-unused-function -c $src -o $out/$name.o" ;;
    *.cu) cmd="$NVCC $EMU_NVCCFLAGS -c $src -o $out/$name.o" ;;
    esac
    if ! $cmd >"$out/$name.build" 2>&1 ||
       ! $CC "$out/$name.o" $link -lstdc++ -lm -o "$out/$name" >>"$out/$name.build" 2>&1; then
        fail "$name" "does not build:"
        sed 's/^/    /' "$out/$name.build" | head -20
        return
    fi
    run_one "$name" "$out/$name"
}

if ! $CC $EMU_CFLAGS -c "$dir/fake_engine.c" -o "$out/fake_engine.o" >"$out/fake_engine.build" 2>&1; then
    fail "the fake engine builds" "$(head -5 "$out/fake_engine.build")"
fi

for src in "$dir"/rt_*.c "$dir"/rt_*.cu "$dir"/test_*.c "$dir"/test_*.cu; do
    [ -f "$src" ] && build_and_run "$src"
done

# Scripts: tests/rt_*.sh and tests/test_*.sh run with the settings above; exit 0 passes.
for script in "$dir"/rt_*.sh "$dir"/test_*.sh; do
    [ -f "$script" ] || continue
    name=$(basename "$script" .sh)
    case "$name" in *"${EMU_TEST:-}"*) ;; *) continue ;; esac
    if BUILD="$BUILD" CC="$CC" NVCC="$NVCC" EMU_LIB="$EMU_LIB" EMU_NVCCFLAGS="$EMU_NVCCFLAGS" \
       EMU_CFLAGS="$EMU_CFLAGS" EMU_RT_OBJS="$EMU_RT_OBJS" sh "$script" >"$out/$name.stdout" 2>&1; then
        pass "$name"
    else
        fail "$name" "its output:"; sed 's/^/    /' "$out/$name.stdout" | head -20
    fi
done

echo "emu-test: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
