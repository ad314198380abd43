#!/usr/bin/env bash
# Stands in for nvidia-smi in the tests of the GPU pick, the turns on a GPU and the line under a shared GPU's PASS
# (common/room/pick_gpu.sh, gpu_turns.sh, check.sh), on a machine with or without GPUs. It answers the questions
# those scripts ask, from the environment:
#   FAKE_GPUS        the GPUs, one "index, UUID, name, MIG mode" line each
#   FAKE_PROCESSES   the compute processes, one line each: the UUID of the GPU it runs on
#   FAKE_EXCLUSIVE   the UUID of the GPU in compute mode exclusive-process (without -i: any value, every GPU)
#   FAKE_SMI_FAILS   any value: fails, as nvidia-smi does without a driver
# -i UUID narrows each answer to that GPU. Anything else it is asked is an error, so a test sees a new question.
if [ -n "${FAKE_SMI_FAILS:-}" ]; then
    echo "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver."
    exit 9
fi
only=""
[ "${1:-}" = -i ] && { only=$2; shift 2; }
lines_of() { printf '%s' "$1" | grep -F -- "$only"; }  # an empty pattern keeps every line
case "$*" in
    --query-gpu=index,uuid,name,mig.mode.current*) lines_of "${FAKE_GPUS:-}" ;;
    --query-gpu=uuid,mig.mode.current*) lines_of "${FAKE_GPUS:-}" | cut -d, -f2,4 | sed 's/^ *//' ;;
    --query-gpu=compute_mode*)
        if [ -n "$only" ]; then [ "$only" = "${FAKE_EXCLUSIVE:-}" ] && echo Exclusive_Process || echo Default
        else [ -n "${FAKE_EXCLUSIVE:-}" ] && echo Exclusive_Process; echo Default; fi ;;
    --query-compute-apps=gpu_uuid*) lines_of "${FAKE_PROCESSES:-}" ;;
    --query-compute-apps=pid*) lines_of "${FAKE_PROCESSES:-}" | awk '{ print 1000 + NR }' ;;
    *) echo "stand-in nvidia-smi: not asked for: $*" >&2; exit 1 ;;
esac
exit 0  # nothing to list is no error, as for nvidia-smi
