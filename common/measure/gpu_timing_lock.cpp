#include "measure/gpu_timing_lock.hpp"

#include <cerrno>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

namespace workshop {

GpuTimingLock::GpuTimingLock(const char* path) {
    if (!path || !*path) return;
    // Read-only: flock needs no more, so every user who may read the file (make check makes it 666) may lock it.
    fd_ = open(path, O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) return;
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
