#!/usr/bin/env bash
# make profile for one program: Nsight Compute on the step's kernel alone (the first launch: the checked run),
# printing the counters the lessons talk about under the names the slides use, each beside its ideal.
#   profile.sh PROGRAM TRACK [program options]
# shellcheck source-path=SCRIPTDIR
set -u
program=$1 track=$2
shift 2
source "$(dirname "$0")/lib.sh"
if ! command -v ncu >/dev/null 2>&1; then
    echo "error: ncu (Nsight Compute) not found; it ships with the CUDA Toolkit (add /usr/local/cuda/bin to PATH)" >&2
    exit "${exit_codes[kExitBadUsage]}"
fi
# Large enough to fill the GPU, small enough that replaying the kernel for every counter stays quick.
args=("$@")
[ ${#args[@]} -gt 0 ] || if [ "$track" = transpose ]; then args=(--size 8192); else args=(--size 2048); fi

# name | metric | ideal
metrics=(
  "duration|gpu__time_duration.sum|-"
  "global load efficiency (%)|smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct|100"
  "global store efficiency (%)|smsp__sass_average_data_bytes_per_sector_mem_global_op_st.pct|100"
  "sectors per load request|l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_ld.ratio|4 (16 with float4)"
  "sectors per store request|l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_st.ratio|4 (16 with float4)"
  "shared load bank conflicts|=conflicts ld|0"
  "shared store bank conflicts|=conflicts st|0"
  "achieved occupancy (%)|sm__warps_active.avg.pct_of_peak_sustained_active|near theoretical"
  "DRAM throughput (% of peak)|dram__throughput.avg.pct_of_peak_sustained_elapsed|$([ "$track" = transpose ] && echo '> 85' || echo 'low: reuse from cache')"
  "FMA pipe busy (% of peak)|sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active|$([ "$track" = matmul ] && echo '> 80' || echo '-')"
)
# Bank conflicts are computed, not read: ncu's own counter (l1tex__data_bank_conflicts_*) also counts shared-memory
# wavefronts that the kernel's shared-memory instructions did not cause, and reads in the tens of thousands on a
# conflict-free kernel. The ideal number of wavefronts is ncu's total less its conflict count; the wavefronts the
# kernel's own instructions took (smsp__sass_*) less that ideal are the conflicts the code causes: 0 when it has
# none, 31 per instruction for a warp that reads one column of a 32 x 32 float tile.
conflicts=(l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ l1tex__data_pipe_lsu_wavefronts_mem_shared_op_
           smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_)
list=$({ printf '%s\n' "${metrics[@]}" | cut -d'|' -f2 | grep -v '^='
         for op in ld st; do printf "%s$op.sum\n" "${conflicts[@]}"; done; } | paste -sd, -)

log=$(mktemp)
trap 'rm -f "$log"' EXIT
# --no-guards: with its guards on, the checked run first fills shared memory with poison, and that kernel of the
# harness, not the step's, would be the one launch profiled.
ncu --launch-count 1 --metrics "$list" --csv "$program" "${args[@]}" "${single_run[@]}" --no-references --no-guards \
    >"$log" 2>&1
code=$?
if grep -q "ERR_NVGPUCTRPERM" "$log"; then
    echo "error: this user may not read the GPU's performance counters (ERR_NVGPUCTRPERM)." >&2
    echo "  run make profile with sudo, or let everyone profile: add 'options nvidia NVreg_RestrictProfilingToAdminUsers=0'" >&2
    echo "  to a file in /etc/modprobe.d/ and reboot (details: https://developer.nvidia.com/ERR_NVGPUCTRPERM)" >&2
    exit 1
fi
if grep -q "no CUDA device" "$log"; then grep "no CUDA device" "$log" >&2; exit "${exit_codes[kExitNoDevice]}"; fi
if ! grep -q '"Metric Name"' "$log"; then
    if grep -q "No kernels were profiled" "$log"; then
        echo "$(basename "$program"): no kernel was launched (step 1's starting point runs on the CPU): nothing to profile yet"
        exit 0
    fi
    echo "error: ncu did not produce counters (exit $code):" >&2
    grep -vE '^[^=]*(PASS|FAIL)' "$log" | tail -n 15 >&2
    exit 1
fi

# ncu's CSV: field 5 the kernel, 13 the metric, 14 its unit, 15 its value (with thousands separators).
echo "== $(basename "$program") ${args[*]}: kernel $(grep -m1 '"Metric Name"' -A1 "$log" | tail -n 1 | awk -F'","' '{print $5}')"
printf '  %-32s %14s   %s\n' "counter (slides' name)" "value" "ideal"
read_metric() {  # the value, and with --unit its unit (ncu picks the duration's per value: nsecond, usecond, ...)
    awk -F'","' -v m="$1" -v unit="${2:-}" \
        '$13 == m { gsub(/"/, "", $15); if (!unit) gsub(/,/, "", $15); print $15 (unit ? " " $14 : ""); exit }' "$log"
}
for m in "${metrics[@]}"; do
    IFS='|' read -r name metric ideal <<<"$m"
    if [[ $metric == "=conflicts "* ]]; then
        op=${metric#=conflicts } value=""
        raw=$(read_metric "${conflicts[0]}$op.sum") all=$(read_metric "${conflicts[1]}$op.sum")
        own=$(read_metric "${conflicts[2]}$op.sum")
        [ -n "$raw" ] && [ -n "$all" ] && [ -n "$own" ] && value=$((own - (all - raw) > 0 ? own - (all - raw) : 0))
    else
        value=$(read_metric "$metric" "$([ "$metric" = gpu__time_duration.sum ] && echo --unit)")
    fi
    printf '  %-32s %14s   %s\n' "$name" "${value:-n/a}" "$ideal"
done
