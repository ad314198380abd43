// The instructor's results table (`make run` at the top): every solution, then the references, one table per
// track, each step's ratio taken against the yardstick measured in that step's own run. Also written as CSV,
// JSON and an SVG chart for slides, and the matmul track's roofline (roofline.svg; bench_roofline.svg for a sweep).
//   workshop_results [--out DIR] [--track transpose|matmul] [program options]
//   workshop_results --sweep [...]   the benchmark (`make bench`): the same over a range of sizes, twice
//   workshop_results --replot DIR [--out DIR] [--track T] [--date YYYY-MM-DD]
//                                    redraw the tables and charts from the CSV files a run left in DIR (no GPU)
// Every option is checked before anything runs; the files of a run are written together at its end, whole, or
// not at all (a failed write leaves the older results as they were).
#include <fmt/format.h>
#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <system_error>
#include <vector>

#include "base/exit_codes.hpp"
#include "base/files.hpp"
#include "measure/device_info.hpp"
#include "programs/bench_odd_shapes.hpp"
#include "programs/options.hpp"
#include "report/report.hpp"
#include "report/roofline.hpp"
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

// ---- the command line: every option checked before anything runs ----------------------------------------

enum class ResultsMode { Table, Sweep, Replot };

struct Settings {
    ResultsMode mode = ResultsMode::Table;
    fs::path out = "results";
    bool out_given = false;
    fs::path replot;                     // --replot's folder
    std::string only, date;              // --track, --date
    std::vector<std::string> passed_on;  // options for every program run, each word as given
};

struct ParsedArguments {
    Settings settings;
    std::string error;  // empty when the command line is valid
    bool help = false;
};

// The program options make run and make bench pass on (the step programs' own parser checks their values); the
// rest of a program's options (its size, its output, --check) are the kit's to choose.
const std::set<std::string> kPassedOnWithValue = {"--reps", "--warmup", "--min-time", "--budget", "--seed"};
const std::set<std::string> kPassedOnFlags = {"--flush-l2", "--no-references"};
const std::set<std::string> kOwnWithValue = {"--out", "--track", "--replot", "--date"};

std::string usage_text(const std::string& program) {
    return fmt::format(
        "usage: {0} [--sweep] [--out DIR] [--track transpose|matmul] [program options]\n"
        "       {0} --replot DIR [--out DIR] [--track transpose|matmul] [--date YYYY-MM-DD]\n"
        "  --sweep             make bench: every step over a range of sizes, each measured twice\n"
        "  --out DIR           where the CSV, JSON and SVG files go (default: results)\n"
        "  --replot DIR        the tables and charts again from DIR's CSV files (no GPU); --out defaults to DIR\n"
        "  --date YYYY-MM-DD   with --replot: the day measured, for rows written before they carried one\n"
        "program options, passed on to every run: --reps N, --warmup N, --min-time SECONDS, --budget SECONDS,\n"
        "  --seed N, --flush-l2, --no-references (a step program's --help says what each does)\n"
        "exit codes: {1} all correct, {2} a step failed, {3} bad option, {4} no CUDA device, {5} a file not written\n",
        program, int{kExitOk}, int{kExitWrongAnswer}, int{kExitBadUsage}, int{kExitNoDevice}, int{kExitCannotWrite});
}

// A program option's value checked by the programs' own parser, so that a bad one stops here, not in every run.
std::string check_passed_on(const std::vector<std::string>& passed_on) {
    std::vector<const char*> argv = {"workshop_results"};
    for (const auto& word : passed_on) argv.push_back(word.c_str());
    return parse_options(Track::Transpose, static_cast<int>(argv.size()), argv.data()).error;
}

std::string check_settings(const Settings& s) {
    const bool replot = s.mode == ResultsMode::Replot;
    if (!s.date.empty() && (!replot || !std::regex_match(s.date, std::regex("[0-9]{4}-[0-9]{2}-[0-9]{2}"))))
        return fmt::format("--date: '{}' {}", printable(s.date),
                           replot ? "is not a date like 2026-11-22" : "goes with --replot");
    if (!s.only.empty() && s.only != "transpose" && s.only != "matmul")
        return fmt::format("--track: '{}' is not transpose or matmul", printable(s.only));
    if (replot && !s.passed_on.empty())
        return fmt::format("{}: a program option, and --replot runs no program", s.passed_on.front());
    return check_passed_on(s.passed_on);
}

