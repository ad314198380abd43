#!/usr/bin/env bash
# make watch in a real terminal, no GPU needed: a save with a compile error shows the file and line, h shows
# the first hint and then the second, r restores the starting point and keeps the student's version, l lists
# the steps, q quits and gives the terminal back. Also: the one-screen mode, bad arguments, and polling.
#   keys_test.sh TREE      (a copy of the checkout made by prepare_tree.sh)
set -u
tree=$1
source "$(dirname "$0")/drive.sh"
step_file="$tree/step3/transpose.cu"
hints="$tree/step3/hints/transpose.md"
original=$(mktemp)
cp "$step_file" "$original"
trap 'drive_stop; cp "$original" "$step_file"; rm -f "$original"' EXIT
rm -rf "$tree/.workshop" "$tree"/step[1-5]/*.cu.bak-*   # no progress from an earlier test
fail() { echo "FAIL: $*"; exit 1; }

# The compile error goes in as line 6; the compiler must be quoted at exactly that file and line.
break_the_file() {
    { head -n 5 "$original"; echo 'int this_line_does_not_compile = ;'; tail -n +6 "$original"; } >"$step_file"
}
hint_title() { sed -n "s|.*<summary>Hint $1: \(.*\)</summary>.*|\1|p" "$hints"; }
hint_count=$(grep -c '<summary>Hint ' "$hints")

echo "-- the hints: at least 3 for every step and track, numbered in order, the last one nearly the answer"
for step in 1 2 3 4 5; do
    for track in transpose matmul; do
        file="$tree/step$step/hints/$track.md"
        numbers=$(sed -n 's|.*<summary>Hint \([0-9]*\).*|\1|p' "$file" 2>/dev/null | paste -sd' ')
        [ "$(wc -w <<<"$numbers")" -ge 3 ] ||
            fail "step$step/hints/$track.md has hints '$numbers'; at least 3 are needed"
        [ "$numbers" = "$(seq -s' ' 1 "$(wc -w <<<"$numbers")")" ] ||
            fail "step$step/hints/$track.md numbers its hints $numbers"
        grep '<summary>Hint ' "$file" | tail -n 1 | grep -q 'nearly the answer' ||
            fail "the last hint of step$step/hints/$track.md is not marked as nearly the answer"
    done
done

echo "-- bad arguments: one line, exit 2"
out=$("$tree/common/make/watch.sh" "$tree/build" 9 2>&1) && fail "step 9 was accepted"
if [ $? -ne 2 ] || ! grep -q "step '9' is not 1 to 5" <<<"$out"; then fail "step 9: $out"; fi
out=$("$tree/common/make/watch.sh" "$tree/build" 3 sideways 2>&1)
if [ $? -ne 2 ] || ! grep -q "track 'sideways'" <<<"$out"; then fail "track sideways: $out"; fi

echo "-- in a terminal"
drive_start "$tree/step3" "make watch TRACK=transpose" || exit 1
drive_wait 300 "make watch: step 3, transpose" "[check 1]" "keys:" || fail "the first screen"
# A finished check: no GPU (it builds), or a verdict.
checked() { drive_wait "$1" "$2" && drive_wait_any "$1" "step3/transpose.cu builds." "VERDICT step 3 transpose"; }
checked 300 "[check 1]" || fail "the first check of the untouched file"

break_the_file
drive_wait 120 "[check 2]" "step3/transpose.cu does not compile" "step3/transpose.cu:6: error" ||
    fail "the compile error"
echo "the compile error is on screen, at its file and line"

drive_keys h
drive_wait 10 "Hint 1 of $hint_count: $(hint_title 1)" "(1 of $hint_count shown)" || fail "the first hint"
drive_keys h
drive_wait 10 "Hint 2 of $hint_count: $(hint_title 2)" "(2 of $hint_count shown)" || fail "the second hint"
drive_screen | grep -qF "Hint 1 of" && fail "the first hint is still on screen beside the second"
echo "h showed hint 1, then hint 2"

drive_keys r
drive_wait 30 "reset: step3/transpose.cu is back at its starting point" || fail "the reset"
cmp -s "$step_file" "$original" || fail "after r, step3/transpose.cu is not its starting point"
backups=("$step_file".bak-*)
if [ ${#backups[@]} -ne 1 ] || [ ! -f "${backups[0]}" ]; then fail "no single backup beside the step file: ${backups[*]}"; fi
grep -q this_line_does_not_compile "${backups[0]}" || fail "the backup does not hold the student's version"
# Waited for, not read once: the save of the reset starts a check, and a capture can fall inside its redraw.
drive_wait 10 "${backups[0]#"$tree/"}" || fail "the screen does not name the backup"
checked 120 "[check 3]" || fail "the reset file was not checked again"
echo "r restored the starting point and kept ${backups[0]#"$tree/"}"

drive_keys l
drive_wait 30 "last make check" || fail "the list"
listed_next=no
for ((i = 0; i < 100; i++)); do
    drive_screen | grep -qE '^1 +transpose .*<- next' && { listed_next=yes; break; }
    sleep 0.1
done
[ $listed_next = yes ] || fail "the list does not mark step 1 transpose as next"
echo "l listed the steps"

drive_keys q
drive_wait 10 "watch exited: 0" "terminal: icanon echo" || fail "q did not end the session cleanly"
drive_stop
# The file watcher (inotifywait on the copy's step folders) went with the session (on a loaded machine it may
# take a moment to see its terminal go).
for ((i = 0; i < 50; i++)); do
    left=$(pgrep -af "inotifywait.*$tree/step" || true)
    [ -z "$left" ] && break
    sleep 0.1
done
[ -z "$left" ] || fail "processes left behind after q: $left"
echo "q ended the session with status 0, gave the terminal back and left no watcher behind"

echo "-- without a terminal: one screen, then exit"
break_the_file
out=$(WATCH=once "$tree/common/make/watch.sh" "$tree/build" 3 transpose </dev/null 2>&1)
status=$?
echo "$out"
[ $status -eq 1 ] || fail "a compile error should exit 1 in the one-screen mode, not $status"
grep -q "step3/transpose.cu:6: error" <<<"$out" ||
    fail "the one-screen mode does not show the error at step3/transpose.cu:6"
cp "$original" "$step_file"

echo "-- polling instead of inotifywait"
drive_start "$tree/step3" "WATCH_POLL=1 make watch TRACK=transpose" || exit 1
checked 300 "[check 1]" || fail "the first check (polling)"
break_the_file
drive_wait 120 "[check 2]" "step3/transpose.cu:6: error" || fail "the compile error (polling)"
drive_keys q
drive_wait 10 "watch exited: 0" || fail "q (polling)"
echo "polling saw the save"
echo "PASS"
