// make check's timings take turns on a GPU (common/measure/gpu_timing_lock.hpp): a timing waits while another holds the
// lock, holds it until it ends, and never waits where there is no lock to take. The checks' shapes share the lock:
// side by side, never beside a timing, and none starts while a timing waits for the shapes under way.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "measure/gpu_timing_lock.hpp"

namespace {

using namespace std::chrono_literals;
using workshop::GpuTimingLock;
using workshop::GpuUse;

// Takes the lock for `use` on another thread (its own open file, as another process would), and holds it until
// `let_go` is set; the future is ready once the lock is taken.
struct HeldElsewhere {
    std::promise<void> let_go;
    std::future<bool> taken;
    std::thread holder;
    HeldElsewhere(const std::string& path, GpuUse use) {
        std::promise<bool> took;
        taken = took.get_future();
        holder = std::thread([&path, use, took = std::move(took), until = let_go.get_future()]() mutable {
            const GpuTimingLock lock(path.c_str(), use);
            took.set_value(lock.held());
            until.wait();
        });
    }
    void release() {
        let_go.set_value();
        holder.join();
    }
    ~HeldElsewhere() {
        if (holder.joinable()) release();
    }
};

// A lock file of its own for each test, removed at the end.
class LockFile : public ::testing::Test {
protected:
    void SetUp() override {
        const char* tmp = std::getenv("TMPDIR");
        path_ = std::string(tmp && *tmp ? tmp : "/tmp") + "/gpu_timing_lock_test.XXXXXX";
        const int fd = mkstemp(path_.data());
        ASSERT_GE(fd, 0);
        close(fd);
    }
    void TearDown() override {
        unlink(path_.c_str());
        unlink((path_ + ".turnstile").c_str());
    }

    // Another check's timing: its own open file, locked.
    int lock_as_another_check() const {
        const int fd = open(path_.c_str(), O_RDONLY);
        EXPECT_GE(fd, 0);
        EXPECT_EQ(flock(fd, LOCK_EX | LOCK_NB), 0);
        return fd;
    }
    bool free_for_another_check() const {
        const int fd = open(path_.c_str(), O_RDONLY);
        const bool free = fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) == 0;
        if (fd >= 0) close(fd);
        return free;
    }

    std::string path_;
};

TEST_F(LockFile, WaitsUntilAnotherTimingLetsGo) {
    const int other = lock_as_another_check();
    auto timing = std::async(std::launch::async, [this] { return GpuTimingLock(path_.c_str()).held(); });
    EXPECT_EQ(timing.wait_for(300ms), std::future_status::timeout)
        << "timed while another check's timing held the lock";
    close(other);
    ASSERT_EQ(timing.wait_for(10s), std::future_status::ready) << "still waiting after the other timing let go";
    EXPECT_TRUE(timing.get());
}

TEST_F(LockFile, HoldsTheLockUntilTheTimingEnds) {
    {
        const GpuTimingLock lock(path_.c_str());
        EXPECT_TRUE(lock.held());
        EXPECT_FALSE(free_for_another_check());
    }
    EXPECT_TRUE(free_for_another_check());
}

TEST_F(LockFile, ShapesRunSideBySide) {
    HeldElsewhere one(path_, GpuUse::Checking), two(path_, GpuUse::Checking);
    ASSERT_EQ(one.taken.wait_for(10s), std::future_status::ready);
    ASSERT_EQ(two.taken.wait_for(10s), std::future_status::ready) << "a shape waited for another check's shape";
    EXPECT_TRUE(one.taken.get());
    EXPECT_TRUE(two.taken.get());
}

TEST_F(LockFile, ATimingWaitsForTheShapesUnderWayAndNoNewShapeStartsMeanwhile) {
    HeldElsewhere shape(path_, GpuUse::Checking);
    ASSERT_EQ(shape.taken.wait_for(10s), std::future_status::ready);
    HeldElsewhere timing(path_, GpuUse::Timing);
    EXPECT_EQ(timing.taken.wait_for(300ms), std::future_status::timeout) << "timed beside a shape under way";
    HeldElsewhere next_shape(path_, GpuUse::Checking);
    EXPECT_EQ(next_shape.taken.wait_for(300ms), std::future_status::timeout)
        << "a new shape started while a timing waited for the GPU";
    shape.release();
    ASSERT_EQ(timing.taken.wait_for(10s), std::future_status::ready) << "still waiting after the shape ended";
    EXPECT_TRUE(timing.taken.get());
    EXPECT_EQ(next_shape.taken.wait_for(300ms), std::future_status::timeout) << "a shape started during the timing";
    timing.release();
    ASSERT_EQ(next_shape.taken.wait_for(10s), std::future_status::ready) << "still waiting after the timing ended";
    EXPECT_TRUE(next_shape.taken.get());
}

