#!/usr/bin/env bash
# device-deps.sh - packs this machine's Check library into .deps/ (gitignored) so that it can travel to a
# GPU machine that has no package archive: headers, static libraries, a pkg-config stand-in, and patch
# (make test applies the corpus's patches; it needs only libc).
# On the GPU machine: export PATH="$PWD/.deps/bin:$PATH" before make.
set -eu
rm -rf .deps/include .deps/lib .deps/bin   # .deps/tools is deps.sh's (PyPI tools): kept
mkdir -p .deps/include .deps/lib .deps/bin
cp /usr/include/check.h /usr/include/check_stdint.h .deps/include/
cp "$(dpkg -L check | grep 'libcheck_pic.a$')" .deps/lib/libcheck.a
# Subunit as a shared library (a GPU's grade links the suite as a shared object too, and Debian's libsubunit.a is
# not position-independent), found at run time by the rpath the stand-in below gives.
cp "$(dpkg -L libsubunit0 | grep 'libsubunit.so.0.0.0$')" .deps/lib/libsubunit.so.0
cp .deps/lib/libsubunit.so.0 .deps/lib/libsubunit.so   # (a copy: not every way to a GPU machine keeps links)
cp "$(command -v patch)" .deps/bin/
cat > .deps/bin/pkg-config <<'SHIM'
#!/usr/bin/env bash
# A pkg-config stand-in that knows one package: the Check library packed beside it.
deps=$(cd "$(dirname "$0")/.." && pwd)
for arg in "$@"; do
    case $arg in
    --exists|--modversion) ;;
    --cflags) echo "-I$deps/include" ;;
    --libs) echo "-L$deps/lib -Wl,-rpath,$deps/lib -lcheck -lsubunit -lrt -lm -pthread" ;;
    check) ;;
    *) exit 1 ;;
    esac
done
SHIM
chmod +x .deps/bin/pkg-config
du -sh .deps
