# Shared by the scripts in this folder and the sanitizer tests (source it; it defines functions only).

# launch and workshop_setting: where GPU programs run (the room's launcher, e.g. srun, or here).
source "$(dirname "${BASH_SOURCE[0]}")/launch.sh"

# step_rate PROGRAM [options]: the GB/s or GFLOP/s on the step's own row of PROGRAM's CSV output
# (empty when the program launched no kernel). rate_options: what it adds to the options; rate_of_csv: the reading.
rate_options=(--csv --no-references --no-host)
rate_of_csv() { awk -F, '$3 == "step" { print $10 }' "$@"; }
step_rate() { "$@" "${rate_options[@]}" | rate_of_csv; }

# Rates remembered for WORKSHOP_RATE_CACHE_S seconds (make watch sets it; unset or 0: measured every time) in
# BIN/.rates, for that build of PROGRAM, those options, this machine and these visible GPUs.
#   remembered_rate PROGRAM [options]      the rate, when one is remembered (else prints nothing)
#   remember_rate RATE PROGRAM [options]
#   remembered_step_rate PROGRAM [options] the remembered rate, else step_rate (then remembered)
rate_memory_on() { [[ ${WORKSHOP_RATE_CACHE_S:-0} =~ ^[0-9]+$ ]] && [ "${WORKSHOP_RATE_CACHE_S:-0}" -gt 0 ]; }
rate_key() { echo "$(basename "$1") $(stat -c %Y.%s "$1") $(hostname) ${CUDA_VISIBLE_DEVICES-all} ${*:2}"; }
remembered_rate() {
    rate_memory_on || return 0
    awk -F'\t' -v k="$(rate_key "$@")" -v now="$EPOCHSECONDS" -v age="$WORKSHOP_RATE_CACHE_S" \
        '$1 == k && now - $2 <= age { r = $3 } END { if (r != "") print r }' "$(dirname "$1")/.rates" 2>/dev/null
    return 0
}
remember_rate() {
    local rate=$1
    shift
    if rate_memory_on && [ -n "$rate" ]; then
        printf '%s\t%s\t%s\n' "$(rate_key "$@")" "$EPOCHSECONDS" "$rate" >>"$(dirname "$1")/.rates"
    fi
    return 0
}

remembered_step_rate() {
    local rate
    rate=$(remembered_rate "$@")
    if [ -z "$rate" ]; then
        rate=$(step_rate "$@")
        remember_rate "$rate" "$@"
    fi
    echo "$rate"
}

# no_device_line PROGRAM: prints the program's one line saying there is no CUDA device, and succeeds, when
# there is none; prints nothing and fails when there is one. (no_device_line launch PROGRAM: where it runs.)
no_device_line() {
    local probe
    ! probe=$("$@" --size 1 --reps 1 --warmup 0 --no-references --no-host 2>&1) && grep -m1 "no CUDA device" <<<"$probe"
}

