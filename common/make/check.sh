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
work=$(mktemp -d)
log="$work/check.log"
solution="$bin/solution${step}_${track}"
previous="$bin/solution$((step - 1))_${track}"

# The timing runs start now, beside the battery: each makes its data and checks its own run, then waits at a
# gate (a FIFO, held open here so that opening it never blocks) for the word go. The gates open one at a time
# once the battery and the sanitizers are over and every run has reached its gate (GATE.ready), so every time
# is that of a GPU running nothing else; on a FAIL
# the runs are ended untimed. A rate remembered by make watch (the solutions') is not measured again.
declare -A timing_pid gate_fd rate
start_timing() {  # NAME PROGRAM [options]
    local name=$1 fd
    shift
    mkfifo "$work/$name.gate" && exec {fd}<>"$work/$name.gate" || return 1
    gate_fd[$name]=$fd
    # The program opens its gate by name and holds no other end of any gate: if this script dies, it reads EOF.
    (
        for fd in "${gate_fd[@]}"; do exec {fd}>&-; done
        export WORKSHOP_TIMING_GATE="$work/$name.gate"
        exec "$@" "${rate_options[@]}" >"$work/$name.csv"
    ) &
    timing_pid[$name]=$!
}
wait_until_all_ready() {  # every run waits at its gate, or has ended: no set-up overlaps a timed run
    local name
    for name in "${!timing_pid[@]}"; do
        while [ ! -e "$work/$name.gate.ready" ] && kill -0 "${timing_pid[$name]}" 2>/dev/null; do sleep 0.02; done
    done
}
finish_timing() {  # NAME: opens its gate and waits for its rate
    local name=$1 fd=${gate_fd[$1]}
    echo go >&"$fd"
    wait "${timing_pid[$name]}"
    exec {fd}>&-
    unset "timing_pid[$name]"
    rate[$name]=$(rate_of_csv "$work/$name.csv")
}
stop_timing() {
    local pid
    for pid in "${timing_pid[@]}"; do kill "$pid" 2>/dev/null; done
    for pid in "${timing_pid[@]}"; do wait "$pid" 2>/dev/null; done
    timing_pid=()
}
trap 'stop_timing; rm -rf "$work"' EXIT

start_timing mine "$mine" "$@"
rate[solution]=$(remembered_rate "$solution" "$@")
[ -z "${rate[solution]}" ] && start_timing solution "$solution" "$@"
if [ "$step" -gt 1 ]; then
    rate[previous]=$(remembered_rate "$previous" "$@")
    [ -z "${rate[previous]}" ] && start_timing previous "$previous" "$@"
fi

echo "== step $step $track: your code on every shape, then memcheck and racecheck"
"$mine" --check | tee "$log"
status=${PIPESTATUS[0]}
[ $status -eq 3 ] && exit 3  # no CUDA device: the program said so
last=$(tail -n 1 "$log")
if [ $status -ne 0 ]; then
    stop_timing
    reason=${last#FAIL: }
    [[ $last == FAIL:* ]] || reason="the checker itself ended with exit $status"
    echo "VERDICT step $step $track: FAIL ($reason)"
    exit $status
fi
not_run=""
[[ $last == *"not run"* ]] && not_run="; memory and race checks not run (no compute-sanitizer)"

remembered=""
[[ ${WORKSHOP_RATE_CACHE_S:-0} =~ ^[1-9][0-9]*$ ]] && remembered="; the solutions' times are remembered for $WORKSHOP_RATE_CACHE_S s"
echo "== timing your code, this step's solution and the last step's (same size, same machine, one at a time$remembered)"
wait_until_all_ready
finish_timing mine
for name in solution previous; do
    [ -n "${timing_pid[$name]:-}" ] || continue
    finish_timing "$name"
    [ $name = solution ] && remember_rate "${rate[$name]}" "$solution" "$@"
    [ $name = previous ] && remember_rate "${rate[$name]}" "$previous" "$@"
done
mine_rate=${rate[mine]} solution_rate=${rate[solution]} previous_rate=${rate[previous]:-}

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
