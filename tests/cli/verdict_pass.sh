#!/usr/bin/env bash
# make check (common/make/check.sh, the program's --verdict) of a correct step 2 transpose: exit 0 and the PASS
# line with its rate, its share of the solution and its ratio to step 1; then, with make watch's memory of the
# solutions' rates on, the same line again, and the rates kept as JSON beside the programs. Skipped (exit 3) without
# a GPU, or where the check could not run here (NOT CHECKED).
#   verdict_pass.sh CHECK_SH SOLUTION2_TRANSPOSE SOLUTION1_TRANSPOSE
set -u
check=$1
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
ln -s "$2" "$bin/step2_transpose"
ln -s "$2" "$bin/solution2_transpose"
ln -s "$3" "$bin/solution1_transpose"
pass='^VERDICT step 2 transpose: PASS, [0-9]+ GB/s, [0-9]+% of the solution, [0-9]+\.[0-9]{2}x step 1'
status=0
for memory in 0 60 60; do
    output=$(WORKSHOP_RATE_CACHE_S=$memory bash "$check" "$bin" 2 transpose 2>&1)
    code=$?
    echo "$output"
    [ $code -eq 3 ] || [ $code -eq 4 ] && exit 3
    if [ $code -eq 0 ] && grep -qE "$pass" <<<"$output"; then
        echo "ok: PASS with the rates (rates remembered for ${memory} s)"
    else
        echo "FAIL: expected exit 0 and a line /$pass/ (exit $code)"
        status=1
    fi
done
if grep -q '"rates"' "$bin/.rates.json" 2>/dev/null; then
    echo "ok: the solutions' rates are remembered in .rates.json"
else
    echo "FAIL: no .rates.json beside the programs"
    status=1
fi
exit $status
