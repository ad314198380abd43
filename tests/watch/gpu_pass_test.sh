#!/usr/bin/env bash
# make watch with a GPU: a save with a classic bug (the tile read back the way it was stored) shows FAIL, h
# shows two hints, a save of the fix shows PASS and offers the next step, and the verdict is remembered; then,
# with too little device memory, NOT CHECKED, and the PASS is kept.
# Without a CUDA device: skipped (exit 3), saying so.
#   gpu_pass_test.sh TREE [SCREENS]   (TREE from prepare_tree.sh; SCREENS, or $WATCH_SCREENS: a file that gets
#                                      those screens as text)
set -u
tree=$1 screens=${2:-${WATCH_SCREENS:-/dev/null}}
source "$(dirname "$0")/drive.sh"
# shellcheck source=../../common/make/lib.sh
source "$tree/common/make/lib.sh"
# shellcheck source=../../common/make/progress.sh
source "$tree/common/make/progress.sh"
export PROGRESS_BUILD="$tree/build"
if no_device_line "$tree/build/bin/step3_transpose"; then exit 3; fi  # skipped: no GPU

step_file="$tree/step3/transpose.cu"
solution="$tree/solutions/step3/transpose.cu"
original=$(mktemp)
cp "$step_file" "$original"
trap 'drive_stop; cp "$original" "$step_file"; rm -f "$original"; rm -rf "$tree/.workshop" "$tree"/step[1-5]/*.cu.bak-*' EXIT
rm -rf "$tree/.workshop" "$tree"/step[1-5]/*.cu.bak-*
# Each phase says when it ended (seconds since the start), so a run cut short shows where the time went.
said() { echo "$* (at ${SECONDS} s)"; }
fail() { said "FAIL: $*"; exit 1; }
# The screen as text, without the empty rows below it.
keep_screen() {
    {
        echo "==== $1"
        drive_screen | awk 'NF { last = NR } { row[NR] = $0 } END { for (i = 1; i <= last; i++) print row[i] }'
        echo
    } >>"$screens"
}
: >"$screens"

drive_start "$tree/step3" "make watch TRACK=transpose" || exit 1
drive_wait 300 "[check 1]" "VERDICT step 3 transpose" || fail "the first verdict (the untouched starting point)"
said "the starting point got its verdict"

# Both saves are whole files, as an editor writes them.
grep -q '= tile\[x\]\[y\];' "$solution" || fail "$solution no longer has the line this test breaks"
sed 's/= tile\[x\]\[y\];/= tile[y][x];/' "$solution" >"$step_file"
# ", check " is in the last line of a finished screen: "(build 1.8 s, check 2.9 s)".
drive_wait 300 "[check 2]" "VERDICT step 3 transpose: FAIL" ", check " || fail "the failing save"
keep_screen "a failing save: step3/transpose.cu reads the tile back the way it was stored"
said "the failing save gave FAIL"

drive_keys h
drive_wait 10 "Hint 1 of" || fail "the first hint"
keep_screen "h: the first hint"
drive_keys h
drive_wait 10 "Hint 2 of" || fail "the second hint"
keep_screen "h again: the second hint"
said "h showed two hints"

cp "$solution" "$step_file"
drive_wait 300 "[check 3]" "VERDICT step 3 transpose: PASS" ", check " "n for step 4" || fail "the passing save"
drive_wait 1 "yours: " "of the solution (" || fail "the speed beside the solution's"
keep_screen "a passing save: the fix"
said "the passing save gave PASS and offered step 4"

[ "$(progress_state 3 transpose)" = "done" ] || fail "the PASS was not remembered as done: $(progress_summary 3 transpose)"
drive_wait 10 "done: 1 of 10" || fail "the screen does not count the step as done"
drive_keys q
drive_wait 10 "watch exited: 0" || fail "q"

# Too little free GPU memory to check is a verdict on the room, not on the code: NOT CHECKED (exit 4), with advice
# to match, and the PASS stays remembered.
out=$(WORKSHOP_DEVICE_MEMORY_LIMIT=1000000 WATCH=once "$tree/common/make/watch.sh" "$tree/build" 3 transpose \
      </dev/null 2>&1)
code=$?
{ echo "==== WATCH=once with 1 MB of device memory"; echo "$out"; } >>"$screens"
[ $code -eq 4 ] || fail "too little memory: exit $code, expected 4: $out"
grep -q "^VERDICT step 3 transpose: NOT CHECKED (16 of 16 shapes" <<<"$out" || fail "no NOT CHECKED verdict: $out"
grep -q "part of the check could not run here" <<<"$out" || fail "no advice for too little memory: $out"
[ "$(progress_state 3 transpose)" = "done" ] || fail "NOT CHECKED replaced the PASS: $(progress_summary 3 transpose)"
said "too little memory gave NOT CHECKED and kept the PASS"
echo PASS
