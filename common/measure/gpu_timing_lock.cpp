#include "measure/gpu_timing_lock.hpp"

#include <cerrno>

#include <sys/file.h>
#include <unistd.h>

#include <fmt/format.h>

#include "base/files.hpp"

namespace workshop {

GpuTimingLock::GpuTimingLock(const char* path) {
    if (!path || !*path) return;
    // The file is in a folder every user may write to: open_lock_file follows no link and waits on no FIFO.
    try {
        fd_ = open_lock_file(path);
    } catch (const FileError& e) {
        fmt::print(stderr, "note: timing without the GPU's timing lock: {}\n", e.what());
        return;
    }
    int locked;
    while ((locked = flock(fd_, LOCK_EX)) != 0 && errno == EINTR) {}
    if (locked != 0) {
        close(fd_);
        fd_ = -1;
    }
}

GpuTimingLock::~GpuTimingLock() {
    if (fd_ >= 0) close(fd_);  // closing the only descriptor of the open file lets go of its lock
}

}  // namespace workshop
