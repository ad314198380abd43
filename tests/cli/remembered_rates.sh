#!/usr/bin/env bash
# make watch's remembered solution timings (remembered_step_rate in common/make/lib.sh), on a stand-in program
# that counts its runs: off, it measures every time; on, once per build of the program and set of options; a
# rebuild, other options or an expired memory measure again.
#   remembered_rates.sh LIB_SH
set -u
source "$1"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
program="$dir/solution3_transpose"
cat >"$program" <<'PROGRAM'
#!/usr/bin/env bash
echo run >>"$(dirname "$0")/runs"
echo "track,name,kind,shape,median_ms,min_ms,max_ms,runs,check,rate"
echo "transpose,step 3,step,8192x8192,1,1,1,20,PASS,976.5"
PROGRAM
chmod +x "$program"
status=0
expect() {  # what, expected runs so far, the rate printed
    local runs
    runs=$(wc -l <"$dir/runs" 2>/dev/null || echo 0)
    if [ "$runs" -eq "$2" ] && [ "$3" = 976.5 ]; then echo "ok: $1 ($runs runs)"
    else echo "FAIL: $1: $runs runs (expected $2), rate '$3'"; status=1; fi
}
expect "off: measured" 1 "$(WORKSHOP_RATE_CACHE_S=0 remembered_step_rate "$program")"
expect "off: measured again" 2 "$(remembered_step_rate "$program")"
expect "on: measured" 3 "$(WORKSHOP_RATE_CACHE_S=60 remembered_step_rate "$program")"
expect "on: remembered" 3 "$(WORKSHOP_RATE_CACHE_S=60 remembered_step_rate "$program")"
expect "on, other options: measured" 4 "$(WORKSHOP_RATE_CACHE_S=60 remembered_step_rate "$program" --size 4096)"
touch -d '1 minute ago' "$program"
expect "on, rebuilt: measured" 5 "$(WORKSHOP_RATE_CACHE_S=60 remembered_step_rate "$program")"
sed -i 's/\t[0-9]*\t976.5$/\t1\t976.5/' "$dir/.rates"
expect "on, remembered too long ago: measured" 6 "$(WORKSHOP_RATE_CACHE_S=60 remembered_step_rate "$program")"
exit $status
