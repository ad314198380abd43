# What each key does in make watch (source it: watch.sh does; it defines functions only, on watch.sh's state).
# shellcheck shell=bash disable=SC2154,SC2034  # the variables are watch.sh's

show_hint() {  # the hints one after the other, from the idea to nearly the code, then from the first again
    local total
    total=$(progress_program hint-count "$step" "$track") && [ "$total" -gt 0 ] &&
        hints_shown[$step.$track]=$((${hints_shown[$step.$track]:-0} % total + 1))
    panel=$(progress_program hint "$step" "$track" "${hints_shown[$step.$track]:-1}" 2>&1)
}

run_tool() {  # p and s: the step Makefile's targets, shown live and kept on screen
    [ "$gpu" = no ] && { panel="make $1 needs a GPU, and there is none here"; return; }
    panel="make $1 TRACK=$track (running ...)" && draw
    panel=$(make --no-print-directory -C "$PROGRESS_TOP/step$step" "$1" TRACK="$track" BUILD_DIR="$build" 2>&1 | live)
}

go_to() { step=$1 track=$2 panel=""; check_current; }  # go_to STEP TRACK

on_key() {
    case $1 in
        h|H) show_hint ;;
        p|P) run_tool profile ;;
        s|S) run_tool sanitize ;;
        n|N) if [ "$step" -lt 5 ]; then go_to $((step + 1)) "$track"; else panel="step 5 is the last step"; fi ;;
        b|B) if [ "$step" -gt 1 ]; then go_to $((step - 1)) "$track"; else panel="step 1 is the first step"; fi ;;
        t|T) go_to "$step" "$([ "$track" = transpose ] && echo matmul || echo transpose)" ;;
        l|L) panel=$("$here/status.sh" "$build" --recorded 2>&1) ;;
        r|R) panel=$(progress_program reset "$step" "$track" 2>&1) ;;  # the student's version kept beside it
        q|Q) exit 0 ;;
        *) return ;;
    esac
    draw
}
