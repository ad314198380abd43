#!/usr/bin/env bash
# make status: where a student stands, every step and track (the table is workshop_progress's status:
# common/progress/progress_status.hpp). Here: each step's program built alone, so one that does not compile
# shows its error and the others still run; one make status at a time per build folder; every figure from one GPU.
#   status.sh BUILD_DIR [--recorded]      (--recorded: builds and runs nothing; the remembered verdicts only)
set -u
build=$1 mode=${2:-live}
here=$(dirname "$0")
source "$here/lib.sh"
source "$here/../room/class.sh"
source "$here/progress.sh"
PROGRESS_BUILD=$build
[ "$mode" = --recorded ] && { progress_program status "$build" --recorded; exit; }

# In the launcher's job (WORKSHOP_STATUS_BUILT set) nothing is built: the login node's builds are read.
if [ -z "${WORKSHOP_STATUS_BUILT:-}" ]; then
    # Two at once in one checkout would build the same targets at once; and the measurements are better alone.
    exec {lock}>>"$build/status.lock" || exit 1
    flock -n "$lock" || { echo "(another make status is running in this checkout: waiting for it)"; flock "$lock"; }
    "$here/quiet_build.sh" "$build" workshop_progress solution{1..5}_{transpose,matmul} || exit 1
    mkdir -p "$build/status"
    for target in step{1..5}_{transpose,matmul}; do
        if cmake --build "$build" --target "$target" >"$build/status/$target.log" 2>&1; then
            rm -f "$build/status/$target.log"
        fi
    done
    # On a cluster every figure comes from one job, so one GPU: this script again, through the launcher.
    if [ -n "$(workshop_setting WORKSHOP_LAUNCHER)" ]; then WORKSHOP_STATUS_BUILT=yes launch "$0" "$@"; exit; fi
fi
keep_to_one_gpu || exit $?  # here, on a machine with several GPUs, the least busy (pick_gpu.sh)
rows=$(mktemp) || exit 1
trap 'rm -f "$rows"' EXIT
progress_program status "$build" --class-rows "$rows"
code=$? no_device=${exit_codes[kExitNoDevice]}  # no program found a CUDA device: the table shows what builds
[ $code -eq 0 ] || [ $code -eq "$no_device" ] || exit $code
class_save "$(cat "$rows")" "$([ $code -eq "$no_device" ] && echo no || echo yes)"
