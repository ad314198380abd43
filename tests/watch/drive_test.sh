#!/usr/bin/env bash
# The terminal driver of the watch tests (drive.sh), on a stand-in for make watch that draws two screens, the
# second taller than the terminal, as a FAIL with its shapes and map is: the driver must see the whole second
# screen, its first line included, and nothing of the first. No GPU and no build needed.
#   drive_test.sh
set -u
source "$(dirname "$0")/drive.sh"
stand_in=$(mktemp)
trap 'drive_stop; rm -f "$stand_in"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cat >"$stand_in" <<'STAND_IN'
draw() {  # screen $1 as make watch draws it (cleared, then its first line), with $2 numbered rows under it
    printf '\033[H\033[2Jmake watch: step 3, transpose  (step3/transpose.cu)   done: 0 of 10   [check %d]\n' "$1"
    seq -f "row %g of check $1" "$2"
}
draw 1 20
sleep 1
draw 2 150
echo "the last row"
STAND_IN
drive_start "$(pwd)" "bash $stand_in" || exit 1
drive_wait 20 "[check 2]" "row 1 of check 2" "row 150 of check 2" "the last row" ||
    fail "the screen taller than the terminal was not seen whole"
drive_screen | grep -qF "check 1" && fail "the first screen is still in what the driver sees: $(drive_screen | head -3)"
echo "ok: a screen of 151 rows in a terminal of 60, seen whole, and nothing of the screen before it"
