// How much host memory a run may still take. /proc/meminfo speaks for the whole machine, but a Slurm job (with
// its cgroup plugin), a container or a systemd unit is held to less by its cgroup, and one that passes its limit
// is killed with no word of why: under make check, a round trip the machine had room for would end as a FAIL
// "killed by SIGKILL". So the figure is the smaller of the two.
#pragma once

#include <cstddef>
#include <string>

namespace workshop {

// MemAvailable from /proc/meminfo, in bytes; 0 where there is no such line.
size_t machine_bytes_available(const std::string& meminfo_path = "/proc/meminfo");

// What the cgroup of this process and every cgroup above it still allow, the least of them: limit less usage,
// where usage leaves out the inactive file cache the kernel would reclaim first (memory.max, memory.current and
// memory.stat's inactive_file in cgroup v2; memory.limit_in_bytes, memory.usage_in_bytes and
// total_inactive_file in v1). SIZE_MAX where no limit is set or none can be read. The paths are arguments so
// that the tests can build a cgroup tree of their own.
size_t cgroup_bytes_available(const std::string& proc_self_cgroup = "/proc/self/cgroup",
                              const std::string& cgroup_mount = "/sys/fs/cgroup");

// The smaller of the two; SIZE_MAX when neither can be read (no check then).
size_t host_bytes_available();

}  // namespace workshop
