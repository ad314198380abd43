#include "progress/progress_status.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>
#include <vector>

#include "base/exit_codes.hpp"
#include "base/files.hpp"
#include "base/child_processes.hpp"
#include "progress/progress.hpp"
#include "report/report.hpp"

namespace workshop {

namespace fs = std::filesystem;

namespace {

// One row of the table: what was found about one step and track.
struct StatusRow {
    int step = 0;
    std::string track;
    std::string builds = "yes", correct = "-", speed = "-", ratio = "-";
    std::string problem;  // what to do about it; empty when nothing is
    std::optional<RateRow> mine, solution;
    bool ran = false;        // a program ran (it was built, and this is not the recorded list)
    bool no_device = false;  // and it said there is no CUDA device
};

std::string target(const char* who, int step, const std::string& track) {
    return fmt::format("{}{}_{}", who, step, track);
}

// The size each track is timed at: large enough to fill a GPU, small enough to take a moment.
const char* timed_size(const std::string& track) { return track == "transpose" ? "4096" : "2048"; }

std::optional<RateRow> measured_rate(const fs::path& program, const std::string& track) {
    const ProgramRun r =
        run_program_quietly({program.string(), "--size", timed_size(track), "--reps", "5", "--min-time", "0",
                             "--warmup", "1", "--json", "--no-references", "--no-host"});
    if (r.exit_code != kExitOk) return std::nullopt;
    return row_of_kind(r.out, "step");
}

// A failed build left BUILD/status/TARGET.log (status.sh builds each program alone): its first error line.
void read_build(const StatusRequest& request, StatusRow& row) {
    std::ifstream log(request.build / "status" / (target("step", row.step, row.track) + ".log"));
    if (!log) return;
    row.builds = "NO";
    std::string line, first_error;
    while (first_error.empty() && std::getline(log, line))
        if (line.find("error") != std::string::npos) first_error = line;
    row.problem = "fix the compile error: " + first_error;
}

void read_check(const fs::path& bin, StatusRow& row) {
    const int code = run_program_quietly({(bin / target("step", row.step, row.track)).string(), "--check"}).exit_code;
    row.ran = true;
    if (code == kExitNoDevice) {
        row.no_device = true;
        row.ratio = "no GPU";
    } else if (code == kExitOk) {
        row.correct = "PASS";
    } else if (code == kExitOutOfMemory) {
        row.problem =
            "part of the check could not run here (too little free memory, or a GPU too busy): make check says which";
    } else {
        row.correct = "FAIL";
        row.problem = "make check shows the first wrong element";
    }
}

void read_speed(const fs::path& bin, StatusRow& row) {
    row.mine = measured_rate(bin / target("step", row.step, row.track), row.track);
    row.solution = measured_rate(bin / target("solution", row.step, row.track), row.track);
    const std::string todo = fmt::format("the TODOs in step{}/{}.cu", row.step, row.track);
    if (row.mine && row.solution && row.solution->rate > 0) {
        row.speed = fmt::format("{:.0f} {}", row.mine->rate, row.mine->unit);
        row.ratio = fmt::format("{:.0f}%", 100 * row.mine->rate / row.solution->rate);
        if (row.problem.empty() && row.mine->rate < kDonePercent / 100 * row.solution->rate)
            row.problem = "correct but slower than the solution: " + todo;
    } else if (!row.mine && row.correct == "-") {
        row.ratio = "not run here";  // the check could not run either: nothing says there is no kernel
    } else if (!row.mine && row.correct != "FAIL") {
        // (A wrong kernel may have no rate either: its timed run stops at a wrong answer.)
        row.ratio = "no kernel yet";
        if (row.problem.empty()) row.problem = "write the first kernel: " + todo;
    }
}

// What was measured is a verdict too: make watch and the next make status start from it. No GPU, or a check that
// could not run here, says nothing about the code and records nothing.
void record(const fs::path& top, const StatusRow& row) {
    StepVerdict verdict;
    verdict.step = row.step;
    verdict.track = row.track;
    verdict.outcome = Outcome::Fail;
    if (row.correct == "PASS") {
        verdict.outcome = row.mine ? Outcome::Pass : Outcome::PassWithoutKernel;
        if (row.mine) {
            verdict.rate = row.mine->rate;
            verdict.unit = row.mine->unit;
            if (row.solution && row.solution->rate > 0)
                verdict.percent_of_solution = 100 * row.mine->rate / row.solution->rate;
        }
    } else if (row.correct != "FAIL") {
        return;
    }
    remember_verdict(top, verdict);
}

StatusRow measure(const StatusRequest& request, int step, const std::string& track) {
    StatusRow row;
    row.step = step;
    row.track = track;
    if (request.mode == StatusMode::Recorded) {
        row.builds = "-";
        return row;
    }
    read_build(request, row);
    if (row.builds != "yes") return row;
    const fs::path bin = request.build / "bin";
    read_check(bin, row);
    if (row.no_device) return row;
    read_speed(bin, row);
    record(request.top, row);
    return row;
}

std::string format_line(const StatusRequest& request, const StatusRow& row, const std::string& summary) {
    if (request.mode == StatusMode::Recorded) return fmt::format("{:<6} {:<10} {}", row.step, row.track, summary);
    return fmt::format("{:<6} {:<10} {:<8} {:<8} {:<14} {:<14} {}", row.step, row.track, row.builds, row.correct,
                       row.speed, row.ratio, summary);
}

std::string class_row(const StatusRow& row, bool marked) {
    auto rate = [](const std::optional<RateRow>& r) { return r ? fmt::format("{:g}", r->rate) : std::string(); };
    return fmt::format("{},{},{},{},{},{},{}\n", row.step, row.track, row.builds, row.correct, rate(row.mine),
                       rate(row.solution), marked ? "next" : "");
}

void print_header(const StatusRequest& request) {
    if (request.mode == StatusMode::Recorded)
        fmt::print("{:<6} {:<10} {}\n", "step", "track", "last make check");
    else
        fmt::print("{:<6} {:<10} {:<8} {:<8} {:<14} {:<14} {}\n", "step", "track", "builds", "correct", "speed",
                   "of solution", "last make check");
}

}  // namespace

std::optional<RateRow> row_of_kind(const std::string& json_rows, const std::string& kind) {
    const nlohmann::json rows = last_json_array(json_rows);
    if (!rows.is_array()) return std::nullopt;
    for (const auto& row : rows) {
        if (!row.is_object() || row.value("kind", std::string()) != kind) continue;
        const auto rate = row.find("rate");
        if (rate == row.end() || !rate->is_number() || !(rate->get<double>() > 0)) return std::nullopt;
        return RateRow{row.value("name", std::string()), rate->get<double>(), row.value("unit", std::string())};
    }
    return std::nullopt;
}

int print_status(const StatusRequest& request) {
    print_header(request);
    std::string next, class_rows;
    int ran = 0, without_device = 0;
    for (int step = 1; step <= kSteps; ++step) {
        for (const auto& track : all_tracks()) {
            StatusRow row = measure(request, step, track);
            ran += row.ran;
            without_device += row.no_device;
            const Progress progress(request.top);  // read again: this row may just have been recorded
            if (row.problem.empty()) row.problem = progress.advice(step, track);
            const std::string line = format_line(request, row, progress.summary(step, track));
            const bool marked = next.empty() && !row.problem.empty();
            if (marked) {
                next = fmt::format("step {} ({}): {}; then cd step{} && make check (the lesson: step{}/README.md)",
                                   step, track, row.problem, step, step);
                fmt::print("{}{}   <- next{}\n", request.emphasis ? "\033[1m" : "", line,
                           request.emphasis ? "\033[0m" : "");
            } else {
                fmt::print("{}\n", line);
            }
            std::fflush(stdout);
            class_rows += class_row(row, marked);
        }
    }
    const bool no_device = ran > 0 && without_device == ran;
    if (no_device)
        fmt::print(
            "\n(no CUDA device here: the table shows whether each step builds; correctness and speed need a "
            "GPU)\n");
    if (next.empty())
        fmt::print("\nevery step is done: each passed its checks close to its solution.\n");
    else
        fmt::print("\nnext: {}\n", next);
    if (!request.class_rows.empty()) write_file_atomically(request.class_rows, class_rows);
    return no_device ? kExitNoDevice : kExitOk;
}

}  // namespace workshop
