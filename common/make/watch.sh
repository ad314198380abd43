#!/usr/bin/env bash
# make watch: the student's session. Shows the current step and track (the first not done yet, or the one
# asked for), watches every step file, and on each save rebuilds that one program and runs its check. Keys:
# h hint, p profile, s sanitize, n/b next/previous step, t the other track, l the list, r reset, q quit.
#   watch.sh BUILD_DIR [STEP] [TRACKS]
# WATCH=once, or no terminal: one screen for the current step, then exit (0 PASS, 1 compile error or FAIL,
# 3 no GPU to check on, 4 part of the check could not run here: too little free memory, or a GPU too busy).
# WATCH_POLL=1 looks at the files every half second instead of using inotifywait.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
source "$here/progress.sh"
source "$here/lib.sh"

usage="usage: watch.sh BUILD_DIR [STEP 1-5] [TRACKS: transpose and/or matmul]"
build=$(cd "${1:-}" 2>/dev/null && pwd) ||
    { echo "error: no build folder '${1:-}' (run make first); $usage" >&2; exit 2; }
step=${2:-}
tracks=${3:-$PROGRESS_TRACKS}
[[ -z $step || $step =~ ^[1-5]$ ]] || { echo "error: step '$step' is not 1 to 5; $usage" >&2; exit 2; }
for t in $tracks; do
    [[ $t =~ ^(transpose|matmul)$ ]] || { echo "error: track '$t' is not transpose or matmul; $usage" >&2; exit 2; }
done
# The whole session on one GPU, so that every check's figures compare: on a machine with several and no launcher,
# the least busy one when the session starts (pick_gpu.sh).
keep_to_one_gpu || exit $?
# The checks below are make invocations of their own, not part of the make that started the watch.
unset MAKEFLAGS MFLAGS MAKELEVEL
# The solutions a check compares against do not change between saves: each is timed once in half an hour.
export WORKSHOP_RATE_CACHE_S=${WORKSHOP_RATE_CACHE_S:-1800}

interactive=yes
[ "${WATCH:-}" = once ] || ! [ -t 0 ] || ! [ -t 1 ] && interactive=no
bold="" red="" green="" yellow="" normal="" clear_screen=""
if [ -t 1 ]; then
    bold=$(tput bold 2>/dev/null) red=$(tput setaf 1 2>/dev/null) green=$(tput setaf 2 2>/dev/null)
    yellow=$(tput setaf 3 2>/dev/null) normal=$(tput sgr0 2>/dev/null) clear_screen=$'\033[H\033[2J'
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

took=""         # how long the last build and check took
run=0           # checks started so far: the screen numbers them, so a new result is told from the last one
outcome=""      # the last check: compiling, build_error, no_gpu, done, slow, failed, not_checked, broken
result=""       # what that check printed, as shown
panel=""        # what the last key asked for (a hint, the list, a profile, ...)
gpu=unknown     # whether there is a GPU to check on: probe_gpu asks once
gpu_said=no
no_gpu_said=""  # the program's line saying so
declare -A hints_shown limits solutions_built

file() { echo "step$step/$track.cu"; }
hints_file() { echo "$top/step$step/hints/$track.md"; }

# The hints file holds <details><summary>Hint N: title</summary> ... </details> blocks, from the idea to
# nearly the code. hint_count FILE; hint_text FILE N prints hint N as "Hint N of M: title" and its body.
hint_count() { local n; n=$(grep -c '<summary>Hint ' "$1" 2>/dev/null); echo "${n:-0}"; }
hint_text() {
    awk -v want="$2" -v total="$(hint_count "$1")" '
        /<summary>Hint / { n++; if (n == want) { t = $0; sub(/.*<summary>Hint [0-9]+:? */, "", t); sub(/<\/summary>.*/, "", t)
                                                   printf "Hint %d of %d%s\n", n, total, (t == "" ? "" : ": " t) }
                           next }
        /<\/details>/ { next }
        n == want { print }' "$1" | cat -s
}

