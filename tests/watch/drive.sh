# Drives make watch in a terminal of its own (a private tmux server), on a copy of the checkout, for the tests
# of make watch and for make bench-watch (latency.sh) (source it; it defines functions only).
# shellcheck shell=bash

# watch_tree SOURCE TREE [CUDA_ARCH]: makes TREE a copy of the checkout SOURCE (its files without the git
# history, as a tarball would have them) with a build of its own in TREE/build, and a clean slate: SOURCE's
# step files, no progress, no kept starting points, no backups. Run again, it copies and rebuilds only what
# changed. Builds step 3's transpose and workshop_progress (make watch builds the solutions when it has a GPU to
# check on).
watch_tree() {
    local src=$1 tree=$2 arch=${3:-} f
    mkdir -p "$tree" && rm -rf "$tree/.workshop" "$tree"/step[1-5]/*.cu.bak-* || return 1
    # Not cp -p: a file put back must look newer than what was built from its edited version.
    (cd "$src" && { git ls-files -co --exclude-standard 2>/dev/null ||
                    find . \( -name build -o -name .git -o -name .workshop \) -prune -o -type f -print; }) |
        while IFS= read -r f; do
            [ -f "$src/$f" ] && ! cmp -s "$src/$f" "$tree/$f" &&
                { mkdir -p "$tree/$(dirname "$f")" && cp "$src/$f" "$tree/$f"; }
        done
    local log="$tree/build/watch_tree.log"
    mkdir -p "$tree/build" || return 1
    if [ ! -f "$tree/build/CMakeCache.txt" ]; then
        cmake -S "$tree" -B "$tree/build" -DCMAKE_BUILD_TYPE=Release -DWORKSHOP_TEST_STUDENT_CODE=OFF \
            ${arch:+"-DCMAKE_CUDA_ARCHITECTURES=$arch"} >"$log" 2>&1 ||
            { echo "error: configuring the copy in $tree failed; see $log" >&2; return 1; }
    fi
    cmake --build "$tree/build" -j "$(nproc 2>/dev/null || echo 2)" \
        --target step3_transpose workshop_progress >>"$log" 2>&1 ||
        { echo "error: building the copy in $tree failed; see $log" >&2; return 1; }
}

# cuda_arch_of BUILD_DIR: the GPU architecture that build was configured for.
cuda_arch_of() { sed -n 's/^CMAKE_CUDA_ARCHITECTURES:[A-Z]*=//p' "$1/CMakeCache.txt" 2>/dev/null; }

# drive_start DIR COMMAND: runs COMMAND in DIR on a 200 x 60 terminal. When it ends, the terminal says
# "watch exited: STATUS" and whether echo and line editing are back on ("terminal: icanon echo").
drive_start() {
    command -v tmux >/dev/null 2>&1 || {
        echo "error: tmux is not installed (it drives make watch in a real terminal): apt-get install tmux" >&2
        return 1
    }
    drive_socket=$(mktemp -d)/tmux  # a private server, removed with its folder by drive_stop
    tmux -S "$drive_socket" -f /dev/null new-session -d -x 200 -y 60 -c "$1" \
        "$2; echo \"watch exited: \$?\"; echo \"terminal: \$(stty -a | tr ' ;' '\n\n' | grep -xE -- '-?(icanon|echo)' | paste -sd' ')\"; sleep 600" ||
        return 1
    # Should this script be killed before drive_stop (a test's time-out), the terminal goes with it.
    ( while kill -0 $$ 2>/dev/null; do sleep 1; done; tmux -S "$drive_socket" kill-server; \
      rm -rf "${drive_socket%/tmux}" ) </dev/null >/dev/null 2>&1 &
    drive_watchdog=$!
}

# drive_screen: the last screen make watch drew, from its "make watch: step N, ..." line down, all of it. A screen
# taller than the terminal (a FAIL's shapes and map) has scrolled its top into tmux's history, so the capture
# takes the history too and keeps what follows the last such line.
drive_screen() {
    tmux -S "$drive_socket" capture-pane -p -J -S - |
        awk '/^make watch: step [1-5], / { n = 0 } { row[++n] = $0 } END { for (i = 1; i <= n; i++) print row[i] }'
}
drive_keys() { tmux -S "$drive_socket" send-keys "$@"; }
drive_stop() {
    [ -n "${drive_socket:-}" ] && { tmux -S "$drive_socket" kill-server 2>/dev/null; rm -rf "${drive_socket%/tmux}"; }
    drive_socket=""
    [ -n "${drive_watchdog:-}" ] && kill "$drive_watchdog" 2>/dev/null
    drive_watchdog=""
    true
}

# drive_wait SECONDS TEXT...: waits until the screen shows every TEXT (fixed strings); drive_wait_any: until it
# shows one of them. On time-out, says what was missing, prints the screen and fails.
drive_wait() { _drive_wait all "$@"; }
drive_wait_any() { _drive_wait any "$@"; }
_drive_wait() {
    local want=$1 deadline=$((SECONDS + $2)) screen text found missing
    shift 2
    while :; do
        screen=$(drive_screen) found=no missing=""
        for text; do
            if grep -qF -- "$text" <<<"$screen"; then found=yes; else missing=${missing:-$text}; fi
        done
        { [ "$want" = all ] && [ -z "$missing" ]; } || { [ "$want" = any ] && [ $found = yes ]; } && return 0
        if [ $SECONDS -ge $deadline ]; then
            printf 'timed out waiting for "%s" on the screen; it shows:\n%s\n' \
                "$([ "$want" = all ] && echo "$missing" || echo "one of: $*")" "$screen"
            return 1
        fi
        sleep 0.05
    done
}
