// workshop_profile: make profile's part that is more than glue (common/make/profile.sh runs Nsight Compute).
//   workshop_profile metrics TRACK                         the --metrics list to ask ncu for
//   workshop_profile show TRACK LOG NCU_EXIT PROGRAM [ARGS]   the table from ncu's --csv output in LOG
// Exit codes: 0 a table (or nothing to profile yet), 1 ncu gave no counters (the reason on stderr), 2 bad usage.
#include <fmt/format.h>

#include <filesystem>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "base/exit_codes.hpp"
#include "base/files.hpp"
#include "report/ncu_counters.hpp"

using namespace workshop;

namespace {

constexpr int kExitNoCounters = 1;

const char* const kUsage =
    "usage: workshop_profile metrics TRACK\n"
    "       workshop_profile show TRACK LOG NCU_EXIT PROGRAM [ARGS]\n"
    "  TRACK: transpose or matmul; LOG: what ncu --csv printed; NCU_EXIT: its exit status\n";

bool bound_of(const std::string& track, KernelBound& bound) {
    if (track != "transpose" && track != "matmul") return false;
    bound = track == "transpose" ? KernelBound::Memory : KernelBound::Compute;
    return true;
}

// ncu's lines that say why there are no counters: its last lines, less the program's own verdicts.
void print_ncu_ending(const std::string& log, const std::string& ncu_exit) {
    static const std::regex verdict("^[^=]*(PASS|FAIL)");
    std::vector<std::string> kept;
    std::istringstream lines(log);
    for (std::string line; std::getline(lines, line);) {
        if (!std::regex_search(line, verdict)) kept.push_back(line);
    }
    fmt::print(stderr, "error: ncu did not produce counters (exit {}):\n", ncu_exit);
    for (size_t i = kept.size() > 15 ? kept.size() - 15 : 0; i < kept.size(); ++i) fmt::print(stderr, "{}\n", kept[i]);
}

int show(KernelBound bound, const std::vector<std::string>& args) {
    const auto read = read_whole_file(args[2]);
    if (!read) {
        fmt::print(stderr, "error: cannot read ncu's output {}\n", args[2]);
        return kExitBadUsage;
    }
    const std::string& log = *read;
    const std::string program = std::filesystem::path(args[4]).filename().string();
    if (log.find("ERR_NVGPUCTRPERM") != std::string::npos) {
        fmt::print(
            stderr,
            "error: this user may not read the GPU's performance counters (ERR_NVGPUCTRPERM).\n"
            "  run make profile with sudo, or let everyone profile: add 'options nvidia "
            "NVreg_RestrictProfilingToAdminUsers=0'\n"
            "  to a file in /etc/modprobe.d/ and reboot (details: https://developer.nvidia.com/ERR_NVGPUCTRPERM)\n");
        return kExitNoCounters;
    }
    const auto counters = read_ncu_csv(log);
    if (!counters && log.find("No kernels were profiled") != std::string::npos) {
        fmt::print("{}: no kernel was launched (step 1's starting point runs on the CPU): nothing to profile yet\n",
                   program);
        return kExitOk;
    }
    if (!counters) {
        print_ncu_ending(log, args[3]);
        return kExitNoCounters;
    }
    std::string title = program;
    for (size_t i = 5; i < args.size(); ++i) title += " " + args[i];
    fmt::print("{}", profile_table(*counters, profile_counters(bound), title));
    return kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
    const std::vector<std::string> args(argv + 1, argv + argc);
    KernelBound bound{};
    if (args.size() == 2 && args[0] == "metrics" && bound_of(args[1], bound)) {
        fmt::print("{}\n", ncu_metric_list(profile_counters(bound)));
        return kExitOk;
    }
    if (args.size() >= 5 && args[0] == "show" && bound_of(args[1], bound)) return show(bound, args);
    fmt::print(stderr, "{}", kUsage);
    return kExitBadUsage;
}
