// One timing at a time on a GPU that several students' make checks share, and nothing else of theirs beside it.
//
// Students who share a GPU share its bandwidth and its time slices, and a timing that runs beside other work reads
// low, by more for a long kernel than for a short one. So make check names a lock file for the GPU
// (WORKSHOP_TIMING_LOCK, set by the room's workshop_turn). A timing holds it exclusively from its warm-up to its
// last timed run; each shape of a check's battery, and each shape its sanitizers run, holds it shared while it runs.
// The batteries run side by side, and a timing waits for the shapes under way (a few seconds at most) and has the
// GPU to itself: what it measures is the kernels, not the room.
//
// A timing that waits must not wait for ever behind shapes that keep starting: a second file, the lock's name with
// ".turnstile", lets a shape in only while no timing waits.
#pragma once

#include <functional>

namespace workshop {

enum class GpuUse {
    Timing,   // exclusive: no other timing, no shape
    Checking  // shared: shapes side by side, no timing
};

class GpuTimingLock {
public:
    // Waits for the lock on the file at `path` (flock) and holds it until destroyed. Holds nothing, and waits for
    // nothing, when `path` is null or empty, or names a link, a FIFO or a file that cannot be opened
    // (base/files.hpp's open_lock_file): the work runs without it, and for a timing a line on stderr says so.
    // `waits`, where given, is told true before the lock is waited for (it is not free) and false once it is held.
    explicit GpuTimingLock(const char* path, GpuUse use = GpuUse::Timing,
                           const std::function<void(bool waiting)>& waits = {});
    ~GpuTimingLock();
    GpuTimingLock(const GpuTimingLock&) = delete;
    GpuTimingLock& operator=(const GpuTimingLock&) = delete;

    bool held() const { return fd_ >= 0; }

private:
    int fd_ = -1, turnstile_ = -1;
};

}  // namespace workshop
