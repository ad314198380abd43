#!/usr/bin/env bash
# make watch's file watcher: prints the path of each step file of the checkout TOP as it is saved, one a line.
# inotifywait where it is installed (it sees a save at once), else (or with WATCH_POLL=1) a look at the files'
# times every half second.
#   watch_files.sh TOP
set -u
top=$1
if [ "${WATCH_POLL:-}" != 1 ] && command -v inotifywait >/dev/null 2>&1; then
    exec inotifywait -m -q -e close_write -e moved_to --format '%w%f' "$top"/step[1-5]/ 2>/dev/null
fi
look() { (cd "$top" && stat -c '%n %y %s' step[1-5]/transpose.cu step[1-5]/matmul.cu 2>/dev/null); }
before=$(look)
while sleep 0.5; do
    now=$(look)
    if [ "$now" != "$before" ]; then
        diff <(echo "$before") <(echo "$now") | while read -r mark name _; do
            [ "$mark" = ">" ] && echo "$top/$name"
        done
    fi
    before=$now
done
