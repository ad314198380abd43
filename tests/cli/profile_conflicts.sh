#!/usr/bin/env bash
# make profile's bank-conflict measure, checked against logs of real H100 runs (transpose at 1024 x 1024):
# step 3's tile read down a column has 31 excess wavefronts per instruction (32,768 instructions), and step 4's
# padded tile has none, although ncu's raw conflict counter reads 25 there. And ncu is asked for the step's kernel.
# The step's program is a stand-in that does nothing, beside the workshop_profile that reads the counters.
#   profile_conflicts.sh PROFILE_SCRIPT LOG_DIR WORKSHOP_PROFILE
set -u
profile=$1 logs=$2 reader=$3
fake=$(mktemp -d)
trap 'rm -rf "$fake"' EXIT
ln -s "$(cd "$(dirname "$0")" && pwd)/fake_ncu.sh" "$fake/ncu"
mkdir "$fake/bin" && ln -s "$(command -v true)" "$fake/bin/step3_transpose" && ln -s "$reader" "$fake/bin/workshop_profile"
status=0
expect() {  # log, counter name, expected value
    local line
    line=$(FAKE_NCU_LOG="$logs/$1" PATH="$fake:$PATH" "$profile" "$fake/bin/step3_transpose" transpose | grep -F "$2")
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
# The whole table, as a student sees it: the slides' names, the values (the duration in ncu's unit), the ideals.
table=$(FAKE_NCU_LOG="$logs/solution3_transpose_1024.csv" PATH="$fake:$PATH" "$profile" "$fake/bin/step3_transpose" \
    transpose)
expected=$(cat <<'TABLE'
== step3_transpose --size 8192: kernel transpose_shared_tile(const float *, float *, int, int)
  counter (slides' name)                    value   ideal
  duration                              11,552 ns   -
  global load efficiency (%)                  n/a   100
  global store efficiency (%)                 n/a   100
  sectors per load request                    n/a   4 (16 with float4)
  sectors per store request                   n/a   4 (16 with float4)
  shared load bank conflicts              1015808   0
  shared store bank conflicts                   0   0
  achieved occupancy (%)                      n/a   near theoretical
  DRAM throughput (% of peak)                 n/a   > 85
  FMA pipe busy (% of peak)                   n/a   -
TABLE
)
if [ "$table" = "$expected" ]; then echo "ok: the table as a student sees it"
else echo "FAIL: the table differs:"; diff <(echo "$expected") <(echo "$table"); status=1; fi
# The program runs without its guards: with them, its first launch is the harness's shared-memory poison, and
# that is what --launch-count 1 profiled.
FAKE_NCU_LOG="$logs/solution4_transpose_1024.csv" FAKE_NCU_ARGS="$fake/args" PATH="$fake:$PATH" "$profile" "$fake/bin/step3_transpose" \
    transpose >/dev/null
if grep -qx -- "--no-guards" "$fake/args" && grep -qx -- "--launch-count" "$fake/args"; then
    echo "ok: the profiled run has no guards"
else
    echo "FAIL: profile.sh runs the program with its guards on, so ncu profiles the harness's first kernel"
    status=1
fi
# No GPU: the program's own line and exit code, and ncu is not started.
# shellcheck source=../../common/base/exit_codes.sh
source "$(dirname "$0")/../../common/base/exit_codes.sh"
no_device=${exit_codes[kExitNoDevice]}
printf '#!/usr/bin/env bash\necho "no CUDA device: none here" >&2\nexit %s\n' "$no_device" >"$fake/bin/step2_transpose"
chmod +x "$fake/bin/step2_transpose" && rm -f "$fake/args"
output=$(FAKE_NCU_LOG=/dev/null FAKE_NCU_ARGS="$fake/args" PATH="$fake:$PATH" "$profile" "$fake/bin/step2_transpose" \
    transpose 2>&1)
code=$?
if [ $code -eq "$no_device" ] && [ "$output" = "no CUDA device: none here" ] && [ ! -e "$fake/args" ]; then
    echo "ok: no GPU: the program's line, exit $code, no ncu"
else
    echo "FAIL: no GPU: exit $code, '$output'$([ -e "$fake/args" ] && echo ", and ncu ran")"
    status=1
fi
exit $status
