#!/usr/bin/env bash
# Where the class stands. With WORKSHOP_CLASS_DIR set (environment or workshop.conf), each student's make status
# also writes its rows to that shared folder, one file per student; `make class` (this script run on its own)
# gathers them into one table: student, the step each one has reached, and their step-5 kernels' speed as a
# percentage of the solution's.
#   source class.sh; class_save ROWS GPU          (make status: ROWS are "step,track,builds,correct,rate,
#                                                  solution rate,next" lines; GPU is yes or no)
#   class.sh [FOLDER]                              (make class: the table)

source "$(dirname "${BASH_SOURCE[0]}")/launch.sh"

class_dir() { workshop_setting WORKSHOP_CLASS_DIR; }

# class_save ROWS GPU: writes this student's record (whole, or not at all) to the class folder, when there is one.
class_save() {
    local dir student file
    dir=$(class_dir)
    [ -n "$dir" ] || return 0
    student=${WORKSHOP_STUDENT:-$(id -un)}
    file="$dir/$(tr -c 'A-Za-z0-9._\n-' '_' <<<"$student").csv"
    if ! mkdir -p "$dir" 2>/dev/null ||
        ! { echo "# student=$student gpu=$2"; printf '%s' "$1"; } >"$file.tmp.$$" 2>/dev/null ||
        ! mv -f "$file.tmp.$$" "$file"; then
        rm -f "$file.tmp.$$"
        echo "warning: could not write this status to the class folder $dir (ask the instructor to make it writable)" \
            >&2
        return 0
    fi
    echo "(written to the class folder: $file)"
}

# class_table FOLDER: one line per student file in FOLDER.
class_table() {
    local dir=$1 files=()
    [ -d "$dir" ] || {
        echo "error: the class folder '$dir' does not exist (set WORKSHOP_CLASS_DIR, or name the folder)" >&2
        return 2
    }
    shopt -s nullglob
    files=("$dir"/*.csv)
    if [ ${#files[@]} -eq 0 ]; then
        echo "error: no student has written a status to $dir yet (make status writes it)" >&2
        return 1
    fi
    echo "class in $dir: ${#files[@]} students"
    printf '%-16s %-20s %-18s %-18s %-20s %s\n' student "step reached" "step 5 transpose" "step 5 matmul" \
        "measured on" written
    local f
    for f in "${files[@]}"; do
        awk -F, -v written="$(date -r "$f" '+%Y-%m-%d %H:%M')" '
            /^# / { split($0, words, " "); for (i in words) { split(words[i], kv, "="); meta[kv[1]] = kv[2] } next }
            NF >= 7 {
                if ($7 == "next" && reached == "") reached = sprintf("step %s (%s)", $1, $2)
                if ($1 == 5) pct[$2] = ($5 != "" && $6 > 0) ? sprintf("%.0f%%", 100 * $5 / $6) : "-"
            }
            END {
                if (reached == "") reached = "done"
                if (pct["transpose"] == "") pct["transpose"] = "-"
                if (pct["matmul"] == "") pct["matmul"] = "-"
                measured = (meta["gpu"] == "yes") ? "a GPU" : "no GPU: builds only"
                printf "%-16s %-20s %-18s %-18s %-20s %s\n", meta["student"], reached, pct["transpose"], pct["matmul"], measured, written
            }' "$f"
    done
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    class_table "${1:-$(class_dir)}"
fi
