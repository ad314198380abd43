#!/usr/bin/env bash
# make watch: the student's session. Shows the current step and track (the first not done yet, or the one
# asked for), watches every step file, and on each save rebuilds that one program and runs its check. Keys:
# h hint, p profile, s sanitize, n/b next/previous step, t the other track, l the list, r reset, q quit.
#   watch.sh BUILD_DIR [STEP] [TRACKS]
# WATCH=once, or no terminal: one screen for the current step, then exit with make check's code (check.sh; a
# compile error is a FAIL).
# WATCH_POLL=1 looks at the files every half second instead of using inotifywait (watch_files.sh).
# shellcheck source-path=SCRIPTDIR
set -u
here=$(cd "$(dirname "$0")" && pwd)
source "$here/progress.sh"
source "$here/lib.sh"
source "$here/watch_keys.sh"
build=$(cd "${1:-}" 2>/dev/null && pwd) ||
    { echo "error: no build folder '${1:-}' (run make first); usage: watch.sh BUILD_DIR [STEP] [TRACKS]" >&2;
      exit "${exit_codes[kExitBadUsage]}"; }
step=${2:-} tracks=${3:-$PROGRESS_TRACKS} PROGRESS_BUILD=$build
"$here/quiet_build.sh" "$build" workshop_progress || exit 1
# A step that is not 1 to 5 or a track that is neither: the program's one line, and its exit code.
for t in $tracks; do progress_state "${step:-1}" "$t" >/dev/null || exit; done
# The whole session on one GPU, so that every check's figures compare (pick_gpu.sh).
keep_to_one_gpu || exit $?
# The checks below are make invocations of their own, not part of the make that started the watch.
unset MAKEFLAGS MFLAGS MAKELEVEL

interactive=yes
[ "${WATCH:-}" = once ] || ! [ -t 0 ] || ! [ -t 1 ] && interactive=no
bold="" red="" yellow="" normal="" clear_screen=""
if [ -t 1 ]; then
    bold=$(tput bold 2>/dev/null) red=$(tput setaf 1 2>/dev/null) yellow=$(tput setaf 3 2>/dev/null)
    normal=$(tput sgr0 2>/dev/null) clear_screen=$'\033[H\033[2J'
    export WORKSHOP_COLOR=always  # the verdict program colours its verdict line
fi
# Where the session starts: the step asked for, else the first step and track not done yet.
if [ -z "$step" ]; then
    read -r step track <<<"$(progress_next "$tracks")"
    [ -n "$step" ] || { step=5; track=${tracks%% *}; }
else
    track=${tracks%% *}
    for t in $tracks; do [ "$(progress_state "$step" "$t")" != "done" ] && { track=$t; break; }; done
fi
keep_starting_points
# took: the last build and check's times; run: checks so far (numbered on screen); outcome: the last check's
# (compiling, build_error, no_gpu, done, slow, failed, not_checked, broken); result: what it printed; panel: what
# the last key asked for; gpu: whether there is one to check on.
took="" run=0 outcome="" result="" panel="" gpu=unknown gpu_said=no no_gpu_said=""
declare -A hints_shown limits solutions_built
file() { echo "step$step/$track.cu"; }
seconds_since() { local t=$(((${EPOCHREALTIME/[.,]/} - ${1/[.,]/}) / 100000)); echo "$((t / 10)).$((t % 10))"; }
live() {  # output of a long command: kept for the next redraw, and on screen as it comes (interactive only)
    while IFS= read -r line; do printf '%s\n' "$line"; [ $interactive = no ] || printf '%s\n' "$line" >/dev/tty; done
}

# Builds the current step's program alone (compile errors as file:line), then runs its check as make check does.
# The check's program records its verdict; its exit status says how it ended. The solutions it is timed
# against are built on the first check of a step.
check_current() {
    run=$((run + 1)) outcome=compiling result="" took=""
    [ $interactive = yes ] && draw
    local started=$EPOCHREALTIME targets=("solution${step}_${track}")
    if ! result=$("$here/quiet_build.sh" "$build" "step${step}_${track}" 2>&1); then outcome=build_error; return; fi
    took="build $(seconds_since "$started") s"
    # Whether there is a GPU, asked once: "no" also keeps the solutions from being built for checks that cannot run.
    if [ $gpu = unknown ]; then
        if no_gpu_said=$(no_device_line launch "$build/bin/step${step}_${track}"); then gpu=no; else gpu=yes; fi
    fi
    [ $gpu = no ] && { outcome=no_gpu; return; }
    outcome=checking started=$EPOCHREALTIME
    [ $interactive = yes ] && draw
    [ "$step" -gt 1 ] && targets+=("solution$((step - 1))_${track}")
    if [ -z "${solutions_built[$step.$track]:-}" ]; then
        result=$("$here/quiet_build.sh" "$build" "${targets[@]}" 2>&1) || { outcome=broken; return; }
        solutions_built[$step.$track]=yes
    fi
    result=$(set -o pipefail; launch "$here/check.sh" "$build/bin" "$step" "$track" 2>&1 | live)
    case $? in
        "${exit_codes[kExitOk]}") [ "$(progress_state "$step" "$track")" = "done" ] && outcome="done" || outcome=slow ;;
        "${exit_codes[kExitNoDevice]}") outcome=no_gpu ;;
        "${exit_codes[kExitOutOfMemory]}") outcome=not_checked ;;
        "${exit_codes[kExitWrongAnswer]}") outcome=failed ;;
        *) [ "$(progress_state "$step" "$track")" = failed ] && outcome=failed || outcome=broken ;;
    esac
    took+=", check $(seconds_since "$started") s"
}

