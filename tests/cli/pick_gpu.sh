#!/usr/bin/env bash
# Which GPU a command gets on a machine with several (common/room/pick_gpu.sh, through launch.sh), with a
# stand-in for nvidia-smi that lists the GPUs and processes each case asks for, and a stand-in program that
# prints the CUDA_VISIBLE_DEVICES it was given. Needs no GPU.
#   pick_gpu.sh LAUNCH_SH
set -u
launch_sh=$1
make_dir=$(dirname "$launch_sh")/../make
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

# The stand-in nvidia-smi lists the GPUs and processes in FAKE_GPUS and FAKE_PROCESSES (fake_nvidia_smi.sh).
mkdir "$dir/bin"
ln -s "$(cd "$(dirname "$0")" && pwd)/fake_nvidia_smi.sh" "$dir/bin/nvidia-smi"
cat >"$dir/bin/show_gpu" <<'PROGRAM'
#!/usr/bin/env bash
echo "${CUDA_VISIBLE_DEVICES-unset}"
PROGRAM
chmod +x "$dir/bin/show_gpu"
export PATH="$dir/bin:$PATH"
# No launcher and no GPU setting from a workshop.conf, unless a case sets one; no make check waiting for a turn on
# this machine's GPUs, unless a case leaves its marker (in a folder of its own).
export WORKSHOP_LAUNCHER='' WORKSHOP_GPU=''
unset CUDA_VISIBLE_DEVICES
export TMPDIR="$dir/tmp"
mkdir -p "$TMPDIR/workshop-gpu-turns"

two=$'0, GPU-aaaa-0000, NVIDIA H200, Disabled\n1, GPU-bbbb-1111, NVIDIA H200, Disabled\n'
four=""
for i in 0 1 2 3; do four+="$i, GPU-a$i, NVIDIA H200, [N/A]"$'\n'; done
export FAKE_GPUS=$two

status=0
# expect WHAT WANTED [VAR=value ...]: launch.sh show_gpu, with those variables, prints WANTED and exits 0.
expect() {
    local what=$1 wanted=$2 got
    shift 2
    got=$(env "$@" "$launch_sh" show_gpu 2>"$dir/err")
    local code=$?
    if [ "$code" -eq 0 ] && [ "$got" = "$wanted" ] && [ ! -s "$dir/err" ]; then echo "ok: $what ($got)"
    else echo "FAIL: $what: printed '$got' (wanted '$wanted'), exit $code, stderr: $(cat "$dir/err")"; status=1; fi
}
# refuse WHAT LINE [VAR=value ...]: launch.sh exits 2 with that one line on stderr, and runs nothing.
refuse() {
    local what=$1 line=$2 got
    shift 2
    got=$(env "$@" "$launch_sh" show_gpu 2>"$dir/err")
    local code=$?
    if [ "$code" -eq 2 ] && [ -z "$got" ] && [ "$(cat "$dir/err")" = "$line" ]; then echo "ok: $what (exit 2)"
    else echo "FAIL: $what: exit $code, printed '$got', stderr '$(cat "$dir/err")' (wanted '$line')"; status=1; fi
}

# Where no process runs, the student's name decides: the same GPU every time, and a room spread over all of them.
first=$(WORKSHOP_STUDENT=alice "$launch_sh" show_gpu)
if [[ $first =~ ^GPU-(aaaa-0000|bbbb-1111)$ ]]; then
    expect "two idle GPUs, the same student again" "$first" WORKSHOP_STUDENT=alice
    expect "... and again" "$first" WORKSHOP_STUDENT=alice
else
    echo "FAIL: two idle GPUs: picked '$first'"; status=1
fi
picks=""
for n in $(seq -w 1 16); do picks+="$(WORKSHOP_STUDENT=student$n FAKE_GPUS=$four "$launch_sh" show_gpu) "; done
spread=$(tr ' ' '\n' <<<"$picks" | sort | uniq -c | awk 'NF == 2 { printf "%s ", $1 }')
if [ "$(tr ' ' '\n' <<<"$picks" | grep -c '^GPU-a[0-3]$')" -eq 16 ] && [ "$(wc -w <<<"$spread")" -eq 4 ]; then
    echo "ok: 16 students, four idle GPUs: all four used (students on each: $spread)"
