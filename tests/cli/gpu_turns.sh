#!/usr/bin/env bash
# make check's turns on a GPU (common/room/gpu_turns.sh and workshop_turn), with a stand-in nvidia-smi: no more checks at once on
# one GPU than WORKSHOP_CHECKS_PER_GPU, the others wait and say so once, and every one of them gets its turn, first
# come first served; each GPU has turns of its own; no turns where it cannot be told which GPU a check runs on, or
# with the setting at 0; a setting that is not a number is one error line and exit 2. And the GPU's timing lock,
# named for the check's programs in WORKSHOP_TIMING_LOCK wherever the GPU is known, whatever the number of turns.
# A setting of 08 is eight (not octal); a check paused in its turn (Ctrl-Z) holds the others no longer than
# WORKSHOP_TURN_WAIT_LIMIT; workshop_turn -- COMMAND runs the command in a turn.
#   gpu_turns.sh ROOM_DIR [ROOM_BIN]      (ROOM_BIN: where workshop_turn is, for WORKSHOP_ROOM_BIN)
# The checks run in `bash -c '...'` (SC2016), and each case reads "A && B && ok || bad" (SC2015: ok prints only).
# shellcheck disable=SC2015,SC2016
set -u
make_dir=$1
[ -z "${2:-}" ] || export WORKSHOP_ROOM_BIN=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
export TMPDIR="$dir/tmp"
mkdir -p "$TMPDIR" "$dir/smi"
# The stand-in nvidia-smi lists the GPUs in FAKE_GPUS (fake_nvidia_smi.sh).
ln -s "$(cd "$(dirname "$0")" && pwd)/fake_nvidia_smi.sh" "$dir/smi/nvidia-smi"
export PATH="$dir/smi:$PATH"
unset CUDA_VISIBLE_DEVICES WORKSHOP_CHECKS_PER_GPU FAKE_PROCESSES FAKE_SMI_FAILS WORKSHOP_TIMING_LOCK \
    WORKSHOP_TURN_WAIT_LIMIT WORKSHOP_TURN

status=0
ok() { echo "ok: $1"; }
bad() { echo "FAIL: $1"; status=1; }

# checks N [ENV...]: N stand-in checks started at once, each taking a turn, then logging "in" and "out" 0.6 s
# apart; sets most (the most inside at once), waited (how many said they were waiting) and codes (their exits).
checks() {
    local n=$1 i pids=()
    shift
    rm -f "$dir/log" "$dir/out."*
    for ((i = 1; i <= n; i++)); do
        env "$@" bash -c 'source "$1/launch.sh"; source "$1/gpu_turns.sh"; take_a_turn_on_this_gpu || exit $?
            echo "$EPOCHREALTIME in" >>"$2/log"; sleep 0.6; echo "$EPOCHREALTIME out" >>"$2/log"' \
            _ "$make_dir" "$dir" >"$dir/out.$i" 2>&1 &
        pids+=($!)
    done
    codes=""
    for ((i = 0; i < n; i++)); do wait "${pids[i]}"; codes+="$? "; done
    most=$(sort -n "$dir/log" 2>/dev/null | awk '$2 == "in" { n++ } $2 == "out" { n-- } n > m { m = n } END { print m + 0 }')
    waited=$(cat "$dir/out."* | grep -c "^== waiting for a turn on this GPU: 2 checks are running on it")
}

export FAKE_GPUS="0, GPU-aaaa, NVIDIA H200, Disabled"
checks 5 WORKSHOP_CHECKS_PER_GPU=2
[ "$most" = 2 ] && [ "$(grep -c in "$dir/log")" = 5 ] && [ "$waited" = 3 ] && [ "$codes" = "0 0 0 0 0 " ] &&
    ok "five checks, two turns: two at a time, the three others waited and said so, all five ran" ||
    bad "two turns: most $most at once, $waited waited, exits $codes; $(cat "$dir/log")"
