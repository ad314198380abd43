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

if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null || ! command -v srun >/dev/null ||
    ! command -v munged >/dev/null; then
    [ "$(id -u)" = 0 ] || {
        echo "error: Slurm is not installed; as root: apt-get install slurmctld slurmd slurm-client munge" >&2
        exit 1
    }
    echo "== installing slurmctld, slurmd, slurm-client, munge"
    export DEBIAN_FRONTEND=noninteractive
    { apt-get update -qq && apt-get install -y -qq --no-install-recommends \
          slurmctld slurmd slurm-client munge; } >/dev/null ||
        { echo "error: apt-get could not install Slurm and MUNGE" >&2; exit 1; }
fi

tmp=$(mktemp -d /tmp/workshop-slurm.XXXXXX)
node=$(hostname -s)
port=$((20000 + RANDOM % 20000))
export SLURM_CONF=$tmp/slurm.conf
daemons=()
made_conf=no

# shellcheck disable=SC2317  # run by the trap below
stop_cluster() {
    # Jobs first (so no job step outlives its node daemon), then the daemons, newest first.
    scancel --quiet --full "$(squeue -h -o %i | paste -sd, -)" 2>/dev/null
    for ((i = 0; i < 50; i++)); do [ -z "$(squeue -h 2>/dev/null)" ] && break; sleep 0.2; done
    local pid
    for ((i = ${#daemons[@]} - 1; i >= 0; i--)); do
        pid=${daemons[i]}
        kill "$pid" 2>/dev/null
        for ((w = 0; w < 50; w++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
        kill -0 "$pid" 2>/dev/null && kill -9 "$pid" 2>/dev/null
    done
    wait 2>/dev/null
    local left=""
    for pid in "${daemons[@]}"; do kill -0 "$pid" 2>/dev/null && left+=" $pid"; done
    echo "== daemons stopped (pids ${daemons[*]})${left:+; STILL RUNNING:$left}"
    [ "$made_conf" = yes ] && rm -f "$top/workshop.conf"
    rm -rf "$tmp"
}
trap stop_cluster EXIT

# start NAME COMMAND...: a daemon in the foreground of a background process, its output in $tmp/NAME.out.
start() {
    local name=$1
    shift
    "$@" >"$tmp/$name.out" 2>&1 &
    daemons+=($!)
    echo "== started $name (pid $!)"
}

echo "== one-node cluster in $tmp: node $node, ports $port and $((port + 1))"
mkdir -p "$tmp/state" "$tmp/spool"
head -c 128 /dev/urandom >"$tmp/munge.key" && chmod 400 "$tmp/munge.key"
cat >"$SLURM_CONF" <<EOF
ClusterName=workshop
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$tmp/munge.socket
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/slurmctld.log
SlurmdLogFile=$tmp/slurmd.log
MailProg=/bin/true
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SelectType=select/cons_tres
ReturnToService=2
KillWait=5
MinJobAge=3600
GresTypes=gpu
NodeName=$node NodeAddr=127.0.0.1 CPUs=$(nproc) Gres=gpu:1 State=UNKNOWN
PartitionName=gpu Nodes=$node Default=YES MaxTime=60 State=UP
EOF
echo "Name=gpu File=/dev/null" >"$tmp/gres.conf"  # a stand-in device file: no GPU here

start munged munged -F --force --key-file="$tmp/munge.key" --socket="$tmp/munge.socket" --pid-file="$tmp/munged.pid" \
    --log-file="$tmp/munged.log" --seed-file="$tmp/munged.seed"
for ((i = 0; i < 50; i++)); do [ -S "$tmp/munge.socket" ] && break; sleep 0.2; done
start slurmctld slurmctld -D -f "$SLURM_CONF"
start slurmd slurmd -D -f "$SLURM_CONF"
for ((i = 0; i < 150; i++)); do [ "$(sinfo -h -n "$node" -o %t 2>/dev/null)" = idle ] && break; sleep 0.2; done
if [ "$(sinfo -h -n "$node" -o %t 2>/dev/null)" != idle ]; then
    echo "error: the node did not come up; the daemons said:" >&2
    tail -n 5 "$tmp"/*.out "$tmp"/*.log >&2
    exit 1
fi
sinfo

failures=0
# fail MESSAGE [FILE]: one failed check; FILE, when given, is what the command printed (its last 20 lines shown).
fail() {
    echo "FAIL $1"
    [ -z "${2:-}" ] || sed 's/^/     | /' "$2" | tail -n 20
    failures=$((failures + 1))
}
# expect NAME EXIT REGEX COMMAND...: runs COMMAND; it must exit with EXIT and its output must match REGEX.
expect() {
    local name=$1 want=$2 pattern=$3 got
    shift 3
    "$@" >"$tmp/out" 2>&1
    got=$?
    if [ "$got" = "$want" ] && grep -qE -- "$pattern" "$tmp/out"; then
        echo "ok   $name: exit $got, $(grep -m1 -E -- "$pattern" "$tmp/out" | cut -c1-150)"
    else
        fail "$name: exit $got (expected $want), output should match '$pattern':" "$tmp/out"
    fi
}
# exactly_one_line NAME: the last expect's output was a single line, as a refused or stopped job must print.
# srun's notes that a job is queued and then allocated are not counted: they come before the program starts,
# whenever the cluster is busy (here, when another test's job holds the node), and tell a student why it waits.
exactly_one_line() {
    local lines
    lines=$(grep -cvE '^srun: job [0-9]+ (queued and waiting for resources|has been allocated resources)$' "$tmp/out")
    if [ "$lines" = 1 ]; then
        echo "ok   $1: exactly one line"
    else
        fail "$1: $lines lines:" "$tmp/out"
    fi
}
# same_as_here NAME COMMAND...: COMMAND through the launcher prints and exits exactly as it does without one.
same_as_here() {
    local name=$1 here there
    shift
    WORKSHOP_LAUNCHER="" "$@" >"$tmp/here" 2>&1
    here=$?
    "$@" >"$tmp/there" 2>&1
    there=$?
    if [ "$here" = "$there" ] && diff -q "$tmp/here" "$tmp/there" >/dev/null; then
        echo "ok   $name: exit $there through srun, output identical to running it here ($(wc -l <"$tmp/there") lines)"
    else
        fail "$name: exit $there through srun, $here here; differences:"
        diff "$tmp/here" "$tmp/there" | head -n 20 | sed 's/^/     | /'
    fi
}

# ran_as_job WHAT NAME: the cluster ran a job named NAME (the program srun started), so WHAT went through it.
ran_as_job() {
    # Read whole first: grep -q stops at the first match, and under pipefail scontrol's SIGPIPE would fail the test.
    local jobs
    jobs=$(scontrol -o show jobs)
    if grep -q "JobName=$2 " <<<"$jobs"; then echo "ok   $1 ran as a Slurm job ($2)"
    else fail "$1: no Slurm job named $2"; fi
}

launch=common/room/launch.sh
export WORKSHOP_LAUNCHER="srun --partition=gpu --gres=gpu:1 --time=5"

# The time limit takes a minute or so to bite: that job runs beside all the others.
WORKSHOP_LAUNCHER="srun --partition=gpu --time=1" $launch sleep 600 >"$tmp/timeout.out" 2>&1 &
timeout_job=$!
echo "== submitted a job that outlives its one-minute limit (srun --time=1 sleep 600)"

echo "== programs through $WORKSHOP_LAUNCHER"
expect "host tests in a job" 0 "PASSED" $launch build/bin/host_tests --gtest_brief=1
expect "bad option in a job" 2 "'abc' is not a whole number" $launch build/bin/solution2_transpose --rows abc
expect "help in a job" 0 "usage:" $launch build/bin/solution2_matmul --help
expect "GPU program in a job" 3 "no CUDA device" $launch build/bin/solution2_transpose
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
expect "make status writes the class file" 0 "written to the class folder" env WORKSHOP_STUDENT=ci-student make status
expect "make class" 0 "^ci-student +step 1 \(transpose\) +- +- +no GPU: builds only" make class
# The rows a make status on a GPU writes (no GPU here): step reached and step-5 speed as % of the solution.
gpu_rows=$'5,transpose,yes,PASS,2800,2826,\n5,matmul,yes,PASS,21000,47000,next\n'
# shellcheck disable=SC2016  # $1 is the inner shell's
expect "make class with a GPU's figures" 0 "^gpu-student +step 5 \(matmul\) +99% +45% +a GPU" bash -c \
    'source common/room/class.sh && WORKSHOP_STUDENT=gpu-student class_save "$1" yes >/dev/null && make class' \
    _ "$gpu_rows"
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
expect "bad partition: one line" 6 "^error: srun refused the job: .*Invalid partition name specified" \
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
expect "time limit: one line" 6 "^error: srun stopped the job: .*DUE TO TIME LIMIT" timed_out_job
exactly_one_line "time limit"

echo "== jobs the cluster ran"
scontrol -o show jobs | sed -E \
    's/.*(JobId=[0-9]+) (JobName=[^ ]+).*(JobState=[A-Z]+).*(ExitCode=[0-9:]+).*(Partition=[^ ]+).*/  \1 \2 \3 \4 \5/' |
    sed 's/JobName=/name=/'

echo
[ $failures -eq 0 ] && echo "slurm test: every check passed" || echo "slurm test: $failures checks FAILED"
exit $((failures > 0))
