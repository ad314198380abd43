#!/usr/bin/env bash
# make check's timing runs (common/make/check.sh) on stand-in programs that log what they do: they start while
# the battery runs, nothing is timed before the battery is over, they are timed one at a time (mine, the
# solution, the last step's), and on a FAIL none is timed and none is left running.
#   timing_gates.sh CHECK_SH
set -u
check=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
bin="$dir/bin"
mkdir -p "$bin"
# A stand-in step program: --check takes a second and says PASS (or FAIL when $dir/fail exists); a timing
# run logs its set-up, says it is ready and waits at its gate like the real programs, logs its timed part, then
# prints its CSV.
cat >"$bin/program" <<'PROGRAM'
#!/usr/bin/env bash
dir=$(cd "$(dirname "$0")/.." && pwd) name=$(basename "$0")
stamp() { echo "$EPOCHREALTIME $name $1" >>"$dir/log"; }
if [ "$1" = --check ]; then
    stamp "check begins"; sleep 1; stamp "check ends"
    if [ -e "$dir/fail" ]; then echo "FAIL: 1 of 14 shapes fail"; exit 1; fi
    echo "PASS: correct on all 14 shapes; memcheck and racecheck clean"; exit 0
fi
stamp "set-up"
sleep "$([ "$name" = solution2_transpose ] && echo 2 || echo 0.5)"  # one set-up outlasts the battery
stamp "set-up ends"
if [ -n "${WORKSHOP_TIMING_GATE:-}" ]; then
    echo >"$WORKSHOP_TIMING_GATE.ready"
    read -r word <"$WORKSHOP_TIMING_GATE"
    [ "$word" = go ] || exit 0
fi
stamp "timed begins"; sleep 0.3; stamp "timed ends"
echo "track,name,kind,shape,median_ms,min_ms,max_ms,runs,check,rate"
echo "transpose,$name,step,8192x8192,1,1,1,20,PASS,$(( ${#name} * 100 ))"
PROGRAM
chmod +x "$bin/program"
for p in step3_transpose solution3_transpose solution2_transpose; do ln -s program "$bin/$p"; done

status=0
ok() { echo "ok: $1"; }
bad() { echo "FAIL: $1"; status=1; }
when() { awk -v n="$1" -v w="$2" '$2 == n && substr($0, index($0, $3)) == w { print $1; exit }' "$dir/log"; }
before() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a != "" && b != "" && a < b) }'; }

output=$(bash "$check" "$bin" 3 transpose 2>&1)
code=$?
[ $code -eq 0 ] && grep -q "^VERDICT step 3 transpose: PASS, 1500 GB/s, 79% of the solution, 0.79x step 2" <<<"$output" &&
    ok "PASS, with the three rates" || bad "verdict (exit $code): $output"
for p in step3_transpose solution3_transpose solution2_transpose; do
    before "$(when "$p" "set-up")" "$(when step3_transpose "check ends")" && ok "$p set up during the battery" ||
        bad "$p did not start before the battery ended"
    before "$(when step3_transpose "check ends")" "$(when "$p" "timed begins")" && ok "$p timed after the battery" ||
        bad "$p was timed while the battery ran"
done
before "$(when solution2_transpose "set-up ends")" "$(when step3_transpose "timed begins")" &&
    ok "the first timed run waits for the slowest set-up" || bad "a set-up overlapped a timed run: $(cat "$dir/log")"
before "$(when step3_transpose "timed ends")" "$(when solution3_transpose "timed begins")" &&
    before "$(when solution3_transpose "timed ends")" "$(when solution2_transpose "timed begins")" &&
    ok "timed one at a time: mine, the solution, the last step's" || bad "timed runs overlapped: $(cat "$dir/log")"

rm -f "$dir/log"
touch "$dir/fail"
output=$(bash "$check" "$bin" 3 transpose 2>&1)
code=$?
[ $code -eq 1 ] && grep -q "^VERDICT step 3 transpose: FAIL (1 of 14 shapes fail)" <<<"$output" && ok "FAIL verdict" ||
    bad "FAIL verdict (exit $code): $output"
sleep 1  # a stand-in that had been left waiting would log its timed part by now
grep -q "timed" "$dir/log" && bad "a run was timed after a FAIL: $(cat "$dir/log")" || ok "nothing timed after a FAIL"
left=$(grep -lsa "$bin/[s]" /proc/[0-9]*/cmdline)  # [s]: not this grep itself
[ -z "$left" ] && ok "no timing run left running" || bad "timing runs left running: $left"

# make watch remembers the solutions' rates: the second check times only the student's program.
rm -f "$dir/fail" "$dir/log"
WORKSHOP_RATE_CACHE_S=60 bash "$check" "$bin" 3 transpose >/dev/null 2>&1
rm -f "$dir/log"
output=$(WORKSHOP_RATE_CACHE_S=60 bash "$check" "$bin" 3 transpose 2>&1)
grep -q "^VERDICT step 3 transpose: PASS, 1500 GB/s, 79% of the solution, 0.79x step 2" <<<"$output" &&
    [ -n "$(when step3_transpose "timed begins")" ] && [ -z "$(when solution3_transpose "set-up")" ] &&
    [ -z "$(when solution2_transpose "set-up")" ] && ok "remembered rates: only the student's program timed" ||
    bad "remembered rates: $output $(cat "$dir/log")"
exit $status
