#include "room/turns.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <regex>
#include <thread>

#include "base/files.hpp"
#include "room/gpus.hpp"

namespace workshop::room {

namespace {

using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;

std::string setting(const char* name) {
    const char* value = std::getenv(name);
    return value ? value : "";
}

// A whole decimal number from `text` ("08" is 8), empty meaning `otherwise`; throws SettingError naming `what`.
long decimal_setting(const char* name, long otherwise, long most, const char* what) {
    const std::string text = setting(name);
    if (text.empty()) return otherwise;
    if (!std::regex_match(text, std::regex("[0-9]{1,9}")) || std::stol(text, nullptr, 10) > most)
        throw SettingError(fmt::format("error: {}='{}' is not {}", name, printable(text), what));
    return std::stol(text, nullptr, 10);
}

// An existing marker, opened as open_lock_file opens (no link followed, no FIFO waited on), but never created:
// one that its check has just removed stays removed. -1 where it is not a regular file.
int open_marker(const fs::path& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    struct stat st {};
    if (fd >= 0 && (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))) {
        ::close(fd);
        return -1;
    }
    return fd;
}

long long now_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

// How many checks that came before `mine` (every one, where `mine` is empty) still wait for a turn on the GPU: a
// marker whose name sorts before `mine` and is locked. A marker left unlocked by a check that ended while it
// waited is removed where this user may, once it is old enough not to be one that its check is still locking.
int earlier_checks_waiting(const std::string& uuid, const std::string& mine) {
    const std::string prefix = uuid + ".waiting.";
    int waiting = 0;
    std::error_code error;
    for (const auto& entry : fs::directory_iterator(turns_folder(), error)) {
        const std::string name = entry.path().filename().string();
        if (name.rfind(prefix, 0) != 0 || name == mine || (!mine.empty() && name >= mine)) continue;
        const int fd = open_marker(entry.path());
        if (fd < 0) continue;
        if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
            ++waiting;
        } else if (now_ns() - std::atoll(name.c_str() + prefix.size()) > 2'000'000'000LL) {
            ::unlink(entry.path().c_str());
        }
        ::close(fd);
    }
    return waiting;
}

// This check's place in the queue: its marker, locked while it waits.
struct Marker {
    std::string name;
    int fd = -1;
    void join(const std::string& uuid) {
        name = fmt::format("{}.waiting.{:019d}.{}", uuid, now_ns(), ::getpid());
        try {
            fd = open_lock_file(turns_folder() / name);
        } catch (const FileError&) {
            name.clear();  // waits without a place in the queue, trying for a turn as it can
            return;
        }
        if (::flock(fd, LOCK_EX | LOCK_NB) != 0) leave();
    }
    void leave() {
        if (fd >= 0) {
            ::unlink((turns_folder() / name).c_str());  // before letting go: no one sees it unlocked and waits on it
            ::close(fd);
        }
        fd = -1;
        name.clear();
    }
};

// One free turn of `turns`, locked (its number in `slot`); -1 where all are taken. `opened`: how many of the
// files could be opened at all, `refused` why the last one could not.
int free_turn(const std::string& uuid, int turns, int& slot, int& opened, std::string& refused) {
    opened = 0;
    for (int i = 0; i < turns; ++i) {
        int fd;
        try {
            fd = open_lock_file(turns_folder() / fmt::format("{}.{}", uuid, i));
        } catch (const FileError& e) {
            refused = e.what();
            continue;
        }
        ++opened;
        slot = i;
        if (::flock(fd, LOCK_EX | LOCK_NB) == 0) return fd;
        ::close(fd);
    }
    return -1;
}

// First come, first served: a check that has to wait leaves a marker and tries for a turn only when no earlier
// marker is locked (polling alone gives a turn that comes free to whoever tries first, late or not).
Turn wait_for_a_turn(const std::string& uuid, const TurnSettings& settings, std::FILE* say) {
    const auto start = Clock::now();
    Marker marker;
    bool said = false;
    while (true) {
        if ((said && marker.fd < 0) || earlier_checks_waiting(uuid, marker.name) == 0) {
            int slot = 0, opened = 0;
            std::string refused;
            const int fd = free_turn(uuid, settings.turns, slot, opened, refused);
            if (fd >= 0 || opened == 0) marker.leave();
            if (fd >= 0) return {fd, "", fmt::format("{}.{}", uuid, slot)};
            if (opened == 0) {
                fmt::print(say, "== no turns on this GPU: {}\n", refused);
                return {-1, "", "none: " + refused};
            }
        }
        if (!said) {
            marker.join(uuid);
            fmt::print(say,
                       "== waiting for a turn on this GPU: {} checks are running on it (WORKSHOP_CHECKS_PER_GPU)\n",
                       settings.turns);
            std::fflush(say);
            said = true;
        }
        if (std::chrono::duration<double>(Clock::now() - start).count() > settings.wait_limit_s) {
            marker.leave();
            fmt::print(say,
                       "== no turn on this GPU after {:.0f} s (WORKSHOP_TURN_WAIT_LIMIT; a check that holds one "
                       "may be paused): going ahead without one\n",
                       settings.wait_limit_s);
            return {-1, "", "none: waited too long"};
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(250));
    }
}

}  // namespace

fs::path turns_folder() {
    const std::string tmp = setting("TMPDIR");
    return fs::path(tmp.empty() ? "/tmp" : tmp) / "workshop-gpu-turns";
}

int checks_waiting_on(const std::string& uuid) { return earlier_checks_waiting(uuid, ""); }

TurnSettings turn_settings_from_environment() {
    TurnSettings settings;
    settings.turns = static_cast<int>(
        decimal_setting("WORKSHOP_CHECKS_PER_GPU", settings.turns, 10000, "a number of checks (0: no limit)"));
    settings.wait_limit_s = static_cast<double>(decimal_setting(
        "WORKSHOP_TURN_WAIT_LIMIT", static_cast<long>(settings.wait_limit_s), 86400, "a number of seconds"));
    return settings;
}

Turn take_a_turn(const std::string& uuid, const TurnSettings& settings, std::FILE* say) {
    if (uuid.empty()) return {-1, "", "none: which GPU this runs on is not known"};
    try {
        make_shared_folder(turns_folder());
    } catch (const FileError& e) {
        fmt::print(say, "== no turns and no timing lock on this GPU: {}\n", e.what());
        return {-1, "", std::string("none: ") + e.what()};
    }
    Turn turn;
    const fs::path timing = turns_folder() / (uuid + ".timing");
    try {
        ::close(open_lock_file(timing));  // made here, where it is missing, for the check's programs to lock
        turn.timing_lock = timing.string();
    } catch (const FileError& e) { fmt::print(say, "== no timing lock on this GPU: {}\n", e.what()); }
    if (settings.turns == 0) return {-1, turn.timing_lock, "none: WORKSHOP_CHECKS_PER_GPU=0"};
    Turn taken = wait_for_a_turn(uuid, settings, say);
    taken.timing_lock = turn.timing_lock;
    return taken;
}

}  // namespace workshop::room
