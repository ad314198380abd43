#!/usr/bin/env bash
# Runs the CTest suite and closes with one line counting passed, failed and skipped tests, so skipped GPU
# tests are never mistaken for passed ones, and says why they were skipped.
#   run_tests.sh BUILD_DIR [ctest options]
set -u -o pipefail
build=$1
shift
log=$(mktemp)
trap 'rm -f "$log"' EXIT

ctest --test-dir "$build" --output-on-failure "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}

passed=$(grep -cE 'Test +#[0-9]+: .* Passed' "$log")
failed=$(grep -cE '\*\*\*(Failed|Exception|Timeout|Not Run)|\*\*\*\*\*\*' "$log")
skipped=$(grep -cE '\*\*\*Skipped' "$log")
echo
if [ "$skipped" -gt 0 ]; then
    # Each skipped test said why (GoogleTest prints the reason on the line after "Skipped"; the scripts print
    # "no CUDA device ..."): list the distinct reasons.
    echo "skipped $skipped tests, for these reasons:"
    { grep -A1 -E ': Skipped$' "$build/Testing/Temporary/LastTest.log" | grep -vE ': Skipped$|^--$'
      grep -hoE '^no CUDA device.*' "$build/Testing/Temporary/LastTest.log"; } |
        sed -E 's/^no CUDA device.*/no CUDA device on this machine/' | sort -u | sed 's/^/  - /'
fi
echo "tests: $passed passed, $failed failed, $skipped skipped"
exit "$status"
