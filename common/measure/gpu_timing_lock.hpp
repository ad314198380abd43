// One timing at a time on a GPU that several students' make checks share.
//
// Students who share a GPU share its bandwidth, and a timing that runs beside another check's timing reads low. So
// make check names a lock file for the GPU (WORKSHOP_TIMING_LOCK, set by the room's workshop_turn), and each timing
// holds it from its warm-up to its last timed run: the timings of the checks on one GPU take turns, a fraction of a
// second each. The rest of the checks (the battery, the sanitizers) does not wait for it.
#pragma once

namespace workshop {

class GpuTimingLock {
public:
    // Waits for the lock on the file at `path` (flock, exclusive) and holds it until destroyed. Holds nothing, and
    // waits for nothing, when `path` is null or empty, or names a link, a FIFO or a file that cannot be opened
    // (base/files.hpp's open_lock_file): the timing runs without it, and a line on stderr says so.
    explicit GpuTimingLock(const char* path);
    ~GpuTimingLock();
    GpuTimingLock(const GpuTimingLock&) = delete;
    GpuTimingLock& operator=(const GpuTimingLock&) = delete;

    bool held() const { return fd_ >= 0; }

private:
    int fd_ = -1;
};

}  // namespace workshop