TEST_F(LockFile, AShapeSaysWhenItWaitsAndWhenItGoesOn) {
    std::vector<bool> said;
    {
        const GpuTimingLock free_lock(path_.c_str(), GpuUse::Checking, [&](bool waiting) { said.push_back(waiting); });
        EXPECT_TRUE(free_lock.held());
    }
    EXPECT_TRUE(said.empty()) << "a lock that was free was said to be waited for";
    HeldElsewhere timing(path_, GpuUse::Timing);
    ASSERT_EQ(timing.taken.wait_for(10s), std::future_status::ready);
    std::promise<void> waiting;
    auto shape = std::async(std::launch::async, [&] {
        bool first = true;
        const GpuTimingLock lock(path_.c_str(), GpuUse::Checking, [&](bool w) {
            said.push_back(w);
            if (first) waiting.set_value();
            first = false;
        });
        return lock.held();
    });
    ASSERT_EQ(waiting.get_future().wait_for(10s), std::future_status::ready) << "the wait was not said";
    timing.release();
    ASSERT_EQ(shape.wait_for(10s), std::future_status::ready);
    EXPECT_TRUE(shape.get());
    EXPECT_EQ(said, (std::vector<bool>{true, false}));
}

TEST_F(LockFile, WithoutItsTurnstileTheLockStillKeepsShapesFromATiming) {
    ASSERT_EQ(mkdir((path_ + ".turnstile").c_str(), 0700), 0);  // something there that is no lock file
    HeldElsewhere timing(path_, GpuUse::Timing);
    ASSERT_EQ(timing.taken.wait_for(10s), std::future_status::ready);
    EXPECT_TRUE(timing.taken.get());
    HeldElsewhere shape(path_, GpuUse::Checking);
    EXPECT_EQ(shape.taken.wait_for(300ms), std::future_status::timeout) << "a shape ran beside a timing";
    timing.release();
    ASSERT_EQ(shape.taken.wait_for(10s), std::future_status::ready);
    EXPECT_TRUE(shape.taken.get());
    shape.release();
    rmdir((path_ + ".turnstile").c_str());
}

TEST(GpuTimingLock, NothingToWaitForWithoutAFile) {
    EXPECT_FALSE(GpuTimingLock(nullptr).held());
    EXPECT_FALSE(GpuTimingLock("").held());
    auto timing = std::async(std::launch::async, [] { return GpuTimingLock("/nonexistent/dir/GPU-x.timing").held(); });
    ASSERT_EQ(timing.wait_for(10s), std::future_status::ready);
    EXPECT_FALSE(timing.get());
}

// Another user may plant a FIFO or a link at the lock's name in the shared folder: the timing neither waits on the
// FIFO nor opens what the link points to; it runs without the lock.
class PlantedAtTheLock : public ::testing::Test {
protected:
    void SetUp() override {
        const char* tmp = std::getenv("TMPDIR");
        folder_ = std::string(tmp && *tmp ? tmp : "/tmp") + "/gpu_timing_lock_planted.XXXXXX";
        ASSERT_NE(mkdtemp(folder_.data()), nullptr);
        lock_ = folder_ + "/GPU-x.timing";
    }
    void TearDown() override {
        unlink(lock_.c_str());
        unlink((lock_ + ".turnstile").c_str());
        unlink((folder_ + "/target").c_str());
        rmdir(folder_.c_str());
    }
    std::string folder_, lock_;
};

TEST_F(PlantedAtTheLock, AFifoIsNotWaitedOn) {
    ASSERT_EQ(mkfifo(lock_.c_str(), 0666), 0);
    auto timing = std::async(std::launch::async, [this] { return GpuTimingLock(lock_.c_str()).held(); });
    const bool ended = timing.wait_for(5s) == std::future_status::ready;
    if (!ended) close(open(lock_.c_str(), O_WRONLY | O_NONBLOCK));  // lets a waiting open go, so the test can end
    ASSERT_TRUE(ended) << "the timing waited on a FIFO planted at the lock";
    EXPECT_FALSE(timing.get());
}

TEST_F(PlantedAtTheLock, ALinkIsNotFollowed) {
    const std::string target = folder_ + "/target";  // a file of the user's, which the link points to
    close(open(target.c_str(), O_WRONLY | O_CREAT, 0600));
    ASSERT_EQ(symlink(target.c_str(), lock_.c_str()), 0);
    EXPECT_FALSE(GpuTimingLock(lock_.c_str()).held()) << "the timing locked the file a planted link points to";
    ASSERT_EQ(unlink(target.c_str()), 0);
    EXPECT_FALSE(GpuTimingLock(lock_.c_str()).held());
    struct stat st {};
    EXPECT_NE(stat(target.c_str(), &st), 0) << "the link's target was made";
}

}  // namespace