else
    echo "FAIL: 16 students, four idle GPUs: picked $picks"; status=1
fi

# Processes count before names: the idle GPU, whoever asks; then the least busy.
for student in alice bob carol dave; do
    expect "GPU 0 busy, $student" GPU-bbbb-1111 WORKSHOP_STUDENT=$student \
        FAKE_PROCESSES=$'GPU-aaaa-0000\nGPU-aaaa-0000\n'
done
expect "three GPUs busy, GPU 2 least" GPU-a2 FAKE_GPUS="$four" \
    FAKE_PROCESSES=$'GPU-a0\nGPU-a0\nGPU-a1\nGPU-a1\nGPU-a3\nGPU-a2\nGPU-a3\n'

# Where the choice is not ours to make, nothing is picked.
expect "CUDA_VISIBLE_DEVICES set already" 1 CUDA_VISIBLE_DEVICES=1 FAKE_PROCESSES=$'GPU-bbbb-1111\n'
expect "WORKSHOP_GPU=any" unset WORKSHOP_GPU=any
expect "one GPU" unset FAKE_GPUS=$'0, GPU-aaaa-0000, NVIDIA H200, Disabled\n'
expect "a GPU split into MIG instances" unset \
    FAKE_GPUS=$'0, GPU-aaaa-0000, NVIDIA A100, Enabled\n1, GPU-bbbb-1111, NVIDIA A100, Disabled\n'
expect "nvidia-smi fails" unset FAKE_SMI_FAILS=1
expect "nvidia-smi lists nothing" unset FAKE_GPUS=
# Inside a scheduler's job the scheduler has chosen: the job runs with WORKSHOP_GPU=any and nothing is picked.
# shellcheck disable=SC2016  # the inner shell expands them
got=$(WORKSHOP_LAUNCHER="env" "$launch_sh" bash -c 'echo "${CUDA_VISIBLE_DEVICES-unset} ${WORKSHOP_GPU-unset}"' 2>&1)
if [ "$got" = "unset any" ]; then echo "ok: with a launcher: $got"
else echo "FAIL: with a launcher: '$got' (wanted 'unset any')"; status=1; fi

# The instructor's choice, by nvidia-smi's number (as its UUID: CUDA numbers GPUs its own way) or UUID.
expect "WORKSHOP_GPU=1" GPU-bbbb-1111 WORKSHOP_GPU=1 FAKE_PROCESSES=$'GPU-bbbb-1111\n'
expect "WORKSHOP_GPU=1 over CUDA_VISIBLE_DEVICES" GPU-bbbb-1111 WORKSHOP_GPU=1 CUDA_VISIBLE_DEVICES=0
expect "WORKSHOP_GPU as a UUID" GPU-aaaa-0000 WORKSHOP_GPU=GPU-aaaa-0000
expect "WORKSHOP_GPU=1, nvidia-smi failing: the number as it is" 1 WORKSHOP_GPU=1 FAKE_SMI_FAILS=1
refuse "WORKSHOP_GPU=7 on two GPUs" "error: WORKSHOP_GPU=7, but nvidia-smi numbers the GPUs here 0 to 1" \
    WORKSHOP_GPU=7
refuse "WORKSHOP_GPU=fastest" \
    "error: WORKSHOP_GPU='fastest' is not idle, any, a GPU's number or its UUID (nvidia-smi -L lists them)" \
    WORKSHOP_GPU=fastest

# The program's exit status comes through the pick.
WORKSHOP_STUDENT=alice "$launch_sh" bash -c 'exit 3' 2>/dev/null
code=$?
if [ "$code" -eq 3 ]; then echo "ok: the program's exit status (3)"
else echo "FAIL: the program's exit status: $code (wanted 3)"; status=1; fi

