#!/usr/bin/env bash
# make profile counts the step's own kernel: the line above its counters names KERNEL. The harness launches kernels
# of its own around the step's (the poison for shared memory before the checked launch), and ncu profiles the
# first launch it sees. Needs a GPU, and Nsight Compute with permission to read the counters: skipped (kExitNoDevice)
# otherwise, with the reason.
#   profile_names_the_step.sh PROFILE_SCRIPT PROGRAM TRACK KERNEL
set -u
# shellcheck source=../../common/base/exit_codes.sh
source "$(dirname "$0")/../../common/base/exit_codes.sh"
profile=$1 program=$2 track=$3 kernel=$4
command -v ncu >/dev/null || { echo "skipped: no ncu (Nsight Compute) on PATH"; exit "${exit_codes[kExitNoDevice]}"; }
output=$("$profile" "$program" "$track" --size 256 2>&1)
code=$?
echo "$output"
if [ $code -eq "${exit_codes[kExitNoDevice]}" ]; then exit "${exit_codes[kExitNoDevice]}"; fi  # skipped (SKIP_RETURN_CODE): no GPU, it said
if grep -q "ERR_NVGPUCTRPERM" <<<"$output"; then echo "skipped: this user may not read the counters"; exit "${exit_codes[kExitNoDevice]}"; fi
[ $code -eq 0 ] || exit 1
head -n 1 <<<"$output" | grep -q "kernel $kernel(" || { echo "FAIL: profiled another kernel than $kernel"; exit 1; }
