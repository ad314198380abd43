# Shared by the scripts in this folder and the sanitizer tests (source it; it defines functions only).

# launch and workshop_setting: where GPU programs run (the room's launcher, e.g. srun, or here).
source "$(dirname "${BASH_SOURCE[0]}")/launch.sh"

# step_rate PROGRAM [options]: the GB/s or GFLOP/s on the step's own row of PROGRAM's CSV output
# (empty when the program launched no kernel).
step_rate() { "$@" --csv --no-references --no-host | awk -F, '$3 == "step" { print $10 }'; }

# no_device_line PROGRAM: prints the program's one line saying there is no CUDA device, and succeeds, when
# there is none; prints nothing and fails when there is one.
no_device_line() {
    local probe
    ! probe=$("$1" --size 1 --reps 1 --warmup 0 --no-references --no-host 2>&1) && grep -m1 "no CUDA device" <<<"$probe"
}

