#!/usr/bin/env bash
# make test's GPU-labelled tests, run where the GPU is: run_tests.sh starts this script here, or as one job of the
# room's launcher, so that it looks at the GPU the tests will get. A GPU that lets one process at a time make a
# CUDA context (compute mode exclusive-process, common on clusters) would turn away every test but one that
# wants it at once, so there the tests run one after another, whatever -j make test passed.
#   gpu_tests.sh CTEST BUILD_DIR [ctest options]
set -u
ctest=$1 build=$2
shift 2
source "$(dirname "$0")/lib.sh"
if gpu_takes_one_process_at_a_time; then
    echo "this GPU takes one process at a time (compute mode exclusive-process): its tests run one after another"
    set -- "$@" -j 1  # the last -j counts
fi
exec "$ctest" --test-dir "$build" --output-on-failure "$@" -L gpu