# On a terminal, one line says which GPU and why; elsewhere (logs, make watch's screen) nothing.
said=$(WORKSHOP_STUDENT=alice FAKE_PROCESSES=$'GPU-aaaa-0000\n' script -qec "$launch_sh true" /dev/null | tr -d '\r')
wanted="(on GPU 1 of 2, NVIDIA H200, which has the fewest processes on it now: 0; WORKSHOP_GPU picks another)"
if [ "$said" = "$wanted" ]; then echo "ok: on a terminal: $said"
else echo "FAIL: on a terminal: '$said' (wanted '$wanted')"; status=1; fi

# A make check waiting for a turn on a GPU (its marker locked, gpu_turns.sh) counts as five processes there; the
# marker of one that ended while waiting (unlocked) counts for nothing.
other=GPU-aaaa-0000
[ "$first" = GPU-aaaa-0000 ] && other=GPU-bbbb-1111
: >"$TMPDIR/workshop-gpu-turns/$first.waiting.0000000000000000001.1"
expect "a marker left by a check that ended: alice's GPU as before" "$first" WORKSHOP_STUDENT=alice
flock "$TMPDIR/workshop-gpu-turns/$first.waiting.0000000000000000002.2" sleep 3 &
holder=$!
sleep 0.3
expect "a check waiting for a turn on alice's GPU: the other" "$other" WORKSHOP_STUDENT=alice
expect "... and four processes on the other: still the other (four against five)" "$other" WORKSHOP_STUDENT=alice \
    FAKE_PROCESSES="$(printf '%s\n' "$other" "$other" "$other" "$other")"
expect "... but six on the other: alice's GPU (five against six)" "$first" WORKSHOP_STUDENT=alice \
    FAKE_PROCESSES="$(printf '%s\n' "$other" "$other" "$other" "$other" "$other" "$other")"
said=$(WORKSHOP_STUDENT=alice FAKE_PROCESSES=$(printf '%s\n' "$other" "$other" "$other" "$other" "$other" "$other") \
    script -qec "$launch_sh true" /dev/null | tr -d '\r')
# shellcheck disable=SC2015  # ok only prints
[[ $said == *"which has the fewest processes on it now: 0, and 1 make check(s) waiting for a turn (five each);"* ]] &&
    echo "ok: the line on a terminal counts the waiting check: $said" ||
    { echo "FAIL: the line on a terminal with a check waiting: '$said'"; status=1; }
kill "$holder" 2>/dev/null
wait "$holder" 2>/dev/null
rm -f "$TMPDIR/workshop-gpu-turns/"*

# make status and make watch keep to one GPU for the whole command: keep_to_one_gpu exports the pick.
# shellcheck source=../../common/make/lib.sh
got=$(source "$make_dir/lib.sh" && FAKE_PROCESSES=$'GPU-aaaa-0000\n' keep_to_one_gpu && show_gpu)
if [ "$got" = GPU-bbbb-1111 ]; then echo "ok: keep_to_one_gpu exports the pick ($got)"
else echo "FAIL: keep_to_one_gpu: the program saw '$got' (wanted GPU-bbbb-1111)"; status=1; fi
# shellcheck source=../../common/make/lib.sh
got=$(source "$make_dir/lib.sh" && WORKSHOP_GPU=sideways keep_to_one_gpu 2>&1; echo "exit $?")
if [ "$(tail -n 1 <<<"$got")" = "exit 2" ]; then echo "ok: keep_to_one_gpu refuses a bad WORKSHOP_GPU"
else echo "FAIL: keep_to_one_gpu with a bad WORKSHOP_GPU: $got"; status=1; fi

# The one-process-at-a-time test looks at the picked GPU only.
# shellcheck source=../../common/make/lib.sh
source "$make_dir/lib.sh"
if FAKE_EXCLUSIVE=GPU-aaaa-0000 CUDA_VISIBLE_DEVICES=GPU-bbbb-1111 gpu_takes_one_process_at_a_time; then
    echo "FAIL: one process at a time: GPU 0's compute mode counted for GPU 1"; status=1
elif ! FAKE_EXCLUSIVE=GPU-bbbb-1111 CUDA_VISIBLE_DEVICES=GPU-bbbb-1111 gpu_takes_one_process_at_a_time; then
    echo "FAIL: one process at a time: the picked GPU's own compute mode missed"; status=1
else
    echo "ok: one process at a time: the picked GPU's compute mode only"
fi
exit $status
