#!/usr/bin/env bash
# A student's progress, remembered across sessions in .workshop/ at the top of the checkout: the record and its
# rules are workshop_progress's (common/progress/progress.hpp); these are the shell's ways to ask it. Source it
# (it defines functions only), or run one of its functions: progress.sh keep_starting_points.
# The program lives in the build folder PROGRESS_BUILD (else BUILD_DIR, else build/), and is built on first use.

PROGRESS_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck disable=SC2034  # the scripts that source this use it
PROGRESS_TRACKS="transpose matmul"

# progress_program COMMAND [ARGUMENTS]: workshop_progress about this checkout (workshop_progress --help lists them).
progress_program() {
    local build=${PROGRESS_BUILD:-${BUILD_DIR:-build}}
    [[ $build == /* ]] || build="$PROGRESS_TOP/$build"
    [ -x "$build/bin/workshop_progress" ] ||
        "$PROGRESS_TOP/common/make/quiet_build.sh" "$build" workshop_progress || return
    "$build/bin/workshop_progress" --top "$PROGRESS_TOP" "$@"
}

progress_state() { progress_program state "$1" "$2"; }      # done, slow, failed, edited or none
progress_summary() { progress_program summary "$1" "$2"; }  # a few words for a table column
progress_advice() { progress_program advice "$1" "$2"; }    # what to do about a step not done
progress_next() { progress_program next ${1:+"$1"}; }       # "STEP TRACK" of the first not done [among TRACKS]
progress_done_count() { progress_program done-count; }
progress_forget() { progress_program forget "$1" "$2"; }    # after a reset
starting_point() { progress_program starting-point "$1" "$2"; }
keep_starting_points() { progress_program keep-starting-points; }
# The program that makes a verdict records it; its output is passed on untouched and never read.

# Run rather than sourced: call the function named on the command line.
if [ "${BASH_SOURCE[0]}" = "$0" ]; then "$@"; fi
