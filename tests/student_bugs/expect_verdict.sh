#!/usr/bin/env bash
# Runs make check's checker (PROGRAM --check) and passes when the verdict is the one expected:
#   expect_verdict.sh PROGRAM PASS        the checker must pass the program
#   expect_verdict.sh PROGRAM REGEX       it must fail it, and its report must match REGEX (the right reason)
# Exits 3, which the tests report as skipped, where there is no CUDA device.
set -u
program=$1 expect=$2
output=$("$program" --check 2>&1)
code=$?
echo "$output"
if [ $code -eq 3 ] && grep -q "no CUDA device" <<<"$output"; then exit 3; fi
last=$(tail -n 1 <<<"$output")
if [ "$expect" = PASS ]; then
    if [ $code -eq 0 ] && [[ $last == PASS:* ]]; then exit 0; fi
    echo "expected PASS; the checker said (exit $code): $last" >&2
    exit 1
fi
if [ $code -eq 0 ] || [[ $last != FAIL:* ]]; then
    echo "expected FAIL; the checker said (exit $code): $last" >&2
    exit 1
fi
if ! grep -qE -- "$expect" <<<"$output"; then
    echo "the checker failed it, but its report does not say /$expect/" >&2
    exit 1
fi
echo "caught, with the expected reason /$expect/"
