// The instructor's results table (`make run` at the top): every solution, then the references, one table per
// track, each step's ratio taken against the yardstick measured in that step's own run. Also written as CSV,
// JSON and an SVG chart for slides.
//   workshop_results [--out DIR] [--track transpose|matmul] [options passed on to each program]
#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "device_info.hpp"
#include "exit_codes.hpp"
#include "report.hpp"
#include "svg_chart.hpp"

using namespace workshop;
namespace fs = std::filesystem;

namespace {

struct TrackSpec {
    std::string track, unit, reference, peak_label;
    std::array<const char*, 5> ideas;
};

const TrackSpec kTracks[] = {
    {"transpose", "GB/s", "copy kernel", "theoretical DRAM bandwidth",
     {"one thread per row", "2D grid, one thread per element", "shared-memory tile", "padded tile, no bank conflicts",
      "several elements per thread"}},
    {"matmul", "GFLOP/s", "cuBLAS SGEMM FP32", "FP32 peak",
     {"one thread per output (uncoalesced)", "coalesced", "shared-memory tiles", "several outputs per thread (1D)",
      "2D register tile, float4 loads"}},
};

// Runs a program, returns its stdout and exit status.
std::pair<std::string, int> run_program(const std::string& command) {
    std::string output;
    FILE* pipe = popen(command.c_str(), "r");
    if (!pipe) return {output, -1};
    std::array<char, 4096> buffer;
    while (fgets(buffer.data(), buffer.size(), pipe)) output += buffer.data();
    const int status = pclose(pipe);
    return {output, WIFEXITED(status) ? WEXITSTATUS(status) : -1};
}

std::vector<ResultRow> parse_rows(const std::string& csv) {
    std::vector<ResultRow> rows;
    size_t start = 0;
    while (start < csv.size()) {
        size_t end = csv.find('\n', start);
        if (end == std::string::npos) end = csv.size();
        ResultRow r;
        if (from_csv(csv.substr(start, end - start), r)) rows.push_back(r);
        start = end + 1;
    }
    return rows;
}

void write_file(const fs::path& path, const std::string& text) {
    std::ofstream(path) << text;
}

// Runs the five solutions of one track and gathers the table. Returns false if any step failed.
bool run_track(const TrackSpec& spec, const fs::path& bin, const fs::path& out, const std::string& passthrough) {
    std::vector<ResultRow> table, references;
    bool all_ok = true;
    for (int step = 1; step <= 5; ++step) {
        const fs::path program = bin / fmt::format("solution{}_{}", step, spec.track);
        fmt::print(stderr, "  running {} ...\n", program.filename().string());
        const auto [csv, status] = run_program(fmt::format("'{}' --csv{}", program.string(), passthrough));
        std::vector<ResultRow> rows = parse_rows(csv);
        if (status != 0 || rows.empty()) {
            all_ok = false;
            ResultRow failed;
            failed.track = spec.track;
            failed.name = fmt::format("step {}: {}", step, spec.ideas[step - 1]);
            failed.status = "ERROR";
            failed.note = fmt::format("{} exited with status {}", program.filename().string(), status);
            table.push_back(failed);
            continue;
        }
        for (auto& r : rows) {
            if (r.kind == "cpu") table.insert(table.begin(), r);
            if (r.kind == "step") {
                r.name = fmt::format("step {}: {}", step, spec.ideas[step - 1]);
                all_ok &= r.status == "PASS";
                table.push_back(r);
            }
        }
        if (step == 5) {
            for (const auto& r : rows)
                if (r.kind == "reference" || r.kind == "limit") references.push_back(r);
        }
    }
    table.insert(table.end(), references.begin(), references.end());

    const std::string shape = table.empty() ? "" : table.back().shape;
    const std::string device = table.empty() ? "" : table.back().device;
    fmt::print("\n{} {} on {} (each step's % is of the {} measured in the same run)\n{}", spec.track, shape, device,
               spec.reference, to_table(table, spec.track == "transpose" ? "copy" : "cuBLAS"));

    std::string csv = csv_header() + "\n";
    for (const auto& r : table) csv += to_csv(r) + "\n";
    write_file(out / (spec.track + ".csv"), csv);
    write_file(out / (spec.track + ".json"), to_json(table));
    std::vector<Bar> bars;
    std::vector<LimitLine> limits;
    for (const auto& r : table) {
        if (r.kind == "limit" || r.name == spec.reference) limits.push_back({r.name, r.rate});
        else if (r.rate > 0) bars.push_back({r.name, r.rate});
    }
    write_file(out / (spec.track + ".svg"),
               svg_bar_chart(fmt::format("{} {} on {}", spec.track, shape, device), spec.unit, bars, limits));
    return all_ok;
}

}  // namespace

int main(int argc, char** argv) {
    fs::path out = "results";
    std::string only, passthrough;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--out" && i + 1 < argc) out = argv[++i];
        else if (arg == "--track" && i + 1 < argc) only = argv[++i];
        else if (arg == "--help" || arg == "-h") {
            fmt::print("usage: {} [--out DIR] [--track transpose|matmul] [program options, e.g. --reps 50]\n", argv[0]);
            return kExitOk;
        } else passthrough += fmt::format(" '{}'", arg);
    }
    if (!only.empty() && only != "transpose" && only != "matmul") {
        fmt::print(stderr, "error: --track: '{}' is not transpose or matmul\n", only);
        return kExitBadUsage;
    }
    const DeviceFacts device = require_device();
    fmt::print("{}\n", describe(device));
    const fs::path bin = fs::canonical("/proc/self/exe").parent_path();
    fs::create_directories(out);
    bool ok = true;
    for (const auto& spec : kTracks)
        if (only.empty() || only == spec.track) ok &= run_track(spec, bin, out, passthrough);
    fmt::print("\nwritten: {}/{{transpose,matmul}}.{{csv,json,svg}}\n", out.string());
    return ok ? kExitOk : kExitWrongAnswer;
}
