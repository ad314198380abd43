#!/usr/bin/env bash
# Makes sure the build can work on this machine: nvcc, CMake, a C++ compiler, GoogleTest, fmt and nlohmann-json.
# Missing packages are installed with apt-get when running as root; otherwise the exact command is printed.
set -u

missing=()
have_header() { printf '#include <%s>\n' "$1" | ${CXX:-c++} -std=c++17 -x c++ -fsyntax-only - >/dev/null 2>&1; }

if ! command -v nvcc >/dev/null 2>&1 && [ ! -x /usr/local/cuda/bin/nvcc ]; then
    echo "error: nvcc (the CUDA Toolkit, 12.x or 13.x) is not installed or not on PATH; install it from NVIDIA's CUDA downloads and add its bin/ to PATH" >&2
    exit 1
fi
command -v cmake >/dev/null 2>&1 || missing+=(cmake)
command -v c++ >/dev/null 2>&1 || missing+=(g++)
command -v make >/dev/null 2>&1 || missing+=(make)
have_header fmt/format.h || missing+=(libfmt-dev)
have_header nlohmann/json.hpp || missing+=(nlohmann-json3-dev)
have_header gtest/gtest.h || missing+=(libgtest-dev)

# make watch sees saves through inotifywait (it looks every half second without it), and its tests drive it in
# tmux: wanted, not required, so a failure to install them is a note, not an error.
wanted=()
command -v inotifywait >/dev/null 2>&1 || wanted+=(inotify-tools)
command -v tmux >/dev/null 2>&1 || wanted+=(tmux)
if [ ${#wanted[@]} -gt 0 ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 && echo "installing: ${wanted[*]}" &&
        DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null &&
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${wanted[@]}" >/dev/null; then :
    else echo "note: make watch and its tests want ${wanted[*]}: sudo apt-get install -y ${wanted[*]}"; fi
fi

[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing: ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    { apt-get update -qq >/dev/null && apt-get install -y -qq "${missing[@]}" >/dev/null; } || {
        echo "error: apt-get could not install ${missing[*]}" >&2
        exit 1
    }
    exit 0
fi
echo "error: missing ${missing[*]}; install with: sudo apt-get install -y ${missing[*]}" >&2
exit 1
