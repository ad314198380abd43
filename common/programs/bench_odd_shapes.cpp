#include "programs/bench_odd_shapes.hpp"

#include "report/report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>

namespace workshop {

namespace {

struct OddShape {
    const char* options;  // the program's shape options
    const char* label;
};

// The aligned shape first, as the baseline; then rows or columns that are not whole 128-byte lines (transpose),
// and dimensions that are not multiples of 4 or one past a 128-wide tile (matmul).
const OddShape kTransposeShapes[] = {{"--rows 8192 --cols 8192", "8192 x 8192"},
                                     {"--rows 8191 --cols 8193", "8191 x 8193"},
                                     {"--rows 8193 --cols 8191", "8193 x 8191"}};
const OddShape kMatmulShapes[] = {{"--m 4096 --n 4096 --k 4096", "4096 x 4096 x 4096"},
                                  {"--m 4097 --n 4096 --k 4096", "4097 x 4096 x 4096"},
                                  {"--m 4099 --n 4099 --k 4099", "4099 x 4099 x 4099"},
                                  {"--m 4096 --n 4096 --k 4100", "4096 x 4096 x 4100"},
                                  {"--m 4100 --n 4096 --k 4096", "4100 x 4096 x 4096"}};

// The yardsticks: for a transpose the faster of the two copies (and cuBLAS's own transpose beside it); for a
// matmul cuBLAS FP32.
bool is_best_copy_candidate(const std::string& name) {
    return name == "copy kernel" || name == "cudaMemcpy device-to-device";
}

}  // namespace

bool bench_odd_shapes(const std::string& track, const std::filesystem::path& bin, const std::string& passthrough,
                      const ProgramRunner& run, std::vector<ResultRow>& all) {
    const bool transpose = track == "transpose";
    const std::vector<OddShape> shapes =
        transpose ? std::vector<OddShape>(std::begin(kTransposeShapes), std::end(kTransposeShapes))
                  : std::vector<OddShape>(std::begin(kMatmulShapes), std::end(kMatmulShapes));
    const std::filesystem::path program = bin / fmt::format("solution5_{}", track);
    bool ok = true;
    fmt::print("\n{} step 5 at awkward shapes (one run each)\n", track);
    if (transpose)
        fmt::print("  {:<22} {:>9} {:>11} {:>9}   {}\n", "shape", "step 5", "best copy", "sgeam",
                   "GB/s; step 5 as % of best copy / of sgeam");
    else
        fmt::print("  {:<22} {:>9} {:>11}   {}\n", "shape", "step 5", "cuBLAS FP32",
                   "GFLOP/s; step 5 as % of cuBLAS FP32");
    for (const auto& shape : shapes) {
        const std::string command =
            fmt::format("'{}' --csv --no-host --budget 0 {}{}", program.string(), shape.options, passthrough);
        std::fflush(stdout);  // the tables so far first, when both streams go to one file
        fmt::print(stderr, "  {} {}\n", program.filename().string(), shape.options);
        const auto [csv, status] = run(command);
        std::vector<ResultRow> rows = parse_rows(csv);
        if (status != 0 || rows.empty()) {
            const std::string why = status != 0 ? fmt::format("failed (exit {})", status) : "printed no result rows";
            fmt::print(stderr, "  {} {} {}\n", program.filename().string(), shape.options, why);
            ok = false;
            continue;
        }
        double step = 0, best_copy = 0, geam = 0, cublas = 0;
        std::string step_status;
        for (auto& r : rows) {
            if (r.kind == "step") {
                step_status = r.status;
                step = r.rate;
                r.name = "step 5";
            }
            if (is_best_copy_candidate(r.name)) best_copy = std::max(best_copy, r.rate);
            if (r.name == "cuBLAS transpose (cublasSgeam)") geam = r.rate;
            if (r.name == "cuBLAS SGEMM FP32") cublas = r.rate;
            r.note = "awkward shape";
            all.push_back(r);
        }
        ok &= step_status == "PASS";
        // A rate for a wrong answer is no result: the line says so where a reader looks for the share.
        const std::string verdict =
            step_status == "PASS" ? "" : fmt::format("   step 5: {}", step_status.empty() ? "no row" : step_status);
        const auto pct = [](double a, double b) {
            return b > 0 ? fmt::format("{:.1f}%", 100 * a / b) : std::string("-");
        };
        if (transpose)
            fmt::print("  {:<22} {:>9} {:>11} {:>9}   {} / {}{}\n", shape.label, format_rate(step),
                       format_rate(best_copy), format_rate(geam), pct(step, best_copy), pct(step, geam), verdict);
        else
            fmt::print("  {:<22} {:>9} {:>11}   {}{}\n", shape.label, format_rate(step), format_rate(cublas),
                       pct(step, cublas), verdict);
    }
    return ok;
}

}  // namespace workshop
