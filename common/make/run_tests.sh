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

# On a machine with several GPUs and no launcher, all the GPU tests on one: the least busy (pick_gpu.sh).
keep_to_one_gpu || exit $?
status=0
if [ -n "$(workshop_setting WORKSHOP_LAUNCHER)" ] || gpu_takes_one_process_at_a_time; then
    # On a cluster, or on a GPU that takes one process at a time: the tests that need no GPU run here, side by
    # side; the GPU-labelled ones where the GPU is (launch: one job of the launcher, else here), through
    # gpu_tests.sh, which there looks at the GPU and runs them one after another where they must.
    run_ctest ctest --test-dir "$build" --output-on-failure "$@" -LE gpu || status=$?
    run_ctest launch "$(cd "$(dirname "$0")" && pwd)/gpu_tests.sh" "$(command -v ctest)" "$build" "$@" || status=$?
else
    run_ctest ctest --test-dir "$build" --output-on-failure "$@" || status=$?
fi

# Each test once by name: on a cluster a fixture the GPU tests need (watch.prepare_tree) runs in both parts.
count_tests() { grep -E "$1" "$log" | sed -E 's/.*Test +#[0-9]+: ([^ ]+) .*/\1/' | sort -u | wc -l; }
passed=$(count_tests 'Test +#[0-9]+: .* Passed')
failed=$(count_tests 'Test +#[0-9]+: .*(\*\*\*(Failed|Exception|Timeout|Not Run)|\*\*\*\*\*\*)')
skipped=$(count_tests 'Test +#[0-9]+: .*\*\*\*Skipped')
echo
if [ "$skipped" -gt 0 ]; then
    # Each skipped test said why (GoogleTest prints the reason on the line after "Skipped"; the scripts print
    # "no CUDA device ..."): list the distinct reasons.
    echo "skipped $skipped tests, for these reasons:"
    { grep -A1 -E ': Skipped$' "$details" | grep -vE ': Skipped$|^--$'
      # A script's or a command-line test's reason: "no CUDA device" in the output of a test that was skipped
      # (cli.no_device passes with the same words), what was not built for want of a GPU (WORKSHOP_GPU_TESTS),
      # too little memory (the largest.* tests, and the student bugs that only step 1's very large round trip
      # shows), or a check that could not run here (NOT CHECKED).
      grep -E 'Test +#[0-9]+: .*\*\*\*Skipped' "$log" | sed -E 's/.*Test +#[0-9]+: ([^ ]+) .*/\1/' |
          awk 'NR == FNR { skipped[$0] = 1; next }
               /^[0-9]+\/[0-9]+ Testing: / { on = ($NF in skipped) }
               on && /^skipped: .*; not built: / {
                   sub(/^skipped: [^;]*; /, ""); sub(/ \(configure with .*/, ""); print
                   print "the tests not built: configure with -DWORKSHOP_GPU_TESTS=ON on a GPU machine" }
               on && /no CUDA device/ { print "no CUDA device" }
               on && /^not enough (device|host) memory/ { print "not enough " $3 " memory for the largest matrices of some tests" }
               on && /^skipped: NOT CHECKED: / { print "make check could not run here (NOT CHECKED: the test says why)" }' \
               - "$details"; } |
        sed -E 's/^no CUDA device.*/no CUDA device on this machine/' | sort -u | sed 's/^/  - /'
fi
echo "tests: $passed passed, $failed failed, $skipped skipped"
exit "$status"
