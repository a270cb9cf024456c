#!/usr/bin/env bash
# deps.sh - makes sure the tools the checker needs are here: nvcc, pkg-config, Check and patch (which
# `make test` uses to apply the corpus's bugs to the reference solutions), and gettext's msgfmt, which
# compiles the Chinese report's catalog (without it the report is in English; the catalog's rule says so
# to a learner who asked for Chinese, checker/i18n/i18n.mk).
# Installs them through apt when it can do so without asking for a password; otherwise says what to run.
set -u
. checker/scripts/lib.sh

if ! command -v "${NVCC:-nvcc}" >/dev/null 2>&1; then
    sayf "The course needs the CUDA toolkit's compiler, nvcc, and it is not on your PATH."
    sayf 'Install the CUDA toolkit (https://developer.nvidia.com/cuda-downloads), or add its bin folder to PATH, e.g. export PATH=/usr/local/cuda/bin:$PATH, then run make again.'
    exit 1
fi

have_all() { command -v pkg-config >/dev/null 2>&1 && pkg-config --exists check 2>/dev/null && command -v patch >/dev/null 2>&1; }
have_all && command -v msgfmt >/dev/null 2>&1 && exit 0
# Only msgfmt missing: one try to install it, not one at every make.
tried="$BUILD/.gettext-install-tried"
have_all && [ -e "$tried" ] && exit 0
mkdir -p "$BUILD" && touch "$tried"

if command -v apt-get >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ]; then sudo=""; elif sudo -n true 2>/dev/null; then sudo="sudo -n"; else sudo=none; fi
    if [ "$sudo" != none ]; then
        sayf 'Installing the Check unit-test library, pkg-config, patch and gettext (once): apt-get install check pkg-config patch gettext'
        { $sudo apt-get install -y -qq check pkg-config patch gettext >/dev/null 2>&1 ||
          { $sudo apt-get update -qq >/dev/null 2>&1 &&
            $sudo apt-get install -y -qq check pkg-config patch gettext >/dev/null 2>&1; }; }
    fi
fi
have_all && exit 0
sayf 'The checker needs the Check unit-test library, pkg-config and patch: please run'
say "    sudo apt-get install check pkg-config patch gettext"
sayf '(on Fedora: sudo dnf install check-devel pkgconf gettext; on macOS: brew install check pkg-config gettext), then run make again.'
exit 1
