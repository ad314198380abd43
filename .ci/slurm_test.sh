#!/usr/bin/env bash
# The cluster path against a real Slurm, on a machine without a GPU (CI). Installs Debian's Slurm and MUNGE,
# starts a one-node cluster on localhost from a temporary folder (munged, slurmctld, slurmd; the node offers one
# "gpu" generic resource so the room's usual launcher line works), then runs the workshop through srun and checks
# each exit code and the line that matters: host-side programs, a step's make check, make run (launcher from
# workshop.conf), make status with a class folder and make class, make test's GPU part, the instructor's batch
# script, a job sent to a partition that does not exist and a job over its time limit. Every daemon is stopped
# on the way out, whatever happened. Needs a build (make test or make build first).
#   .ci/slurm_test.sh
set -u -o pipefail
cd "$(dirname "$0")/.." || exit 2
top=$(pwd)
export PATH="$PATH:/usr/local/cuda/bin"
[ -x build/bin/host_tests ] || { echo "error: build/ is missing: run make build (or make test) first" >&2; exit 2; }

# The one-node cluster (stopped on the way out), then the checks' helpers: fail, expect, same_as_here, ...
source "$top/.ci/slurm_cluster.sh"
source "$top/.ci/slurm_checks.sh"
# The programs' exit codes, by the names of common/base/exit_codes.hpp (make's own failure is its 2).
source "$top/common/base/exit_codes.sh"

launch=common/room/launch.sh
export WORKSHOP_LAUNCHER="srun --partition=gpu --gres=gpu:1 --time=5"

# The time limit takes a minute or so to bite: that job runs beside all the others.
WORKSHOP_LAUNCHER="srun --partition=gpu --time=1" $launch sleep 600 >"$tmp/timeout.out" 2>&1 &
timeout_job=$!
echo "== submitted a job that outlives its one-minute limit (srun --time=1 sleep 600)"

echo "== programs through $WORKSHOP_LAUNCHER"
expect "host tests in a job" 0 "PASSED" $launch build/bin/host_tests --gtest_brief=1
expect "bad option in a job" "${exit_codes[kExitBadUsage]}" "'abc' is not a whole number" $launch build/bin/solution2_transpose --rows abc
expect "help in a job" 0 "usage:" $launch build/bin/solution2_matmul --help
expect "GPU program in a job" "${exit_codes[kExitNoDevice]}" "no CUDA device" $launch build/bin/solution2_transpose
# make watch reads its keys from the terminal while its checks run as jobs; srun passes its standard input on to
# the job unless told otherwise, and would take the keys pressed meanwhile.
expect "a job leaves the terminal's input alone" 0 "^abc$" bash -c "printf 'abc\n' | { $launch true; cat; }"
same_as_here "make check (step 2)" make -C step2 check
same_as_here "make check (step 1, transpose)" make -C step1 check TRACK=transpose
same_as_here "make solution (step 4)" make -C step4 solution
same_as_here "make status" make status
ran_as_job "make check" bash
ran_as_job "make status" status.sh

echo "== make run, with the launcher from workshop.conf"
if [ -e workshop.conf ]; then
    fail "make run from workshop.conf: this checkout already has a workshop.conf; not touching it"
else
    made_conf=yes
    echo "WORKSHOP_LAUNCHER=\"srun --partition=gpu --gres=gpu:1 --time=5\"" >workshop.conf
    expect "make run (workshop.conf)" 2 "no CUDA device" env -u WORKSHOP_LAUNCHER make run
    ran_as_job "make run" workshop_results
    rm -f workshop.conf
    made_conf=no
fi