// Takes one option (and its value) at argv[i]; false, with the reason in `p.error`, where it is not one.
bool take_option(int argc, char** argv, int& i, ParsedArguments& p) {
    std::string name = argv[i], value;
    const size_t eq = name.find('=');
    const bool inline_value = name.rfind("--", 0) == 0 && eq != std::string::npos;
    if (inline_value) value = name.substr(eq + 1), name.resize(eq);
    const bool takes_value = kOwnWithValue.count(name) > 0 || kPassedOnWithValue.count(name) > 0;
    const bool is_flag = name == "--sweep" || name == "--help" || name == "-h" || kPassedOnFlags.count(name) > 0;
    if ((!takes_value && !is_flag) || (is_flag && inline_value)) {
        p.error = fmt::format("unknown option '{}' (try --help)", printable(argv[i]));
        return false;
    }
    if (takes_value && !inline_value && i + 1 < argc) value = argv[++i];
    if (takes_value && value.empty()) {
        p.error = fmt::format("{} needs a value", name);
        return false;
    }
    Settings& s = p.settings;
    if (name == "--out") s.out = value, s.out_given = true;
    if (name == "--track") s.only = value;
    if (name == "--replot") s.replot = value;
    if (name == "--date") s.date = value;
    if (name == "--sweep") s.mode = ResultsMode::Sweep;
    if (name == "--help" || name == "-h") p.help = true;
    if (kPassedOnWithValue.count(name)) s.passed_on.insert(s.passed_on.end(), {name, value});
    if (kPassedOnFlags.count(name)) s.passed_on.push_back(name);
    return true;
}

ParsedArguments parse_arguments(int argc, char** argv) {
    ParsedArguments p;
    for (int i = 1; i < argc; ++i)
        if (!take_option(argc, argv, i, p)) return p;
    Settings& s = p.settings;
    if (p.help) return p;
    if (!s.replot.empty() && s.mode == ResultsMode::Sweep)
        p.error = "--sweep and --replot do not go together: --replot runs nothing";
    else if (!s.replot.empty())
        s.mode = ResultsMode::Replot;
    if (p.error.empty()) p.error = check_settings(s);
    return p;
}

std::string read_file(const fs::path& path) { return read_whole_file(path).value_or(""); }

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

ResultRow error_row(const TrackSpec& spec, int step, const std::string& program, const std::string& failure) {
    ResultRow failed;
    failed.track = spec.track;
    failed.name = fmt::format("step {}: {}", step, spec.ideas[step - 1]);
    failed.status = "ERROR";
    failed.note = fmt::format("{} {}", program, failure);
    return failed;
}

// A step whose answer was wrong, shown under its track's table as make check shows it: the FAIL line, and the map.
struct WrongAnswer {
    fs::path program;
    ShapeReport report;
};

void print_failures_with_maps(const std::vector<WrongAnswer>& wrong) {
    for (const auto& w : wrong) {
        fmt::print("\n{}: {}\n", w.program.filename().string(), w.report.headline);
        for (const auto& line : w.report.details) fmt::print("{}\n", line);
        print_map(w.report, "", map_picture_path(w.program));  // where the program itself would draw it
    }
}

