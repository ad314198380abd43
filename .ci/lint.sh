#!/usr/bin/env bash
# The house style, checked: every C++ and CUDA file formatted as the top .clang-format says, and every shell script
# in common/, .ci/ and tests/ clean under shellcheck. Installs Debian's clang-format and shellcheck where they are
# missing (as root, as the other CI scripts install what they need). Prints each finding; fails if there is one.
#   .ci/lint.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2

missing=()
command -v clang-format >/dev/null || missing+=(clang-format)
command -v shellcheck >/dev/null || missing+=(shellcheck)
if [ ${#missing[@]} -gt 0 ]; then
    echo "lint: installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    { apt-get update -qq >/dev/null && apt-get install -y -qq "${missing[@]}" >/dev/null; } ||
        { echo "FAILED: apt-get could not install ${missing[*]}" >&2; exit 1; }
fi

# The files git keeps (never a build folder's); outside a git checkout, every file but the build folders'.
tracked() {
    if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
        git ls-files -- "$@"
    else
        find "$@" -name 'build*' -prune -o -type f -print
    fi
}

mapfile -t sources < <(tracked . | grep -E '\.(cpp|hpp|cu|cuh|h|cc)$')
# A shell script: named *.sh or *.sbatch, or any other file that starts with a bash or sh line.
mapfile -t scripts < <(tracked common .ci tests | while IFS= read -r f; do
    case $f in
        *.sh | *.sbatch) echo "$f" ;;
        *) head -n 1 "$f" 2>/dev/null | grep -qE '^#!.*[/ ](ba)?sh( |$)' && echo "$f" ;;
    esac
done)

status=0
if clang-format --dry-run -Werror "${sources[@]}"; then
    echo "lint: ${#sources[@]} C++/CUDA files formatted as .clang-format says ($(clang-format --version))"
else
    echo "FAILED: the files above are not formatted: clang-format -i FILE"
    status=1
fi
# -x -P SCRIPTDIR: a sourced library is read from beside the script that sources it. Every script here is bash,
# the libraries without a #! line too.
if shellcheck --shell=bash -x -P SCRIPTDIR "${scripts[@]}"; then
    echo "lint: ${#scripts[@]} shell scripts clean under shellcheck $(shellcheck --version | sed -n 's/^version: //p')"
else
    echo "FAILED: shellcheck's findings above"
    status=1
fi
exit "$status"
