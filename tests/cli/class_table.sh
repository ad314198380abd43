#!/usr/bin/env bash
# The class table (workshop_class, through class.sh as make status and make class run it): a student's record
# written from their progress (.workshop/progress.json, recorded here by record_verdict), the table read back (the step each has reached, their step-5
# kernels' share of the solution's speed), and the errors: no folder (exit 2), no record yet (exit 1), a folder
# that cannot be written (one line; make status goes on).
#   class_table.sh ROOM_DIR ROOM_BIN RECORD_VERDICT
# shellcheck disable=SC2015  # each case reads "A && B && ok || bad" (ok only prints)
set -u
room_dir=$1
export WORKSHOP_ROOM_BIN=$2
record=$3
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
status=0
ok() { echo "ok: $1"; }
bad() { echo "FAIL: $1"; status=1; }
me=$(id -un)
class=$2/workshop_class

# A checkout with step files and verdicts: steps 1 done, step 2's transpose failed, step 5 at 99% and 45%.
mkdir -p "$dir/top/common/room" "$dir/top/common/base" "$dir/empty_top"
for step in 1 2 3 4 5; do
    mkdir -p "$dir/top/step$step"
    for track in transpose matmul; do echo "// step $step $track" >"$dir/top/step$step/$track.cu"; done
done
"$record" "$dir/top" 1 transpose pass 900 GB/s 95 && "$record" "$dir/top" 1 matmul pass 9000 GFLOP/s 90 &&
    "$record" "$dir/top" 2 transpose fail && "$record" "$dir/top" 5 transpose pass 2800 GB/s 99 &&
    "$record" "$dir/top" 5 matmul pass 21000 GFLOP/s 45 || bad "record_verdict"
said=$("$class" save "$dir/class" "$dir/top")
[ "$said" = "(written to the class folder: $dir/class/$me.json)" ] && [ "$(stat -c %a "$dir/class")" = 1777 ] &&
    ok "a record written, in a shared sticky folder made for it" || bad "save: '$said', folder $(stat -c %a "$dir/class")"
shown=$("$room_dir/class.sh" "$dir/class")
grep -qE "^$me +step 2 \(transpose\) +99% +45% +[0-9]{4}-" <<<"$shown" &&
    ok "the table: the first step not done, and step 5's shares of the solution" || bad "the table: $shown"
"$class" save "$dir/class" "$dir/empty_top" >/dev/null
grep -qE "^$me +step 1 \(transpose\) +- +- " <<<"$("$room_dir/class.sh" "$dir/class")" &&
    ok "no verdict yet: step 1, no shares" || bad "no verdict: $("$room_dir/class.sh" "$dir/class")"

# WORKSHOP_CLASS_DIR from the environment, as make status and make class use it.
cp "$room_dir"/*.sh "$dir/top/common/room/" && cp "$room_dir"/../base/exit_codes.* "$dir/top/common/base/"
said=$(WORKSHOP_CLASS_DIR="$dir/class2" bash -c 'source "$1/class.sh"; class_save' _ "$dir/top/common/room")
shown=$(WORKSHOP_CLASS_DIR="$dir/class2" "$dir/top/common/room/class.sh")
[[ $said == "(written to the class folder: "* ]] && grep -qE "^$me +step 2 \(transpose\) +99%" <<<"$shown" &&
    ok "class_save and make class with WORKSHOP_CLASS_DIR" || bad "with WORKSHOP_CLASS_DIR: '$said', $shown"

# expect_error WHAT CODE LINE COMMAND...: exit CODE and LINE alone on stderr.
expect_error() {
    local what=$1 code=$2 line=$3 got
    shift 3
    "$@" >/dev/null 2>"$dir/err"
    got=$?
    [ $got -eq "$code" ] && [ "$(cat "$dir/err")" = "$line" ] && ok "$what: exit $code, one line" ||
        bad "$what: exit $got, said: $(cat "$dir/err")"
}
expect_error "no such folder" 2 \
    "error: the class folder '$dir/none' does not exist (set WORKSHOP_CLASS_DIR, or name the folder)" \
    "$room_dir/class.sh" "$dir/none"
mkdir "$dir/empty"
expect_error "no record yet" 1 "error: no student has written a status to $dir/empty yet (make status writes it)" \
    "$room_dir/class.sh" "$dir/empty"
: >"$dir/file"
expect_error "a class folder that is a file" 1 \
    "warning: could not write this status to the class folder: $dir/file is not a folder (a link or a file is there)" \
    "$class" save "$dir/file" "$dir/top"
said=$(WORKSHOP_CLASS_DIR="$dir/file" bash -c 'source "$1/class.sh"; class_save; echo "status $?"' _ "$room_dir" 2>&1)
[[ $said == "warning: "*$'\n'"status 0" ]] && ok "make status goes on after that warning" || bad "class_save: $said"
expect_error "usage" 2 "usage: workshop_class save FOLDER CHECKOUT | show FOLDER" "$class" list
exit $status
