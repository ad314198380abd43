// workshop_turn: a turn on the GPU a command runs on (room/turns.hpp), for make check.
//   workshop_turn -- PROGRAM [ARGS...]   takes a turn, then runs PROGRAM in it (exec, no shell): PROGRAM and
//                                        everything it starts hold the turn until the last of them ends
//   workshop_turn --hold                 takes a turn, prints WORKSHOP_TIMING_LOCK=<file or nothing>, and holds
//                                        the turn until whoever reads its output closes it (gpu_turns.sh)
// The command gets WORKSHOP_TIMING_LOCK (the GPU's timing lock, where there is one) and WORKSHOP_TURN (the turn, or
// why there is none: a command that has it set runs in a turn already). Settings from the environment:
// WORKSHOP_CHECKS_PER_GPU (4; 0: no limit), WORKSHOP_TURN_WAIT_LIMIT (seconds, 300). Exit 2: a bad setting or usage.
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "base/exit_codes.hpp"
#include "base/files.hpp"
#include "room/gpus.hpp"
#include "room/turns.hpp"

namespace {

using namespace workshop;

int usage() {
    fmt::print(stderr, "usage: workshop_turn -- PROGRAM [ARGS...]   or   workshop_turn --hold\n");
    return kExitBadUsage;
}

int run_in_turn(const room::Turn& turn, char** command) {
    if (turn.fd >= 0) ::fcntl(turn.fd, F_SETFD, 0);  // the command, and all it starts, hold the turn
    if (turn.timing_lock.empty())
        ::unsetenv("WORKSHOP_TIMING_LOCK");
    else
        ::setenv("WORKSHOP_TIMING_LOCK", turn.timing_lock.c_str(), 1);
    ::setenv("WORKSHOP_TURN", turn.description.c_str(), 1);
    std::fflush(stdout);
    ::execvp(command[0], command);
    fmt::print(stderr, "error: cannot run {}: {}\n", printable(command[0]), std::strerror(errno));
    return kExitBadUsage;
}

// Holds the turn for as long as the reading end of standard output is open somewhere (poll reports POLLERR on a
// pipe's writing end once no reader is left); with no turn to hold, ends at once.
int hold(const room::Turn& turn) {
    fmt::print("WORKSHOP_TIMING_LOCK={}\n", turn.timing_lock);
    if (std::fflush(stdout) != 0 || turn.fd < 0) return kExitOk;
    pollfd out{STDOUT_FILENO, 0, 0};
    while (!(out.revents & (POLLERR | POLLHUP | POLLNVAL))) {
        if (::poll(&out, 1, -1) < 0 && errno != EINTR) break;
    }
    return kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
    const std::string mode = argc > 1 ? argv[1] : "";
    if (!((mode == "--" && argc > 2) || (mode == "--hold" && argc == 2))) return usage();
    room::TurnSettings settings;
    try {
        settings = room::turn_settings_from_environment();
    } catch (const room::SettingError& e) {
        fmt::print(stderr, "{}\n", e.what());
        return kExitBadUsage;
    }
    const room::Turn turn = room::take_a_turn(room::this_gpu_uuid(), settings, stdout);
    return mode == "--hold" ? hold(turn) : run_in_turn(turn, argv + 2);
}