draw() {
    local rule="------------------------------------------------------------------------------------------------"
    printf '%s%smake watch: step %s, %s%s  (%s; lesson: step%s/README.md)   done: %s of 10   [check %d]\n%s\n' \
        "$clear_screen" "$bold" "$step" "$track" "$normal" "$(file)" "$step" "$(progress_done_count)" "$run" "$rule"
    case $outcome in
        compiling) echo "$(file): building ..." ;;
        checking) echo "$(file) builds; checking ..." ;;
        build_error) printf '%s%s does not compile:%s\n%s\n' "$red" "$(file)" "$normal" "$result" ;;
        no_gpu) echo "$(file) builds."
            if [ $gpu_said = no ]; then
                printf '%schecks need a GPU%s, and there is none here (%s).\n' "$yellow" "$normal" "$no_gpu_said"
                echo "Compile errors, hints (h), the list (l) and reset (r) still work." && gpu_said=yes
            else echo "(no GPU here, so no check: make check where there is one)"; fi ;;
        *) echo "$result"
           [[ $outcome =~ ^(done|slow)$ ]] && speed_line ;;
    esac
    [ -n "$took" ] && echo "($took)"
    [ -n "$panel" ] && printf '%s\n%s\n' "$rule" "$panel"
    printf '%s\n%snext:%s %s\n' "$rule" "$bold" "$normal" "$(progress_program watch-advice "$step" "$track" "$outcome")"
    [ $interactive = no ] || printf 'keys: h hint (%s of %s shown)  %s\n' "${hints_shown[$step.$track]:-0}" \
        "$(progress_program hint-count "$step" "$track")" \
        "p profile  s sanitize  n/b next/previous step  t other track  l list  r reset  q quit"
}

speed_line() {  # under a PASS: the speed beside the solution's and the device's limit (asked once a session)
    [ -n "${limits[$track]+set}" ] || limits[$track]=$(launch "$build/bin/solution${step}_${track}" --size 64 \
        "${single_run[@]}" --no-host --json 2>/dev/null)
    progress_program speed-line "$step" "$track" <<<"${limits[$track]}"
}

if [ $interactive = no ]; then
    check_current
    draw
    declare -A code_of=([done]=kExitOk [slow]=kExitOk [no_gpu]=kExitNoDevice [not_checked]=kExitOutOfMemory)
    exit "${exit_codes[${code_of[$outcome]:-kExitWrongAnswer}]}"
fi

terminal=$(stty -g)
trap '[ -n "${watcher:-}" ] && kill "$watcher" 2>/dev/null; rm -rf "${events_dir:-}"; stty "$terminal"; echo' EXIT
trap 'exit 130' INT TERM HUP
stty -echo -icanon
# The watcher writes one saved path a line to a FIFO that the loop reads, between keys.
events_dir=$(mktemp -d) && mkfifo "$events_dir/events" && exec {events}<>"$events_dir/events" || exit 1
"$here/watch_files.sh" "$PROGRESS_TOP" 1>&"$events" &
watcher=$!
check_current
draw
while :; do
    if IFS= read -rsn1 -t 0.1 key; then on_key "$key"
    elif [ $? -le 128 ]; then exit 0; fi  # the terminal went away
    saved=()  # the step files saved since the last look, each once
    while IFS= read -r -t 0.05 -u "$events" path; do
        [[ $path =~ /step[1-5]/(transpose|matmul)\.cu$ && " ${saved[*]} " != *" $path "* ]] && saved+=("$path")
    done
    for path in "${saved[@]}"; do
        [[ $path =~ /step([1-5])/(transpose|matmul)\.cu$ ]] || continue
        [ "${BASH_REMATCH[1]}" = "$step" ] && [ "${BASH_REMATCH[2]}" = "$track" ] || panel=""
        step=${BASH_REMATCH[1]} track=${BASH_REMATCH[2]}
        check_current
        draw
    done
done
