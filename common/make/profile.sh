#!/usr/bin/env bash
# make profile for one program: Nsight Compute on the step's kernel alone (the first launch: the checked run). The
# counters to ask for and their table, under the names the slides use and beside their ideals, are
# workshop_profile's (common/report/ncu_counters.hpp), built beside the program.
#   profile.sh PROGRAM TRACK [program options]
# shellcheck source-path=SCRIPTDIR
set -u
program=$1 track=$2
shift 2
source "$(dirname "$0")/lib.sh"
reader="$(dirname "$program")/workshop_profile"
[ -x "$reader" ] || { echo "error: $reader is not built: run make build" >&2; exit "${exit_codes[kExitBadUsage]}"; }
if ! command -v ncu >/dev/null 2>&1; then
    echo "error: ncu (Nsight Compute) not found; it ships with the CUDA Toolkit (add /usr/local/cuda/bin to PATH)" >&2
    exit "${exit_codes[kExitBadUsage]}"
fi
metrics=$("$reader" metrics "$track") || exit
# Large enough to fill the GPU, small enough that replaying the kernel for every counter stays quick.
args=("$@")
[ ${#args[@]} -gt 0 ] || if [ "$track" = transpose ]; then args=(--size 8192); else args=(--size 2048); fi
# No GPU: the program's own line, and its exit code.
if said=$(no_device_line "$program"); then echo "$said" >&2; exit "${exit_codes[kExitNoDevice]}"; fi

log=$(mktemp)
trap 'rm -f "$log"' EXIT
# --no-guards: with its guards on, the checked run first fills shared memory with poison, and that kernel of the
# harness, not the step's, would be the one launch profiled.
ncu --launch-count 1 --metrics "$metrics" --csv "$program" "${args[@]}" "${single_run[@]}" --no-references \
    --no-guards >"$log" 2>&1
"$reader" show "$track" "$log" $? "$program" "${args[@]}"
