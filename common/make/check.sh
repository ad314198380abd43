#!/usr/bin/env bash
# make check for one track: the program's own checker (every shape of the battery, NaN poison and
# guard zones, misaligned pointers, and compute-sanitizer's memcheck and racecheck at a small shape), then, if
# it passes, the speed next to this step's solution and the last step's. Ends with one line:
#   VERDICT step N TRACK: PASS, <rate> <unit>, <n>% of the solution[, <x>x step N-1]
#   VERDICT step N TRACK: FAIL (<what went wrong>)
# and exits 0 on PASS, 3 without a GPU, non-zero otherwise.
#   check.sh BIN STEP TRACK [program options for the timing runs]
set -u -o pipefail
bin=$1 step=$2 track=$3
shift 3
source "$(dirname "$0")/lib.sh"
mine="$bin/step${step}_${track}"
unit=$([ "$track" = transpose ] && echo GB/s || echo GFLOP/s)
log=$(mktemp)
trap 'rm -f "$log"' EXIT

echo "== step $step $track: your code on every shape, then memcheck and racecheck"
"$mine" --check | tee "$log"
status=${PIPESTATUS[0]}
[ $status -eq 3 ] && exit 3  # no CUDA device: the program said so
last=$(tail -n 1 "$log")
if [ $status -ne 0 ]; then
    reason=${last#FAIL: }
    [[ $last == FAIL:* ]] || reason="the checker itself ended with exit $status"
    echo "VERDICT step $step $track: FAIL ($reason)"
    exit $status
fi
not_run=""
[[ $last == *"not run"* ]] && not_run="; memory and race checks not run (no compute-sanitizer)"

remembered=""
[[ ${WORKSHOP_RATE_CACHE_S:-0} =~ ^[1-9][0-9]*$ ]] && remembered="; the solutions' times are remembered for $WORKSHOP_RATE_CACHE_S s"
echo "== timing your code, this step's solution and the last step's (same size, same machine$remembered)"
mine_rate=$(step_rate "$mine" "$@")
solution_rate=$(remembered_step_rate "$bin/solution${step}_${track}" "$@")
previous_rate=""
[ "$step" -gt 1 ] && previous_rate=$(remembered_step_rate "$bin/solution$((step - 1))_${track}" "$@")

if [ -z "$mine_rate" ]; then
    echo "VERDICT step $step $track: PASS on the CPU path; no kernel launched yet (write transpose_on_device / matmul_on_device)$not_run"
    exit 0
fi
awk -v m="$mine_rate" -v s="$solution_rate" -v p="$previous_rate" -v step="$step" -v track="$track" -v unit="$unit" \
    -v extra="$not_run" 'BEGIN {
    line = sprintf("VERDICT step %d %s: PASS, %.0f %s, %.0f%% of the solution", step, track, m, unit, 100 * m / s)
    if (p != "") line = line sprintf(", %.2fx step %d", m / p, step - 1)
    print line extra
    if (m < 0.8 * s) print "  (correct, but well short of the solution: hints/" track ".md (h in make watch) and make profile show what to change)"
}'
