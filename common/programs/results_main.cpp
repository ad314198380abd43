// The instructor's results table (`make run` at the top): every solution, then the references, one table per
// track, each step's ratio taken against the yardstick measured in that step's own run. Also written as CSV,
// JSON and an SVG chart for slides.
//   workshop_results [--out DIR] [--track transpose|matmul] [options passed on to each program]
//   workshop_results --sweep [...]   the benchmark (`make bench`): the same over a range of sizes, twice
//   workshop_results --replot DIR [--date YYYY-MM-DD]
//                                    redraw the tables and charts from the CSV files a run left in DIR (no GPU)
#include <fmt/format.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "programs/bench_odd_shapes.hpp"
#include "measure/device_info.hpp"
#include "base/exit_codes.hpp"
#include "report/report.hpp"
#include "report/svg_chart.hpp"

using namespace workshop;
namespace fs = std::filesystem;

namespace {

struct TrackSpec {
    std::string track, unit, reference, ratio_label;
    std::array<const char*, 5> ideas;
    std::vector<int> sweep_sizes;
    int slow_steps_max_size;  // steps 1 and 2 stop here in the sweep: beyond it they take minutes
    int lesson_size;          // the size make run and the lessons use
};

const TrackSpec kTracks[] = {
    {"transpose",
     "GB/s",
     "copy kernel",
     "copy",
     {"one thread per row", "2D grid, one thread per element", "shared-memory tile", "padded tile, no bank conflicts",
      "several elements per thread"},
     {1024, 2048, 4096, 8192, 16384},
     16384,
     8192},
    {"matmul",
     "GFLOP/s",
     "cuBLAS SGEMM FP32",
     "cuBLAS",
     {"one thread per output (uncoalesced)", "coalesced", "shared-memory tiles", "several outputs per thread (1D)",
      "2D register tile, float4 loads"},
     {256, 512, 1024, 2048, 4096, 8192},
     4096,
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

std::string read_file(const fs::path& path) {
    std::ifstream in(path);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void write_file(const fs::path& path, const std::string& text) { std::ofstream(path) << text; }

void write_data(const fs::path& stem, const std::vector<ResultRow>& rows) {
    std::string csv = csv_header() + "\n";
    for (const auto& r : rows) csv += to_csv(r) + "\n";
    write_file(stem.string() + ".csv", csv);
    write_file(stem.string() + ".json", to_json(rows));
}

int side_of(const ResultRow& r) { return std::atoi(r.shape.c_str()); }  // "8192x8192" -> 8192

// ---- dates: every row carries the day it was measured, and every chart shows it --------------------------

std::string iso_date(std::time_t t) {
    std::tm local{};
    localtime_r(&t, &local);
    char text[16];
    std::strftime(text, sizeof text, "%Y-%m-%d", &local);
    return text;
}

void stamp_date(std::vector<ResultRow>& rows, const std::string& date) {
    for (auto& r : rows)
        if (r.date.empty()) r.date = date;
}

// "2026-11-22", or "2026-11-22 to 2026-11-23" for rows measured over midnight.
std::string date_span(const std::vector<ResultRow>& rows) {
    std::set<std::string> dates;
    for (const auto& r : rows)
        if (!r.date.empty()) dates.insert(r.date);
    if (dates.empty()) return "on a day not recorded";
    return dates.size() == 1 ? *dates.begin() : *dates.begin() + " to " + *dates.rbegin();
}

// --replot: rows written before they carried a date get the one given with --date, else the CSV file's
// modification time (which a copy or a checkout may have changed: the line printed says which was used).
std::vector<ResultRow> read_rows(const fs::path& csv, const std::string& given_date) {
    std::vector<ResultRow> rows = parse_rows(read_file(csv));
    const bool undated = std::any_of(rows.begin(), rows.end(), [](const ResultRow& r) { return r.date.empty(); });
    if (rows.empty() || !undated) return rows;
    struct stat info {};
    const std::string date = !given_date.empty()             ? given_date
                             : stat(csv.c_str(), &info) == 0 ? iso_date(info.st_mtime)
                                                             : std::string();
    fmt::print(stderr, "{}: rows without a date take {} ({})\n", csv.string(), date.empty() ? "none" : date,
               !given_date.empty() ? "--date" : "the file's modification time; --date sets the day measured");
    stamp_date(rows, date);
    return rows;
}

std::string spaced(std::string shape) {  // "8192x8192" -> "8192 x 8192"
    for (size_t at = shape.find('x'); at != std::string::npos; at = shape.find('x', at + 3))
        shape.replace(at, 1, " x ");
    return shape;
}

// ---- make run: one size, every step ---------------------------------------------------------------------

// Runs the five solutions of one track. Returns false if any step failed.
bool gather_table(const TrackSpec& spec, const fs::path& bin, const std::string& passthrough,
                  std::vector<ResultRow>& table) {
    std::vector<ResultRow> references;
    bool all_ok = true;
    for (int step = 1; step <= 5; ++step) {
        const fs::path program = bin / fmt::format("solution{}_{}", step, spec.track);
        std::fflush(stdout);  // the tables so far first, when both streams go to one file
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
            // The references of the last run stand for all: step 5's ratios are then from one run.
            if (step == 5 && (r.kind == "reference" || r.kind == "limit")) references.push_back(r);
        }
    }
    table.insert(table.end(), references.begin(), references.end());
    return all_ok;
}

void publish_table(const TrackSpec& spec, const std::vector<ResultRow>& table, const fs::path& out) {
    const std::string shape = table.empty() ? "" : table.back().shape;
    const std::string device = table.empty() ? "" : table.back().device;
    fmt::print("\n{} {} on {} (each step's % is of the {} measured in the same run)\n{}", spec.track, shape, device,
               spec.reference, to_table(table, spec.ratio_label));
    write_data(out / spec.track, table);
    std::vector<Bar> bars;
    std::vector<LimitLine> limits;
    for (const auto& r : table) {
        if (r.kind == "limit" || r.name == spec.reference)
            limits.push_back({r.name, r.rate});
        else if (r.rate > 0 && r.name.find("TF32") == std::string::npos)
            bars.push_back({r.name, r.rate});
    }
    const ChartText text{
        fmt::format("{} {} on {}", spec.track, spaced(shape), device),
        fmt::format("measured {}; each bar the median of its timed runs; dashed: the limits", date_span(table)),
        spec.unit};
    write_file(out / (spec.track + ".svg"), svg_bar_chart(text, bars, limits));
}

// ---- make bench: every step over a range of sizes, each measured in two runs ----------------------------

bool gather_sweep(const TrackSpec& spec, const fs::path& bin, const std::string& passthrough,
                  std::vector<ResultRow>& all) {
    bool all_ok = true;
    for (int size : spec.sweep_sizes) {
        for (int step = 1; step <= 5; ++step) {
            if (step <= 2 && size > spec.slow_steps_max_size) continue;
            const fs::path program = bin / fmt::format("solution{}_{}", step, spec.track);
            // Every step is timed as make run times it, in turn with its yardsticks, so that two steps' rates are
            // taken under the same conditions; the yardsticks' rows come from step 5's run alone. Where a small
            // problem sits in L2, the launches in turn slow a step: on an H200 at 1024 x 1024, step 4 read
            // 1231-1248 GB/s alone and 940-997 in turn, step 5 1533-1560 and 1088-1155. With steps 1-4 timed alone
            // and step 5 in turn, as before, one bench of two had step 4 ahead of step 5 there.
            const std::string command =
                fmt::format("'{}' --csv --no-host --size {} --budget 0{}", program.string(), size, passthrough);
            std::fflush(stdout);  // the tables so far first, when both streams go to one file
            fmt::print(stderr, "  {} --size {}\n", program.filename().string(), size);
            for (int run = 1; run <= 2; ++run) {
                const auto [csv, status] = run_program(command);
                std::vector<ResultRow> rows = parse_rows(csv);
                if (status != 0 || rows.empty()) {
                    fmt::print(stderr, "  {} --size {} failed (exit {})\n", program.filename().string(), size, status);
                    all_ok = false;
                    continue;
                }
                for (auto& r : rows) {
                    if (step < 5 && r.kind != "step") continue;
                    if (r.kind == "step") {
                        all_ok &= r.status == "PASS";
                        r.name = fmt::format("step {}", step);
                    }
                    r.note = fmt::format("run {} of 2", run);
                    all.push_back(r);
                }
            }
        }
    }
    return all_ok;
}

ChartText sweep_text(const TrackSpec& spec, const std::vector<ResultRow>& all, const std::string& device) {
    int smallest = 0, largest = 0;
    for (const auto& r : all) {
        smallest = smallest == 0 ? side_of(r) : std::min(smallest, side_of(r));
        largest = std::max(largest, side_of(r));
    }
    return {fmt::format("{}, {} from {} to {}, on {}", spec.track, spec.track == "transpose" ? "side" : "M = N = K",
                        smallest, largest, device),
            fmt::format("measured {}; the median of each size's first run (both runs in the CSV)", date_span(all)),
            spec.unit};
}

// How far a kernel's two medians at one size lie apart, |run 1 - run 2| / run 1, and which kernel at which size:
// the largest is named, so that an instructor can tell a tiny launch's jitter from a lesson size that wanders.
struct Variation {
    double share;
    std::string where;
    bool operator<(const Variation& other) const { return share < other.share; }
};

// Prints one row per kernel and one column per size (run 1), and the spread between the two runs' medians.
void publish_sweep(const TrackSpec& spec, const std::vector<ResultRow>& all, const fs::path& out,
                   std::vector<Variation>& variations) {
    std::vector<std::string> order;
    std::map<std::string, std::map<int, std::array<double, 2>>> rate;  // name -> side -> run 1, run 2
    std::map<std::string, std::map<int, double>> spread;               // name -> side -> (max - min) / median, run 1
    std::map<std::string, std::set<int>> wrong;  // name -> the sides where a run of that step gave a wrong answer
    for (const auto& r : all) {
        if (!rate.count(r.name)) order.push_back(r.name);
        const bool second = r.note == "run 2 of 2";
        rate[r.name][side_of(r)][second] = r.rate;
        if (!second && r.median_ms > 0) spread[r.name][side_of(r)] = (r.max_ms - r.min_ms) / r.median_ms;
        if (r.kind == "step" && r.status == "FAIL") wrong[r.name].insert(side_of(r));
    }
    const auto wrong_at = [&](const std::string& name, int side) {
        const auto it = wrong.find(name);
        return it != wrong.end() && it->second.count(side) > 0;
    };
    const std::string device = all.empty() ? "" : all.front().device;
    fmt::print("\n{} sweep on {} ({}, median of each run; run 1 shown, both in the CSV)\n", spec.track, device,
               spec.unit);
    std::string head = fmt::format("  {:<32}", "side");
    for (int size : spec.sweep_sizes) head += fmt::format(" {:>9}", size);
    fmt::print("{}\n", head);
    std::vector<Series> series;
    std::vector<std::pair<std::string, double>> lesson_spread;  // name, |run 1 - run 2| / run 1 at the lesson size
    for (const auto& name : order) {
        std::string line = fmt::format("  {:<32}", name);
        const bool is_step = name.rfind("step", 0) == 0;
        const bool is_limit = name.find("theoretical") != std::string::npos || name == "FP32 peak";  // computed
        Series s{name, {}, !is_step};
        for (int size : spec.sweep_sizes) {
            auto it = rate[name].find(size);
            if (it == rate[name].end()) {
                line += fmt::format(" {:>9}", "-");
                continue;
            }
            // A wrong answer's speed is no result: the table and the chart leave it out (the CSV keeps it).
            if (wrong_at(name, size)) {
                line += fmt::format(" {:>9}", "FAIL");
                continue;
            }
            const auto [first, second] = it->second;
            line += fmt::format(" {:>9}", format_rate(first));
            s.points.push_back({static_cast<double>(size), first});
            if (!is_limit && first > 0 && second > 0) {
                const std::string where = fmt::format("{} {} at {}", spec.track, name, size);
                variations.push_back({std::abs(first - second) / first, where});
            }
        }
        fmt::print("{}\n", line);
        if (auto it = rate[name].find(spec.lesson_size);
            it != rate[name].end() && !is_limit && !wrong_at(name, spec.lesson_size)) {
            const auto [first, second] = it->second;
            if (first > 0 && second > 0) lesson_spread.push_back({name, std::abs(first - second) / first});
        }
        // TF32 runs on the tensor cores, several times the FP32 peak: it would flatten every other line.
        if (name.find("TF32") == std::string::npos) series.push_back(s);
    }
    for (const auto& [name, sides] : wrong) {
        std::string where;
        for (int side : sides) where += fmt::format("{}{}", where.empty() ? "" : ", ", side);
        fmt::print("FAIL: {} gave a wrong answer at {} (the rate is in the CSV, not in this table or the chart)\n",
                   name, where);
    }
    std::string spreads;
    for (const auto& [name, spread_of_medians] : lesson_spread)
        spreads += fmt::format("{}{} {:.2f}%", spreads.empty() ? "" : ", ", name, 100 * spread_of_medians);
    // A sweep cut short, or replotted from part of one, may hold no two runs at the lesson size: say so.
    if (spreads.empty()) spreads = "not measured (this sweep has no two runs at that size)";
    fmt::print("\nrun 1 against run 2 at the lesson size ({}): {}\n", spec.lesson_size, spreads);
    fmt::print("\nspread of the timed runs behind each median above, (max - min) / median:\n{}\n", head);
    for (const auto& name : order) {
        if (spread[name].empty()) continue;  // limits are computed, not timed
        std::string line = fmt::format("  {:<32}", name);
        for (int size : spec.sweep_sizes) {
            auto it = spread[name].find(size);
            line += it == spread[name].end() ? fmt::format(" {:>9}", "-") : fmt::format(" {:>8.1f}%", 100 * it->second);
        }
        fmt::print("{}\n", line);
    }
    write_data(out / ("bench_" + spec.track), all);
    write_file(
        out / ("bench_" + spec.track + ".svg"),
        svg_line_chart(sweep_text(spec, all, device),
                       spec.track == "transpose" ? "matrix side (rows = cols)" : "matrix side (M = N = K)", series));
}

void print_variation(std::vector<Variation> variations) {
    if (variations.empty()) return;
    std::sort(variations.begin(), variations.end());
    fmt::print(
        "\nrun-to-run variation of the medians (two runs of every kernel at every size): median {:.2f}%, "
        "90th percentile {:.2f}%, largest {:.2f}% ({})\n",
        100 * variations[variations.size() / 2].share, 100 * variations[variations.size() * 9 / 10].share,
        100 * variations.back().share, variations.back().where);
}

}  // namespace

int main(int argc, char** argv) {
    fs::path out = "results", replot;
    std::string only, passthrough, date;
    bool sweep = false;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--out" && i + 1 < argc)
            out = argv[++i];
        else if (arg == "--track" && i + 1 < argc)
            only = argv[++i];
        else if (arg == "--replot" && i + 1 < argc)
            replot = argv[++i];
        else if (arg == "--date" && i + 1 < argc)
            date = argv[++i];
        else if (arg == "--sweep")
            sweep = true;
        else if (arg == "--help" || arg == "-h") {
            fmt::print(
                "usage: {} [--sweep] [--out DIR] [--track transpose|matmul] "
                "[program options, e.g. --reps 50 --flush-l2]\n"
                "       {} --replot DIR [--out DIR] [--date YYYY-MM-DD]   (tables and charts again from DIR's\n"
                "           CSV files; --date: the day measured, for rows written before they carried one)\n",
                argv[0], argv[0]);
            return kExitOk;
        } else
            passthrough += fmt::format(" '{}'", arg);
    }
    if (!date.empty() && (replot.empty() || !std::regex_match(date, std::regex("[0-9]{4}-[0-9]{2}-[0-9]{2}")))) {
        fmt::print(stderr, "error: --date: '{}' {}\n", date,
                   replot.empty() ? "goes with --replot" : "is not a date like 2026-11-22");
        return kExitBadUsage;
    }
    if (!only.empty() && only != "transpose" && only != "matmul") {
        fmt::print(stderr, "error: --track: '{}' is not transpose or matmul\n", only);
        return kExitBadUsage;
    }

    if (!replot.empty()) {
        if (out == "results") out = replot;
        fs::create_directories(out);
        std::vector<Variation> variations;
        int found = 0;
        for (const auto& spec : kTracks) {
            if (!only.empty() && only != spec.track) continue;
            if (const auto rows = read_rows(replot / (spec.track + ".csv"), date); !rows.empty())
                publish_table(spec, rows, out), ++found;
            if (const auto rows = read_rows(replot / ("bench_" + spec.track + ".csv"), date); !rows.empty())
                publish_sweep(spec, rows, out, variations), ++found;
        }
        print_variation(variations);
        if (found == 0) {
            fmt::print(stderr, "error: no results CSV files in {}\n", replot.string());
            return kExitBadUsage;
        }
        return kExitOk;
    }

    const DeviceFacts device = require_device();
    fmt::print("{}\n", describe(device));
    const fs::path bin = fs::canonical("/proc/self/exe").parent_path();
    const std::string today = iso_date(std::time(nullptr));
    fs::create_directories(out);
    bool ok = true;
    std::vector<Variation> variations;
    for (const auto& spec : kTracks) {
        if (!only.empty() && only != spec.track) continue;
        std::vector<ResultRow> rows;
        if (sweep) {
            ok &= gather_sweep(spec, bin, passthrough, rows);
            stamp_date(rows, today);
            publish_sweep(spec, rows, out, variations);
            std::vector<ResultRow> odd_rows;
            ok &= bench_odd_shapes(spec.track, bin, passthrough, run_program, odd_rows);
            stamp_date(odd_rows, today);
            write_data(out / ("bench_odd_shapes_" + spec.track), odd_rows);
        } else {
            ok &= gather_table(spec, bin, passthrough, rows);
            stamp_date(rows, today);
            publish_table(spec, rows, out);
        }
    }
    print_variation(variations);
    const std::string tracks = only.empty() ? "{transpose,matmul}" : only;
    fmt::print("\nwritten: {}/{}{}.{{csv,json,svg}}", out.string(), sweep ? "bench_" : "", tracks);
    if (sweep) fmt::print(" and {}/bench_odd_shapes_{}.{{csv,json}}", out.string(), tracks);
    fmt::print("\n");
    return ok ? kExitOk : kExitWrongAnswer;
}