# The device's limit for this track, as "name<TAB>value" (the theoretical DRAM bandwidth or the FP32 peak,
# from the program's own table), asked once per session.
device_limit() {
    [ -n "${limits[$track]+set}" ] ||
        limits[$track]=$(launch "$build/bin/solution${step}_${track}" --size 64 "${single_run[@]}" \
            --no-host --csv 2>/dev/null |
            awk -F, '$3 == "limit" { printf "%s\t%.0f", $2, $10; exit }')
    echo "${limits[$track]}"
}

seconds_since() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }'; }

# Output of a long command: kept for the next redraw, and on screen as it comes (interactive only).
live() {
    local line
    while IFS= read -r line; do
        printf '%s\n' "$line"
        [ $interactive = yes ] && printf '%s\n' "$line" >/dev/tty
    done
}

# Whether there is a GPU to check on, asked once of the step's program (through the room's launcher, as the
# checks run): "no" also keeps the solutions from being built for checks that cannot run.
probe_gpu() {
    [ $gpu = unknown ] || return 0
    if no_gpu_said=$(no_device_line launch "$build/bin/step${step}_${track}"); then gpu=no; else gpu=yes; fi
}

# Builds the current step's program alone (compile errors as file:line), then runs its check as make check
# does, and remembers the verdict. The solutions it is timed against are built on the first check of a step.
check_current() {
    run=$((run + 1)) outcome=compiling result="" took=""
    [ $interactive = yes ] && draw
    local started=$EPOCHREALTIME
    if ! result=$("$here/quiet_build.sh" "$build" "step${step}_${track}" 2>&1); then outcome=build_error; return; fi
    took="build $(seconds_since "$started") s"
    probe_gpu
    if [ $gpu = no ]; then outcome=no_gpu; return; fi
    outcome=checking started=$EPOCHREALTIME
    [ $interactive = yes ] && draw
    local targets=("solution${step}_${track}")
    [ "$step" -gt 1 ] && targets+=("solution$((step - 1))_${track}")
    if [ -z "${solutions_built[$step.$track]:-}" ]; then
        result=$("$here/quiet_build.sh" "$build" "${targets[@]}" 2>&1) || { outcome=broken; return; }
        solutions_built[$step.$track]=yes
    fi
    result=$(launch "$here/check.sh" "$build/bin" "$step" "$track" 2>&1 | progress_remember | live)
    took+=", check $(seconds_since "$started") s"
    case $(grep '^VERDICT' <<<"$result" | tail -n 1 | cut -d' ' -f5) in
        "") outcome=broken ;;
        FAIL) outcome=failed ;;
        NOT) outcome=not_checked ;;
        *) [ "$(progress_state "$step" "$track")" = "done" ] && outcome=done || outcome=slow ;;
    esac
}

draw() {
    printf '%s' "$clear_screen"
    local shown=${hints_shown[$step.$track]:-0}
    printf '%smake watch: step %s, %s%s  (%s; lesson: step%s/README.md)   done: %s of 10   [check %d]\n' \
        "$bold" "$step" "$track" "$normal" "$(file)" "$step" "$(progress_done_count)" "$run"
    echo "------------------------------------------------------------------------------------------------"
    case $outcome in
        compiling) echo "$(file): building ..." ;;
        checking) echo "$(file) builds; checking ..." ;;
        build_error) printf '%s%s does not compile:%s\n%s\n' "$red" "$(file)" "$normal" "$result" ;;
        no_gpu)
            echo "$(file) builds."
            if [ $gpu_said = no ]; then
                printf '%schecks need a GPU%s, and there is none here (%s).\n' "$yellow" "$normal" "$no_gpu_said"
                echo "Compile errors, hints (h), the list (l) and reset (r) still work."
                gpu_said=yes
            else echo "(no GPU here, so no check: make check where there is one)"; fi ;;
        *) sed -E "s/^(VERDICT .*PASS.*)/$green\1$normal/; s/^(VERDICT .*FAIL.*)/$red\1$normal/; s/^(VERDICT .*NOT CHECKED.*)/$yellow\1$normal/" <<<"$result"
           [ "$outcome" = "done" ] || [ "$outcome" = slow ] && speed_line ;;
    esac
    [ -n "$took" ] && echo "($took)"
    [ -n "$panel" ] && {
        echo "------------------------------------------------------------------------------------------------"
        echo "$panel"
    }
    echo "------------------------------------------------------------------------------------------------"
    printf '%snext:%s %s\n' "$bold" "$normal" "$(advice)"
    [ $interactive = yes ] &&
        echo "keys: h hint ($shown of $(hint_count "$(hints_file)") shown)  p profile  s sanitize  n/b next/previous step  t other track  l list  r reset  q quit"
}