checks 3 WORKSHOP_CHECKS_PER_GPU=0
[ "$most" = 3 ] && [ "$waited" = 0 ] && ok "WORKSHOP_CHECKS_PER_GPU=0: no limit" || bad "no limit: most $most, $waited waited"
checks 6
[ "$most" = 4 ] && ok "four at a time unless set" || bad "the default: most $most at once"
export FAKE_GPUS=$'0, GPU-aaaa, NVIDIA H200, Disabled\n1, GPU-bbbb, NVIDIA H200, Disabled\n'
checks 4 WORKSHOP_CHECKS_PER_GPU=2
[ "$most" = 4 ] && ok "two GPUs, none picked: no turns (which one runs it is not known)" || bad "two GPUs, none picked: most $most"
rm -f "$dir/log"
for gpu in GPU-aaaa GPU-aaaa GPU-bbbb GPU-bbbb; do
    CUDA_VISIBLE_DEVICES=$gpu WORKSHOP_CHECKS_PER_GPU=1 bash -c 'source "$1/launch.sh"; source "$1/gpu_turns.sh"
        take_a_turn_on_this_gpu; echo "$EPOCHREALTIME in $CUDA_VISIBLE_DEVICES" >>"$2/log"; sleep 0.6
        echo "$EPOCHREALTIME out $CUDA_VISIBLE_DEVICES" >>"$2/log"' _ "$make_dir" "$dir" >/dev/null 2>&1 &
