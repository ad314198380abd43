#!/usr/bin/env bash
# Where GPU programs run. Builds always happen here; every command that runs GPU code goes through `launch`,
# which prefixes it with the room's launcher when one is set, for example on a cluster whose login node has no GPU:
#   WORKSHOP_LAUNCHER="srun --partition=gpu --gres=gpu:1 --time=5"
# in the environment, or in workshop.conf at the top of the checkout (NAME=value lines; the environment wins,
# and WORKSHOP_LAUNCHER= in the environment turns a file's launcher off). Output and exit codes are the
# program's own. When the scheduler refuses the job or stops it (time limit), one line says what it said and
# the exit status is kExitLauncherRefused (common/base/exit_codes.hpp). Without a launcher, on a machine with
# several GPUs, the command runs on the least busy one (pick_gpu.sh).
#   source launch.sh; launch PROGRAM [args]      or      launch.sh PROGRAM [args]

workshop_top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=../base/exit_codes.sh
source "$workshop_top/common/base/exit_codes.sh"

# workshop_setting NAME: the setting from the environment, else from workshop.conf (empty when neither has it).
workshop_setting() {
    if [ -n "${!1+set}" ]; then printf '%s\n' "${!1}"; return; fi
    [ -f "$workshop_top/workshop.conf" ] || return 0
    sed -nE "s/^[[:space:]]*$1[[:space:]]*=[[:space:]]*//p" "$workshop_top/workshop.conf" | tail -n 1 |
        sed -E 's/[[:space:]]+$//; s/^"(.*)"$/\1/; s/^'"'"'(.*)'"'"'$/\1/'
}

# Sorts the launcher's messages from the program's stderr: lines from srun/slurmstepd are kept in $1 (except
# srun's note of a non-zero exit, which the exit status already carries); everything else passes through.
split_launcher_messages() {
    local line
    while IFS= read -r line || [ -n "$line" ]; do
        case $line in
            srun:*"Exited with exit code"*) ;;
            srun:*error*|slurmstepd*|srun:*aborted*|srun:*[Cc]ancel*) printf '%s\n' "$line" >>"$1" ;;
            *) printf '%s\n' "$line" >&2 ;;
        esac
    done
}

# The scheduler's own words from the kept lines, on one line: its "*** ... ***" notice when there is one (a job
# stopped), else its error messages. Lines about the program's tasks (signals) are not the scheduler's.
launcher_said() {
    local notice
    notice=$(sed -nE 's/.*\*\*\* (.*) \*\*\*.*/\1/p' "$1" | head -n 1)
    if [ -n "$notice" ]; then echo "stopped the job: $notice"; return; fi
    local errors
    errors=$(grep -vE ': tasks? [0-9,-]+: ' "$1" | sed -E 's/^[a-z_-]+: (error: )?//' | paste -sd';' - | sed 's/;/; /g')
    [ -z "$errors" ] || echo "refused the job: $errors"
}

source "$(dirname "${BASH_SOURCE[0]}")/pick_gpu.sh"

launch() {
    local setting
    setting=$(workshop_setting WORKSHOP_LAUNCHER)
    # Input is empty: no workshop program reads any, and make watch reads its keys from the terminal meanwhile
    # (srun would pass the terminal on to the job, and take them).
    if [ -z "$setting" ]; then (keep_to_one_gpu && "$@" </dev/null); return; fi
    local -a launcher
    read -ra launcher <<<"$setting"
    local kept status said
    kept=$(mktemp)
    # The launched command runs with the launcher off, so scripts it runs do not submit jobs of their own, and
    # on the GPUs the scheduler gave the job (WORKSHOP_GPU=any).
    { WORKSHOP_LAUNCHER='' WORKSHOP_GPU=any "${launcher[@]}" "$@" </dev/null 2>&1 1>&3 3>&- |
        split_launcher_messages "$kept"; } 3>&1
    status=${PIPESTATUS[0]}
    said=""
    [ -s "$kept" ] && said=$(launcher_said "$kept")
    if [ "$status" -ne 0 ] && [ -n "$said" ]; then
        echo "error: ${launcher[0]} $said (WORKSHOP_LAUNCHER=\"$setting\")" >&2
        status=${exit_codes[kExitLauncherRefused]}
    elif [ -s "$kept" ]; then
        cat "$kept" >&2
    fi
    rm -f "$kept"
    return "$status"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    launch "$@"
fi