# Under a PASS: the speed beside the solution's (which the verdict's percentage gives) and the device's limit.
speed_line() {
    local rate unit pct limit_name limit
    IFS=$'\t' read -r _ _ _ rate unit pct _ <<<"$(progress_row "$step" "$track")"
    [ "$rate" = - ] && return
    IFS=$'\t' read -r limit_name limit <<<"$(device_limit)"
    awk -v r="$rate" -v u="$unit" -v p="$pct" -v name="$limit_name" -v l="${limit:-0}" 'BEGIN {
        printf "yours: %s %s, %s%% of the solution (%.0f %s)", r, u, p, (p > 0 ? 100 * r / p : 0), u
        if (l > 0) printf "; the limit (%s): %s %s, of which yours is %.0f%%", name, l, u, 100 * r / l
        print "" }'
}

advice() {
    case $outcome in
        compiling|checking) echo "wait for the result" ;;
        build_error) echo "fix the first error above in $(file) and save" ;;
        no_gpu) echo "the code compiles; run the checks where there is a GPU (make check), or press h for a hint" ;;
        failed) echo "the first failing shape and its likely cause are above; h for a hint, s to sanitize" ;;
        not_checked) echo "part of the check could not run here (above: too little free memory, or a GPU too busy): save again once that has passed" ;;
        broken) echo "the check stopped before its verdict (above); fix what it says and save" ;;
        slow) if [ "$(progress_row "$step" "$track" | cut -f4)" = - ]; then
                  echo "correct, but no kernel runs yet: the TODO(step $step) markers in $(file), h for a hint"
              else echo "correct, but well short of the solution: p to profile, h for a hint, then save again"; fi ;;
        done) if [ "$step" -lt 5 ]; then
                  echo "step $step $track is done: n for step $((step + 1)) (step$((step + 1))/README.md)"
              else echo "the $track track is done: t for the other track, l for the list"; fi ;;
        *) echo "edit $(file) (the TODO(step $step) markers) and save" ;;
    esac
}

show_hint() {
    local total n
    total=$(hint_count "$(hints_file)")
    [ "$total" -gt 0 ] || { panel="no hints for step $step $track ($(hints_file) is missing)"; return; }
    n=$(( ${hints_shown[$step.$track]:-0} % total + 1 ))
    hints_shown[$step.$track]=$n
    panel=$(hint_text "$(hints_file)" "$n")
    [ "$n" -eq "$total" ] && panel+=$'\n'"(that was the last hint; h starts again from the first)"
}

# r: the step file back to its starting point; the student's version stays beside it as a backup.
reset_current() {
    local path fresh backup
    path="$top/$(file)"
    fresh=$(mktemp) || return
    if ! starting_point "$step" "$track" >"$fresh" 2>"$fresh.err"; then panel="reset: $(cat "$fresh.err")"
    elif cmp -s "$fresh" "$path"; then
        panel="reset: $(file) is already at its starting point"; progress_forget "$step" "$track"
    else
        backup="$path.bak-$(date +%Y%m%d-%H%M%S)"
        while [ -e "$backup" ]; do backup+=x; done
        cp -p "$path" "$backup" && cat "$fresh" >"$path" && progress_forget "$step" "$track" &&
            panel="reset: $(file) is back at its starting point; your version is in ${backup#"$top/"}"
    fi
    rm -f "$fresh" "$fresh.err"
}

