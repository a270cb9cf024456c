#!/bin/sh
# emu_arch.sh CC - prints the -march flag the engine is built with on this machine (emu.mk calls it once).
# The library is built where it runs, so it may use what this CPU has: x86-64-v3 (AVX2: the lane loops
# do four lanes per instruction) or x86-64-v2 (POPCNT, SSE4.2), when /proc/cpuinfo shows every feature
# that level needs and the compiler knows the level's name. Anywhere else it prints nothing: the
# compiler's default, which is portable.
cc=${1:-cc}
flags=$(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null)
has() { for f; do case " $flags " in *" $f "*) ;; *) return 1 ;; esac; done; }
knows() { echo 'int main(void){return 0;}' | $cc "$1" -x c -c -o /dev/null - >/dev/null 2>&1; }
if has avx2 bmi1 bmi2 fma f16c abm movbe popcnt sse4_2 && knows -march=x86-64-v3; then
    echo -march=x86-64-v3
elif has popcnt sse4_1 sse4_2 ssse3 cx16 lahf_lm && knows -march=x86-64-v2; then
    echo -march=x86-64-v2
fi
