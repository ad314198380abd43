#!/usr/bin/env bash
# make sanitize runs a tool again, by itself, when all it reported was a kernel stopped with no reason given
# (cudaErrorLaunchFailure), shows what the first run printed, and keeps its second answer. compute-sanitizer is a stand-in (fake_sanitizer/), but
# the program looks for a GPU first: skipped (kExitNoDevice) without one.
#   sanitizer_run_again.sh PROGRAM
set -u
# shellcheck source=../../common/base/exit_codes.sh
source "$(dirname "$0")/../../common/base/exit_codes.sh"
skip=${exit_codes[kExitNoDevice]}  # ctest's SKIP_RETURN_CODE: the programs' own code for no GPU
program=$1
state=$(mktemp -d)
trap 'rm -rf "$state"' EXIT
output=$(FAKE_SANITIZER_STATE=$state PATH="$(dirname "$0")/fake_sanitizer:$PATH" "$program" --sanitize 2>&1)
code=$?
echo "$output"
if [ $code -eq "$skip" ]; then exit "$skip"; fi  # no CUDA device: the program said so
grep -q "^memcheck stopped a kernel without saying why: running it again, by itself. What it printed:$" \
    <<<"$output" || exit 1
grep -q '^    ========= Program hit cudaErrorLaunchFailure (error 719) due to "unspecified launch failure"' \
    <<<"$output" || exit 1
grep -q "memcheck *FAIL: out of bounds: transpose.cu:28 reads 4 bytes, 1 bytes after the nearest allocation" \
    <<<"$output" || exit 1
[ "$(cat "$state/memcheck_runs")" = 2 ] || exit 1
# memcheck, and memcheck alone, leaves a gap after every allocation: without one, a read past a matrix of whole
# 128-byte rows lands in the allocation after it, unseen (student bug t5_load_guard_one_row_too_many).
grep -q -- "--padding [1-9]" "$state/memcheck_args" || { echo "memcheck ran without --padding"; exit 1; }
! grep -q -- "--padding" "$state/racecheck_args" "$state/synccheck_args" || exit 1
[ $code -eq 1 ]
