#!/usr/bin/env bash
# make check for one track: the program's own checker (every shape of the battery, NaN poison and guard zones,
# misaligned pointers, and compute-sanitizer's memcheck, racecheck and synccheck at two small shapes), then, if it
# passes, the speed (of a run that is checked as well) next to this step's solution and the last step's. Ends with
# one line:
#   VERDICT step N TRACK: PASS, <rate> <unit>, <n>% of the solution[, <x>x step N-1]
#   VERDICT step N TRACK: FAIL (<what went wrong>)
#   VERDICT step N TRACK: NOT CHECKED (<what could not run here, and why>)
# and exits 0 on PASS, 3 without a GPU, 4 for NOT CHECKED (part of the check could not run here: too little free
# memory before any of the student's code ran, or a GPU too busy to start it; a verdict on the room, not on the
# code), non-zero otherwise.
#   check.sh BIN STEP TRACK [program options for the timing runs]
set -u -o pipefail
bin=$1 step=$2 track=$3
shift 3
# A fifth of a second of timed runs each, not the programs' default second: the verdict should come within seconds
# of a save, and a percent or two of wander in the share of the solution is fine there (make run and make bench
# time a full second for the figures that are published). Options given after it, ARGS included, win.
timing_options=(--min-time 0.2 "$@")
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/../room/gpu_turns.sh"
take_a_turn_on_this_gpu || exit $?
# The programs of a check do their CPU work (the data, the references, the verification) with OpenMP, whose
# threads, one per core in each program unless told otherwise, spin while they wait. On a machine with 64 cores one
# check alone kept eight of them busy: 81 s of CPU in 10 s, where eight threads a program that sleep while they
# wait took 10 s of CPU (and as much system time as before) in the same 10 s, leaving the cores to the students
# beside it.
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-$(($(nproc) < 8 ? $(nproc) : 8))}
mine="$bin/step${step}_${track}"
unit=$([ "$track" = transpose ] && echo GB/s || echo GFLOP/s)
work=$(mktemp -d)
log="$work/check.log"
solution="$bin/solution${step}_${track}"
previous="$bin/solution$((step - 1))_${track}"

# Your timing run starts now, beside the battery: it makes its data and checks its own run, then waits at a
# gate (a FIFO, held open here so that opening it never blocks) for the word go, sent once the battery and the
# sanitizers are over, so its time is that of a GPU running nothing else; on a FAIL it ends untimed. It is
# checked too: wrong at the timed size, it ends there and the verdict is FAIL. What it says waits in files, to be
# shown only if it is the run that fails (so a missing GPU is reported once, by the battery, every time). The
# solutions' runs come after it, one at a time, each alone on the GPU: on the H100, runs that waited at gates
# beside each other, each holding a CUDA context, moved one another's times by up to 3%.
gate="$work/gate"
mkfifo "$gate" && exec {gate_fd}<>"$gate"
(
    exec {gate_fd}>&-  # the program holds no writing end: if this script dies, it reads EOF and ends untimed
    export WORKSHOP_TIMING_GATE="$gate"
    exec "$mine" "${timing_options[@]}" "${rate_options[@]}" >"$work/mine.csv" 2>"$work/mine.err"
) &
timing_pid=$!
stop_timing() {
    [ -n "$timing_pid" ] && kill "$timing_pid" 2>/dev/null && wait "$timing_pid" 2>/dev/null
    timing_pid=""
}
trap 'stop_timing; rm -rf "$work"' EXIT

echo "== step $step $track: your code on every shape, then memcheck, racecheck and synccheck"
"$mine" --check | tee "$log"
status=${PIPESTATUS[0]}
[ $status -eq 3 ] && exit 3  # no CUDA device: the program said so
last=$(tail -n 1 "$log")
if [ $status -ne 0 ]; then
    stop_timing
    if [ $status -eq 4 ] && [[ $last == "NOT CHECKED: "* ]]; then
        echo "VERDICT step $step $track: NOT CHECKED (${last#NOT CHECKED: })"
        exit $status
    fi
    reason=${last#FAIL: }
    [[ $last == FAIL:* ]] || reason="the checker itself ended with exit $status"
    echo "VERDICT step $step $track: FAIL ($reason)"
    exit $status
fi
not_run=""
[[ $last == *"not run"* ]] && not_run="; memory, race and barrier checks not run (no compute-sanitizer)"

remembered=""
[[ ${WORKSHOP_RATE_CACHE_S:-0} =~ ^[1-9][0-9]*$ ]] &&
    remembered="; the solutions' times are remembered for $WORKSHOP_RATE_CACHE_S s"
echo "== timing your code, this step's solution and the last step's (same size, same machine, each alone on the GPU$remembered)"
echo go >&"$gate_fd"
wait "$timing_pid"
timing_status=$?
timing_pid=""
if [ $timing_status -ne 0 ]; then
    # It checks the run it times: wrong there (a size the battery does not reach), or unable to run that size.
    grep -v '^track,' "$work/mine.csv"
    cat "$work/mine.err"
    failed=$(grep '^FAIL: ' "$work/mine.csv" | tail -n 1)
    # The harness's refusal of the timed size, or of a context on a GPU that has no room or is held by another
    # process, comes before the student's code runs (as in the battery's NOT RUN).
    refusal=$(harness_refusal <"$work/mine.err")
    if [ $timing_status -eq 4 ] && [ -z "$failed" ] && [ -n "$refusal" ]; then
        echo "VERDICT step $step $track: NOT CHECKED (correct on every shape, but the timed run could not start: $refusal)"
        exit $timing_status
    fi
    reason=${failed#FAIL: }
    [ -n "$failed" ] || reason="the timing run ended with exit $timing_status: $(tail -n 1 "$work/mine.err")"
    echo "VERDICT step $step $track: FAIL ($reason)"
    exit $timing_status
fi
mine_rate=$(rate_of_csv "$work/mine.csv")
solution_rate=$(remembered_step_rate "$solution" "${timing_options[@]}")
previous_rate=""
[ "$step" -gt 1 ] && previous_rate=$(remembered_step_rate "$previous" "${timing_options[@]}")

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
# Students who share a GPU share its bandwidth, and the three timings above ran one after the other: each saw its
# own share of the others' work: with eight students' checks at once on two H200s, a correct step 2 read 2.4x to 8.3x
# step 1. The checks' timings now take turns on a GPU (common/measure/gpu_timing_lock.hpp), but the others' batteries and
# sanitizers still run beside them. None of ours holds a CUDA context now, so whatever nvidia-smi lists on this GPU
# is someone else's.
others=$(processes_on_this_gpu)
if [ "${others:-0}" -gt 0 ]; then
    [ "$others" -eq 1 ] && who="1 other program was" || who="$others other programs were"
    echo "  ($who using this GPU as the timing ended: the speeds above may be off; check again when it is quieter)"
fi
