#!/usr/bin/env bash
# The room layer on a machine shared with hostile users, tried by real throwaway users (made here, removed at the
# end): a link, a FIFO or a folder of one user's planted at the turns' names in the shared temporary folder, and a
# forged, escaped, blocked or link-planted class folder. Each case says ok or FAIL with what happened. Needs root
# (for useradd and setpriv): skipped (kExitNoDevice) otherwise. The room's scripts and programs are copied to a folder the
# users can read, with a stand-in nvidia-smi that lists one GPU (fake_nvidia_smi.sh).
#   room_attacks.sh ROOM_DIR ROOM_BIN     (ROOM_DIR: common/room; ROOM_BIN: where workshop_turn & co. are)
# The users' commands are single-quoted scripts, expanded by their own shell (SC2016); each case reads
# "A && B && ok || bad" (SC2015: ok only prints).
# shellcheck disable=SC2015,SC2016
set -u
# shellcheck source=../../common/base/exit_codes.sh
source "$(dirname "$0")/../../common/base/exit_codes.sh"
room_dir=$1 room_bin=${2:-}
[ "$(id -u)" = 0 ] || { echo "skipped: adding throwaway users needs root"; exit "${exit_codes[kExitNoDevice]}"; }
for tool in useradd userdel setpriv timeout mkfifo; do
    command -v "$tool" >/dev/null || { echo "skipped: $tool is missing"; exit "${exit_codes[kExitNoDevice]}"; }
done
dir=$(mktemp -d)
chmod 755 "$dir"
users=() alice="" bob="" carol="" mallory=""
# shellcheck disable=SC2317  # run by the trap
cleanup() {
    local user
    for user in "${users[@]}"; do
        pkill -KILL -u "$user" 2>/dev/null
        userdel -r "$user" 2>/dev/null
    done
    rm -rf "$dir"
}
trap cleanup EXIT
# add_user ROLE: a throwaway user, named for this run (tests may run at once), in the variable named ROLE.
add_user() {
    local name="ws$1_$$"
    useradd -m -s /bin/bash "$name" || { echo "FAIL: useradd $name"; exit 1; }
    users+=("$name")
    printf -v "$1" '%s' "$name"
}
add_user alice && add_user bob && add_user carol && add_user mallory

