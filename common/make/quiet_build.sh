#!/usr/bin/env bash
# Builds CMake targets and prints nothing when they build. When they do not, prints the compiler's messages
# only (no progress lines, no make chatter), with each place as path:line relative to the top of the checkout,
# so an editor or terminal can jump to the student's line.
#   quiet_build.sh BUILD_DIR TARGET...
set -u
build=$1
shift
top=$(cd "$(dirname "$0")/../.." && pwd)
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if cmake --build "$build" -j "${JOBS:-$(nproc 2>/dev/null || echo 2)}" --target "$@" >"$log" 2>&1; then exit 0; fi
grep -vE '^\[ *[0-9]+%\]|^g?make(\[[0-9]+\])?: |Built target|Scanning dependencies|Consolidate compiler|^Dependee|^Error while' "$log" |
    sed -E "s#^(/[^ (:]+)\(([0-9]+)\): #\1:\2: #; s#${top}/##g" >&2
exit 1
