// The host memory a run may take: MemAvailable, and what the cgroups above the process allow, read from a
// made-up /proc/self/cgroup and cgroup tree in a temporary directory.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include "ledger/host_memory.hpp"

using namespace workshop;
namespace fs = std::filesystem;

namespace {

constexpr size_t kGiB = size_t{1} << 30;

class CgroupTree : public ::testing::Test {
protected:
    void SetUp() override {
        root_ = fs::temp_directory_path() /
                ("workshop_cgroup_test_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "_" +
                 ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(root_);
        fs::create_directories(root_ / "mount");
    }
    void TearDown() override { fs::remove_all(root_); }

    void write(const fs::path& relative, const std::string& text) {
        const fs::path p = root_ / relative;
        fs::create_directories(p.parent_path());
        std::ofstream(p) << text;
    }
    size_t allowed() const { return cgroup_bytes_available((root_ / "cgroup").string(), (root_ / "mount").string()); }

    fs::path root_;
};

}  // namespace

TEST_F(CgroupTree, V2TheJobsLimitHoldsItsStepAndInactiveFileCacheCountsAsFree) {
    write("cgroup", "0::/job_7/step_0\n");
    write("mount/job_7/memory.max", std::to_string(8 * kGiB) + "\n");
    write("mount/job_7/memory.current", std::to_string(4 * kGiB) + "\n");
    write("mount/job_7/memory.stat", "anon 100\ninactive_file " + std::to_string(kGiB) + "\nactive_file 5\n");
    write("mount/job_7/step_0/memory.max", "max\n");
    write("mount/job_7/step_0/memory.current", std::to_string(3 * kGiB) + "\n");
    EXPECT_EQ(allowed(), 5 * kGiB);  // 8 GiB, less the 3 GiB held beyond the reclaimable cache
}

TEST_F(CgroupTree, V1ReadsTheMemoryControllersOwnHierarchy) {
    write("cgroup", "7:cpu,cpuacct:/slurm/uid_1000/job_9\n4:memory:/slurm/uid_1000/job_9/step_0\n");
    write("mount/memory/memory.limit_in_bytes", "9223372036854771712\n");  // v1's "no limit"
    write("mount/memory/slurm/uid_1000/job_9/memory.limit_in_bytes", std::to_string(2 * kGiB) + "\n");
    write("mount/memory/slurm/uid_1000/job_9/memory.usage_in_bytes", std::to_string(kGiB / 2) + "\n");
    write("mount/memory/slurm/uid_1000/job_9/memory.stat", "cache 0\ntotal_inactive_file 0\n");
    EXPECT_EQ(allowed(), 2 * kGiB - kGiB / 2);
}

TEST_F(CgroupTree, NoLimitAnywhereIsNoLimit) {
    write("cgroup", "0::/user.slice/session-1.scope\n");
    write("mount/user.slice/memory.max", "max\n");
    EXPECT_EQ(allowed(), SIZE_MAX);
}

TEST_F(CgroupTree, UnreadableOrMissingFilesAreNoLimit) {
    EXPECT_EQ(allowed(), SIZE_MAX);  // no /proc/self/cgroup at all
    write("cgroup", "0::/gone\n");
    EXPECT_EQ(allowed(), SIZE_MAX);  // a cgroup this mount does not show
}

TEST_F(CgroupTree, ACgroupAtItsLimitAllowsNothing) {
    write("cgroup", "0::/\n");  // a container's own cgroup, mounted as the root
    write("mount/memory.max", std::to_string(kGiB) + "\n");
    write("mount/memory.current", std::to_string(kGiB + 4096) + "\n");
    EXPECT_EQ(allowed(), 0u);
}

TEST_F(CgroupTree, MachineMemoryIsMemAvailable) {
    write("meminfo", "MemTotal:       16000000 kB\nMemFree:         1000 kB\nMemAvailable:    8000000 kB\n");
    EXPECT_EQ(machine_bytes_available((root_ / "meminfo").string()), size_t{8000000} * 1024);
    write("meminfo_old", "MemTotal:       16000000 kB\n");
    EXPECT_EQ(machine_bytes_available((root_ / "meminfo_old").string()), 0u);
}
