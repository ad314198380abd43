#!/usr/bin/env bash
# A student's progress, remembered across sessions. Source it (it defines functions only), or run one of its
# functions: progress.sh keep_starting_points, check.sh ... | progress.sh progress_remember.
#
# The state lives in .workshop/ at the top of the checkout: beside the lessons, not in build/, so that
# `make clean` keeps it; git ignores it. progress.tsv holds the latest verdict of every step and track, one
# line each: step, track, PASS or FAIL, rate, unit, % of the solution, the checksum of the file it was about,
# and when. A step counts as done when its latest verdict is a PASS at PROGRESS_DONE_PCT % of the solution or
# more (what make check calls close to the solution) and the file has not changed since.
#
# .workshop/start/ keeps the starting point of every step file where there is no git history to take it from
# (a tarball): a copy taken at the first configure (make, in any folder) or the first make watch, whichever
# comes first, and never replaced.

PROGRESS_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
PROGRESS_DIR="$PROGRESS_TOP/.workshop"
PROGRESS_FILE="$PROGRESS_DIR/progress.tsv"
PROGRESS_DONE_PCT=80
PROGRESS_STEPS="1 2 3 4 5"
PROGRESS_TRACKS="transpose matmul"

# file_checksum FILE: a short fingerprint of FILE's content (cksum is in every POSIX system).
file_checksum() { cksum <"$1" 2>/dev/null | awk '{ print $1 "-" $2 }'; }

# progress_record VERDICT_LINE: remembers the verdict of one step and track, as check.sh prints it:
#   VERDICT step N TRACK: PASS, <rate> <unit>, <pct>% of the solution[, ...]
#   VERDICT step N TRACK: PASS on the CPU path; ...        (correct, but no kernel yet: never done)
#   VERDICT step N TRACK: FAIL (<reason>)
# Anything else is ignored. The verdict is about the student's file as it is now.
progress_record() {
    local fields
    fields=$(awk '
        $1 == "VERDICT" && $2 == "step" && $3 ~ /^[1-5]$/ && $4 ~ /^(transpose|matmul):$/ {
            track = substr($4, 1, length($4) - 1)
            if ($5 == "FAIL") { print $3, track, "FAIL - - -"; exit }
            if ($5 == "PASS,") { rate = $6; unit = $7; pct = $8; sub(/,$/, "", unit); sub(/%$/, "", pct)
                                 print $3, track, "PASS", rate, unit, pct; exit }
            if ($5 ~ /^PASS/) { print $3, track, "PASS - - 0"; exit }
        }' <<<"$1")
    [ -n "$fields" ] || return 0
    progress_save $fields
}

# progress_save STEP TRACK PASS|FAIL RATE UNIT PCT: remembers one result (RATE "-" and PCT 0 when no kernel
# ran), about the step file as it is now.
progress_save() {
    _progress_replace "$1" "$2" \
        "$(printf '%s\t' "$@")$(file_checksum "$PROGRESS_TOP/step$1/$2.cu")"$'\t'"$(date '+%Y-%m-%d %H:%M')"
}

# progress_remember: passes make check's output through as it comes, and remembers the verdict lines in it.
progress_remember() {
    local line
    while IFS= read -r line || [ -n "$line" ]; do
        printf '%s\n' "$line"
        [[ $line == VERDICT* ]] && progress_record "$line"
    done
    return 0
}

# progress_forget STEP TRACK: the step no longer counts (after a reset).
progress_forget() { _progress_replace "$1" "$2" ""; }

# Rewrites the state with the line of STEP TRACK replaced by LINE (removed when LINE is empty); atomic, so a
# second session reading at the same time sees the old or the new file, never half of one.
_progress_replace() {
    mkdir -p "$PROGRESS_DIR" || return 1
    local tmp="$PROGRESS_FILE.$$"
    { [ -f "$PROGRESS_FILE" ] && awk -F'\t' -v s="$1" -v t="$2" '!($1 == s && $2 == t)' "$PROGRESS_FILE"
      [ -n "$3" ] && printf '%s\n' "$3"; } | sort -k1,1n -k2,2r >"$tmp" && mv -f "$tmp" "$PROGRESS_FILE"
}

# progress_row STEP TRACK: the remembered fields (tab-separated), or nothing.
progress_row() { [ -f "$PROGRESS_FILE" ] && awk -F'\t' -v s="$1" -v t="$2" '$1 == s && $2 == t' "$PROGRESS_FILE"; }

# progress_state STEP TRACK: one word.
#   done     PASS, close to the solution, file unchanged since
#   slow     PASS, but well short of the solution (or no kernel yet)
#   failed   FAIL
#   edited   there was a verdict, but the file has changed since: check it again
#   none     no verdict yet (or the step was reset)
progress_state() {
    local row verdict pct sum
    row=$(progress_row "$1" "$2")
    [ -n "$row" ] || { echo none; return; }
    IFS=$'\t' read -r _ _ verdict _ _ pct sum _ <<<"$row"
    if [ "$sum" != "$(file_checksum "$PROGRESS_TOP/step$1/$2.cu")" ]; then echo edited
    elif [ "$verdict" = FAIL ]; then echo failed
    elif awk -v p="$pct" -v d="$PROGRESS_DONE_PCT" 'BEGIN { exit !(p + 0 >= d) }'; then echo "done"
    else echo slow; fi
}

# progress_summary STEP TRACK: a few words for a table column.
progress_summary() {
    local state rate unit pct
    state=$(progress_state "$1" "$2")
    IFS=$'\t' read -r _ _ _ rate unit pct _ <<<"$(progress_row "$1" "$2")"
    case $state in
        done|slow) if [ "$rate" = - ]; then echo "PASS, no kernel yet"
                   else printf 'PASS %s %s, %s%%%s\n' "$rate" "$unit" "$pct" \
                            "$([ "$state" = slow ] && echo ' (slow)')"; fi ;;
        failed) echo FAIL ;;
        edited) echo "edited since the last check" ;;
        *) echo - ;;
    esac
}

