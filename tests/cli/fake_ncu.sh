#!/usr/bin/env bash
# Stands in for Nsight Compute in the profile tests: prints the H100 log named by FAKE_NCU_LOG, whatever it is
# asked, so profile.sh's arithmetic can be checked on a machine without a GPU or ncu.
cat "$FAKE_NCU_LOG"
