// The instructor's results table (`make run` at the top): every solution, then the references, one table per
// track, each step's ratio taken against the yardstick measured in that step's own run. Also written as CSV,
// JSON and an SVG chart for slides.
//   workshop_results [--out DIR] [--track transpose|matmul] [options passed on to each program]
//   workshop_results --sweep [...]   the benchmark (`make bench`): the same over a range of sizes, twice
#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
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
    std::vector<int> sweep_sizes;
    int slow_steps_max_size;  // steps 1 and 2 stop here in the sweep: beyond it they take minutes
};

const TrackSpec kTracks[] = {
    {"transpose", "GB/s", "copy kernel", "theoretical DRAM bandwidth",
     {"one thread per row", "2D grid, one thread per element", "shared-memory tile", "padded tile, no bank conflicts",
      "several elements per thread"},
     {1024, 2048, 4096, 8192, 16384},
     16384},
    {"matmul", "GFLOP/s", "cuBLAS SGEMM FP32", "FP32 peak",
     {"one thread per output (uncoalesced)", "coalesced", "shared-memory tiles", "several outputs per thread (1D)",
      "2D register tile, float4 loads"},
     {256, 512, 1024, 2048, 4096, 8192},
     4096},
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


// One kernel at one size, measured in two separate runs so the table can state how far a median moves.
struct SweepPoint {
    ResultRow first, second;
    double variation() const {
        return first.rate > 0 ? std::abs(first.rate - second.rate) / first.rate : 0.0;
    }
};

// The benchmark: every solution and the references over the track's sizes, each measured twice.
bool sweep_track(const TrackSpec& spec, const fs::path& bin, const fs::path& out, const std::string& passthrough,
                 std::vector<double>& variations) {
    std::map<std::string, std::vector<std::pair<int, SweepPoint>>> by_kernel;  // name -> (size, point)
    std::vector<std::string> order;
    bool all_ok = true;
    auto record = [&](const std::string& name, int size, const ResultRow& a, const ResultRow& b) {
        if (!by_kernel.count(name)) order.push_back(name);
        by_kernel[name].push_back({size, {a, b}});
    };
    for (int size : spec.sweep_sizes) {
        for (int step = 1; step <= 5; ++step) {
            if (step <= 2 && size > spec.slow_steps_max_size) continue;
            const fs::path program = bin / fmt::format("solution{}_{}", step, spec.track);
            const std::string command = fmt::format("'{}' --csv --no-host --size {} --budget 0{}{}", program.string(), size,
                                                    step == 5 ? "" : " --no-references", passthrough);
            fmt::print(stderr, "  {} --size {}\n", program.filename().string(), size);
            const auto [csv1, status1] = run_program(command);
            const auto [csv2, status2] = run_program(command);
            const auto rows1 = parse_rows(csv1), rows2 = parse_rows(csv2);
            if (status1 != 0 || status2 != 0 || rows1.size() != rows2.size() || rows1.empty()) {
                fmt::print(stderr, "  {} --size {} failed (exit {} / {})\n", program.filename().string(), size, status1, status2);
                all_ok = false;
                continue;
            }
            for (size_t i = 0; i < rows1.size(); ++i) {
                if (rows1[i].kind == "step") {
                    all_ok &= rows1[i].status == "PASS" && rows2[i].status == "PASS";
                    record(fmt::format("step {}", step), size, rows1[i], rows2[i]);
                } else if (rows1[i].kind == "reference" || rows1[i].kind == "limit") {
                    record(rows1[i].name, size, rows1[i], rows2[i]);
                }
            }
        }
    }

    // Table: one row per kernel, one column per size; then the same as CSV/JSON, and a chart.
    const std::string device = order.empty() ? "" : by_kernel[order.front()].front().second.first.device;
    fmt::print("\n{} sweep on {} ({}; median of each run, the first of two runs shown; spread in the CSV)\n",
               spec.track, device, spec.unit);
    std::string head = fmt::format("  {:<32}", "size");
    for (int size : spec.sweep_sizes) head += fmt::format(" {:>9}", size);
    fmt::print("{}\n", head);
    std::vector<ResultRow> all;
    std::vector<Series> series;
    for (const auto& name : order) {
        std::string line = fmt::format("  {:<32}", name);
        Series line_series{name, {}, name.rfind("step", 0) != 0};
        for (int size : spec.sweep_sizes) {
            std::string cell = "-";
            for (const auto& [sz, point] : by_kernel[name]) {
                if (sz != size) continue;
                cell = fmt::format("{:.5g}", point.first.rate);
                line_series.points.push_back({static_cast<double>(size), point.first.rate});
                ResultRow a = point.first, b = point.second;
                a.note = fmt::format("run 1 of 2; the median of run 2 differs by {:.1f}%", 100 * point.variation());
                b.note = "run 2 of 2";
                all.push_back(a);
                all.push_back(b);
                if (point.first.kind != "limit") variations.push_back(point.variation());
            }
            line += fmt::format(" {:>9}", cell);
        }
        fmt::print("{}\n", line);
        series.push_back(line_series);
    }
    std::string csv = csv_header() + "\n";
    for (const auto& r : all) csv += to_csv(r) + "\n";
    write_file(out / ("bench_" + spec.track + ".csv"), csv);
    write_file(out / ("bench_" + spec.track + ".json"), to_json(all));
    write_file(out / ("bench_" + spec.track + ".svg"),
               svg_line_chart(fmt::format("{} on {}", spec.track, device),
                              spec.track == "transpose" ? "matrix side (rows = cols)" : "matrix side (M = N = K)",
                              spec.unit, series));
    return all_ok;
}

}  // namespace

int main(int argc, char** argv) {
    fs::path out = "results";
    std::string only, passthrough;
    bool sweep = false;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--out" && i + 1 < argc) out = argv[++i];
        else if (arg == "--track" && i + 1 < argc) only = argv[++i];
        else if (arg == "--sweep") sweep = true;
        else if (arg == "--help" || arg == "-h") {
            fmt::print("usage: {} [--sweep] [--out DIR] [--track transpose|matmul] [program options, e.g. --reps 50 --flush-l2]\n",
                       argv[0]);
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
    std::vector<double> variations;
    for (const auto& spec : kTracks) {
        if (!only.empty() && only != spec.track) continue;
        ok &= sweep ? sweep_track(spec, bin, out, passthrough, variations) : run_track(spec, bin, out, passthrough);
    }
    if (sweep && !variations.empty()) {
        std::sort(variations.begin(), variations.end());
        fmt::print("\nrun-to-run variation of the medians (two runs of every kernel at every size): median {:.2f}%, "
                   "largest {:.2f}%\n",
                   100 * variations[variations.size() / 2], 100 * variations.back());
    }
    fmt::print("\nwritten: {}/{}{{transpose,matmul}}.{{csv,json,svg}}\n", out.string(), sweep ? "bench_" : "");
    return ok ? kExitOk : kExitWrongAnswer;
}
