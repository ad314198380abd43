# shellcheck shell=bash source-path=SCRIPTDIR
# Shared by the scripts in this folder and the sanitizer tests (source it; it defines functions only).

# launch and workshop_setting: where GPU programs run (the room's launcher, e.g. srun, or here).
# shellcheck source=../room/launch.sh
source "$(dirname "${BASH_SOURCE[0]}")/../room/launch.sh"

# gpu_takes_one_process_at_a_time: succeeds where a GPU nvidia-smi sees lets one process at a time make a CUDA
# context (compute mode exclusive-process); WORKSHOP_ONE_PROCESS_AT_A_TIME=1 rehearses it, as for the programs.
# Where pick_gpu.sh has picked one GPU by its UUID, only that one counts.
gpu_takes_one_process_at_a_time() {
    [ "${WORKSHOP_ONE_PROCESS_AT_A_TIME:-}" = 1 ] && return 0
    command -v nvidia-smi >/dev/null || return 1
    smi_of_this_gpu --query-gpu=compute_mode --format=csv,noheader 2>/dev/null | grep -q Exclusive_Process
}

# One launch and no timing loop (the programs time for a second by default): for probes and profiles.
single_run=(--reps 1 --min-time 0 --warmup 0)

# no_device_line PROGRAM: where the program finds no CUDA device (it ends with kExitNoDevice), prints what it said
# about it (its one line) and succeeds; prints nothing and fails otherwise. (no_device_line launch PROGRAM: where it
# runs.)
no_device_line() {
    local said
    said=$("$@" --size 1 "${single_run[@]}" --no-references --no-host 2>&1 >/dev/null)
    [ $? -eq "${exit_codes[kExitNoDevice]}" ] && printf '%s\n' "$said"
}

