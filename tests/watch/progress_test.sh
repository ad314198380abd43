#!/usr/bin/env bash
# The remembered progress (common/make/progress.sh), which make check, make watch and make status share:
# verdict lines in, the state of each step out; an edit after a PASS, a reset and a restart are told apart.
#   progress_test.sh TREE      (a copy of the checkout made by prepare_tree.sh)
set -u
tree=$1
source "$tree/common/make/progress.sh"
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

expect "nothing recorded" "$(progress_state 3 transpose)" none
expect "the first step not done" "$(progress_next)" "1 transpose"
expect "the first step not done, matmul only" "$(progress_next matmul)" "1 matmul"

progress_record "VERDICT step 3 transpose: PASS, 975 GB/s, 98% of the solution, 2.06x step 2"
expect "a PASS close to the solution" "$(progress_state 3 transpose)" done
expect "its summary" "$(progress_summary 3 transpose)" "PASS 975 GB/s, 98%"
expect "done count" "$(progress_done_count)" 1

progress_record "VERDICT step 2 transpose: PASS, 473 GB/s, 48% of the solution, 1.00x step 1"
expect "a PASS well short of the solution" "$(progress_state 2 transpose)" slow
expect "its summary" "$(progress_summary 2 transpose)" "PASS 473 GB/s, 48% (slow)"
progress_record "VERDICT step 1 matmul: FAIL (wrong answer; the first bad element and a hint are above)"
expect "a FAIL" "$(progress_state 1 matmul)" failed
progress_record "VERDICT step 1 transpose: PASS on the CPU path; no kernel launched yet (write transpose_on_device)"
expect "a PASS without a kernel" "$(progress_state 1 transpose)" slow
expect "its summary" "$(progress_summary 1 transpose)" "PASS, no kernel yet"
progress_record "VERDICT step 1 transpose: PASS, 90 GB/s, 85% of the solution"
expect "a later verdict replaces the earlier one" "$(progress_state 1 transpose)" done
expect "one line per step and track" "$(grep -c $'^1\ttranspose\t' "$PROGRESS_FILE")" 1
expect "the first step not done now" "$(progress_next)" "1 matmul"

progress_record "VERDICT step 3 transpose: NOT CHECKED (16 of 16 shapes could not run here, and nothing that ran failed: not enough device memory)"
expect "too little memory to check keeps the last verdict" "$(progress_state 3 transpose)" done
progress_record "== step 3 transpose: your code on the shape battery"
progress_record "VERDICT step 9 transpose: PASS, 1 GB/s, 100% of the solution"
expect "other lines change nothing" "$(wc -l <"$PROGRESS_FILE")" 4

echo "// an edit after the PASS" >>"$step_file"
expect "edited after its PASS" "$(progress_state 3 transpose)" edited
expect "done count after the edit" "$(progress_done_count)" 1
cp "$original" "$step_file"
expect "the passing version back" "$(progress_state 3 transpose)" done

# make check pipes its output through progress_remember: every line passes, the verdict is remembered.
out=$(printf \
      '== step 2 matmul: your code on every shape\nVERDICT step 2 matmul: PASS, 9100 GFLOP/s, 97%% of the solution\n' |
      "$tree/common/make/progress.sh" progress_remember)
expect "make check's output passes through" "$(wc -l <<<"$out")" 2
expect "make check's verdict is remembered" "$(progress_summary 2 matmul)" "PASS 9100 GFLOP/s, 97%"
progress_forget 2 matmul

# A new shell (a new session) reads the same state.
expect "another session" "$(bash -c "source '$tree/common/make/progress.sh'; progress_summary 3 transpose")" \
    "PASS 975 GB/s, 98%"

progress_forget 3 transpose
expect "after a reset" "$(progress_state 3 transpose)" none
expect "the others stay" "$(progress_state 1 transpose)" done

# make status reads the same file: its list marks the step make watch would start at.
list=$(TERM=dumb "$tree/common/make/status.sh" "$tree/build" --recorded)  # no bold: plain lines
echo "$list"
expect "make status marks the next step" "$(grep -c -E '^1 +matmul +FAIL +<- next' <<<"$list")" 1
expect "make status shows the remembered verdict" "$(grep -c -E '^1 +transpose +PASS 90 GB/s, 85%$' <<<"$list")" 1

# The starting point outside git: a copy kept once, never replaced by a later edit.
keep_starting_points
echo "// the student's work" >>"$step_file"
keep_starting_points
expect "the kept starting point" "$(starting_point 3 transpose | cksum)" "$(cksum <"$original")"

[ $failures -eq 0 ] && echo PASS || { echo "FAIL: $failures"; exit 1; }
