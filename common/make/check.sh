#!/usr/bin/env bash
# make check for one track: the student's program on the whole shape battery, then timed next to this step's
# solution and the previous step's, ending in one verdict line.
#   check.sh BIN STEP TRACK [program options]
set -u
bin=$1 step=$2 track=$3
shift 3
source "$(dirname "$0")/lib.sh"
mine="$bin/step${step}_${track}"
unit=$([ "$track" = transpose ] && echo GB/s || echo GFLOP/s)

echo "== step $step $track: your code on the shape battery"
"$mine" --check
status=$?
if [ $status -ne 0 ]; then
    [ $status -eq 1 ] && echo "VERDICT step $step $track: FAIL (wrong answer; the first bad element and a hint are above)"
    exit $status
fi


echo "== timing your code, this step's solution and the last step's (same size, same machine)"
mine_rate=$(step_rate "$mine" "$@")
solution_rate=$(step_rate "$bin/solution${step}_${track}" "$@")
previous_rate=""
[ "$step" -gt 1 ] && previous_rate=$(step_rate "$bin/solution$((step - 1))_${track}" "$@")

if [ -z "$mine_rate" ]; then
    echo "VERDICT step $step $track: PASS on the CPU path; no kernel launched yet (write transpose_on_device / matmul_on_device)"
    exit 0
fi
awk -v m="$mine_rate" -v s="$solution_rate" -v p="$previous_rate" -v step="$step" -v track="$track" -v unit="$unit" 'BEGIN {
    line = sprintf("VERDICT step %d %s: PASS, %.0f %s, %.0f%% of the solution", step, track, m, unit, 100 * m / s)
    if (p != "") line = line sprintf(", %.2fx step %d", m / p, step - 1)
    print line
    if (m < 0.8 * s) print "  (correct, but well short of the solution: the README hints and make profile show what to change)"
}'