# progress_advice STEP TRACK: what to do about a step that is not done (nothing when it is).
progress_advice() {
    case $(progress_state "$1" "$2") in
        none) echo "no verdict yet" ;;
        edited) echo "changed since its last verdict" ;;
        failed) echo "its last verdict was FAIL (make check names the first wrong element)" ;;
        slow) echo "correct, but well short of the solution: the TODOs in step$1/$2.cu, the hints and make profile" ;;
    esac
}

# progress_next [TRACKS]: "STEP TRACK" of the first step and track, in order, that is not done (empty when
# all are); TRACKS limits the search to those tracks.
progress_next() {
    local step track
    for step in $PROGRESS_STEPS; do
        for track in ${1:-$PROGRESS_TRACKS}; do
            [ "$(progress_state "$step" "$track")" = "done" ] || { echo "$step $track"; return; }
        done
    done
}

# progress_done_count: how many steps and tracks are done.
progress_done_count() {
    local step track n=0
    for step in $PROGRESS_STEPS; do
        for track in $PROGRESS_TRACKS; do
            [ "$(progress_state "$step" "$track")" = "done" ] && n=$((n + 1))
        done
    done
    echo "$n"
}

# in_git_checkout: whether the workshop is a git checkout of its own (not merely a folder inside another one).
in_git_checkout() {
    [ "$(git -C "$PROGRESS_TOP" rev-parse --show-toplevel 2>/dev/null)" = "$(cd "$PROGRESS_TOP" && pwd -P)" ]
}

# starting_point STEP TRACK: prints the step file as the lesson ships it. In a git checkout that is the
# committed version (if you commit your own work, your last commit); elsewhere the copy kept in
# .workshop/start/ by keep_starting_points. Fails, saying why, when neither exists.
starting_point() {
    local rel="step$1/$2.cu"
    if in_git_checkout && git -C "$PROGRESS_TOP" cat-file -e "HEAD:$rel" 2>/dev/null; then
        git -C "$PROGRESS_TOP" show "HEAD:$rel"
    elif [ -f "$PROGRESS_DIR/start/$rel" ]; then
        cat "$PROGRESS_DIR/start/$rel"
    else
        echo "no starting point is known for $rel: it is not in git, and no copy was kept" >&2
        return 1
    fi
}

# keep_starting_points: outside git, keeps a copy of every step file that has none yet (never overwrites).
keep_starting_points() {
    in_git_checkout && return 0
    local step track
    for step in $PROGRESS_STEPS; do
        for track in $PROGRESS_TRACKS; do
            local kept="$PROGRESS_DIR/start/step$step/$track.cu"
            [ -f "$kept" ] || { mkdir -p "${kept%/*}" && cp -p "$PROGRESS_TOP/step$step/$track.cu" "$kept"; }
        done
    done
}

# Run rather than sourced: call the function named on the command line.
if [ "${BASH_SOURCE[0]}" = "$0" ]; then "$@"; fi
