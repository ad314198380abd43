#include "ledger/host_memory.hpp"

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <vector>

namespace workshop {

namespace {

// The first whole number in the file, or `fallback` where there is none ("max" included).
size_t number_in(const std::string& path, size_t fallback) {
    std::ifstream in(path);
    unsigned long long value = 0;
    return in >> value ? static_cast<size_t>(value) : fallback;
}

// The value of `key` in a file of "key value" lines (meminfo, memory.stat), or 0.
size_t keyed_value(const std::string& path, const std::string& key) {
    std::ifstream in(path);
    std::string line, name;
    while (std::getline(in, line)) {
        std::istringstream fields(line);
        unsigned long long value = 0;
        if (fields >> name >> value && name == key) return static_cast<size_t>(value);
    }
    return 0;
}

// A cgroup hierarchy this process is in: its directory, and the names of its files.
struct Hierarchy {
    std::string root, path;  // the mount point of the hierarchy; this process's cgroup below it ("/a/b")
    const char *limit, *usage, *inactive;
};

// What one cgroup directory still allows, or SIZE_MAX. cgroup v1 writes "no limit" as a number near 2^63.
size_t allowed_in(const std::string& dir, const Hierarchy& h) {
    const size_t limit = number_in(dir + "/" + h.limit, SIZE_MAX);
    if (limit >= (size_t{1} << 62)) return SIZE_MAX;
    const size_t usage = number_in(dir + "/" + h.usage, 0);
    const size_t inactive = std::min(usage, keyed_value(dir + "/memory.stat", h.inactive));
    const size_t held = usage - inactive;
    return held >= limit ? 0 : limit - held;
}

}  // namespace

size_t machine_bytes_available(const std::string& meminfo_path) {
    return keyed_value(meminfo_path, "MemAvailable:") * 1024;  // the file counts in KiB
}

size_t cgroup_bytes_available(const std::string& proc_self_cgroup, const std::string& cgroup_mount) {
    // Lines of "ID:controllers:path": "0::/path" in cgroup v2; "N:memory:/path" for v1's memory controller.
    std::vector<Hierarchy> hierarchies;
    std::ifstream in(proc_self_cgroup);
    std::string line;
    while (std::getline(in, line)) {
        const auto first = line.find(':'), second = line.find(':', first + 1);
        if (first == std::string::npos || second == std::string::npos) continue;
        const std::string controllers = line.substr(first + 1, second - first - 1), path = line.substr(second + 1);
        if (controllers.empty())
            hierarchies.push_back({cgroup_mount, path, "memory.max", "memory.current", "inactive_file"});
        else if (("," + controllers + ",").find(",memory,") != std::string::npos)
            hierarchies.push_back({cgroup_mount + "/memory", path, "memory.limit_in_bytes", "memory.usage_in_bytes",
                                   "total_inactive_file"});
    }
    // Every cgroup from this process's up to the mount point: a limit set on the job holds its steps too. Where
    // the path names directories that this mount does not show (a container's view), they are simply not found.
    size_t allowed = SIZE_MAX;
    for (const Hierarchy& h : hierarchies) {
        std::string path = h.path;
        while (true) {
            allowed = std::min(allowed, allowed_in(h.root + path, h));
            if (path.empty() || path == "/") break;
            path.erase(path.find_last_of('/'));
        }
    }
    return allowed;
}

size_t host_bytes_available() {
    const size_t machine = machine_bytes_available();
    return std::min(machine ? machine : SIZE_MAX, cgroup_bytes_available());
}

}  // namespace workshop
