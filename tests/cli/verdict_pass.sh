#!/usr/bin/env bash
# make check (common/make/check.sh, the program's --verdict) of a correct step 2 transpose: exit 0 and the PASS
# line with its rate, its share of the solution and its ratio to step 1, twice; the same code as the solution reads
# 90-110% of it. Skipped (exit 3) without a GPU, or where the check could not run here (NOT CHECKED).
#   verdict_pass.sh CHECK_SH SOLUTION2_TRANSPOSE SOLUTION1_TRANSPOSE
set -u
# shellcheck source=../../common/base/exit_codes.sh
source "$(dirname "$0")/../../common/base/exit_codes.sh"
check=$1
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
ln -s "$2" "$bin/step2_transpose"
ln -s "$2" "$bin/solution2_transpose"
ln -s "$3" "$bin/solution1_transpose"
pass='^VERDICT step 2 transpose: PASS, [0-9]+ GB/s, [0-9]+% of the solution, [0-9]+\.[0-9]{2}x step 1'
status=0
for run in 1 2; do
    output=$(bash "$check" "$bin" 2 transpose 2>&1)
    code=$?
    echo "$output"
    [ $code -eq "${exit_codes[kExitNoDevice]}" ] || [ $code -eq "${exit_codes[kExitOutOfMemory]}" ] &&
        exit "${exit_codes[kExitNoDevice]}"
    percent=$(grep -oE '[0-9]+% of the solution' <<<"$output" | grep -oE '^[0-9]+')
    if [ $code -eq 0 ] && grep -qE "$pass" <<<"$output" && [ "${percent:-0}" -ge 90 ] && [ "$percent" -le 110 ]; then
        echo "ok: PASS with the rates, ${percent}% of the solution (run $run)"
    else
        echo "FAIL: expected exit 0, a line /$pass/ and 90-110% of the solution (exit $code, run $run)"
        status=1
    fi
done
exit $status
