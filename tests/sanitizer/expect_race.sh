#!/usr/bin/env bash
# Passes when racecheck reports the race in PROGRAM (a tile transpose without its barrier); exit 3 without a GPU.
set -u
program=$1
if ! probe=$("$program" --size 1 --reps 1 --warmup 0 --no-references 2>&1) && grep -q "no CUDA device" <<<"$probe"; then
    grep -m1 "no CUDA device" <<<"$probe"
    exit 3
fi
command -v compute-sanitizer >/dev/null 2>&1 || { echo "compute-sanitizer not found" >&2; exit 1; }
output=$(compute-sanitizer --tool racecheck --error-exitcode 86 "$program" --rows 67 --cols 45 --reps 1 --warmup 0 --no-references 2>&1)
code=$?
grep -E "RACECHECK SUMMARY|hazard" <<<"$output" | head -n 3
if [ $code -eq 86 ]; then echo "racecheck caught the missing barrier"; exit 0; fi
echo "racecheck did not report the missing barrier (exit $code)" >&2
exit 1
