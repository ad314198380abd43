#!/usr/bin/env bash
# Where the class stands. With WORKSHOP_CLASS_DIR set (environment or workshop.conf), each student's make status
# also writes their progress to that shared folder, one file per login; `make class` (this script run on its own)
# gathers them into one table (workshop_class, room/class_table.hpp).
#   source class.sh; class_save      (make status: this student's progress, from .workshop/)
#   class.sh [FOLDER]                (make class: the table)

source "$(dirname "${BASH_SOURCE[0]}")/launch.sh"
class_top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

# class_save: writes this student's record to the class folder, when there is one; says so, or why it could not.
class_save() {
    local dir
    dir=$(workshop_setting WORKSHOP_CLASS_DIR)
    [ -z "$dir" ] || room_program workshop_class save "$dir" "$class_top" || true
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    program="${WORKSHOP_ROOM_BIN:-$class_top/build/bin}/workshop_class"
    [ -x "$program" ] || { echo "error: $program is not built: run make build first" >&2; exit "${exit_codes[kExitBadUsage]}"; }
    exec "$program" show "${1:-$(workshop_setting WORKSHOP_CLASS_DIR)}"
fi
