#include "room/gpus.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <optional>
#include <regex>
#include <sstream>

#include "base/child_processes.hpp"
#include "room/turns.hpp"

namespace workshop::room {

namespace {

// nvidia-smi ARGS, started without a shell; its output lines, or nothing where it is missing or fails.
std::optional<std::vector<std::string>> smi(std::vector<std::string> args) {
    args.insert(args.begin(), "nvidia-smi");
    ChildJob job;
    job.argv = std::move(args);
    job.timeout_s = 20;
    std::optional<std::vector<std::string>> lines;
    run_children({job}, 1, [&](size_t, const ChildResult& r) {
        if (!r.exited(0)) return;
        lines.emplace();
        std::istringstream out(r.out);
        for (std::string line; std::getline(out, line);) lines->push_back(line);
    });
    return lines;
}

std::string trimmed(const std::string& text) {
    const auto first = text.find_first_not_of(" \t\r");
    if (first == std::string::npos) return "";
    return text.substr(first, text.find_last_not_of(" \t\r") - first + 1);
}

std::vector<std::string> fields(const std::string& line) {
    std::vector<std::string> out;
    std::istringstream in(line);
    for (std::string field; std::getline(in, field, ',');) out.push_back(trimmed(field));
    return out;
}

std::string env(const char* name) {
    const char* value = std::getenv(name);
    return value ? value : "";
}

// A place among `count` GPUs that is the student's own, so that students who start at the same moment spread
// over GPUs that are equally idle, and one student alone gets the same GPU every time (FNV-1a of the name).
size_t own_place(const std::string& student, size_t count) {
    uint32_t hash = 2166136261u;
    for (const unsigned char c : student) hash = (hash ^ c) * 16777619u;
    return hash % count;
}

Pick by_number(const std::string& want, const std::vector<Gpu>& gpus) {
    // Without nvidia-smi the number goes to CUDA as it is; CUDA numbers the GPUs its own way (fastest first).
    if (gpus.empty()) return {want, ""};
    for (const Gpu& gpu : gpus)
        if (gpu.number == want) return {gpu.uuid, ""};
    throw SettingError(fmt::format("error: WORKSHOP_GPU={}, but nvidia-smi numbers the GPUs here {} to {}", want,
                                   gpus.front().number, gpus.back().number));
}

// Fewest processes first, a make check waiting for a turn counting five (it will run up to five); among those,
// the first at or after the student's own place in the list.
Pick least_busy(const std::vector<Gpu>& gpus, const std::string& student) {
    const auto apps = smi({"--query-compute-apps=gpu_uuid", "--format=csv,noheader"});
    const size_t count = gpus.size(), own = own_place(student, count);
    size_t best = 0, best_key = 0;
    int best_busy = 0, best_waiting = 0;
    for (size_t i = 0; i < count; ++i) {
        int busy = 0;
        for (const std::string& line : apps.value_or(std::vector<std::string>{})) busy += trimmed(line) == gpus[i].uuid;
        const int waiting = checks_waiting_on(gpus[i].uuid);
        const size_t key = (busy + 5 * waiting) * count + (i + count - own) % count;
        if (i == 0 || key < best_key) best = i, best_key = key, best_busy = busy, best_waiting = waiting;
    }
    const std::string queue =
        best_waiting ? fmt::format(", and {} make check(s) waiting for a turn (five each)", best_waiting) : "";
    return {gpus[best].uuid, fmt::format("on GPU {} of {}, {}, which has the fewest processes on it now: {}{}; "
                                         "WORKSHOP_GPU picks another",
                                         gpus[best].number, count, gpus[best].name, best_busy, queue)};
}

}  // namespace

std::vector<Gpu> list_gpus(const std::string& uuid) {
    std::vector<std::string> args = {"--query-gpu=index,uuid,name,mig.mode.current", "--format=csv,noheader"};
    if (!uuid.empty()) args.insert(args.begin(), {"-i", uuid});
    std::vector<Gpu> gpus;
    for (const std::string& line : smi(args).value_or(std::vector<std::string>{})) {
        const auto f = fields(line);
        if (f.size() < 4 || f[1].empty()) continue;
        gpus.push_back({f[0], f[1], f[2], f[3] == "Enabled"});
    }
    return gpus;
}

std::string this_gpu_uuid() {
    const std::string visible = env("CUDA_VISIBLE_DEVICES");
    if (visible.rfind("MIG-", 0) == 0) return "";
    const bool named = std::regex_match(visible, std::regex("GPU-[0-9a-fA-F-]+"));
    const auto gpus = list_gpus(named ? visible : "");
    if (gpus.size() != 1 || gpus[0].split) return "";
    return gpus[0].uuid;
}

int processes_on(const std::string& uuid) {
    int n = 0;
    for (const std::string& line :
         smi({"--query-compute-apps=gpu_uuid", "--format=csv,noheader"}).value_or(std::vector<std::string>{}))
        n += trimmed(line) == uuid;
    return n;
}

Pick pick_gpu(const std::string& want_setting, const std::string& student) {
    const std::string want = want_setting.empty() ? "idle" : want_setting;
    if (want == "any") return {};
    if (want == "idle" && std::getenv("CUDA_VISIBLE_DEVICES")) return {};
    if (want.rfind("GPU-", 0) == 0 || want.rfind("MIG-", 0) == 0) return {want, ""};
    const bool number = want != "idle";
    if (number && !std::regex_match(want, std::regex("[0-9]+")))
        throw SettingError(
            fmt::format("error: WORKSHOP_GPU='{}' is not idle, any, a GPU's number or its UUID "
                        "(nvidia-smi -L lists them)",
                        want));
    const auto gpus = list_gpus();
    if (number) return by_number(want, gpus);
    for (const Gpu& gpu : gpus)
        if (gpu.split) return {};
    if (gpus.size() < 2) return {};
    return least_busy(gpus, student);
}

}  // namespace workshop::room