top="$dir/top"  # the checkout the users share (its scripts and programs), readable by all
mkdir -p "$top/common/room" "$top/common/base" "$top/bin" "$dir/smi" "$dir/tmp" "$dir/shared"
cp "$room_dir"/*.sh "$top/common/room/" && cp "$room_dir"/../base/exit_codes.* "$top/common/base/"
[ -z "$room_bin" ] || cp "$room_bin"/workshop_gpu "$room_bin"/workshop_turn "$room_bin"/workshop_class "$top/bin/"
cp "$(dirname "$0")/fake_nvidia_smi.sh" "$dir/smi/nvidia-smi"
chmod -R a+rX "$dir"
chmod 1777 "$dir/tmp" "$dir/shared"
turns="$dir/tmp/workshop-gpu-turns"
gpus=$'0, GPU-aaaa, NVIDIA H200, Disabled\n'

# as USER SCRIPT [ARGS...]: SCRIPT run by bash as USER, in a clean environment: the shared checkout, the stand-in
# nvidia-smi, the shared TMPDIR; variables given in ENV_EXTRA ("NAME=value" words) are added. Ended after 30 s
# (exit 124): nothing here should wait.
as() {
    local user=$1
    shift
    timeout -k 5 30 setpriv --reuid="$user" --regid="$(id -g "$user")" --init-groups \
        env -i PATH="$dir/smi:/usr/bin:/bin" HOME="/home/$user" TMPDIR="$dir/tmp" FAKE_GPUS="$gpus" LANG=C \
        WORKSHOP_ROOM_BIN="$top/bin" WORKSHOP_LAUNCHER='' WORKSHOP_GPU='' TOP="$top" "${ENV_EXTRA[@]}" \
        bash -c "cd / && $1" _ "${@:2}"
}
ENV_EXTRA=()
check='source "$TOP/common/room/launch.sh"; source "$TOP/common/room/gpu_turns.sh"; take_a_turn_on_this_gpu || exit
    echo "lock=${WORKSHOP_TIMING_LOCK-}"; echo ran'

status=0
ok() { echo "ok: $1"; }
bad() { echo "FAIL: $1"; status=1; }
clean_turns() { rm -rf "$turns"; }

echo "== turns and the timing lock"
# Links planted by mallory in a folder of hers, at the timing lock and at a turn, to files alice does not have yet:
# alice's check must not make them (let alone world-writable).
as "$mallory" 'mkdir -m 1777 "$1" && ln -s "$2/.bash_aliases" "$1/GPU-aaaa.timing" && ln -s "$2/notes" "$1/GPU-aaaa.0"' \
    "$turns" "/home/$alice"
said=$(as "$alice" "$check" 2>&1)
code=$?
made=$(ls -l "/home/$alice/.bash_aliases" "/home/$alice/notes" 2>/dev/null)
if [ -z "$made" ] && [ $code -eq 0 ] && [[ $said == *ran ]] && [[ $said == *"lock="$'\n'* ]]; then
    ok "links at the timing lock and a turn: alice's files not made, no lock named, the check ran"
else
    bad "links planted at the turn files: exit $code; alice's files: ${made:-none}; the check said: $said"
fi
clean_turns

# FIFOs planted at the timing lock, at a turn and at a waiting check's marker: nothing waits on them.
as "$mallory" 'mkdir -m 1777 "$1" && mkfifo -m 666 "$1/GPU-aaaa.timing" "$1/GPU-aaaa.0" \
    "$1/GPU-aaaa.waiting.0000000000000000001.1"' "$turns"
said=$(as "$alice" "$check" 2>&1)
code=$?
[ $code -eq 0 ] && [[ $said == *ran ]] && ok "FIFOs at the turn files: the check ran at once ($(head -n 1 <<<"$said"))" ||
    bad "FIFOs at the turn files: exit $code (124: it hung), said: $said"
ENV_EXTRA=(FAKE_GPUS=$'0, GPU-aaaa, NVIDIA H200, Disabled\n1, GPU-bbbb, NVIDIA H200, Disabled\n')
picked=$(as "$alice" 'source "$TOP/common/room/launch.sh"; launch printenv CUDA_VISIBLE_DEVICES' 2>&1)
code=$?
ENV_EXTRA=()
[ $code -eq 0 ] && [[ $picked == GPU-* ]] && ok "a FIFO at a waiting check's marker: the GPU pick did not wait ($picked)" ||
    bad "a FIFO at a marker, picking a GPU: exit $code (124: it hung), said: $picked"
clean_turns

# A folder of that name that is mallory's, and not to be shared: one line says the turns are off, and why.
as "$mallory" 'mkdir -m 755 "$1"' "$turns"
said=$(as "$alice" "$check" 2>&1)
code=$?
lines=$(grep -c . <<<"$said")
if [ $code -eq 0 ] && [ "$lines" = 3 ] && [[ $said == "== no turns"*"$mallory"*ran ]]; then
    ok "a folder of mallory's: one line: $(head -n 1 <<<"$said")"
else
    bad "a folder of mallory's at the turns' name: exit $code, said (wanted one line saying so): $said"
fi
clean_turns

# Alice pauses her check (Ctrl-Z) in the only turn: bob waits WORKSHOP_TURN_WAIT_LIMIT seconds, then goes ahead.
ENV_EXTRA=(WORKSHOP_CHECKS_PER_GPU=1)
as "$alice" "$check"'; touch "$1/alice_in"; sleep 60' "$dir/shared" >/dev/null 2>&1 &
for ((i = 0; i < 200; i++)); do [ -e "$dir/shared/alice_in" ] && break; sleep 0.05; done
pkill -STOP -u "$alice"
ENV_EXTRA+=(WORKSHOP_TURN_WAIT_LIMIT=2)
said=$(as "$bob" "$check" 2>&1)
code=$?
pkill -KILL -u "$alice"
wait
ENV_EXTRA=()
[ $code -eq 0 ] && [[ $said == *"going ahead without one"*ran ]] &&
    ok "alice's check paused in its turn: bob's went ahead after the wait limit, saying so" ||
    bad "alice's check paused in its turn: bob's exit $code (124: it waited for ever), said: $said"
clean_turns

echo "== the class folder"
rows=$'5,transpose,yes,PASS,2800,2826,\n5,matmul,yes,PASS,47000,47000,\n'
save='source "$TOP/common/room/class.sh"; class_save "$1" yes'
table() { "$top/common/room/class.sh" "$1" 2>&1; }
ENV_EXTRA=(WORKSHOP_CLASS_DIR="$dir/shared/class")
# Mallory writes as carol, then plants a file of carol's name herself: no row of the table is carol's.
mkdir -m 1777 "$dir/shared/class"
as "$mallory" "$save" "$rows" >/dev/null 2>&1
ENV_EXTRA+=(WORKSHOP_STUDENT="$carol")
as "$mallory" "$save" "$rows" >/dev/null 2>&1
as "$mallory" '[ -e "$1" ] || printf "%s\n" "{\"verdicts\": [{\"step\": 5, \"track\": \"matmul\", \"passed\": true,
    \"percent\": 100}]}" >"$1"' "$dir/shared/class/$carol.json"
shown=$(WORKSHOP_ROOM_BIN="$top/bin" table "$dir/shared/class")
grep -q "^$carol " <<<"$shown" && bad "mallory writing as carol: carol has a row: $(grep "^$carol " <<<"$shown")" ||
    ok "mallory writing as carol: no row is carol's$(grep -m1 '^ignored' <<<"$shown" | sed 's/^/ (/; s/$/)/')"

# A name with escape sequences (a terminal's title and a cleared screen), in the writer's name and a file's.
ENV_EXTRA=(WORKSHOP_CLASS_DIR="$dir/shared/class" WORKSHOP_STUDENT=$'\e]0;pwned\a\e[2J')
as "$mallory" "$save" "$rows" >/dev/null 2>&1
as "$mallory" ': >"$1"' "$dir/shared/class/"$'\e[2J.json'
shown=$(WORKSHOP_ROOM_BIN="$top/bin" table "$dir/shared/class")
if grep -q $'[\e\a]' <<<"$shown"; then bad "escape sequences reach the terminal: $(cat -v <<<"$shown")"
else ok "escape sequences in names are shown escaped: $(grep -c . <<<"$shown") lines, no control character"; fi

# The class folder missing: the first student to save makes it, and the second can still save.
ENV_EXTRA=(WORKSHOP_CLASS_DIR="$dir/shared/new")
as "$alice" "$save" "$rows" >/dev/null 2>&1
said=$(as "$bob" "$save" "$rows" 2>&1)
shown=$(WORKSHOP_ROOM_BIN="$top/bin" table "$dir/shared/new")
grep -q "^$alice " <<<"$shown" && grep -q "^$bob " <<<"$shown" &&
    ok "a missing class folder: made by the first to save ($(stat -c %A "$dir/shared/new")), the second saved too" ||
    bad "a missing class folder, made by alice: bob said '$said'; mode $(stat -c %A "$dir/shared/new"); table: $shown"

# A link planted at the name the writer's temporary file gets, to a file of carol's: that file stays as it was.
mkdir -p "$dir/shared/class3"
chown "$mallory" "$dir/shared/class3"
chmod 1777 "$dir/shared/class3"
echo "carol's notes" >"/home/$carol/notes"
chown "$carol" "/home/$carol/notes"
chmod 600 "/home/$carol/notes"
ENV_EXTRA=(WORKSHOP_CLASS_DIR="$dir/shared/class3")
as "$carol" 'echo $$ >"$2/carol.pid"; for ((i = 0; i < 200; i++)); do [ -e "$2/go" ] && break; sleep 0.05; done
    source "$TOP/common/room/class.sh"; class_save "$1" yes' "$rows" "$dir/shared" >/dev/null 2>&1 &
for ((i = 0; i < 200; i++)); do [ -s "$dir/shared/carol.pid" ] && break; sleep 0.05; done
as "$mallory" 'ln -s "$2/notes" "$1/$3.csv.tmp.$4"; touch "$5/go"' "$dir/shared/class3" "/home/$carol" "$carol" \
    "$(cat "$dir/shared/carol.pid")" "$dir/shared"
wait
notes=$(cat "/home/$carol/notes")
[ "$notes" = "carol's notes" ] && ok "a link at the writer's temporary name: carol's file unchanged" ||
    bad "a link at the writer's temporary name: carol's notes now read: $notes"
exit $status
