#!/usr/bin/env bash
# Runs the CTest suite and closes with one line counting passed, failed and skipped tests, so skipped GPU
# tests are never mistaken for passed ones, and says why they were skipped.
#   run_tests.sh BUILD_DIR [ctest options]
set -u -o pipefail
build=$1
shift
source "$(dirname "$0")/lib.sh"
log=$(mktemp) details=$(mktemp)
trap 'rm -f "$log" "$details"' EXIT

# run_ctest [launch] ctest-options: one ctest run; its output and its detailed log are kept for the summary.
run_ctest() {
    "$@" 2>&1 | tee -a "$log"
    local status=${PIPESTATUS[0]}
    cat "$build/Testing/Temporary/LastTest.log" >>"$details" 2>/dev/null
    return "$status"
}

status=0
if [ -z "$(workshop_setting WORKSHOP_LAUNCHER)" ]; then
    run_ctest ctest --test-dir "$build" --output-on-failure "$@" || status=$?
else
    # On a cluster: the tests that need no GPU run here, the GPU-labelled ones as one job of the launcher.
    run_ctest ctest --test-dir "$build" --output-on-failure "$@" -LE gpu || status=$?
    run_ctest launch "$(command -v ctest)" --test-dir "$build" --output-on-failure "$@" -L gpu || status=$?
fi

passed=$(grep -cE 'Test +#[0-9]+: .* Passed' "$log")
failed=$(grep -cE '\*\*\*(Failed|Exception|Timeout|Not Run)|\*\*\*\*\*\*' "$log")
skipped=$(grep -cE '\*\*\*Skipped' "$log")
echo
if [ "$skipped" -gt 0 ]; then
    # Each skipped test said why (GoogleTest prints the reason on the line after "Skipped"; the scripts print
    # "no CUDA device ..."): list the distinct reasons.
    echo "skipped $skipped tests, for these reasons:"
    { grep -A1 -E ': Skipped$' "$details" | grep -vE ': Skipped$|^--$'
      grep -hoE '^no CUDA device.*' "$details"; } |
        sed -E 's/^no CUDA device.*/no CUDA device on this machine/' | sort -u | sed 's/^/  - /'
fi
echo "tests: $passed passed, $failed failed, $skipped skipped"
exit "$status"
