#include "measure/gpu_timing_lock.hpp"

#include <fmt/format.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <functional>
#include <string>

#include "base/files.hpp"

namespace workshop {

namespace {

// The file is in a folder every user may write to: open_lock_file follows no link and waits on no FIFO.
int open_or_say(const std::string& path, bool say) {
    try {
        return open_lock_file(path);
    } catch (const FileError& e) {
        if (say) fmt::print(stderr, "note: timing without the GPU's timing lock: {}\n", e.what());
        return -1;
    }
}

// Takes `operation`'s lock on `fd`, first without waiting, and where it is not free, after `waiting` is set and said
// (once); closes `fd`, and gives -1, where that fails.
int locked(int fd, int operation, bool& waiting, const std::function<void(bool)>& waits) {
    if (fd < 0) return -1;
    int result = flock(fd, operation | LOCK_NB);
    if (result != 0 && errno == EWOULDBLOCK) {
        if (!waiting && waits) waits(true);
        waiting = true;
        while ((result = flock(fd, operation)) != 0 && errno == EINTR) {}
    }
    if (result == 0) return fd;
    close(fd);
    return -1;
}

}  // namespace

GpuTimingLock::GpuTimingLock(const char* path, GpuUse use, const std::function<void(bool)>& waits) {
    if (!path || !*path) return;
    const bool timing = use == GpuUse::Timing;
    bool waiting = false;
    // Without the turnstile (another user's file there that is no lock file), the lock still works; only a timing
    // may then wait longer.
    turnstile_ = locked(open_or_say(std::string(path) + ".turnstile", false), LOCK_EX, waiting, waits);
    fd_ = locked(open_or_say(path, timing), timing ? LOCK_EX : LOCK_SH, waiting, waits);
    if (!timing && turnstile_ >= 0) {  // in: the next shape, or the timing that waits, may pass
        close(turnstile_);
        turnstile_ = -1;
    }
    if (waiting && waits) waits(false);
}

GpuTimingLock::~GpuTimingLock() {
    // Closing the only descriptor of an open file lets go of its lock.
    if (fd_ >= 0) close(fd_);
    if (turnstile_ >= 0) close(turnstile_);
}

}  // namespace workshop
