#!/usr/bin/env bash
# compute-sanitizer's three tools over one checked shape of a program, for a path that make check's sanitizer
# shapes never reach:
#   sanitize_one_shape.sh COMPUTE_SANITIZER PROGRAM SHAPE_ARGS...
# Passes when each tool finds nothing and the shape PASSes under it. Exits 3 (skipped) where the program finds no
# CUDA device; fails where compute-sanitizer is missing, as make sanitize's own tests do.
set -u
sanitizer=$1 program=$2
shift 2
output=$("$program" --check-shape "$@" 2>&1)
code=$?
if [ $code -eq 3 ] && grep -q "no CUDA device" <<<"$output"; then
    echo "skipped: no CUDA device"
    exit 3
fi
if [ $code -ne 0 ]; then
    echo "the shape fails even without a sanitizer (exit $code):"
    echo "$output"
    exit 1
fi
if [ ! -x "$sanitizer" ]; then
    echo "no compute-sanitizer at $sanitizer: it ships with the CUDA Toolkit"
    exit 1
fi
failed=0
for tool in memcheck racecheck synccheck; do
    start=$SECONDS
    # As make check does (common/check/battery.cpp): a gap after every allocation, so a read past one is seen.
    padding=()
    [ "$tool" = memcheck ] && padding=(--padding 1048576)
    output=$("$sanitizer" --tool "$tool" "${padding[@]}" --error-exitcode 86 --show-backtrace no \
        "$program" --check-shape --no-guards "$@" 2>&1)
    code=$?
    echo "$tool: exit $code, $((SECONDS - start)) s"
    if [ $code -ne 0 ] || ! grep -q "^PASS" <<<"$output"; then
        echo "$output" | tail -n 20
        failed=1
    fi
done
exit $failed
