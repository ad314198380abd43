#include "programs/bench_odd_shapes.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>

#include "base/exit_codes.hpp"
#include "report/report.hpp"

namespace workshop {

namespace {

std::string joined(const std::vector<std::string>& words) {
    std::string line;
    for (const auto& w : words) line += (line.empty() ? "" : " ") + w;
    return line;
}

}  // namespace

StepRows run_for_rows(const ProgramRunner& run, const std::vector<std::string>& argv) {
    const ProgramRun ran = run(argv);
    TimingRunSaid said = timing_run_said(ran.out);
    StepRows result;
    result.wrong_answer = std::move(said.failure);
    std::string error;
    const bool answered = ran.exit_code == kExitOk || (ran.exit_code == kExitWrongAnswer && result.wrong_answer);
    if (!answered)
        result.failure = fmt::format("failed ({})", ran.ending);
    else if (!rows_from_json(said.shown, result.rows, error) && result.wrong_answer)
        result.failure = result.wrong_answer->headline;  // a wrong answer after the timed runs: said, not timed
    else if (!error.empty())
        result.failure = fmt::format("printed no result rows ({})", error);
    else if (result.rows.empty())
        result.failure = "printed no result rows";
    return result;
}

namespace {

struct OddShape {
    std::vector<std::string> options;  // the program's shape options
    const char* label;
};

// The aligned shape first, as the baseline; then rows or columns that are not whole 128-byte lines (transpose),
// and dimensions that are not multiples of 4 or one past a 128-wide tile (matmul).
const std::vector<OddShape> kTransposeShapes = {{{"--rows", "8192", "--cols", "8192"}, "8192 x 8192"},
                                                {{"--rows", "8191", "--cols", "8193"}, "8191 x 8193"},
                                                {{"--rows", "8193", "--cols", "8191"}, "8193 x 8191"}};
const std::vector<OddShape> kMatmulShapes = {{{"--m", "4096", "--n", "4096", "--k", "4096"}, "4096 x 4096 x 4096"},
                                             {{"--m", "4097", "--n", "4096", "--k", "4096"}, "4097 x 4096 x 4096"},
                                             {{"--m", "4099", "--n", "4099", "--k", "4099"}, "4099 x 4099 x 4099"},
                                             {{"--m", "4096", "--n", "4096", "--k", "4100"}, "4096 x 4096 x 4100"},
                                             {{"--m", "4100", "--n", "4096", "--k", "4096"}, "4100 x 4096 x 4096"}};

// The yardsticks: for a transpose the faster of the two copies (and cuBLAS's own transpose beside it); for a
// matmul cuBLAS FP32.
bool is_best_copy_candidate(const std::string& name) {
    return name == "copy kernel" || name == "cudaMemcpy device-to-device";
}

void print_heading(const std::string& track) {
    fmt::print("\n{} step 5 at awkward shapes (one run each)\n", track);
    if (track == "transpose")
        fmt::print("  {:<22} {:>9} {:>11} {:>9}   {}\n", "shape", "step 5", "best copy", "sgeam",
                   "GB/s; step 5 as % of best copy / of sgeam");
    else
        fmt::print("  {:<22} {:>9} {:>11}   {}\n", "shape", "step 5", "cuBLAS FP32",
                   "GFLOP/s; step 5 as % of cuBLAS FP32");
}

// Step 5's rate and check at one shape, beside its yardsticks; renames and notes the rows for the files.
struct ShapeRates {
    double step = 0, best_copy = 0, geam = 0, cublas = 0;
    std::string step_status;
};

ShapeRates take_rates(std::vector<ResultRow>& rows) {
    ShapeRates s;
    for (auto& r : rows) {
        if (r.kind == "step") {
            s.step_status = r.status;
            s.step = r.rate;
            r.name = "step 5";
        }
        if (is_best_copy_candidate(r.name)) s.best_copy = std::max(s.best_copy, r.rate);
        if (r.name == "cuBLAS transpose (cublasSgeam)") s.geam = r.rate;
        if (r.name == "cuBLAS SGEMM FP32") s.cublas = r.rate;
        r.note = "awkward shape";
    }
    return s;
}

void print_shape_line(const std::string& track, const char* label, const ShapeRates& s) {
    // A rate for a wrong answer is no result: the line says so where a reader looks for the share.
    const std::string verdict =
        s.step_status == "PASS" ? "" : fmt::format("   step 5: {}", s.step_status.empty() ? "no row" : s.step_status);
    const auto pct = [](double a, double b) { return b > 0 ? fmt::format("{:.1f}%", 100 * a / b) : std::string("-"); };
    if (track == "transpose")
        fmt::print("  {:<22} {:>9} {:>11} {:>9}   {} / {}{}\n", label, format_rate(s.step), format_rate(s.best_copy),
                   format_rate(s.geam), pct(s.step, s.best_copy), pct(s.step, s.geam), verdict);
    else
        fmt::print("  {:<22} {:>9} {:>11}   {}{}\n", label, format_rate(s.step), format_rate(s.cublas),
                   pct(s.step, s.cublas), verdict);
}

}  // namespace

bool bench_odd_shapes(const std::string& track, const std::filesystem::path& bin,
                      const std::vector<std::string>& passed_on, const ProgramRunner& run,
                      std::vector<ResultRow>& all) {
    const std::string program = (bin / fmt::format("solution5_{}", track)).string();
    const std::string name = fmt::format("solution5_{}", track);
    bool ok = true;
    print_heading(track);
    for (const auto& shape : track == "transpose" ? kTransposeShapes : kMatmulShapes) {
        std::vector<std::string> argv = {program, "--json", "--no-host", "--budget", "0"};
        argv.insert(argv.end(), shape.options.begin(), shape.options.end());
        argv.insert(argv.end(), passed_on.begin(), passed_on.end());
        std::fflush(stdout);  // the tables so far first, when both streams go to one file
        fmt::print(stderr, "  {} {}\n", name, joined(shape.options));
        StepRows got = run_for_rows(run, argv);
        if (!got.ok()) {
            fmt::print(stderr, "  {} {} {}\n", name, joined(shape.options), got.failure);
            ok = false;
            continue;
        }
        const ShapeRates rates = take_rates(got.rows);
        all.insert(all.end(), got.rows.begin(), got.rows.end());
        ok &= rates.step_status == "PASS";
        print_shape_line(track, shape.label, rates);
    }
    return ok;
}

}  // namespace workshop