done
wait
most=$(sort -n "$dir/log" | awk '$2 == "in" { n[$3]++; all++ } $2 == "out" { n[$3]--; all-- } all > m { m = all }
    END { print m + 0 }')
[ "$most" = 2 ] && ok "a turn each on two GPUs: one check on each at once" || bad "two GPUs, one turn each: most $most at once"
export FAKE_GPUS="0, GPU-aaaa, NVIDIA H200, Enabled"
checks 3 WORKSHOP_CHECKS_PER_GPU=1
[ "$most" = 3 ] && ok "MIG: no turns" || bad "MIG: most $most"
export FAKE_GPUS="0, GPU-aaaa, NVIDIA H200, Disabled"
checks 1 WORKSHOP_CHECKS_PER_GPU=two
[ "$codes" = "2 " ] && [ "$(cat "$dir/out.1")" = "error: WORKSHOP_CHECKS_PER_GPU='two' is not a number of checks (0: no limit)" ] &&
    ok "a setting that is not a number: one line, exit 2" || bad "WORKSHOP_CHECKS_PER_GPU=two: exit $codes, $(cat "$dir/out.1")"

# First come, first served. One turn, held by a first check until four more have come, one after another, and wait in
# the queue (each has said so before the next starts): then they run in the order they came. (Polling alone, without
# the queue, ran them in another order in 7 of 8 tries.)
rm -f "$dir/order" "$dir/release"
queued() {  # how many markers of waiting checks there are
    local waiting=("$TMPDIR/workshop-gpu-turns/GPU-aaaa.waiting."*)
    if [ -e "${waiting[0]}" ]; then echo "${#waiting[@]}"; else echo 0; fi
}
pids=()
for i in 1 2 3 4 5; do
    WORKSHOP_CHECKS_PER_GPU=1 bash -c 'source "$1/launch.sh"; source "$1/gpu_turns.sh"; take_a_turn_on_this_gpu
        echo "$2" >>"$3/order"; until [ -e "$3/release" ]; do sleep 0.05; done; sleep 0.1' \
        _ "$make_dir" "$i" "$dir" >"$dir/out.$i" 2>&1 &
    pids+=($!)
    for ((t = 0; t < 100; t++)); do  # up to 10 s for the check to take the turn (the first) or say it waits
        [ "$i" = 1 ] && [ -s "$dir/order" ] && break
        [ "$i" -gt 1 ] && grep -qs waiting "$dir/out.$i" && break
        sleep 0.1
    done
done
touch "$dir/release"
for pid in "${pids[@]}"; do wait "$pid"; done
order=$(paste -sd' ' "$dir/order")
[ "$order" = "1 2 3 4 5" ] && [ "$(queued)" = 0 ] && ok "one turn, five checks: in the order they came" ||
    bad "one turn, five checks: order $order, $(queued) markers left"
# An earlier check still waiting (its marker locked) goes first, even where a turn is free; one that ended while it
# waited (its marker left unlocked) holds no one back, and its marker is cleared away.
markers="$TMPDIR/workshop-gpu-turns/GPU-aaaa.waiting"
: >"$markers.0000000000000000001.1"
flock "$markers.0000000000000000002.2" sleep 1.5 &
holder=$!
sleep 0.2
start=$EPOCHREALTIME
WORKSHOP_CHECKS_PER_GPU=1 bash -c 'source "$1/launch.sh"; source "$1/gpu_turns.sh"; take_a_turn_on_this_gpu' \
    _ "$make_dir" >"$dir/out.1" 2>&1
took=$(awk -v s="$start" -v e="$EPOCHREALTIME" 'BEGIN { printf "%.1f", e - s }')
wait $holder
[ ! -e "$markers.0000000000000000001.1" ] && awk -v t="$took" 'BEGIN { exit !(t >= 1.0) }' && grep -q waiting "$dir/out.1" &&
    ok "an earlier check still waiting goes first; one that ended holds no one back" ||
    bad "queue: took $took s, the ended check's marker $(ls "$markers.0000000000000000001.1" 2>/dev/null || echo cleared)"
rm -f "$markers".*
# timing_lock [ENV...]: the WORKSHOP_TIMING_LOCK a check's programs get (a program it starts prints it), and the
# mode of its file: readable by every user (flock needs no more), writable by none but its maker.
timing_lock() {
    env "$@" bash -c 'source "$1/launch.sh"; source "$1/gpu_turns.sh"; take_a_turn_on_this_gpu >/dev/null || exit
        lock=$(printenv WORKSHOP_TIMING_LOCK)
        echo "${lock:-none} $(stat -c %a "${lock:-/nonexistent}" 2>/dev/null)"' _ "$make_dir"
}
lock="$TMPDIR/workshop-gpu-turns/GPU-aaaa.timing 644"
[ "$(timing_lock)" = "$lock" ] && [ "$(timing_lock WORKSHOP_CHECKS_PER_GPU=0)" = "$lock" ] &&
    ok "the GPU's timing lock, for every user, with turns or without" ||
    bad "the timing lock: '$(timing_lock)', and with no turns '$(timing_lock WORKSHOP_CHECKS_PER_GPU=0)'"
export FAKE_GPUS=$'0, GPU-aaaa, NVIDIA H200, Disabled\n1, GPU-bbbb, NVIDIA H200, Disabled\n'
[ "$(timing_lock)" = "none " ] && [ "$(timing_lock CUDA_VISIBLE_DEVICES=GPU-bbbb)" = "${lock/aaaa/bbbb}" ] &&
    ok "two GPUs: the lock of the one picked, none where none is" ||
    bad "two GPUs: none picked '$(timing_lock)', GPU-bbbb picked '$(timing_lock CUDA_VISIBLE_DEVICES=GPU-bbbb)'"
export FAKE_GPUS="0, GPU-aaaa, NVIDIA H200, Enabled"
[ "$(timing_lock)" = "none " ] && ok "MIG: no timing lock" || bad "MIG: timing lock '$(timing_lock)'"

export FAKE_GPUS="0, GPU-aaaa, NVIDIA H200, Disabled"
# WORKSHOP_CHECKS_PER_GPU=08 is eight checks (a leading zero is no octal); other values one line and exit 2.
checks 3 WORKSHOP_CHECKS_PER_GPU=08
[ "$most" = 3 ] && [ "$codes" = "0 0 0 " ] && ! grep -q . "$dir/out."* && ok "WORKSHOP_CHECKS_PER_GPU=08: eight turns" ||
    bad "WORKSHOP_CHECKS_PER_GPU=08: most $most, exits $codes, said: $(cat "$dir/out."*)"
for value in -1 1e3 99999999999; do
    checks 1 WORKSHOP_CHECKS_PER_GPU=$value
    [ "$codes" = "2 " ] && [ "$(wc -l <"$dir/out.1")" = 1 ] && grep -q "^error: WORKSHOP_CHECKS_PER_GPU='$value'" "$dir/out.1" &&
        ok "WORKSHOP_CHECKS_PER_GPU=$value: one line, exit 2" || bad "WORKSHOP_CHECKS_PER_GPU=$value: exit $codes, $(cat "$dir/out.1")"
done

# A check paused with Ctrl-Z in its turn (stopped): the next one waits WORKSHOP_TURN_WAIT_LIMIT seconds at most,
# then goes ahead, saying so.
WORKSHOP_CHECKS_PER_GPU=1 bash -c 'source "$1/launch.sh"; source "$1/gpu_turns.sh"; take_a_turn_on_this_gpu
    touch "$2/held"; sleep 60' _ "$make_dir" "$dir" >/dev/null 2>&1 &
holder=$!
for ((t = 0; t < 100; t++)); do [ -e "$dir/held" ] && break; sleep 0.1; done
kill -STOP -- "$holder" $(pgrep -P "$holder") 2>/dev/null
start=$EPOCHREALTIME
said=$(WORKSHOP_CHECKS_PER_GPU=1 WORKSHOP_TURN_WAIT_LIMIT=2 timeout 30 bash -c 'source "$1/launch.sh"
    source "$1/gpu_turns.sh"; take_a_turn_on_this_gpu && echo ran' _ "$make_dir" 2>&1)
code=$?
took=$(awk -v s="$start" -v e="$EPOCHREALTIME" 'BEGIN { printf "%.1f", e - s }')
kill -KILL -- "$holder" $(pgrep -P "$holder") 2>/dev/null
wait "$holder" 2>/dev/null
[ $code -eq 0 ] && [[ $said == *"going ahead without one"*ran ]] && awk -v t="$took" 'BEGIN { exit !(t >= 2 && t < 10) }' &&
    ok "a check paused in its turn holds the next one $took s (limit 2 s), which then says so and runs" ||
    bad "a paused turn-holder: exit $code after $took s, said: $said"
rm -f "$TMPDIR/workshop-gpu-turns/"*

# workshop_turn -- COMMAND: the command runs in the turn (exec), with the timing lock and WORKSHOP_TURN set, and
# holds the turn until it ends: a second command waits for it.
if [ -n "${WORKSHOP_ROOM_BIN:-}" ]; then
    turn_cmd() { WORKSHOP_CHECKS_PER_GPU=1 "$WORKSHOP_ROOM_BIN/workshop_turn" -- bash -c "$1" _ "$dir"; }
    turn_cmd 'echo "$EPOCHREALTIME in $WORKSHOP_TURN $WORKSHOP_TIMING_LOCK" >>"$1/exec"; sleep 1
        echo "$EPOCHREALTIME out" >>"$1/exec"' >/dev/null &
    sleep 0.3
    said=$(turn_cmd 'echo "$EPOCHREALTIME second" >>"$1/exec"; echo "$$ $PPID"')
    wait
    first_out=$(awk '$2 == "out" { print $1 }' "$dir/exec") second=$(awk '$2 == "second" { print $1 }' "$dir/exec")
    grep -q " in GPU-aaaa.0 $TMPDIR/workshop-gpu-turns/GPU-aaaa.timing$" "$dir/exec" &&
        awk -v a="$first_out" -v b="$second" 'BEGIN { exit !(a < b) }' && [[ $said == *waiting* ]] &&
        ok "workshop_turn -- COMMAND: runs it in the turn, the next one after it" ||
        bad "workshop_turn -- COMMAND: $(cat "$dir/exec"); the second said: $said"
    "$WORKSHOP_ROOM_BIN/workshop_turn" -- /nonexistent/program 2>"$dir/err"
    code=$?
    [ $code -eq 2 ] && [ "$(cat "$dir/err")" = "error: cannot run /nonexistent/program: No such file or directory" ] &&
        ok "workshop_turn -- a missing program: one line, exit 2" || bad "a missing program: exit $code, $(cat "$dir/err")"
fi
exit $status
