#!/usr/bin/env bash
# Passes when racecheck reports the race in PROGRAM (a tile transpose without its barrier); exit 3 without a GPU.
set -u
program=$1
source "$(dirname "$0")/../../common/make/lib.sh"
exit_without_device "$program"
command -v compute-sanitizer >/dev/null 2>&1 || { echo "compute-sanitizer not found" >&2; exit 1; }
output=$(compute-sanitizer --tool racecheck --error-exitcode 86 "$program" --rows 67 --cols 45 --reps 1 --warmup 0 --no-references 2>&1)
code=$?
grep -E "RACECHECK SUMMARY|hazard" <<<"$output" | head -n 3
if [ $code -eq 86 ]; then echo "racecheck caught the missing barrier"; exit 0; fi
echo "racecheck did not report the missing barrier (exit $code)" >&2
exit 1
