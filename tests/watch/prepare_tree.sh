#!/usr/bin/env bash
# The tests of make watch work on a copy of the checkout, never on the real step files: this makes the copy
# (or brings it up to date) with a build of its own.
#   prepare_tree.sh SOURCE TREE [CUDA_ARCH]
set -u
source "$(dirname "$0")/drive.sh"
watch_tree "$@"
