// One timing at a time on a GPU that several students' make checks share.
//
// Students who share a GPU share its bandwidth. make check times three runs (yours, this step's solution, the last
// step's), one after the other, and whichever of them runs beside another check's timing reads low: 16 checks of a
// correct step 2 started at once on one H200, four at a time, read 2.43x to 6.40x step 1, and one of them 225% of the
// solution. So make check names a lock file for the GPU (WORKSHOP_TIMING_LOCK, gpu_turns.sh), and each timing holds it
// from its warm-up to its last timed run: the timings of the checks on one GPU take turns, a fraction of a second
// each. With it the same rooms read 2.42x to 3.25x and 99-101%, and took no longer. The rest of the checks (the
// battery, the sanitizers) does not wait for it, so the figures are still of a shared GPU, and make check says so
// when it was.
#pragma once

namespace workshop {

class GpuTimingLock {
public:
    // Waits for the lock on the file at `path` (flock, exclusive) and holds it until destroyed. Holds nothing, and
    // waits for nothing, when `path` is null or empty or the file cannot be opened: the timing runs without it.
    explicit GpuTimingLock(const char* path);
    ~GpuTimingLock();
    GpuTimingLock(const GpuTimingLock&) = delete;
    GpuTimingLock& operator=(const GpuTimingLock&) = delete;

    bool held() const { return fd_ >= 0; }

private:
    int fd_ = -1;
};

}  // namespace workshop
