# Which GPU a command runs on, where one machine has several and no scheduler hands them out (a server the room
# shares, a workstation shared with others). Left to itself, CUDA puts every program on its first device: a room
# of students on one card of eight, or a student's timings on the card that someone's training job fills. So each
# command runs on the GPU with the fewest processes on it when the command starts, a make check waiting for a turn
# there counting five (gpu_turns.sh). Where several have as few, the student's name decides, so that students who
# start at the same moment spread over them, and a student alone on the machine gets the same GPU every time.
# WORKSHOP_GPU (environment, or workshop.conf) chooses otherwise:
#   idle, or unset   as above
#   any              leave it to CUDA (its first device, or what CUDA_VISIBLE_DEVICES says)
#   N, or a UUID     that GPU: N as nvidia-smi numbers them (`nvidia-smi -L` lists both)
# `idle` picks nothing where CUDA_VISIBLE_DEVICES is set already (by the student, or inside a scheduler's job),
# where nvidia-smi is missing or fails, where it lists one GPU, or where a GPU is split into MIG instances. Nor
# does any of this apply with a launcher (WORKSHOP_LAUNCHER): there the scheduler hands out the GPUs.
#   source pick_gpu.sh (after launch.sh's workshop_setting); keep_to_one_gpu || exit $?

# pick_gpu: sets picked_gpu to the CUDA_VISIBLE_DEVICES value for this command (empty: leave it to CUDA) and
# picked_why to a line saying why, where the pick was ours. A WORKSHOP_GPU it cannot use: one line, status 2.
pick_gpu() {
    picked_gpu="" picked_why=""
    [ -z "$(workshop_setting WORKSHOP_LAUNCHER)" ] || return 0
    local want
    want=$(workshop_setting WORKSHOP_GPU)
    want=${want:-idle}
    case $want in
        any) return 0 ;;
        idle) [ -z "${CUDA_VISIBLE_DEVICES+set}" ] || return 0 ;;
        GPU-* | MIG-*) picked_gpu=$want; return 0 ;;
        *) [[ $want =~ ^[0-9]+$ ]] || {
            echo "error: WORKSHOP_GPU='$want' is not idle, any, a GPU's number or its UUID" \
                "(nvidia-smi -L lists them)" >&2
            return 2
        } ;;
    esac

    local listing=""
    command -v nvidia-smi >/dev/null &&
        listing=$(nvidia-smi --query-gpu=index,uuid,name,mig.mode.current --format=csv,noheader 2>/dev/null | grep ,)
    local -a uuids=() names=() numbers=()
    local number uuid name mig split=no
    while IFS=, read -r number uuid name mig; do
        [ -n "${uuid// /}" ] || continue
        numbers+=("${number// /}") uuids+=("${uuid// /}") names+=("${name# }")
        [ "${mig// /}" = Enabled ] && split=yes
    done <<<"$listing"
    local count=${#uuids[@]}

    if [ "$want" != idle ]; then  # a number
        # Without nvidia-smi the number goes to CUDA as it is; CUDA numbers the GPUs its own way (fastest first).
        [ "$count" -gt 0 ] || { picked_gpu=$want; return 0; }
        local i
        for ((i = 0; i < count; i++)); do
            [ "${numbers[i]}" = "$want" ] && { picked_gpu=${uuids[i]}; return 0; }
        done
        echo "error: WORKSHOP_GPU=$want, but nvidia-smi numbers the GPUs here" \
            "${numbers[0]} to ${numbers[count - 1]}" >&2
        return 2
    fi
    [ "$count" -ge 2 ] && [ "$split" = no ] || return 0

    # Fewest processes first; among those, the first at or after the student's own place in the list. A make check
    # waiting for a turn on a GPU (gpu_turns.sh) holds no process there yet, but will run up to five: it counts five.
    local processes student own best=-1 best_key key i busy waiting best_busy best_waiting
    processes=$(nvidia-smi --query-compute-apps=gpu_uuid --format=csv,noheader 2>/dev/null) || processes=""
    student=${WORKSHOP_STUDENT:-$(id -un 2>/dev/null)}
    own=$(($(cksum <<<"$student" | cut -d' ' -f1) % count))
    for ((i = 0; i < count; i++)); do
        busy=$(grep -c -F -- "${uuids[i]}" <<<"$processes")
        waiting=$(checks_waiting_on "${uuids[i]}")
        key=$(((busy + 5 * waiting) * count + (i - own + count) % count))
        if [ "$best" -lt 0 ] || [ "$key" -lt "$best_key" ]; then
            best=$i best_key=$key best_busy=$busy best_waiting=$waiting
        fi
    done
    picked_gpu=${uuids[best]}
    local queue=""
    [ "$best_waiting" -eq 0 ] || queue=", and $best_waiting make check(s) waiting for a turn (five each)"
    picked_why="on GPU ${numbers[best]} of $count, ${names[best]}, which has the fewest processes on it now: \
$best_busy$queue; WORKSHOP_GPU picks another"
}

