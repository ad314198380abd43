#!/usr/bin/env bash
# make status with stand-in programs, on a copy of common/make (the checkout's progress is not touched); needs no
# GPU. Where the GPU has no room for the student's programs (another program holds its memory), the rows say the
# step was not run here, not that it has no kernel yet, and the next line says why. Where no program finds a GPU,
# the table says so once and records nothing: an earlier PASS stays. One program without a GPU among others
# that have one is that program's row, not the table's. Two make status at once in one checkout take turns at
# building (a stand-in cmake notes when each build starts and ends).
#   status_not_run.sh MAKE_DIR WORKSHOP_PROGRESS
set -u
tree=$(mktemp -d)
trap 'rm -rf "$tree"' EXIT
mkdir -p "$tree/common" "$tree/build/bin"
cp -r "$1" "$tree/common/make" && cp -r "$1/../room" "$tree/common/room" && cp -r "$1/../base" "$tree/common/base" &&
    cp "$2" "$tree/build/bin/" || exit 1
for step in 1 2 3 4 5; do
    mkdir -p "$tree/step$step"
    : >"$tree/step$step/transpose.cu"
    : >"$tree/step$step/matmul.cu"
done

# shellcheck source=../../common/base/exit_codes.sh
source "$(dirname "$0")/../../common/base/exit_codes.sh"
# A solution: correct, with a rate on its step row.
solution='#!/usr/bin/env bash
case " $* " in *" --check "*) exit 0 ;; esac
echo "[{\"track\": \"transpose\", \"name\": \"solution\", \"kind\": \"step\", \"rate\": 1000.0, \"unit\": \"GB/s\"}]"'
# A student's program on a GPU with no room left: every run stops before the student's code (kExitOutOfMemory).
no_room='#!/usr/bin/env bash
echo "not enough device memory: no room for a CUDA context on GPU 0 (NVIDIA H200); other programs hold its memory" >&2
exit '"${exit_codes[kExitOutOfMemory]}"
# Step 1's matmul as it starts: correct on the CPU path, no kernel, so no step row.
no_kernel='#!/usr/bin/env bash
case " $* " in *" --check "*) exit 0 ;; esac
echo "[]"'
no_device='#!/usr/bin/env bash
echo "no CUDA device: the driver lists none" >&2
exit '"${exit_codes[kExitNoDevice]}"
stand_in() { printf '%s\n' "$2" >"$tree/build/bin/$1" && chmod +x "$tree/build/bin/$1"; }
every_program() {  # every_program STUDENT SOLUTION
    for step in 1 2 3 4 5; do
        for track in transpose matmul; do stand_in "step${step}_$track" "$1"; stand_in "solution${step}_$track" "$2"; done
    done
}
status() {  # built already (as in a launcher's job); no launcher, class folder or GPU pick from the environment
    out=$(WORKSHOP_STATUS_BUILT=yes WORKSHOP_LAUNCHER='' WORKSHOP_CLASS_DIR='' WORKSHOP_GPU=any TERM=dumb \
        "$tree/common/make/status.sh" "$tree/build" 2>&1)
    echo "$out"
}
failures=0
check() {  # WHAT COUNT REGEX: COUNT lines of the output match REGEX
    local n
    n=$(grep -c -E -- "$3" <<<"$out")
    if [ "$n" -eq "$2" ]; then echo "ok: $1"; else echo "FAIL: $1: $n lines match '$3', wanted $2"; failures=1; fi
}

every_program "$no_room" "$solution"
stand_in step1_matmul "$no_kernel"
status
check "nine rows not run here" 9 '^[1-5] +(transpose|matmul) +yes +- +- +not run here'
check "step 1 matmul: no kernel yet" 1 '^1 +matmul +yes +PASS +- +no kernel yet'
check "'no kernel yet' only where there is none" 1 'no kernel yet'
check "the next line says why" 1 '^next: step 1 \(transpose\): part of the check could not run here'
check "a GPU was found" 0 'no CUDA device here'

every_program "$no_device" "$no_device"
status
check "no GPU: said once" 1 '^\(no CUDA device here'
check "no GPU: no row is a FAIL" 0 'FAIL'
check "no GPU: every row says so" 10 '^[1-5] +(transpose|matmul) +yes +- +- +no GPU'
check "no GPU: the earlier PASS stays" 1 '^1 +matmul +yes +- +- +no GPU +PASS, no kernel yet'

every_program "$no_room" "$solution"
stand_in step2_transpose "$no_device"
status
check "one program without a GPU: its row" 1 '^2 +transpose +yes +- +- +no GPU'
check "one program without a GPU: not the table's" 0 'no CUDA device here'

fake=$(mktemp -d)
trap 'rm -rf "$tree" "$fake"' EXIT
printf '%s\n' '#!/usr/bin/env bash' "echo start >>'$tree/builds'; sleep 0.2; echo end >>'$tree/builds'" >"$fake/cmake"
chmod +x "$fake/cmake"
for i in 1 2; do
    PATH="$fake:$PATH" WORKSHOP_LAUNCHER='' WORKSHOP_CLASS_DIR='' WORKSHOP_GPU=any TERM=dumb \
        "$tree/common/make/status.sh" "$tree/build" >"$tree/status$i.out" 2>&1 &
done
wait
out=$(cat "$tree/status1.out" "$tree/status2.out")
check "two at once: both show the table" 2 '^next: '
out=$(cat "$tree/builds")
check "two at once: every program built, by each" 22 '^start$'
out=$(paste -sd' ' "$tree/builds")
check "two at once: no build starts before the last one ended" 0 'start start'
exit $failures
