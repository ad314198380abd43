# shellcheck shell=bash disable=SC2034  # the scripts that source this use the array
# The workshop's exit codes for the shell, read from exit_codes.hpp beside this file so that each is written once:
# exit_codes[kExitNoDevice] is 3, under the header's own names. Source it (launch.sh does, and so every script that
# sources launch.sh or make/lib.sh has them); it defines that array only. tests/cli/exit_codes.sh checks that the
# shell's codes are the programs'.
declare -gA exit_codes=()
while IFS= read -r exit_code_line; do
    if [[ $exit_code_line =~ ^[[:space:]]*(kExit[A-Za-z]+)[[:space:]]*=[[:space:]]*([0-9]+)[[:space:]]*(,|//|$) ]]; then
        exit_codes[${BASH_REMATCH[1]}]=${BASH_REMATCH[2]}
    fi
done <"$(dirname "${BASH_SOURCE[0]}")/exit_codes.hpp"
unset exit_code_line
