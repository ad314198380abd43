# shellcheck shell=bash
# Turns on a GPU for make check, taken by workshop_turn (room/turns.hpp says why and how), for scripts that source
# this file; a script may rather run itself through the program: exec workshop_turn -- "$0" ARGS.
#   source gpu_turns.sh (after launch.sh); take_a_turn_on_this_gpu || exit $?    (held until the shell ends)
# The turn is held by workshop_turn --hold for as long as this shell, or anything it started, keeps the reading end
# of its output open; the GPU's timing lock is exported as WORKSHOP_TIMING_LOCK.
take_a_turn_on_this_gpu() {
    local program="${WORKSHOP_ROOM_BIN:-$workshop_top/build/bin}/workshop_turn" line pid
    [ -x "$program" ] || { echo "== no turns on this GPU: $program is not built (make build)"; return 0; }
    exec {workshop_turn_fd}< <(WORKSHOP_CHECKS_PER_GPU=$(workshop_setting WORKSHOP_CHECKS_PER_GPU) \
        WORKSHOP_TURN_WAIT_LIMIT=$(workshop_setting WORKSHOP_TURN_WAIT_LIMIT) exec "$program" --hold)
    pid=$!
    while IFS= read -r line <&"$workshop_turn_fd"; do
        case $line in
            WORKSHOP_TIMING_LOCK=) return 0 ;;
            WORKSHOP_TIMING_LOCK=*) export WORKSHOP_TIMING_LOCK="${line#*=}"; return 0 ;;
            *) printf '%s\n' "$line" ;;
        esac
    done
    wait "$pid"  # it ended without a turn: a bad setting, said on stderr
}
