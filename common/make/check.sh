#!/usr/bin/env bash
# make check for one track. The program's verdict mode does all of it (common/programs/verdict_run.hpp): the
# battery, the timing of your code beside this step's solution and the last step's, the VERDICT line, your
# progress, and the exit code (0 PASS, kExitNoDevice no GPU, kExitOutOfMemory NOT CHECKED, else FAIL:
# common/base/exit_codes.hpp). Here: the turn on the GPU, and after a PASS whether others were using it.
#   check.sh BIN STEP TRACK [program options for the timing runs]
# shellcheck source-path=SCRIPTDIR
set -u
bin=$1 step=$2 track=$3
shift 3
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
# The room's programs (workshop_turn) are built beside the step's, whichever build folder that is.
[ -n "${WORKSHOP_ROOM_BIN:-}" ] || [ ! -x "$bin/workshop_turn" ] || export WORKSHOP_ROOM_BIN=$bin
# shellcheck source=../room/gpu_turns.sh
source "$(dirname "$0")/../room/gpu_turns.sh"
take_a_turn_on_this_gpu || exit $?
# The programs' OpenMP threads sleep while they wait, and at most eight a program, leaving the cores to the
# students beside this one.
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-$(($(nproc) < 8 ? $(nproc) : 8))}
previous=()
[ "$step" -gt 1 ] && previous=(--previous "$bin/solution$((step - 1))_$track")
"$bin/step${step}_$track" --verdict --solution "$bin/solution${step}_$track" "${previous[@]}" "$@" || exit $?
# None of this check's programs holds a CUDA context now: whatever nvidia-smi lists on this GPU is someone else's.
others=$(processes_on_this_gpu)
if [ "${others:-0}" -gt 0 ]; then
    [ "$others" -eq 1 ] && who="1 other program was" || who="$others other programs were"
    echo "  ($who using this GPU as the timing ended: the rate may read low; the % and the x, timed in rounds beside the solutions, hold unless marked uncertain)"
fi
