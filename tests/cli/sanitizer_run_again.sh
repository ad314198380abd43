#!/usr/bin/env bash
# make sanitize runs a tool again, by itself, when all it reported was a kernel stopped with no reason given
# (cudaErrorLaunchFailure), shows what the first run printed, and keeps its second answer. compute-sanitizer is a stand-in (fake_sanitizer/), but
# the program looks for a GPU first: skipped (exit 3) without one.
#   sanitizer_run_again.sh PROGRAM
set -u
program=$1
state=$(mktemp -d)
trap 'rm -rf "$state"' EXIT
output=$(FAKE_SANITIZER_STATE=$state PATH="$(dirname "$0")/fake_sanitizer:$PATH" "$program" --sanitize 2>&1)
code=$?
echo "$output"
if grep -q "no CUDA device" <<<"$output"; then exit 3; fi
grep -q "^memcheck stopped a kernel without saying why: running it again, by itself. What it printed:$" \
    <<<"$output" || exit 1
grep -q '^    ========= Program hit cudaErrorLaunchFailure (error 719) due to "unspecified launch failure"' \
    <<<"$output" || exit 1
grep -q "memcheck *FAIL: out of bounds: transpose.cu:28 reads 4 bytes, 1 bytes after the nearest allocation" \
    <<<"$output" || exit 1
[ "$(cat "$state/memcheck_runs")" = 2 ] || exit 1
[ $code -eq 1 ]
