#!/usr/bin/env bash
# deps.sh - makes sure the tools the checker needs are here: nvcc, pkg-config, Check and patch (which
# `make test` uses to apply the corpus's bugs to the reference solutions).
# Installs Check through apt when it can do so without asking for a password; otherwise says what to run.
set -u
. checker/scripts/lib.sh

if ! command -v "${NVCC:-nvcc}" >/dev/null 2>&1; then
    say "The course needs the CUDA toolkit's compiler, nvcc, and it is not on your PATH."
    say "Install the CUDA toolkit (https://developer.nvidia.com/cuda-downloads), or add its bin folder to"
    say "PATH, e.g. export PATH=/usr/local/cuda/bin:\$PATH, then run make again."
    exit 1
fi

have_all() { command -v pkg-config >/dev/null 2>&1 && pkg-config --exists check 2>/dev/null && command -v patch >/dev/null 2>&1; }
have_all && exit 0

if command -v apt-get >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ]; then sudo=""; elif sudo -n true 2>/dev/null; then sudo="sudo -n"; else sudo=none; fi
    if [ "$sudo" != none ]; then
        say "Installing the Check unit-test library, pkg-config and patch (once): apt-get install check pkg-config patch"
        if { $sudo apt-get install -y -qq check pkg-config patch >/dev/null 2>&1 ||
             { $sudo apt-get update -qq >/dev/null 2>&1 &&
               $sudo apt-get install -y -qq check pkg-config patch >/dev/null 2>&1; }; } &&
           have_all; then
            exit 0
        fi
    fi
fi
say "The checker needs the Check unit-test library, pkg-config and patch: please run"
say "    sudo apt-get install check pkg-config patch"
say "(on Fedora: sudo dnf install check-devel pkgconf; on macOS: brew install check pkg-config), then run make again."
exit 1
