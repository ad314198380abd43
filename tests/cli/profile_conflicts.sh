#!/usr/bin/env bash
# make profile's bank-conflict measure, checked against logs of real H100 runs (transpose at 1024 x 1024):
# step 3's tile read down a column has 31 excess wavefronts per instruction (32,768 instructions), and step 4's
# padded tile has none, although ncu's raw conflict counter reads 25 there. And ncu is asked for the step's kernel.
#   profile_conflicts.sh PROFILE_SCRIPT LOG_DIR
set -u
profile=$1 logs=$2
fake=$(mktemp -d)
trap 'rm -rf "$fake"' EXIT
ln -s "$(cd "$(dirname "$0")" && pwd)/fake_ncu.sh" "$fake/ncu"
status=0
expect() {  # log, counter name, expected value
    local line
    line=$(FAKE_NCU_LOG="$logs/$1" PATH="$fake:$PATH" "$profile" /bin/true transpose | grep -F "$2")
    if [[ $line =~ [[:space:]]$3[[:space:]] ]]; then
        echo "ok: $1: $line"
    else
        echo "FAIL: $1: expected $2 = $3, got: '${line}'"
        status=1
    fi
}
expect solution3_transpose_1024.csv "shared load bank conflicts" 1015808
expect solution3_transpose_1024.csv "shared store bank conflicts" 0
expect solution4_transpose_1024.csv "shared load bank conflicts" 0
expect solution4_transpose_1024.csv "shared store bank conflicts" 0
# The program runs without its guards: with them, its first launch is the harness's shared-memory poison, and
# that is what --launch-count 1 profiled.
FAKE_NCU_LOG="$logs/solution4_transpose_1024.csv" FAKE_NCU_ARGS="$fake/args" PATH="$fake:$PATH" "$profile" /bin/true \
    transpose >/dev/null
if grep -qx -- "--no-guards" "$fake/args" && grep -qx -- "--launch-count" "$fake/args"; then
    echo "ok: the profiled run has no guards"
else
    echo "FAIL: profile.sh runs the program with its guards on, so ncu profiles the harness's first kernel"
    status=1
fi
exit $status
