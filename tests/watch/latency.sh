#!/usr/bin/env bash
# make bench-watch: the feedback time of make watch, from a save of step3/transpose.cu to its verdict on the
# screen, in a real terminal (tmux) on a copy of the checkout (BUILD_DIR/watch_test/tree, never your files).
# Each save changes the file (one more comment line), so nvcc compiles it again, as after a student's edit.
#   latency.sh BUILD_DIR [SAVES]      (SAVES: how many timed saves, default 5)
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
build=${1:?usage: latency.sh BUILD_DIR [SAVES]} saves=${2:-5}
[[ $saves =~ ^[1-9][0-9]*$ ]] || { echo "error: SAVES '$saves' is not a whole number of at least 1" >&2; exit 2; }
source "$here/drive.sh"
# shellcheck source=../../common/make/lib.sh
source "$top/common/make/lib.sh"
keep_to_one_gpu || exit $?  # the whole measurement on one GPU, the one its line names (pick_gpu.sh)

tree="$build/watch_test/tree"
echo "preparing a copy of the checkout in $tree ..."
watch_tree "$top" "$tree" "$(cuda_arch_of "$build")" || exit 1
if no_device_line "$tree/build/bin/step3_transpose"; then exit 3; fi  # skipped: no GPU
step_file="$tree/step3/transpose.cu"
original=$(mktemp)
cp "$step_file" "$original"
trap 'drive_stop; cp "$original" "$step_file"; rm -f "$original"' EXIT

drive_start "$tree/step3" "make watch TRACK=transpose" || exit 1
drive_wait 600 "[check 1]" "VERDICT step 3 transpose" || exit 1
drive_wait 60 ", check " || exit 1  # the first check is over (it built the solutions too; not timed)

times=()
for ((i = 1; i <= saves; i++)); do
    saved=$EPOCHREALTIME
    echo "// save $i" >>"$step_file"
    # [check N] appears when the screen is redrawn for this save, which also clears the last verdict.
    drive_wait 120 "[check $((i + 1))]" "VERDICT step 3 transpose" || exit 1
    seen=$EPOCHREALTIME
    drive_wait 60 ", check " || exit 1
    split=$(drive_screen | grep -oE '\(build [0-9.]+ s, check [0-9.]+ s\)')
    times+=("$(awk -v a="$saved" -v b="$seen" 'BEGIN { printf "%.2f", b - a }')")
    printf 'save %d: verdict on screen after %s s %s: %s\n' "$i" "${times[-1]}" "$split" \
        "$(drive_screen | grep -m1 '^VERDICT')"
done
drive_keys q

gpu=$(smi_of_this_gpu --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1)
printf '%s\n' "${times[@]}" | sort -n | awk -v gpu="${gpu:-this GPU}" -v n="$saves" '
    { t[NR] = $1 }
    END { median = (n % 2) ? t[(n + 1) / 2] : (t[n / 2] + t[n / 2 + 1]) / 2
          printf "make watch, save of step3/transpose.cu to its verdict on screen, %d saves on %s: min %.2f s, median %.2f s, max %.2f s\n",
                 n, gpu, t[1], median, t[n] }'
