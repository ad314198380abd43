#!/usr/bin/env bash
# make sanitize for one program: memcheck, racecheck and synccheck at a small size that is not a multiple of
# any tile, so edge bugs show. Exits non-zero when any tool reports anything; findings name the source line.
#   sanitize.sh PROGRAM TRACK
set -u
program=$1 track=$2
source "$(dirname "$0")/lib.sh"
# Without a GPU there is nothing to sanitize: say so and exit 3 (reported as skipped by the tests).
exit_without_device "$program"
if ! command -v compute-sanitizer >/dev/null 2>&1; then
    echo "error: compute-sanitizer not found; it ships with the CUDA Toolkit (add /usr/local/cuda/bin to PATH)" >&2
    exit 2
fi
if [ "$track" = transpose ]; then size=(--rows 67 --cols 45); else size=(--m 67 --n 45 --k 37); fi
status=0
for tool in memcheck racecheck synccheck; do
    log=$(mktemp)
    compute-sanitizer --tool "$tool" --error-exitcode 86 --show-backtrace no \
        "$program" "${size[@]}" --reps 1 --warmup 0 --no-references >"$log" 2>&1
    code=$?
    summary=$(grep -E '^========= (ERROR SUMMARY|RACECHECK SUMMARY)' "$log" | tail -n 1)
    # A finding makes the tool exit with 86; a summary with a non-zero count also counts (warnings included).
    # Any other non-zero exit is the program's own verdict (1: wrong answer), not a sanitizer finding.
    if [ $code -eq 86 ] || grep -qE 'SUMMARY: [1-9]|\([1-9][0-9]* errors|, [1-9][0-9]* warnings' <<<"$summary"; then
        echo "$(basename "$program") $tool: FOUND PROBLEMS"
        grep -E '^=========' "$log" | grep -vE 'COMPUTE-SANITIZER|Target application returned|^=========\s*$' | head -n 40
        status=1
    else
        echo "$(basename "$program") $tool: clean (${summary#========= })"
    fi
    if [ $code -ne 0 ] && [ $code -ne 86 ]; then
        echo "  (the program itself exited with $code$([ $code -eq 1 ] && echo ': a wrong answer, see make check'))"
        status=1
    fi
    rm -f "$log"
done
exit $status
