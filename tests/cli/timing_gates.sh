#!/usr/bin/env bash
# make check's timing runs (common/make/check.sh, and the program's --verdict: common/programs/timing_runs.hpp) on
# stand-in programs that log what they do: the three runs (the student's, the solution's, the last step's) set up
# while the battery runs and are timed only once it is over, in rounds, a slice of each a round; on a GPU that takes
# one process at a time, each alone in turn; a ratio the rounds cannot pin down is marked uncertain; on a FAIL
# nothing is timed and nothing is left running. The stand-in for the student's program hands --verdict to VERDICT_STAND_IN, which runs
# the verdict's own code around it.
#   timing_gates.sh CHECK_SH VERDICT_STAND_IN
# ok and bad always succeed, so "A && ok || bad" is an if-then-else here.
# shellcheck disable=SC2015
set -u
check=$1
export VERDICT_STAND_IN=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
bin="$dir/bin"
mkdir -p "$bin"
# A stand-in step program: --verdict is make check's own process (above); --check takes a second and says PASS
# (or FAIL when $dir/fail exists); a timing run logs its set-up, then reads its gate when it has one, like the real
# programs: "go" times it alone, "round S" times a slice (logged) and replies with its times, "end" ends the rounds;
# then it prints its JSON and ends. With $dir/busy the student's slices take a time that wanders from round to
# round, the others' do not. With $dir/no_gpu both say there is no GPU (the
# timing run at once, the checker a little later) and exit kExitNoDevice; with $dir/wrong_when_timed the timing run make check
# starts finds its own run wrong. With $dir/no_room the checker found too little memory for some shapes (NOT
# CHECKED, exit kExitOutOfMemory); with $dir/no_room_when_timed the timing run make check starts is refused its size for memory
# (exit kExitOutOfMemory). The codes are the programs' (common/base/exit_codes.hpp).
# shellcheck source=../../common/base/exit_codes.sh
source "$(dirname "$0")/../../common/base/exit_codes.sh"
export no_device=${exit_codes[kExitNoDevice]} not_checked=${exit_codes[kExitOutOfMemory]}
cat >"$bin/program" <<'PROGRAM'
#!/usr/bin/env bash
dir=$(cd "$(dirname "$0")/.." && pwd) name=$(basename "$0")
if [ "$1" = --verdict ]; then
    step=${name#step} && step=${step%%_*}
    exec "$VERDICT_STAND_IN" "$0" "$step" "${name#*_}" "$@"
fi
stamp() { echo "$EPOCHREALTIME $name $1" >>"$dir/log"; }
if [ -e "$dir/no_gpu" ]; then
    [ "$1" = --check ] && sleep 0.3
    echo "no CUDA device: none here" >&2; exit "$no_device"
fi
if [ -e "$dir/wrong_when_timed" ] && [ -n "${WORKSHOP_TIMING_GATE:-}" ]; then
    echo "FAIL: at the size make check times (8192x8192): 3 of 4 elements never written"
    echo '{"failure": {"outcome": "fail", "headline": "FAIL: at the size make check times (8192x8192): 3 of 4 elements never written", "reason": "at the size make check times (8192x8192): 3 of 4 elements never written", "exit_code": 1}}'; exit 1
fi
if [ -e "$dir/no_room_when_timed" ] && [ -n "${WORKSHOP_TIMING_GATE:-}" ]; then
    echo "not enough device memory: a 8192x8192 transpose needs 600000000 bytes, only 1000000 bytes are free" >&2; exit "$not_checked"
fi
if [ "$1" = --check ]; then
    stamp "check begins"; sleep 1; stamp "check ends"
    if [ -e "$dir/fail" ]; then echo "FAIL: 1 of 16 shapes fail"; exit 1; fi
    if [ -e "$dir/no_room" ]; then echo "NOT CHECKED: 4 of 16 shapes could not run here, and nothing that ran failed: not enough device memory"; exit "$not_checked"; fi
    echo "PASS: correct on all 16 shapes; memcheck, racecheck and synccheck clean"; exit 0
fi
stamp "options $*"
stamp "set-up"
sleep 0.5
stamp "set-up ends"
ms=$((1000 / ${#name}))
if [ -n "${WORKSHOP_TIMING_GATE:-}" ]; then
    exec 5<"$WORKSHOP_TIMING_GATE"
    read -r word _ <&5
    while [ "$word" = round ]; do
        stamp "slice"
        [ -e "$dir/busy" ] && [ "$name" = step3_transpose ] && ms=$((RANDOM % 200 + 20))
        echo "{\"ms\": [$ms, $ms]}" >"$WORKSHOP_TIMING_REPLY"
        read -r word _ <&5 || exit 0
    done
    [ "$word" = go ] || [ "$word" = end ] || exit 0
fi
stamp "timed begins"; sleep 0.3; stamp "timed ends"
echo "[{\"track\": \"transpose\", \"name\": \"$name\", \"kind\": \"step\", \"rate\": $(( ${#name} * 100 )), \"unit\": \"GB/s\"}]"
PROGRAM
chmod +x "$bin/program"
for p in step3_transpose solution3_transpose solution2_transpose; do ln -s program "$bin/$p"; done

# The stand-in nvidia-smi (fake_nvidia_smi.sh): one GPU and nothing on it, unless a case says otherwise.
mkdir -p "$dir/smi"
ln -s "$(cd "$(dirname "$0")" && pwd)/fake_nvidia_smi.sh" "$dir/smi/nvidia-smi"
one_gpu="0, GPU-aaaa, NVIDIA H200, Disabled"
export PATH="$dir/smi:$PATH" TMPDIR="$dir" FAKE_GPUS=$one_gpu  # TMPDIR: the turns' files (gpu_turns.sh) go there too
unset CUDA_VISIBLE_DEVICES FAKE_PROCESSES FAKE_SMI_FAILS

status=0
ok() { echo "ok: $1"; }
bad() { echo "FAIL: $1"; status=1; }
when() { awk -v n="$1" -v w="$2" '$2 == n && substr($0, index($0, $3)) == w { print $1; exit }' "$dir/log"; }
before() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a != "" && b != "" && a < b) }'; }

# run_check [FLAG]: make check on the stand-ins, with $dir/FLAG there while it runs; sets output and code.
run_check() {
    [ -n "${1:-}" ] && touch "$dir/$1"
    output=$(bash "$check" "$bin" 3 transpose 2>&1)
    code=$?
    [ -n "${1:-}" ] && rm -f "$dir/$1"
}

run_check
[ $code -eq 0 ] &&
    grep -q "^VERDICT step 3 transpose: PASS, 1500 GB/s, 79% of the solution, 0.79x step 2" <<<"$output" &&
    ok "PASS, with the three rates" || bad "verdict (exit $code): $output"
before "$(when step3_transpose "set-up")" "$(when step3_transpose "check ends")" &&
    ok "the student's run sets up during the battery" || bad "the student's run did not start before the battery ended"
for p in solution3_transpose solution2_transpose; do
    before "$(when $p "set-up")" "$(when step3_transpose "check ends")" &&
        ok "$p sets up during the battery" || bad "$p did not set up during the battery: $(cat "$dir/log")"
done
before "$(when step3_transpose "check ends")" "$(grep -m1 " slice" "$dir/log" | cut -d' ' -f1)" &&
    ok "the runs are timed after the battery" || bad "a run was timed while the battery ran: $(cat "$dir/log")"
# Each round, one slice of each run: every three slices in a row are the three runs.
rounds=$(awk '$3 == "slice" { n++; seen[$2]++; if (n % 3 == 0) { print length(seen); delete seen } }' "$dir/log")
[ -n "$rounds" ] && [ "$(sort -u <<<"$rounds")" = 3 ] && [ "$(wc -l <<<"$rounds")" -ge 10 ] &&
    ok "timed in $(wc -l <<<"$rounds") rounds, a slice of each run a round" ||
    bad "the slices did not take turns: $(grep slice "$dir/log")"
# A fifth of a second of timing each (the programs' default is a second), so the verdict comes soon after a save.
[ "$(grep -c "options --min-time 0.2 " "$dir/log")" = 3 ] && ok "each timing run asks for --min-time 0.2" ||
    bad "the timing runs' options: $(grep options "$dir/log")"
# The solutions' runs are timed unverified (make test checks them, and the student would wait for their checks);
# the student's run never.
[ "$(grep -cE " solution[23]_transpose options .* --unverified$" "$dir/log")" = 2 ] &&
    ! grep -q " step3_transpose options .*--unverified" "$dir/log" && ok "only the solutions' runs are timed --unverified" ||
    bad "the timing runs' options: $(grep options "$dir/log")"

# The student's slices wander where the others' do not: the ratio is marked uncertain, and no advice follows it.
run_check busy
[ $code -eq 0 ] && grep -q "^VERDICT step 3 transpose: PASS, 1500 GB/s, 79% of the solution (uncertain: the GPU was busy" <<<"$output" &&
    ! grep -q "well short" <<<"$output" && ok "uncertain ratio: marked, no advice" || bad "busy GPU (exit $code): $output"

# A GPU that takes one process at a time: the student's run is timed alone, then the solution's, then the last
# step's, each started only when the one before has ended.
rm -f "$dir/log"
WORKSHOP_ONE_PROCESS_AT_A_TIME=1 run_check
[ $code -eq 0 ] && grep -q "^VERDICT step 3 transpose: PASS, 1500 GB/s, 79% of the solution, 0.79x step 2" <<<"$output" &&
    before "$(when step3_transpose "timed ends")" "$(when solution3_transpose "set-up")" &&
    before "$(when solution3_transpose "timed ends")" "$(when solution2_transpose "set-up")" &&
    ok "one process at a time: each run alone, in turn" || bad "one process at a time (exit $code): $output $(cat "$dir/log")"

rm -f "$dir/log"
run_check fail
[ $code -eq 1 ] && grep -q "^VERDICT step 3 transpose: FAIL (1 of 16 shapes fail)" <<<"$output" && ok "FAIL verdict" ||
    bad "FAIL verdict (exit $code): $output"
sleep 1  # a stand-in that had been left waiting would log its timed part by now
grep -qE "timed|slice" "$dir/log" && bad "a run was timed after a FAIL: $(cat "$dir/log")" || ok "nothing timed after a FAIL"
left=$(grep -lsa "$bin/[s]" /proc/[0-9]*/cmdline)  # [s]: not this grep itself
[ -z "$left" ] && ok "no timing run left running" || bad "timing runs left running: $left"

# Other programs on the GPU as the timing ends (the students beside this one): the verdict says so on a line of
# its own below it, and counts only the GPU the check ran on, where nvidia-smi can tell which that is.
note() { grep -F "using this GPU as the timing ended" <<<"$output"; }
FAKE_PROCESSES=$'GPU-aaaa\nGPU-aaaa\nGPU-aaaa\n' run_check
[ $code -eq 0 ] && [ "$(grep -c '^VERDICT step 3 transpose: PASS, 1500 GB/s' <<<"$output")" = 1 ] &&
    grep -qxF "  (3 other programs were using this GPU as the timing ended: the rate may read low; the % and the x, timed in rounds beside the solutions, hold unless marked uncertain)" <<<"$output" &&
    ok "three programs beside it: said below the PASS" || bad "three programs beside it (exit $code): $output"
FAKE_PROCESSES=GPU-aaaa run_check
grep -q "^  (1 other program was using this GPU" <<<"$output" && ok "one beside it: said" || bad "one beside it: $output"
run_check
[ $code -eq 0 ] && [ -z "$(note)" ] && ok "nothing beside it: no note" || bad "nothing beside it: $output"
two_gpus=$'0, GPU-aaaa, NVIDIA H200, Disabled\n1, GPU-bbbb, NVIDIA H200, Disabled\n'
FAKE_GPUS=$two_gpus FAKE_PROCESSES=$'GPU-aaaa\nGPU-aaaa\n' run_check
[ -z "$(note)" ] && ok "two GPUs, none picked: no note (which one ran it is not known)" || bad "two GPUs, none picked: $output"
output=$(CUDA_VISIBLE_DEVICES=GPU-bbbb FAKE_GPUS=$two_gpus FAKE_PROCESSES=$'GPU-aaaa\nGPU-aaaa\n' \
    bash "$check" "$bin" 3 transpose 2>&1)
[ -z "$(note)" ] && ok "two GPUs, the other one busy: no note" || bad "the other GPU's programs counted: $output"
output=$(CUDA_VISIBLE_DEVICES=GPU-aaaa FAKE_GPUS=$two_gpus FAKE_PROCESSES=$'GPU-aaaa\nGPU-aaaa\n' \
    bash "$check" "$bin" 3 transpose 2>&1)
grep -q "^  (2 other programs were using" <<<"$output" && ok "two GPUs, this one busy: said" ||
    bad "two GPUs, this one busy: $output"
FAKE_GPUS="0, GPU-aaaa, NVIDIA H200, Enabled" FAKE_PROCESSES=GPU-aaaa run_check
[ -z "$(note)" ] && ok "MIG: no note" || bad "MIG: $output"
FAKE_SMI_FAILS=1 run_check
[ $code -eq 0 ] && [ -z "$(note)" ] && ok "nvidia-smi failing: no note, the PASS as ever" || bad "nvidia-smi failing (exit $code): $output"
FAKE_PROCESSES=GPU-aaaa run_check fail
[ $code -eq 1 ] && [ -z "$(note)" ] && ok "FAIL: no note" || bad "FAIL with a note (exit $code): $output"
rm -f "$dir/log"

# A kernel right on every shape of the battery but wrong at the size that is timed: FAIL, and nothing else timed.
run_check wrong_when_timed
wrong="at the size make check times (8192x8192): 3 of 4 elements never written"
[ $code -eq 1 ] && grep -qxF "VERDICT step 3 transpose: FAIL ($wrong)" <<<"$output" &&
    grep -qxF "FAIL: $wrong" <<<"$output" && ! grep -qF '{"failure"' <<<"$output" &&
    [ -z "$(when solution3_transpose "slice")" ] && ok "FAIL when the timed run is wrong (its JSON read, not shown)" ||
    bad "wrong at the timed size (exit $code): $output $(cat "$dir/log" 2>/dev/null)"

# Too little memory for the checker, or for the timed size: NOT CHECKED (kExitOutOfMemory), no FAIL, nothing timed.
rm -f "$dir/log"
run_check no_room
[ $code -eq "$not_checked" ] && grep -qxF "VERDICT step 3 transpose: NOT CHECKED (4 of 16 shapes could not run here, and nothing that ran failed: not enough device memory)" <<<"$output" &&
    [ -z "$(when step3_transpose "slice")" ] && ok "NOT CHECKED when shapes could not run for memory" ||
    bad "no room for the checker (exit $code): $output $(cat "$dir/log" 2>/dev/null)"
run_check no_room_when_timed
[ $code -eq "$not_checked" ] && grep -q "^VERDICT step 3 transpose: NOT CHECKED (correct on every shape, but the timed run could not start: not enough device memory: a 8192x8192" <<<"$output" &&
    [ -z "$(when solution3_transpose "slice")" ] && ok "NOT CHECKED when the timed size does not fit" ||
    bad "no room for the timed run (exit $code): $output $(cat "$dir/log" 2>/dev/null)"

# No GPU: said once (by the checker), whether or not the timing run got to say it first.
run_check no_gpu
[ $code -eq "$no_device" ] && [ "$(grep -c "no CUDA device" <<<"$output")" = 1 ] && ok "no GPU: exit $code, said once" ||
    bad "no GPU (exit $code): $output"
exit $status
