#!/usr/bin/env bash
# A program's timing, and each shape of its battery, wait for the GPU's timing lock that make check names in
# WORKSHOP_TIMING_LOCK (common/measure/gpu_timing_lock.hpp): with the lock held elsewhere for 3 s (another check's
# timing), the program and its battery end only after it is let go, and correctly. Skipped (kExitNoDevice) where
# there is no GPU.
#   timing_lock.sh PROGRAM
set -u
# shellcheck source=../../common/base/exit_codes.sh
source "$(dirname "$0")/../../common/base/exit_codes.sh"
skip=${exit_codes[kExitNoDevice]}  # ctest's SKIP_RETURN_CODE: the programs' own code for no GPU
program=$1
dir=$(mktemp -d)
holder=""
trap '[ -n "$holder" ] && kill $holder 2>/dev/null; rm -rf "$dir"' EXIT
"$program" --size 256 --min-time 0 >"$dir/out" 2>&1
code=$?
if [ $code -eq "$skip" ]; then cat "$dir/out"; exit "$skip"; fi  # no CUDA device: the program said so
[ $code -eq 0 ] || { echo "FAIL: the program alone ended with $code"; cat "$dir/out"; exit 1; }

lock="$dir/GPU-test.timing"
: >"$lock"
# waits_for_the_lock WHAT PROGRAM-OPTIONS...: the program, run while another holds the lock for 3 s, ends after.
waits_for_the_lock() {
    local what=$1 code ended
    shift
    rm -f "$dir/held" "$dir/let_go"
    # shellcheck disable=SC2016  # the inner shell expands them
    flock "$lock" bash -c 'touch "$1/held"; sleep 3; echo "$EPOCHREALTIME" >"$1/let_go"' _ "$dir" &
    holder=$!
    for ((i = 0; i < 200; i++)); do [ -e "$dir/held" ] && break; sleep 0.05; done
    [ -e "$dir/held" ] || { echo "FAIL: flock(1) did not take the lock here in 10 s"; exit 1; }
    WORKSHOP_TIMING_LOCK="$lock" "$program" "$@" >"$dir/out" 2>&1
    code=$?
    ended=$EPOCHREALTIME
    wait "$holder"
    holder=""
    if [ $code -ne 0 ]; then echo "FAIL: $what: with the lock named, the program ended with $code"; cat "$dir/out"; exit 1; fi
    if [ ! -e "$dir/let_go" ] || awk -v e="$ended" -v l="$(cat "$dir/let_go")" 'BEGIN { exit !(e < l) }'; then
        echo "FAIL: $what ended while another held the timing lock: it ran beside that timing"
        exit 1
    fi
    echo "ok: $what waited for the lock, and ended correctly once it was let go"
}
waits_for_the_lock "the timing" --size 256 --min-time 0
waits_for_the_lock "the battery" --check
