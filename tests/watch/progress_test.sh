#!/usr/bin/env bash
# The remembered progress, which make check, make watch and make status share, through common/make/progress.sh:
# verdicts in (recorded as the verdict program records them), the state of each step out; an edit after a PASS,
# a reset and a restart are told apart; and a line printed by a student's program records nothing.
#   progress_test.sh TREE RECORD_VERDICT   (TREE: a copy of the checkout made by prepare_tree.sh; RECORD_VERDICT:
#                                          tests/watch/record_verdict, which calls remember_verdict)
set -u
tree=$1 record_program=$2
# shellcheck source=../../common/make/progress.sh
source "$tree/common/make/progress.sh"
export PROGRESS_BUILD="$tree/build"
step_file="$tree/step3/transpose.cu"
original=$(mktemp)
cp "$step_file" "$original"
trap 'cp "$original" "$step_file"; rm -f "$original"; rm -rf "$tree/.workshop"' EXIT
rm -rf "$tree/.workshop"
failures=0
expect() {  # expect WHAT ACTUAL EXPECTED
    if [ "$2" = "$3" ]; then echo "ok: $1: $2"
    else echo "FAIL: $1: got '$2', expected '$3'"; failures=$((failures + 1)); fi
}
record() { "$record_program" "$tree" "$@" || failures=$((failures + 1)); }

expect "nothing recorded" "$(progress_state 3 transpose)" none
expect "the first step not done" "$(progress_next)" "1 transpose"
expect "the first step not done, matmul only" "$(progress_next matmul)" "1 matmul"

record 3 transpose pass 975 GB/s 98
expect "a PASS close to the solution" "$(progress_state 3 transpose)" "done"
expect "its summary" "$(progress_summary 3 transpose)" "PASS 975 GB/s, 98%"
expect "done count" "$(progress_done_count)" 1
record 2 transpose pass 473 GB/s 48
expect "a PASS well short of the solution" "$(progress_state 2 transpose)" slow
expect "its summary" "$(progress_summary 2 transpose)" "PASS 473 GB/s, 48% (slow)"
record 1 matmul fail
expect "a FAIL" "$(progress_state 1 matmul)" failed
record 1 transpose pass-without-kernel
expect "a PASS without a kernel" "$(progress_state 1 transpose)" slow
expect "its summary" "$(progress_summary 1 transpose)" "PASS, no kernel yet"
record 1 transpose pass 90 GB/s 85
expect "a later verdict replaces the earlier one" "$(progress_state 1 transpose)" "done"
expect "the first step not done now" "$(progress_next)" "1 matmul"
record 3 transpose not-checked
expect "too little memory to check keeps the last verdict" "$(progress_state 3 transpose)" "done"

echo "// an edit after the PASS" >>"$step_file"
expect "edited after its PASS" "$(progress_state 3 transpose)" edited
expect "done count after the edit" "$(progress_done_count)" 1
cp "$original" "$step_file"
expect "the passing version back" "$(progress_state 3 transpose)" "done"

# Only the program that makes a verdict records it: no script reads a program's output for one, so a line the
# student's code prints (a forged "VERDICT step 5 matmul: PASS ...") can mark nothing done.
readers=$(grep -lE '^[^#]*VERDICT' "$tree"/common/make/*.sh "$tree"/common/make/step.mk "$tree"/common/room/*.sh 2>/dev/null)
expect "no script reads verdict lines from a program's output" "$readers" ""
expect "nothing recorded for step 5" "$(progress_state 5 matmul)" none

# What the class table reads: the same states, as JSON.
standing=$("$tree/build/bin/workshop_progress" --top "$tree" standing)
expect "standing: done count" "$(grep -c '"state": "done"' <<<"$standing")" 2
expect "standing: the next step" "$(tr -d ' \n' <<<"$standing" | grep -o '"next":{[^}]*}')" '"next":{"step":1,"track":"matmul"}'

# A new shell (a new session) reads the same state.
expect "another session" "$(bash -c "source '$tree/common/make/progress.sh'; progress_summary 3 transpose")" \
    "PASS 975 GB/s, 98%"
progress_forget 3 transpose
expect "after a reset" "$(progress_state 3 transpose)" none
expect "the others stay" "$(progress_state 1 transpose)" "done"
expect "a bad step: exit 2" "$(progress_state 9 transpose 2>/dev/null; echo $?)" 2

# make status reads the same record: its list marks the step make watch would start at.
list=$(TERM=dumb "$tree/common/make/status.sh" "$tree/build" --recorded)  # no bold: plain lines
echo "$list"
expect "make status marks the next step" "$(grep -c -E '^1 +matmul +FAIL +<- next' <<<"$list")" 1
expect "make status shows the remembered verdict" "$(grep -c -E '^1 +transpose +PASS 90 GB/s, 85%$' <<<"$list")" 1

# The starting point outside git: a copy kept once, never replaced by a later edit.
keep_starting_points
echo "// the student's work" >>"$step_file"
keep_starting_points
expect "the kept starting point" "$(starting_point 3 transpose | cksum)" "$(cksum <"$original")"

if [ $failures -ne 0 ]; then echo "FAIL: $failures"; exit 1; fi
echo PASS
