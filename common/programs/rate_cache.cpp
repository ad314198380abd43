#include "programs/rate_cache.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "base/files.hpp"

namespace workshop {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

fs::path cache_file(const fs::path& program) { return program.parent_path() / ".rates.json"; }

// The entries still fresh; none where the file is missing or not what this writes.
json fresh_entries(const fs::path& file, long max_age_s, std::time_t now) {
    std::ifstream in(file);
    const json cache = json::parse(in, nullptr, false);
    json fresh = json::array();
    if (!cache.is_object() || !cache.contains("rates") || !cache["rates"].is_array()) return fresh;
    for (const json& entry : cache["rates"]) {
        if (!entry.is_object() || !entry.contains("key") || !entry.contains("measured_at") || !entry.contains("rate"))
            continue;
        if (!entry["key"].is_string() || !entry["measured_at"].is_number() || !entry["rate"].is_number()) continue;
        const double age = static_cast<double>(now) - entry["measured_at"].get<double>();
        if (age >= 0 && age <= max_age_s) fresh.push_back(entry);
    }
    return fresh;
}

}  // namespace

long rate_memory_seconds() {
    const char* text = std::getenv("WORKSHOP_RATE_CACHE_S");
    if (!text || !*text) return 0;
    for (const char* c = text; *c; ++c)
        if (*c < '0' || *c > '9') return 0;
    return std::strtol(text, nullptr, 10);
}

std::string rate_key(const fs::path& program, const std::vector<std::string>& options) {
    struct stat st {};
    const bool known = stat(program.c_str(), &st) == 0;
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
    std::string key = fmt::format(
        "{} {}.{:09d} {} {} {}", program.filename().string(), known ? static_cast<long long>(st.st_mtim.tv_sec) : 0LL,
        known ? st.st_mtim.tv_nsec : 0L, known ? st.st_size : 0, host, visible ? visible : "all");
    for (const auto& option : options) key += " " + option;
    return key;
}

std::optional<double> remembered_rate(const fs::path& program, const std::vector<std::string>& options, long max_age_s,
                                      const std::function<std::optional<double>()>& measure, std::time_t now) {
    if (max_age_s <= 0) return measure();
    const std::string key = rate_key(program, options);
    json entries = fresh_entries(cache_file(program), max_age_s, now);
    for (const json& entry : entries)
        if (entry["key"] == key) return entry["rate"].get<double>();
    const std::optional<double> rate = measure();
    if (!rate) return rate;
    entries.push_back({{"key", key}, {"measured_at", static_cast<long long>(now)}, {"rate", *rate}});
    try {
        write_file_atomically(cache_file(program), json{{"rates", entries}}.dump(1) + "\n");
    } catch (const FileError&) {  // remembered or not, the rate stands
    }
    return rate;
}

}  // namespace workshop
