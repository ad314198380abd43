# Shared by the scripts in this folder and the sanitizer tests (source it; it defines functions only).

# launch and workshop_setting: where GPU programs run (the room's launcher, e.g. srun, or here).
source "$(dirname "${BASH_SOURCE[0]}")/../room/launch.sh"

# gpu_takes_one_process_at_a_time: succeeds where a GPU nvidia-smi sees lets one process at a time make a CUDA
# context (compute mode exclusive-process); WORKSHOP_ONE_PROCESS_AT_A_TIME=1 rehearses it, as for the programs.
# Where pick_gpu.sh has picked one GPU by its UUID, only that one counts.
gpu_takes_one_process_at_a_time() {
    [ "${WORKSHOP_ONE_PROCESS_AT_A_TIME:-}" = 1 ] && return 0
    command -v nvidia-smi >/dev/null || return 1
    smi_of_this_gpu --query-gpu=compute_mode --format=csv,noheader 2>/dev/null | grep -q Exclusive_Process
}

# harness_refusal <OUTPUT: the harness's line refusing to run here (too little free memory, or a GPU that another
# process holds), never a std::bad_alloc, which may be the student's; empty when there is none. (battery.cpp's
# refusal_in reads its children's output the same way.)
harness_refusal() { grep -E '^(not enough |GPU busy: )' | grep -v 'std::bad_alloc' | head -n 1; }

# step_rate PROGRAM [options]: the GB/s or GFLOP/s on the step's own row of PROGRAM's CSV output
# (empty when the program launched no kernel). rate_options: what it adds to the options; rate_of_csv: the reading.
rate_options=(--csv --no-references --no-host)
# One launch and no timing loop (the programs time for a second by default): for probes and profiles.
single_run=(--reps 1 --min-time 0 --warmup 0)
rate_of_csv() { awk -F, '$3 == "step" { print $10 }' "$@"; }
step_rate() { "$@" "${rate_options[@]}" | rate_of_csv; }

# remembered_step_rate PROGRAM [options]: step_rate, remembered for WORKSHOP_RATE_CACHE_S seconds (make watch
# sets it; unset or 0: measured every time) in BIN/.rates, for that build of PROGRAM, those options, this machine
# and these visible GPUs.
remembered_step_rate() {
    local max_age=${WORKSHOP_RATE_CACHE_S:-0}
    [[ $max_age =~ ^[0-9]+$ ]] && [ "$max_age" -gt 0 ] || { step_rate "$@"; return; }
    local cache key hit rate now=$EPOCHSECONDS
    cache="$(dirname "$1")/.rates"
    key="$(basename "$1") $(stat -c %Y.%s "$1") $(hostname) ${CUDA_VISIBLE_DEVICES-all} ${*:2}"
    hit=$(awk -F'\t' -v k="$key" -v now="$now" -v age="$max_age" '$1 == k && now - $2 <= age { r = $3 } END { print r }' \
        "$cache" 2>/dev/null)
    if [ -n "$hit" ]; then echo "$hit"; return; fi
    rate=$(step_rate "$@")
    [ -n "$rate" ] && printf '%s\t%s\t%s\n' "$key" "$now" "$rate" >>"$cache"
    echo "$rate"
}

# no_device_line PROGRAM: prints the program's one line saying there is no CUDA device, and succeeds, when
# there is none; prints nothing and fails when there is one. (no_device_line launch PROGRAM: where it runs.)
no_device_line() {
    local probe
    ! probe=$("$@" --size 1 "${single_run[@]}" --no-references --no-host 2>&1) && grep -m1 "no CUDA device" <<<"$probe"
}

