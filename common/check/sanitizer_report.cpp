#include "check/sanitizer_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <regex>
#include <sstream>

#include "base/source_path.hpp"

namespace workshop {

namespace {

// compute-sanitizer prefixes every line with "========= "; a report starts unindented after the prefix and
// goes on with indented lines.
constexpr const char* kPrefix = "========= ";

struct Record {
    std::string head;
    std::vector<std::string> body;
};

std::vector<Record> records_of(const std::string& text) {
    std::vector<Record> records;
    std::istringstream lines(text);
    std::string line;
    while (std::getline(lines, line)) {
        if (line.rfind(kPrefix, 0) != 0) continue;
        const std::string rest = line.substr(std::string(kPrefix).size());
        if (rest.empty() || rest.find_first_not_of(' ') == std::string::npos) continue;
        if (rest[0] != ' ')
            records.push_back({rest, {}});
        else if (!records.empty())
            records.back().body.push_back(rest.substr(rest.find_first_not_of(' ')));
    }
    return records;
}

// "... in /home/s/step3/transpose.cu:44" (newer tools) or "... in /home/s/step3/transpose.cu:44:kernel(...)".
std::string location_in(const std::string& line) {
    static const std::regex where(R"(in (\S+\.(?:cu|cuh|h|hpp|cpp|cc)):(\d+))");
    std::smatch m;
    if (!std::regex_search(line, m, where)) return {};
    return short_source_path(m[1]) + ":" + m[2].str();
}

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

bool is_report(const std::string& head) {
    static const std::regex summary(
        R"(^(COMPUTE-SANITIZER|ERROR SUMMARY|RACECHECK SUMMARY|LEAK SUMMARY|Target application returned|Saved host backtrace))");
    // "Warning: Error buffer overflow has been detected. ..." and "615 errors were skipped (...)": counts of
    // reports the tool did not keep, not reports.
    static const std::regex dropped(R"(Error buffer overflow|errors were skipped)");
    return !std::regex_search(head, summary) && !std::regex_search(head, dropped);
}

// "Leaked 12,060 bytes at 0x7fdf18800000"
bool is_leak(const std::string& head, long long& bytes) {
    static const std::regex leaked(R"(^Leaked ([0-9][0-9,]*) bytes at)");
    std::smatch m;
    if (!std::regex_search(head, m, leaked)) return false;
    std::string digits = m[1];
    digits.erase(std::remove(digits.begin(), digits.end(), ','), digits.end());
    bytes = std::stoll(digits);
    return true;
}

// "Program hit cudaErrorInvalidValue (error 1) due to "invalid argument" on CUDA API call to cudaLaunchKernel."
SanitizerFinding parse_api_error(const Record& r) {
    static const std::regex hit(R"(Program hit (\w+) .* on CUDA API call to (\w+))");
    SanitizerFinding f;
    std::smatch m;
    if (std::regex_search(r.head, m, hit)) {
        f.api_error = m[1];
        f.api_call = m[2];
    }
    return f;
}

SanitizerFinding parse_race(const Record& r) {
    // "Error: Race reported between Write access at ... in a.cu:41" / "and Read access at ... in a.cu:43 [..]"
    static const std::regex access(R"((Write|Read) access at)");
    SanitizerFinding f;
    std::smatch m;
    if (std::regex_search(r.head, m, access)) f.access = lower(m[1]);
    f.location = location_in(r.head);
    for (const auto& line : r.body) {
        if (line.rfind("and ", 0) != 0) continue;
        if (std::regex_search(line, m, access)) f.other_access = lower(m[1]);
        f.other_location = location_in(line);
        break;
    }
    return f;
}

SanitizerFinding parse_memory_error(const Record& r) {
    // "Invalid __global__ write of size 4 bytes" / "at ... in a.cu:44" / "Address 0x... is out of bounds" /
    // "and is 4 bytes after the nearest allocation at 0x... of size 1200 bytes" (or "Address ... is misaligned")
    static const std::regex invalid(R"(Invalid __(\w+)__ (read|write|atomic) of size (\d+) bytes)");
    SanitizerFinding f;
    std::smatch m;
    if (std::regex_search(r.head, m, invalid)) {
        f.access = m[2];
        f.size_bytes = std::stoi(m[3]);
    }
    for (const auto& line : r.body) {
        if (f.location.empty()) f.location = location_in(line);
        if (line.find("is misaligned") != std::string::npos)
            f.address = "misaligned";
        else if (line.rfind("and is ", 0) == 0 && f.address != "misaligned")
            f.address = line.substr(7, line.find(" at ") - 7);
    }
    return f;
}

}  // namespace

std::vector<SanitizerFinding> parse_sanitizer_output(const std::string& tool, const std::string& text) {
    std::vector<SanitizerFinding> findings;
    for (const Record& r : records_of(text)) {
        if (!is_report(r.head)) continue;
        if (long long bytes = 0; is_leak(r.head, bytes)) {
            auto leak = std::find_if(findings.begin(), findings.end(),
                                     [](const SanitizerFinding& g) { return g.leaked_allocations > 0; });
            if (leak == findings.end()) {
                findings.push_back({});
                leak = findings.end() - 1;
                leak->tool = tool;
                leak->headline = r.head;
            }
            leak->leaked_allocations += 1;
            leak->leaked_bytes += bytes;
            continue;
        }
        SanitizerFinding f = r.head.find("Race reported") != std::string::npos ? parse_race(r)
                             : r.head.rfind("Program hit", 0) == 0             ? parse_api_error(r)
                                                                               : parse_memory_error(r);
        if (f.location.empty())
            for (const auto& line : r.body)
                if (f.location.empty()) f.location = location_in(line);
        f.tool = tool;
        f.headline = r.head;
        f.divergent_barrier = r.head.find("Divergent thread(s)") != std::string::npos;
        // The same lines at two instruction addresses make two reports whose sentences read the same: one is enough.
        const bool seen = std::any_of(findings.begin(), findings.end(), [&](const SanitizerFinding& g) {
            return (g.headline == f.headline && g.location == f.location && g.other_location == f.other_location) ||
                   g.sentence() == f.sentence();
        });
        if (!seen) findings.push_back(f);
    }
    const auto leak = std::find_if(findings.begin(), findings.end(),
                                   [](const SanitizerFinding& g) { return g.leaked_allocations > 0; });
    // A count after its marker, clamped to what memcheck reported as never freed.
    const auto held_after = [&](const char* marker, int& count, long long& bytes) {
        const auto at = text.find(marker);
        if (at == std::string::npos) return;
        std::istringstream held(text.substr(at + std::string(marker).size()));
        int n = 0;
        long long b = 0;
        if (!(held >> n >> b)) return;
        count = std::min(n, leak->leaked_allocations - leak->pinned_allocations - leak->registered_ranges);
        bytes = std::min(b, leak->leaked_bytes - leak->pinned_bytes - leak->registered_bytes);
    };
    if (leak != findings.end()) {
        held_after(kPinnedHostHeld, leak->pinned_allocations, leak->pinned_bytes);
        held_after(kHostRegistrationsHeld, leak->registered_ranges, leak->registered_bytes);
    }
    return findings;
}

std::string SanitizerFinding::sentence() const {
    if (!api_error.empty()) return fmt::format("{}: {} failed with {}", tool, api_call, api_error);
    if (leaked_allocations > 0) {
        struct Kind {
            int count;
            long long bytes;
            const char* name;
            const char* remedy;
        };
        const int device = leaked_allocations - pinned_allocations - registered_ranges;
        const Kind kinds[] = {{device, leaked_bytes - pinned_bytes - registered_bytes, "device allocation",
                               "each cudaMalloc needs its cudaFree"},
                              {pinned_allocations, pinned_bytes, "pinned host allocation",
                               "each cudaMallocHost or cudaHostAlloc needs its cudaFreeHost"},
                              {registered_ranges, registered_bytes, "registered host range",
                               "each cudaHostRegister needs its cudaHostUnregister"}};
        std::string listed, remedy;
        for (const Kind& k : kinds) {
            if (k.count == 0) continue;
            listed += fmt::format("{}{} {}{} ({} bytes)", listed.empty() ? "" : " and ", k.count, k.name,
                                  k.count == 1 ? "" : "s", k.bytes);
            remedy += fmt::format("{}{}", remedy.empty() ? "" : ", ", k.remedy);
        }
        const bool freed_kinds = device + pinned_allocations > 0;
        const char* never = registered_ranges == 0 ? "never freed"
                            : freed_kinds          ? "never freed or unregistered"
                                                   : "never unregistered";
        return fmt::format("leak: {} {}; {}", listed, never, remedy);
    }
    if (divergent_barrier)
        return fmt::format(
            "divergent barrier: the __syncthreads() at {} is reached by some threads of a warp and "
            "not by others (is it inside an if?)",
            location.empty() ? "an unknown line" : location);
    if (!other_location.empty())
        return fmt::format("race: {} {}s and {} {}s the same shared memory with no barrier between", location, access,
                           other_location, other_access);
    if (!access.empty() && !location.empty()) {
        if (address == "misaligned")
            return fmt::format("misaligned: {} {}s {} bytes at an address that is not a multiple of {}", location,
                               access, size_bytes, size_bytes);
        return fmt::format("out of bounds: {} {}s {} bytes{}", location, access, size_bytes,
                           address.empty() ? " outside every allocation" : ", " + address);
    }
    return fmt::format("{}: {}{}", tool, headline, location.empty() ? "" : " at " + location);
}

}  // namespace workshop
