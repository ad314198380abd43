# shellcheck shell=bash
# Which GPU a command runs on, where one machine has several and no scheduler hands them out (a server the room
# shares, a workstation shared with others): the one with the fewest processes on it when the command starts, a
# make check waiting for a turn there counting five; where several have as few, the student's name decides, so that
# a room spreads over them and a student alone gets the same GPU every time (workshop_gpu, room/gpus.hpp).
# WORKSHOP_GPU (environment, or workshop.conf) chooses otherwise:
#   idle, or unset   as above
#   any              leave it to CUDA (its first device, or what CUDA_VISIBLE_DEVICES says)
#   N, or a UUID     that GPU: N as nvidia-smi numbers them (`nvidia-smi -L` lists both)
# `idle` picks nothing where CUDA_VISIBLE_DEVICES is set already, where nvidia-smi is missing or fails, where it
# lists one GPU, or where a GPU is split into MIG instances; nor does any of this apply with a launcher
# (WORKSHOP_LAUNCHER): there the scheduler hands out the GPUs.
#   source pick_gpu.sh (after launch.sh's workshop_setting); keep_to_one_gpu || exit $?

# The room's programs: beside the workshop's (WORKSHOP_ROOM_BIN names another folder). Where one is not built yet,
# nothing is picked and nothing is known.
room_program() {
    local program="${WORKSHOP_ROOM_BIN:-$workshop_top/build/bin}/$1"
    [ -x "$program" ] || return 0
    "$program" "${@:2}"
}

# pick_gpu: sets picked_gpu to the CUDA_VISIBLE_DEVICES value for this command (empty: leave it to CUDA); on a
# terminal a line says why, where the pick was ours. A WORKSHOP_GPU it cannot use: one line, status 2.
pick_gpu() {
    picked_gpu=""
    [ -z "$(workshop_setting WORKSHOP_LAUNCHER)" ] || return 0
    picked_gpu=$(room_program workshop_gpu pick "$(workshop_setting WORKSHOP_GPU)")
}

# keep_to_one_gpu: pick_gpu, and CUDA_VISIBLE_DEVICES set to the pick for the rest of this shell and all it
# starts, so that every figure of one command comes from one GPU.
keep_to_one_gpu() {
    pick_gpu || return $?
    [ -z "$picked_gpu" ] || export CUDA_VISIBLE_DEVICES=$picked_gpu
}

# this_gpu_uuid: the UUID of the GPU this command runs on, where it can be told (nothing elsewhere).
this_gpu_uuid() { room_program workshop_gpu this; }

# processes_on_this_gpu: how many processes nvidia-smi lists on that GPU (nothing where it is not known).
processes_on_this_gpu() { room_program workshop_gpu processes; }

# smi_of_this_gpu ARGS: nvidia-smi ARGS about the GPU this command runs on, where CUDA_VISIBLE_DEVICES names one
# by its UUID (as keep_to_one_gpu does); about every GPU otherwise.
smi_of_this_gpu() {
    local only=()
    [[ ${CUDA_VISIBLE_DEVICES:-} =~ ^GPU-[0-9a-fA-F-]+$ ]] && only=(-i "$CUDA_VISIBLE_DEVICES")
    nvidia-smi "${only[@]}" "$@"
}
