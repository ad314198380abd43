# Turns on a GPU for make check. One check runs up to five CUDA programs at once (the battery, compute-sanitizer's three
# tools, and the timing run waiting for the battery to end), each with a CUDA context of its own, and a GPU and its
# machine take only so many. On a machine with four H200s (64 cores), with no turns: 16 students' checks on one of the
# GPUs (79 to 115 processes on it at once) ended NOT CHECKED, all but one to three of them, refused a CUDA context
# although two thirds of its memory were free; 32 students spread over the four (eight checks on each) got not one PASS
# in 200 s, in two tries, one of them with eight turns a GPU, which held none back (over 70 processes on each GPU). With
# four turns a GPU, the 32 all passed within 85 s, 16 of them after waiting for a turn (20 processes on each GPU at
# most); with eight, the 16 on one GPU all passed, 8 of them after waiting, within 56 s. So at most
# WORKSHOP_CHECKS_PER_GPU checks (environment or workshop.conf; 4 unless set, 0 for no limit) run on one GPU at once,
# and the others wait for a turn, in the order they came: their verdicts come later, but they come. (16 checks started
# half a second apart on one H200 got their turns in that order, the last after 30 s, and all passed within 48 s.)
# A turn is a flock(1) lock on one of that many files, named after the GPU's UUID, in a folder every user can write
# ($TMPDIR, else /tmp), so the turns count every student's checks on the machine. Where nvidia-smi cannot tell which GPU
# the check runs on (this_gpu_uuid in pick_gpu.sh), where flock is missing, or where none of the files can be opened,
# there are no turns.
# The same folder holds the GPU's timing lock, <UUID>.timing, exported as WORKSHOP_TIMING_LOCK for the check's
# programs: their timings hold it, so the timings of the checks on one GPU take turns too, whatever the number of
# turns (common/measure/gpu_timing_lock.hpp says why). Where the GPU is not known there is none.
#   source gpu_turns.sh (after launch.sh); take_a_turn_on_this_gpu || exit $?    (held until the shell ends)

# make_shared_file PATH: PATH exists, and every user may open it (only its owner's chmod works, and that is enough).
make_shared_file() {
    [ -e "$1" ] || { : >>"$1" && chmod 666 "$1"; } 2>/dev/null
}

take_a_turn_on_this_gpu() {
    local turns uuid
    turns=$(workshop_setting WORKSHOP_CHECKS_PER_GPU)
    turns=${turns:-4}
    if ! [[ $turns =~ ^[0-9]+$ ]]; then
        echo "error: WORKSHOP_CHECKS_PER_GPU='$turns' is not a number of checks (0: no limit)" >&2
        return 2
    fi
    uuid=$(this_gpu_uuid)
    [ -n "$uuid" ] || return 0
    local queue dir
    queue=$(turns_queue "$uuid")
    dir=$(dirname "$queue")
    mkdir -p "$dir" 2>/dev/null && chmod 1777 "$dir" 2>/dev/null  # as for the files (make_shared_file)
    # A lock file the programs cannot open is no lock: they time without it (gpu_timing_lock.hpp).
    make_shared_file "$dir/$uuid.timing"
    export WORKSHOP_TIMING_LOCK="$dir/$uuid.timing"
    [ "$turns" -gt 0 ] && command -v flock >/dev/null || return 0
    # First come, first served: a check that has to wait leaves a marker, <UUID>.waiting.<time>.<pid>, locked for as
    # long as it waits, and tries for a turn only when no earlier marker is still locked. Polling alone (each waiter
    # trying every half second) gave a turn that came free to whoever tried first, late or not: in a rehearsal of five
    # checks for one turn, the order they came in was kept in 1 of 8 tries.
    local i file fd opened said=no marker="" marker_fd
    leave_the_queue() { [ -z "$marker" ] || { exec {marker_fd}<&-; rm -f "$marker"; }; }
    while :; do
        opened=0
        # In the queue, or waiting without a marker (none could be made): then it tries as it could without a queue.
        if { [ $said = yes ] && [ -z "$marker" ]; } || ! an_earlier_check_waits "$queue" "$marker"; then
            for ((i = 0; i < turns; i++)); do
                file="$dir/$uuid.$i"
                make_shared_file "$file"
                { exec {fd}<"$file"; } 2>/dev/null || continue
                opened=$((opened + 1))
                if flock -n "$fd"; then  # the open file stays locked until this shell and its children end
                    leave_the_queue
                    return 0
                fi
                exec {fd}<&-
            done
            [ "$opened" -gt 0 ] || { leave_the_queue; return 0; }
        fi
        if [ $said = no ]; then
            marker="$queue$(date +%s%N).$$"
            { exec {marker_fd}>"$marker" && flock -n "$marker_fd"; } 2>/dev/null || marker=""
            echo "== waiting for a turn on this GPU: $turns checks are running on it (WORKSHOP_CHECKS_PER_GPU)"
            said=yes
        fi
        sleep 0.5
    done
}

# an_earlier_check_waits PREFIX [MARKER]: whether a check that came before MARKER (before now, without one) is still
# waiting: a marker PREFIX<time>.<pid> that sorts before MARKER and is locked (still_waiting, pick_gpu.sh). The marker
# of a check that ended while it waited is skipped, and removed where this user may.
an_earlier_check_waits() {
    local prefix=$1 mine=${2:-} other LC_ALL=C  # the names compare byte by byte: time (19 digits), then pid
    for other in "$prefix"*; do
        [ -e "$other" ] && [ "$other" != "$mine" ] || continue
        [ -z "$mine" ] || [[ ${other#"$prefix"} < ${mine#"$prefix"} ]] || continue
        still_waiting "$other" && return 0
        rm -f "$other" 2>/dev/null
    done
    return 1
}
