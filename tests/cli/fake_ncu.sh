#!/usr/bin/env bash
# Stands in for Nsight Compute in the profile tests: prints the H100 log named by FAKE_NCU_LOG, whatever it is
# asked, so profile.sh's arithmetic can be checked on a machine without a GPU or ncu. Where FAKE_NCU_ARGS names a
# file, its command line goes there, one argument per line.
[ -n "${FAKE_NCU_ARGS:-}" ] && printf '%s\n' "$@" >"$FAKE_NCU_ARGS"
cat "$FAKE_NCU_LOG"
