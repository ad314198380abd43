#!/usr/bin/env bash
# The exit codes are written once, in common/base/exit_codes.hpp: the shell reads them from there
# (common/base/exit_codes.sh). Checked: the shell's codes are the programs' (PRINT_EXIT_CODES prints those), name
# for name, none missing and none more; and no script of common/make/ or common/room/ writes one as a bare number.
#   exit_codes.sh TOP PRINT_EXIT_CODES
set -u
top=$1 printer=$2
# shellcheck source=../../common/base/exit_codes.sh
source "$top/common/base/exit_codes.sh"
status=0
fail() { echo "FAIL: $*"; status=1; }

programs=$("$printer") || fail "$printer did not run"
shells=$(for name in "${!exit_codes[@]}"; do echo "$name=${exit_codes[$name]}"; done | sort)
if [ "$shells" = "$(sort <<<"$programs")" ] && [ "${#exit_codes[@]}" -ge 8 ]; then
    echo "ok: the shell has the programs' ${#exit_codes[@]} exit codes: $(paste -sd' ' <<<"$shells")"
else
    fail "the shell and the programs disagree:"
    diff <(echo "$shells") <(sort <<<"$programs") | sed 's/^</  shell:/; s/^>/  programs:/' | grep -v '^[0-9]'
fi

# An exit code of the programs' (2 to 7) as a number in a script: exit 3, return 4, -eq 3, -ne 4, a case 3).
bare=$(grep -nE '(exit|return|-eq|-ne|==|!=) +"?[2-7]\b|^[[:space:]]*[2-7]\)' \
    "$top"/common/make/*.sh "$top"/common/make/step.mk "$top"/common/room/*.sh "$top"/common/room/results.sbatch |
    grep -vE '^[^:]+:[0-9]+:[[:space:]]*#')
if [ -z "$bare" ]; then echo "ok: no script writes an exit code as a number"
else fail "exit codes written as numbers, not by their names (exit_codes[kExit...]):"; echo "$bare"; fi
exit $status
