#!/usr/bin/env bash
# workshop_results given a hostile or bad command line, or a folder it cannot write: it must refuse with one line
# and the exit code expected, leave an earlier run's files as they were, and let no shell run any part of an
# argument. Needs no GPU (the failures come before one is looked for, or the command is a --replot).
#   results_attack.sh EXPECTED_EXIT EXPECTED_TEXT COMMAND...
# In COMMAND, @TMP@ stands for a fresh folder holding results/ (an earlier run's files) and a_file (a regular
# file); @INJECTION@ for an option that would run `touch @TMP@/PWNED` if a shell read it.
set -u
expected_exit=$1 expected_text=$2
shift 2
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() {
    echo "FAIL: $*"
    exit 1
}

mkdir "$tmp/results" "$tmp/before" || exit 1
for file in bench_transpose.csv bench_transpose.json bench_transpose.svg; do
    printf 'an earlier run: %s\n' "$file" >"$tmp/results/$file"
done
cp -p "$tmp/results/"* "$tmp/before/" && : >"$tmp/a_file" || exit 1

injection="--reps'; touch $tmp/PWNED; echo '"
command=()
for word in "$@"; do
    word=${word//@TMP@/$tmp}
    command+=("${word//@INJECTION@/$injection}")
done

errors=$("${command[@]}" 2>&1 >/dev/null)
code=$?
printf 'exit %s; stderr:\n%s\n' "$code" "$errors"
[ "$code" = "$expected_exit" ] || fail "exit $code, expected $expected_exit"
if [ -z "$errors" ] || [ "$(printf '%s\n' "$errors" | wc -l)" -ne 1 ]; then fail "not one line on stderr"; fi
[[ $errors =~ $expected_text ]] || fail "stderr does not match '$expected_text'"
[ ! -e "$tmp/PWNED" ] || fail "a shell ran part of an argument: $tmp/PWNED exists"
diff -r "$tmp/before" "$tmp/results" || fail "the earlier run's files changed"
echo "PASS"
