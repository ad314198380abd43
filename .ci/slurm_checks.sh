#!/usr/bin/env bash
# The checks of .ci/slurm_test.sh (source it after slurm_cluster.sh): each prints "ok" or "FAIL" and a line of
# why; failures counts the failed ones. They keep what a command printed in $tmp/out.
# shellcheck disable=SC2154  # tmp is set by slurm_cluster.sh

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
