#!/usr/bin/env bash
# A checkout whose path has a space in it: every step Makefile's targets still resolve (make splits words at
# spaces, so the step Makefiles keep their paths relative). A dry run of make check in a copy, with no build.
#   path_with_a_space.sh SOURCE_DIR
set -u
source_dir=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tree="$tmp/a checkout"
mkdir -p "$tree"
tar -C "$source_dir" --exclude='./build*' --exclude=./.git -cf - . | tar -C "$tree" -xf -
status=0
for step in 1 2 3 4 5; do
    if out=$(make -C "$tree/step$step" -n check 2>&1) && ! grep -q 'No such file' <<<"$out"; then
        echo "ok: step $step: make check resolves its paths"
    else
        echo "FAIL: step $step: make -n check said: $(tail -n 3 <<<"$out")"
        status=1
    fi
done
exit $status