# p and s: the step Makefile's targets, shown live and kept on screen.
run_tool() {
    if [ $gpu = no ]; then panel="make $1 needs a GPU, and there is none here"; return; fi
    panel="make $1 TRACK=$track (running ...)"
    draw
    panel=$(make --no-print-directory -C "$top/step$step" "$1" TRACK="$track" BUILD_DIR="$build" 2>&1 | live)
}

go_to() {  # go_to STEP TRACK
    step=$1 track=$2 panel=""
    check_current
}

on_key() {
    case $1 in
        h|H) show_hint ;;
        p|P) run_tool profile ;;
        s|S) run_tool sanitize ;;
        n|N) if [ "$step" -lt 5 ]; then go_to $((step + 1)) "$track"; else panel="step 5 is the last step"; fi ;;
        b|B) if [ "$step" -gt 1 ]; then go_to $((step - 1)) "$track"; else panel="step 1 is the first step"; fi ;;
        t|T) go_to "$step" "$([ "$track" = transpose ] && echo matmul || echo transpose)" ;;
        l|L) panel=$("$here/status.sh" "$build" --recorded 2>&1) ;;
        r|R) reset_current ;;
        q|Q) exit 0 ;;
        *) return ;;
    esac
    draw
}

# The watcher: one changed path per line on a pipe the loop reads. inotifywait where it is installed (it
# sees a save at once), else a look at the files' times every half second.
poll_files() {
    local before now
    before=$(cd "$top" && stat -c '%n %y %s' step[1-5]/transpose.cu step[1-5]/matmul.cu 2>/dev/null)
    while sleep 0.5; do
        now=$(cd "$top" && stat -c '%n %y %s' step[1-5]/transpose.cu step[1-5]/matmul.cu 2>/dev/null)
        [ "$now" != "$before" ] && diff <(echo "$before") <(echo "$now") | awk -v top="$top" '/^>/ { print top "/" $2 }'
        before=$now
    done
}
start_watcher() {
    events_dir=$(mktemp -d) && mkfifo "$events_dir/events" && exec {events}<>"$events_dir/events" || exit 1
    if [ "${WATCH_POLL:-}" != 1 ] && command -v inotifywait >/dev/null 2>&1; then
        inotifywait -m -q -e close_write -e moved_to --format '%w%f' "$top"/step[1-5]/ 1>&"$events" 2>/dev/null &
    else
        poll_files 1>&"$events" &
    fi
    watcher=$!
}
# The step files saved since the last look, each once, after the writes have settled for a moment.
saved_files() {
    local path
    while IFS= read -r -t 0.05 -u "$events" path; do
        [[ $path =~ /step[1-5]/(transpose|matmul)\.cu$ ]] && echo "$path"
    done | awk '!seen[$0]++'
}

if [ $interactive = no ]; then
    check_current
    draw
    case $outcome in done|slow) exit 0 ;; no_gpu) exit 3 ;; not_checked) exit 4 ;; *) exit 1 ;; esac
fi

terminal=$(stty -g)
cleanup() {
    [ -n "${watcher:-}" ] && kill "$watcher" 2>/dev/null
    [ -n "${events_dir:-}" ] && rm -rf "$events_dir"
    stty "$terminal"
    echo
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP
stty -echo -icanon
start_watcher
check_current
draw
while :; do
    if IFS= read -rsn1 -t 0.1 key; then on_key "$key"
    elif [ $? -le 128 ]; then exit 0; fi  # the terminal went away
    mapfile -t saved < <(saved_files)
    for path in "${saved[@]}"; do
        [[ $path =~ /step([1-5])/(transpose|matmul)\.cu$ ]] || continue
        [ "${BASH_REMATCH[1]}" = "$step" ] && [ "${BASH_REMATCH[2]}" = "$track" ] || panel=""
        step=${BASH_REMATCH[1]} track=${BASH_REMATCH[2]}
        check_current
        draw
    done
done
