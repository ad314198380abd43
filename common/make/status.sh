#!/usr/bin/env bash
# make status: where a student stands. For every step and track: does the student's file build, does it pass
# the shape battery, and how fast is it next to that step's solution; and the verdict make check last gave
# (progress.sh remembers it, and what this measures). The first step not done is marked with what to do next:
# make watch starts there.
#   status.sh BUILD_DIR [--recorded]      (--recorded: builds and runs nothing; the remembered verdicts only)
set -u
build=$1 mode=${2:-live}
bin="$build/bin"
# Emphasis only on a terminal: `make status > file` writes plain text.
bold="" normal=""
if [ -t 1 ]; then bold=$(tput bold 2>/dev/null || true) normal=$(tput sgr0 2>/dev/null || true); fi

source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/../room/class.sh"
source "$(dirname "$0")/progress.sh"

# build_step BUILD TARGET: builds TARGET, printing the compiler's messages when it fails. In the launcher's job
# (WORKSHOP_STATUS_BUILT set) it builds nothing: it reports what the build on the login node found.
build_step() {
    local failed="$1/status/$2.log"
    if [ -z "${WORKSHOP_STATUS_BUILT:-}" ]; then
        mkdir -p "$1/status"
        if cmake --build "$1" --target "$2" >"$failed" 2>&1; then rm -f "$failed"; fi
    fi
    [ ! -e "$failed" ] || { cat "$failed"; return 1; }
}
# On a cluster every figure comes from one job, so one GPU: the builds happen here (the login node), then this
# script runs again through the launcher and reads their outcomes.
if [ "$mode" != --recorded ] && [ -n "$(workshop_setting WORKSHOP_LAUNCHER)" ]; then
    for target in step{1..5}_{transpose,matmul}; do build_step "$build" "$target" >/dev/null; done
    WORKSHOP_STATUS_BUILT=yes launch "$0" "$@"
    exit
fi
# Here, as well, every figure comes from one GPU: on a machine with several, the least busy (pick_gpu.sh).
[ "$mode" = --recorded ] || keep_to_one_gpu || exit $?

if [ "$mode" = --recorded ]; then
    gpu=no
elif no_device_line "$bin/solution1_transpose" >/dev/null; then
    gpu=no
    echo "(no CUDA device here: showing whether each step builds; correctness and speed need a GPU)"
else
    gpu=yes
fi

# row STEP TRACK BUILDS CORRECT SPEED RATIO VERDICT: one line of the table; only the remembered verdict when
# nothing was measured.
row() {
    if [ "$mode" = --recorded ]; then printf '%-6s %-10s %s' "$1" "$2" "$7"
    else printf '%-6s %-10s %-8s %-8s %-14s %-14s %s' "$@"; fi
}
row step track builds correct speed "of solution" "last make check"; echo
next="" rows=""
for step in 1 2 3 4 5; do
    for track in transpose matmul; do
        size=$([ "$track" = transpose ] && echo "--size 4096" || echo "--size 2048")
        unit=$([ "$track" = transpose ] && echo GB/s || echo GFLOP/s)
        builds=yes correct=- speed=- ratio=- problem="" mine="" solution="" marked=""
        if [ "$mode" = --recorded ]; then builds=-
        elif ! err=$(build_step "$build" "step${step}_${track}"); then
            builds=NO
            problem="fix the compile error: $(grep -m1 -E 'error' <<<"$err")"
        elif [ $gpu = yes ]; then
            "$bin/step${step}_${track}" --check >/dev/null 2>&1
            case $? in
                0) correct=PASS ;;
                4) problem="part of the check could not run here (too little free memory, or a GPU too busy): "
                   problem+="make check says which" ;;
                *) correct=FAIL problem="make check shows the first wrong element" ;;
            esac
            mine=$(step_rate "$bin/step${step}_${track}" $size --reps 5 --min-time 0 --warmup 1 2>/dev/null)
            solution=$(step_rate "$bin/solution${step}_${track}" $size --reps 5 --min-time 0 --warmup 1 2>/dev/null)
            if [ -n "$mine" ] && [ -n "$solution" ]; then
                speed=$(printf '%.0f %s' "$mine" "$unit")
                ratio=$(awk -v m="$mine" -v s="$solution" 'BEGIN { printf "%.0f%%", 100 * m / s }')
                [ -z "$problem" ] && awk -v m="$mine" -v s="$solution" 'BEGIN { exit !(m < 0.8 * s) }' &&
                    problem="correct but slower than the solution: the TODOs in step${step}/${track}.cu"
            elif [ -z "$mine" ] && [ $correct = - ]; then
                ratio="not run here"  # the check could not run either (exit 4): nothing says there is no kernel
            elif [ -z "$mine" ] && [ $correct != FAIL ]; then
                # (A wrong kernel may have no rate either: its timed run stops at a wrong answer.)
                ratio="no kernel yet"
                [ -z "$problem" ] && problem="write the first kernel: the TODOs in step${step}/${track}.cu"
            fi
        fi
        # What was measured here is a verdict too: make watch and the next make status start from it.
        [ $correct != - ] && progress_save "$step" "$track" "$correct" \
            "$([ -n "$mine" ] && printf '%.0f' "$mine" || echo -)" "$unit" \
            "$([ -n "$mine" ] && [ -n "$solution" ] && awk -v m="$mine" -v s="$solution" 'BEGIN { printf "%.0f", 100 * m / s }' || echo 0)"
        [ -z "$problem" ] && problem=$(progress_advice "$step" "$track")
        line=$(row "$step" "$track" "$builds" "$correct" "$speed" "$ratio" "$(progress_summary "$step" "$track")")
        if [ -z "$next" ] && [ -n "$problem" ]; then
            next="step $step ($track): $problem; then cd step$step && make check (the lesson: step$step/README.md)"
            marked=next
            echo "${bold}${line}   <- next${normal}"
        else
            echo "$line"
        fi
        rows+="$step,$track,$builds,$correct,$mine,$solution,$marked"$'\n'
    done
done
echo
if [ -n "$next" ]; then echo "next: $next"
else echo "every step is done: each passed its checks close to its solution."; fi
[ "$mode" = --recorded ] || class_save "$rows" "$gpu"
