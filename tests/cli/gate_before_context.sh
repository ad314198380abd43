#!/usr/bin/env bash
# make check's timing run on a GPU that takes one process at a time (rehearsed with
# WORKSHOP_ONE_PROCESS_AT_A_TIME=1) waits at make check's gate before it touches the GPU, so that the battery's
# processes find it free; elsewhere it sets up first and waits after. Hidden from every GPU (CUDA_VISIBLE_DEVICES=),
# the program's first look at the device ends it with kExitNoDevice, "no CUDA device": so one still running after a
# second is waiting at the gate, and one that ended with it looked at the device first.
#   gate_before_context.sh PROGRAM
set -u
# shellcheck source=../../common/base/exit_codes.sh
source "$(dirname "$0")/../../common/base/exit_codes.sh"
no_device=${exit_codes[kExitNoDevice]}
program=$1
dir=$(mktemp -d)
gate="$dir/gate"
mkfifo "$gate" && exec {gate_fd}<>"$gate"  # held open here, as make check does, so opening it never blocks
trap 'kill $pid 2>/dev/null; rm -rf "$dir"' EXIT
status=0
fail() { echo "FAIL: $1"; sed 's/^/  | /' "$dir/out"; status=1; }

start() {  # start ONE_AT_A_TIME: the timing run as make check starts it
    CUDA_VISIBLE_DEVICES="" WORKSHOP_ONE_PROCESS_AT_A_TIME=$1 WORKSHOP_TIMING_GATE="$gate" "$program" --size 64 \
        >"$dir/out" 2>&1 &
    pid=$!
}
ended_with() {  # ended_with CODE: waits up to 10 s for the program to end, which it must with CODE
    local i code
    for ((i = 0; i < 100; i++)); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
    kill -0 $pid 2>/dev/null && { kill $pid; return 1; }
    wait $pid
    code=$?
    [ $code -eq "$1" ]
}

start 0
if ended_with "$no_device" && grep -q "no CUDA device" "$dir/out"; then
    echo "ok: a GPU that takes many: the device first (exit $no_device at once)"
else
    fail "a GPU that takes many: expected exit $no_device with no CUDA device, before the gate"
fi

start 1
sleep 1
if kill -0 $pid 2>/dev/null; then
    echo stop >&"$gate_fd"
    if ended_with 0 && ! grep -q "no CUDA device" "$dir/out"; then
        echo "ok: one process at a time: waits at the gate, and a word other than go ends it untouched (exit 0)"
    else
        fail "one process at a time: after stop, expected exit 0 without a look at the device"
    fi
else
    fail "one process at a time: the program did not wait at the gate"
fi

start 1
sleep 1
echo go >&"$gate_fd"
if ended_with "$no_device" && grep -q "no CUDA device" "$dir/out"; then
    echo "ok: one process at a time: after go, the device (exit $no_device)"
else
    fail "one process at a time: after go, expected exit $no_device with no CUDA device"
fi
exit $status