echo "== make status into a class folder, then make class"
export WORKSHOP_CLASS_DIR=$tmp/class
me=$(id -un)  # a student's row is named after the login that owns their file, whatever WORKSHOP_STUDENT says
expect "make status writes the class file" 0 "written to the class folder" env WORKSHOP_STUDENT=ci-student make status
expect "make class" 0 "^$me +(step [1-5] \((transpose|matmul)\)|done) " make class
# A record from a checkout whose progress has step 5's figures (no GPU here): its shares of the solution's speed.
mkdir -p "$tmp/top/step5" && cp step5/*.cu "$tmp/top/step5/"
build/bin/record_verdict "$tmp/top" 5 transpose pass 2800 GB/s 99 && build/bin/record_verdict "$tmp/top" 5 matmul pass 21000 GFLOP/s 45
# shellcheck disable=SC2317  # run by expect, through its name
class_with_figures() { build/bin/workshop_class save "$WORKSHOP_CLASS_DIR" "$tmp/top" >/dev/null && make class; }
expect "make class with a GPU's figures" 0 "^$me +step 1 \(transpose\) +99% +45% " class_with_figures
unset WORKSHOP_CLASS_DIR

echo "== make test's GPU part as one job"
expect "make test through srun" 0 "tests: [1-9][0-9]* passed, 0 failed, [1-9][0-9]* skipped" \
    common/make/run_tests.sh build -j "$(nproc)"
grep -E "^skipped|^  - |^tests:" "$tmp/out"
# A test that failed in the job: its own output, from ctest's log.
cut -d: -f2 build/Testing/Temporary/LastTestsFailed.log 2>/dev/null | while IFS= read -r failed; do
    echo "     | output of $failed:"
    awk -v t="Testing: $failed" '$0 ~ t "$" { on = 1 } on && /^"[^"]*" end time/ { exit } on' \
        build/Testing/Temporary/LastTest.log |
        tail -n 25 | sed 's/^/     | /'
done
ran_as_job "make test's GPU part" gpu_tests.sh
# A GPU that takes one process at a time (rehearsed: the node has none): its tests run one after another, as
# gpu_tests.sh decides where the GPU is; here and as a job alike.
for where in "in the job" "here"; do
    launcher=$WORKSHOP_LAUNCHER
    [ "$where" = here ] && launcher=
    expect "make test on a GPU that takes one process at a time, $where" 0 \
        "its tests run one after another" env WORKSHOP_ONE_PROCESS_AT_A_TIME=1 WORKSHOP_LAUNCHER="$launcher" \
        common/make/run_tests.sh build -R "cli.help|cli.check_shape_by_hand" -j "$(nproc)"
    grep -qE "^tests: 1 passed, 0 failed, 1 skipped" "$tmp/out" || fail "its count, $where:" "$tmp/out"
done

echo "== the instructor's batch script"
expect "sbatch results.sbatch" 2 "Submitted batch job" \
    timeout 600 sbatch --wait --partition=gpu --output="$tmp/results-%j.out" common/room/results.sbatch
expect "its log in build/results" 0 "no CUDA device" cat build/results/job.log

echo "== refused jobs"
expect "bad partition: one line" "${exit_codes[kExitLauncherRefused]}" \
    "^error: srun refused the job: .*Invalid partition name specified" \
    env WORKSHOP_LAUNCHER="srun --partition=nosuch" $launch build/bin/solution2_transpose
exactly_one_line "bad partition"
expect "bad partition: make check" 2 "^error: srun refused the job: .*Invalid partition" \
    env WORKSHOP_LAUNCHER="srun --partition=nosuch" make -C step3 check

echo "== waiting for the job over its time limit"
# The job started in the background above: its exit is wait's, its output what it wrote meanwhile.
# shellcheck disable=SC2317  # run by expect
timed_out_job() {
    wait "$timeout_job"
    local code=$?
    cat "$tmp/timeout.out"
    return "$code"
}
expect "time limit: one line" "${exit_codes[kExitLauncherRefused]}" "^error: srun stopped the job: .*DUE TO TIME LIMIT" \
    timed_out_job
exactly_one_line "time limit"

echo "== jobs the cluster ran"
scontrol -o show jobs | sed -E \
    's/.*(JobId=[0-9]+) (JobName=[^ ]+).*(JobState=[A-Z]+).*(ExitCode=[0-9:]+).*(Partition=[^ ]+).*/  \1 \2 \3 \4 \5/' |
    sed 's/JobName=/name=/'

echo
[ $failures -eq 0 ] && echo "slurm test: every check passed" || echo "slurm test: $failures checks FAILED"
exit $((failures > 0))