# turns_queue UUID: where the markers of the make checks waiting for a turn on that GPU begin (gpu_turns.sh keeps its
# turns and its queue in that folder): each marker is this, then <time>.<pid>.
turns_queue() {
    echo "${TMPDIR:-/tmp}/workshop-gpu-turns/$1.waiting."
}

# checks_waiting_on UUID: how many make checks wait for a turn on that GPU (gpu_turns.sh): their markers.
checks_waiting_on() {
    local marker n=0
    for marker in "$(turns_queue "$1")"*; do
        still_waiting "$marker" && n=$((n + 1))
    done
    echo "$n"
}

# still_waiting MARKER: whether the check that left this marker still waits for a turn: it holds the marker's lock for
# as long as it waits, so a check that ended while waiting left it unlocked. None waits where flock is missing.
still_waiting() {
    local fd held=1
    command -v flock >/dev/null && { exec {fd}<"$1"; } 2>/dev/null || return 1
    flock -n "$fd" || held=0
    exec {fd}<&-
    return $held
}

# smi_of_this_gpu ARGS: nvidia-smi ARGS about the GPU this command runs on, where CUDA_VISIBLE_DEVICES names one
# by its UUID (as keep_to_one_gpu does); about every GPU otherwise.
smi_of_this_gpu() {
    local only=()
    [[ ${CUDA_VISIBLE_DEVICES:-} =~ ^GPU-[0-9a-fA-F-]+$ ]] && only=(-i "$CUDA_VISIBLE_DEVICES")
    nvidia-smi "${only[@]}" "$@"
}

# this_gpu_uuid: the UUID of the GPU this command runs on, where nvidia-smi can tell which that is: the one
# CUDA_VISIBLE_DEVICES names by UUID, or the only one it lists. Nothing where it cannot tell, on a GPU split into
# MIG instances (which share neither bandwidth nor contexts), or without a working nvidia-smi.
this_gpu_uuid() {
    command -v nvidia-smi >/dev/null || return 0
    [[ ${CUDA_VISIBLE_DEVICES:-} == MIG-* ]] && return 0
    local gpus
    gpus=$(smi_of_this_gpu --query-gpu=uuid,mig.mode.current --format=csv,noheader 2>/dev/null | grep ,) || return 0
    [ "$(wc -l <<<"$gpus")" = 1 ] && [[ $gpus != *Enabled* ]] || return 0
    echo "${gpus%%,*}"
}

# processes_on_this_gpu: how many processes nvidia-smi lists on that GPU (ours included, if any hold a CUDA context
# when it asks); nothing where this_gpu_uuid cannot tell which GPU it is.
processes_on_this_gpu() {
    local uuid
    uuid=$(this_gpu_uuid)
    [ -n "$uuid" ] || return 0
    nvidia-smi -i "$uuid" --query-compute-apps=pid --format=csv,noheader 2>/dev/null | grep -c '[0-9]'
}

# keep_to_one_gpu: pick_gpu, and CUDA_VISIBLE_DEVICES set to the pick for the rest of this shell and all it
# starts, so that every figure of one command comes from one GPU. Says which, on a terminal.
keep_to_one_gpu() {
    pick_gpu || return $?
    [ -n "$picked_gpu" ] || return 0
    export CUDA_VISIBLE_DEVICES=$picked_gpu
    if [ -n "$picked_why" ] && [ -t 2 ]; then echo "($picked_why)" >&2; fi
    return 0
}
