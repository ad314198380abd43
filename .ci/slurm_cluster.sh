#!/usr/bin/env bash
# The one-node Slurm of .ci/slurm_test.sh (source it from the top of the checkout, with top set to it): installs
# Debian's Slurm and MUNGE where they are missing, starts munged, slurmctld and slurmd from a temporary folder
# ($tmp; the node offers one "gpu" generic resource so the room's usual launcher line works), and stops every
# daemon on the way out, whatever happened (the EXIT trap). Sets tmp, node, SLURM_CONF and made_conf.
# shellcheck disable=SC2154  # top is set by slurm_test.sh

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