// Runs the five solutions of one track; `wrong` gets each failure that came with a report. Returns false if any
// step failed.
bool gather_table(const TrackSpec& spec, const fs::path& bin, const std::vector<std::string>& passed_on,
                  std::vector<ResultRow>& table, std::vector<WrongAnswer>& wrong) {
    std::vector<ResultRow> references;
    bool all_ok = true;
    for (int step = 1; step <= 5; ++step) {
        const std::string name = fmt::format("solution{}_{}", step, spec.track);
        std::vector<std::string> argv = {(bin / name).string(), "--json"};
        argv.insert(argv.end(), passed_on.begin(), passed_on.end());
        std::fflush(stdout);  // the tables so far first, when both streams go to one file
        fmt::print(stderr, "  running {} ...\n", name);
        StepRows got = run_for_rows(run_program, argv);
        if (got.wrong_answer) wrong.push_back({bin / name, *got.wrong_answer});
        if (!got.ok()) {
            all_ok = false;
            table.push_back(error_row(spec, step, name, got.failure));
            continue;
        }
        for (auto& r : got.rows) {
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

// The CSV and JSON files of a set of rows, named `stem`.csv and `stem`.json.
void add_data_files(const std::string& stem, const std::vector<ResultRow>& rows, std::vector<ResultFile>& files) {
    files.push_back({stem + ".csv", to_csv(rows)});
    files.push_back({stem + ".json", to_json(rows)});
}

// A track whose kernels do flops, which therefore has a roofline (a transpose only moves bytes).
bool has_flops(const TrackSpec& spec) { return spec.unit == "GFLOP/s"; }

// The theoretical DRAM bandwidth of a transpose table's limit row; 0 where there is none.
double dram_bandwidth(const std::vector<ResultRow>& rows) {
    for (const auto& r : rows)
        if (r.kind == "limit" && r.unit == "GB/s") return r.rate;
    return 0;
}

// Adds the roofline of one matmul table (the steps, cuBLAS and the FP32 peak of one size) to `files`, as `file`.
void publish_roofline(const TrackSpec& spec, const std::vector<ResultRow>& rows, double dram_gbps,
                      const std::string& file, std::vector<ResultFile>& files) {
    if (rows.empty()) return;  // a sweep cut short before the lesson size
    const Roofline roof = roofline_of(rows, spec.reference, dram_gbps);
    const std::string shape = rows.back().shape, device = rows.back().device;
    const ChartText text{
        fmt::format("matmul roofline, {} on {}", spaced(shape), device),
        fmt::format("measured {}; each step at the bytes its tiles request, cuBLAS at the least the product needs",
                    date_span(rows)),
        spec.unit,
        fmt::format("above the DRAM roof, L1 and L2 serve part of the bytes{}",
                    roof.l2_gbps > 0 ? "" : " (no L2 roof: the device's figures give no L2 bandwidth)")};
    files.push_back({file, svg_roofline(text, roof)});
}

// A sweep's rows at the lesson size from its first run: one table, as make run's.
std::vector<ResultRow> lesson_rows(const TrackSpec& spec, const std::vector<ResultRow>& all) {
    std::vector<ResultRow> rows;
    for (const auto& r : all)
        if (side_of(r) == spec.lesson_size && r.note == "run 1 of 2") rows.push_back(r);
    return rows;
}

// Prints one track's table, and adds its CSV, JSON and bar chart to `files`.
void publish_table(const TrackSpec& spec, const std::vector<ResultRow>& table, std::vector<ResultFile>& files) {
    const std::string shape = table.empty() ? "" : table.back().shape;
    const std::string device = table.empty() ? "" : table.back().device;
    fmt::print("\n{} {} on {} (each step's % is of the {} measured in the same run)\n{}", spec.track, shape, device,
               spec.reference, to_table(table, spec.ratio_label));
    add_data_files(spec.track, table, files);
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
        spec.unit,
        has_flops(spec) ? "" : "a transpose does no flops, so it has no place on a roofline: bandwidth is its measure"};
    files.push_back({spec.track + ".svg", svg_bar_chart(text, bars, limits)});
}

// ---- make bench: every step over a range of sizes, each measured in two runs ----------------------------

// Runs one step at one size twice; appends its rows (step 5's run: the yardsticks' too). False if a run failed.
bool gather_size(const TrackSpec& spec, int step, int size, const fs::path& bin,
                 const std::vector<std::string>& passed_on, std::vector<ResultRow>& all) {
    const std::string name = fmt::format("solution{}_{}", step, spec.track);
    // Every step is timed as make run times it, in turn with its yardsticks, so that two steps' rates are taken
    // under the same conditions; the yardsticks' rows come from step 5's run alone (RESULTS.md says what timing
    // steps 1-4 alone did to the order of steps 4 and 5 where a problem sits in L2).
    std::vector<std::string> argv = {(bin / name).string(), "--json",   "--no-host", "--size",
                                     std::to_string(size),  "--budget", "0"};
    argv.insert(argv.end(), passed_on.begin(), passed_on.end());
    std::fflush(stdout);  // the tables so far first, when both streams go to one file
    fmt::print(stderr, "  {} --size {}\n", name, size);
    bool ok = true;
    for (int run = 1; run <= 2; ++run) {
        StepRows got = run_for_rows(run_program, argv);
        if (!got.ok()) {
            fmt::print(stderr, "  {} --size {} {}\n", name, size, got.failure);
            ok = false;
            continue;
        }
        for (auto& r : got.rows) {
            if (step < 5 && r.kind != "step") continue;
            if (r.kind == "step") {
                ok &= r.status == "PASS";
                r.name = fmt::format("step {}", step);
            }
            r.note = fmt::format("run {} of 2", run);
            all.push_back(r);
        }
    }
    return ok;
}

bool gather_sweep(const TrackSpec& spec, const fs::path& bin, const std::vector<std::string>& passed_on,
                  std::vector<ResultRow>& all) {
    bool all_ok = true;
    for (int size : spec.sweep_sizes)
        for (int step = 1; step <= 5; ++step)
            if (step > 2 || size <= spec.slow_steps_max_size)
                all_ok &= gather_size(spec, step, size, bin, passed_on, all);
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
            spec.unit, ""};
}

// How far a kernel's two medians at one size lie apart, |run 1 - run 2| / run 1, and which kernel at which size:
// the largest is named, so that an instructor can tell a tiny launch's jitter from a lesson size that wanders.
struct Variation {
    double share;
    std::string where;
    bool operator<(const Variation& other) const { return share < other.share; }
};

// A sweep's rows by kernel and size: both runs' medians, the spread of run 1's timed runs, and where a step's
// answer was wrong.
struct SweepTable {
    std::vector<std::string> order;                                    // the kernels, as first seen
    std::map<std::string, std::map<int, std::array<double, 2>>> rate;  // name -> side -> run 1, run 2
    std::map<std::string, std::map<int, double>> spread;               // name -> side -> (max - min) / median, run 1
    std::map<std::string, std::set<int>> wrong;  // name -> the sides where a run of that step gave a wrong answer

    bool wrong_at(const std::string& name, int side) const {
        const auto it = wrong.find(name);
        return it != wrong.end() && it->second.count(side) > 0;
    }
};

SweepTable tabulate(const std::vector<ResultRow>& all) {
    SweepTable t;
    for (const auto& r : all) {
        if (!t.rate.count(r.name)) t.order.push_back(r.name);
        const bool second = r.note == "run 2 of 2";
        t.rate[r.name][side_of(r)][second] = r.rate;
        if (!second && r.median_ms > 0) t.spread[r.name][side_of(r)] = (r.max_ms - r.min_ms) / r.median_ms;
        if (r.kind == "step" && r.status == "FAIL") t.wrong[r.name].insert(side_of(r));
    }
    return t;
}

// The limits are computed, not timed: they have no second run to differ from.
bool is_limit(const std::string& name) { return name.find("theoretical") != std::string::npos || name == "FP32 peak"; }

std::string size_header(const TrackSpec& spec) {
    std::string head = fmt::format("  {:<32}", "side");
    for (int size : spec.sweep_sizes) head += fmt::format(" {:>9}", size);
    return head;
}

// One kernel's line of run 1's medians, size by size; fills its chart series and notes how far its two runs lie
// apart at each size.
std::string rate_line(const TrackSpec& spec, const SweepTable& t, const std::string& name, Series& series,
                      std::vector<Variation>& variations) {
    std::string line = fmt::format("  {:<32}", name);
    const auto& rates = t.rate.at(name);
    for (int size : spec.sweep_sizes) {
        const auto it = rates.find(size);
        // A wrong answer's speed is no result: the table and the chart leave it out (the CSV keeps it).
        if (it == rates.end() || t.wrong_at(name, size)) {
            line += fmt::format(" {:>9}", it == rates.end() ? "-" : "FAIL");
            continue;
        }
        const auto [first, second] = it->second;
        line += fmt::format(" {:>9}", format_rate(first));
        series.points.push_back({static_cast<double>(size), first});
        if (!is_limit(name) && first > 0 && second > 0)
            variations.push_back(
                {std::abs(first - second) / first, fmt::format("{} {} at {}", spec.track, name, size)});
    }
    return line;
}

// |run 1 - run 2| / run 1 at the lesson size, or a negative number where there are not two such runs.
double lesson_spread(const TrackSpec& spec, const SweepTable& t, const std::string& name) {
    const auto& rates = t.rate.at(name);
    const auto it = rates.find(spec.lesson_size);
    if (it == rates.end() || is_limit(name) || t.wrong_at(name, spec.lesson_size)) return -1;
    const auto [first, second] = it->second;
    return first > 0 && second > 0 ? std::abs(first - second) / first : -1;
}

void print_wrong_answers(const SweepTable& t) {
    for (const auto& [name, sides] : t.wrong) {
        std::string where;
        for (int side : sides) where += fmt::format("{}{}", where.empty() ? "" : ", ", side);
        fmt::print("FAIL: {} gave a wrong answer at {} (the rate is in the CSV, not in this table or the chart)\n",
                   name, where);
    }
}

void print_lesson_spread(const TrackSpec& spec, const SweepTable& t) {
    std::string spreads;
    for (const auto& name : t.order)
        if (const double share = lesson_spread(spec, t, name); share >= 0)
            spreads += fmt::format("{}{} {:.2f}%", spreads.empty() ? "" : ", ", name, 100 * share);
    // A sweep cut short, or replotted from part of one, may hold no two runs at the lesson size: say so.
    if (spreads.empty()) spreads = "not measured (this sweep has no two runs at that size)";
    fmt::print("\nrun 1 against run 2 at the lesson size ({}): {}\n", spec.lesson_size, spreads);
}

void print_timing_spread(const TrackSpec& spec, const SweepTable& t) {
    fmt::print("\nspread of the timed runs behind each median above, (max - min) / median:\n{}\n", size_header(spec));
    for (const auto& name : t.order) {
        const auto found = t.spread.find(name);
        if (found == t.spread.end()) continue;  // limits are computed, not timed
        std::string line = fmt::format("  {:<32}", name);
        for (int size : spec.sweep_sizes) {
            const auto it = found->second.find(size);
            line +=
                it == found->second.end() ? fmt::format(" {:>9}", "-") : fmt::format(" {:>8.1f}%", 100 * it->second);
        }
        fmt::print("{}\n", line);
    }
}

// Prints one row per kernel and one column per size (run 1), and the spread between the two runs' medians; adds
// the CSV, JSON and line chart to `files`.
void publish_sweep(const TrackSpec& spec, const std::vector<ResultRow>& all, std::vector<ResultFile>& files,
                   std::vector<Variation>& variations) {
    const SweepTable t = tabulate(all);
    const std::string device = all.empty() ? "" : all.front().device;
    fmt::print("\n{} sweep on {} ({}, median of each run; run 1 shown, both in the CSV)\n{}\n", spec.track, device,
               spec.unit, size_header(spec));
    std::vector<Series> series;
    for (const auto& name : t.order) {
        Series s{name, {}, name.rfind("step", 0) != 0};
        fmt::print("{}\n", rate_line(spec, t, name, s, variations));
        // TF32 runs on the tensor cores, several times the FP32 peak: it would flatten every other line.
        if (name.find("TF32") == std::string::npos) series.push_back(s);
    }
    print_wrong_answers(t);
    print_lesson_spread(spec, t);
    print_timing_spread(spec, t);
    add_data_files("bench_" + spec.track, all, files);
    const char* x_label = spec.track == "transpose" ? "matrix side (rows = cols)" : "matrix side (M = N = K)";
    files.push_back({"bench_" + spec.track + ".svg", svg_line_chart(sweep_text(spec, all, device), x_label, series)});
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

// ---- the phases of a run ----------------------------------------------------------------------------------

bool wanted(const Settings& s, const TrackSpec& spec) { return s.only.empty() || s.only == spec.track; }

// --replot: the tables and charts again from the CSV files in s.replot.
int replot(const Settings& s) {
    const fs::path out = s.out_given ? s.out : s.replot;
    make_result_folder(out);  // before the tables: a folder that cannot be made is the first thing said
    std::vector<Variation> variations;
    std::vector<ResultFile> files;
    for (const auto& spec : kTracks) {
        if (!wanted(s, spec)) continue;
        const double dram_gbps = dram_bandwidth(parse_rows(read_file(s.replot / "transpose.csv")));
        if (const auto rows = read_rows(s.replot / (spec.track + ".csv"), s.date); !rows.empty()) {
            publish_table(spec, rows, files);
            if (has_flops(spec)) publish_roofline(spec, rows, dram_gbps, "roofline.svg", files);
        }
        if (const auto rows = read_rows(s.replot / ("bench_" + spec.track + ".csv"), s.date); !rows.empty()) {
            publish_sweep(spec, rows, files, variations);
            const double bench_dram = dram_bandwidth(parse_rows(read_file(s.replot / "bench_transpose.csv")));
            if (has_flops(spec))
                publish_roofline(spec, lesson_rows(spec, rows), bench_dram > 0 ? bench_dram : dram_gbps,
                                 "bench_roofline.svg", files);
        }
    }
    print_variation(variations);
    if (files.empty()) {
        fmt::print(stderr, "error: no results CSV files in {}\n", s.replot.string());
        return kExitBadUsage;
    }
    write_result_files(out, files);
    return kExitOk;
}

// make run (one table per track) or make bench (a sweep per track, then the awkward shapes).
// The roofline's DRAM slope is `dram_gbps`, the device's theoretical bandwidth (the transpose table's limit row).
bool measure_track(const Settings& s, const TrackSpec& spec, const fs::path& bin, const std::string& today,
                   double dram_gbps, std::vector<ResultFile>& files, std::vector<Variation>& variations) {
    std::vector<ResultRow> rows;
    if (s.mode == ResultsMode::Table) {
        std::vector<WrongAnswer> wrong;
        const bool ok = gather_table(spec, bin, s.passed_on, rows, wrong);
        stamp_date(rows, today);
        publish_table(spec, rows, files);
        print_failures_with_maps(wrong);
        if (has_flops(spec)) publish_roofline(spec, rows, dram_gbps, "roofline.svg", files);
        return ok;
    }
    bool ok = gather_sweep(spec, bin, s.passed_on, rows);
    stamp_date(rows, today);
    publish_sweep(spec, rows, files, variations);
    if (has_flops(spec)) publish_roofline(spec, lesson_rows(spec, rows), dram_gbps, "bench_roofline.svg", files);
    std::vector<ResultRow> odd_rows;
    ok &= bench_odd_shapes(spec.track, bin, s.passed_on, run_program, odd_rows);
    stamp_date(odd_rows, today);
    add_data_files("bench_odd_shapes_" + spec.track, odd_rows, files);
    return ok;
}

int measure(const Settings& s) {
    const DeviceFacts device = require_device();
    fmt::print("{}\n", describe(device));
    make_result_folder(s.out);  // before minutes of runs, not after them
    std::error_code error;
    const fs::path bin = fs::canonical("/proc/self/exe", error).parent_path();  // the solutions are built beside it
    if (error) throw FileError(fmt::format("cannot find the folder of this program: {}", error.message()));
    const std::string today = iso_date(std::time(nullptr));
    bool ok = true;
    std::vector<ResultFile> files;
    std::vector<Variation> variations;
    for (const auto& spec : kTracks)
        if (wanted(s, spec)) ok &= measure_track(s, spec, bin, today, device.dram_gbps, files, variations);
    print_variation(variations);
    write_result_files(s.out, files);
    const bool sweep = s.mode == ResultsMode::Sweep;
    const std::string tracks = s.only.empty() ? "{transpose,matmul}" : s.only;
    fmt::print("\nwritten: {}/{}{}.{{csv,json,svg}}", s.out.string(), sweep ? "bench_" : "", tracks);
    if (sweep) fmt::print(" and {}/bench_odd_shapes_{}.{{csv,json}}", s.out.string(), tracks);
    const std::string roofline = sweep ? "bench_roofline.svg" : "roofline.svg";
    if (std::any_of(files.begin(), files.end(), [&](const ResultFile& f) { return f.name == roofline; }))
        fmt::print(" and {}/{}", s.out.string(), roofline);
    fmt::print("\n");
    return ok ? kExitOk : kExitWrongAnswer;
}

}  // namespace

int main(int argc, char** argv) {
    const ParsedArguments parsed = parse_arguments(argc, argv);
    if (parsed.help) {
        fmt::print("{}", usage_text(argv[0]));
        return kExitOk;
    }
    if (!parsed.error.empty()) {
        fmt::print(stderr, "error: {}\n", parsed.error);
        return kExitBadUsage;
    }
    // Past a file size limit (ulimit -f) a write then fails with EFBIG, said like any other failed write, rather
    // than SIGXFSZ ending the program.
    std::signal(SIGXFSZ, SIG_IGN);
    try {
        return parsed.settings.mode == ResultsMode::Replot ? replot(parsed.settings) : measure(parsed.settings);
    } catch (const FileError& e) {
        fmt::print(stderr, "error: {}\n", e.what());
        return kExitCannotWrite;
    } catch (const std::system_error& e) {  // fmt could not print (stdout or stderr a file on a full disk)
        std::fprintf(stderr, "error: %s\n", e.what());
        return kExitCannotWrite;
    }
}
