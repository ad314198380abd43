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
    reason=$("$build/bin/gpu_harness_tests" --gtest_filter='Harness.DeviceFactsAreSane' 2>&1 | grep -o 'no CUDA device[^$]*' | head -n 1)
    echo "skipped: $skipped tests that need a GPU${reason:+ ($reason)}"
fi
echo "tests: $passed passed, $failed failed, $skipped skipped"
exit "$status"
