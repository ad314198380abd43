#include "check/battery.hpp"

#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <sstream>
#include <thread>
#include <utility>

#include "base/child_processes.hpp"
#include "base/exit_codes.hpp"
#include "base/files.hpp"
#include "check/sanitizer_report.hpp"
#include "check/shapes.hpp"
#include "verify/verify.hpp"

namespace workshop {

namespace {

namespace fs = std::filesystem;

// Knobs for unusual rooms and for the tests: how many shapes run at once, and how long one may take.
int env_int(const char* name, int fallback) {
    const char* v = std::getenv(name);
    const int parsed = v ? std::atoi(v) : 0;
    return parsed > 0 ? parsed : fallback;
}
int parallel_children(const BatteryRequest& r) {
    if (r.one_process_at_a_time) return 1;
    return env_int("WORKSHOP_CHECK_JOBS", std::clamp<int>(std::thread::hardware_concurrency(), 2, 8));
}
double shape_timeout_s() { return env_int("WORKSHOP_CHECK_TIMEOUT", 10); }
// compute-sanitizer starts slowly and slows the kernel down a great deal; its run has a few shapes.
double sanitizer_timeout_s() { return 6 * shape_timeout_s(); }

std::string self_path() {
    std::error_code error;
    const fs::path p = fs::read_symlink("/proc/self/exe", error);
    return error ? std::string("/proc/self/exe") : p.string();
}

// compute-sanitizer on PATH, else beside the nvcc the project was built with.
std::string find_sanitizer() {
    if (const char* path = std::getenv("PATH")) {
        std::istringstream dirs(path);
        std::string dir;
        while (std::getline(dirs, dir, ':'))
            if (!dir.empty() && access((fs::path(dir) / "compute-sanitizer").c_str(), X_OK) == 0)
                return (fs::path(dir) / "compute-sanitizer").string();
    }
#ifdef WORKSHOP_CUDA_BIN_DIR
    const fs::path beside = fs::path(WORKSHOP_CUDA_BIN_DIR) / "compute-sanitizer";
    if (access(beside.c_str(), X_OK) == 0) return beside.string();
#endif
    return {};
}

std::vector<std::string> nonempty_lines(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line))
        if (!line.empty()) lines.push_back(line);
    return lines;
}

std::string last_lines(const std::string& text, size_t n) {
    const auto lines = nonempty_lines(text);
    std::string out;
    for (size_t i = lines.size() > n ? lines.size() - n : 0; i < lines.size(); ++i) out += lines[i] + "\n";
    return out;
}

std::string refusal_line(const std::string& err) {
    for (const auto& line : nonempty_lines(err))
        if ((line.rfind("not enough ", 0) == 0 && line.find("std::bad_alloc") == std::string::npos) ||
            line.rfind("GPU busy: ", 0) == 0)
            return line;
    return {};
}

// A child's clock starts at its ready line (child_processes.hpp says why); a child not ready after this long is
// not run, and says so.
ChildJob child_job() {
    ChildJob job;
    job.ready_line = kChildReady;
    job.pause_line = kChildPaused;
    job.reports = ChildJob::Reports::Channel;
    job.start_timeout_s = 12 * shape_timeout_s();
    return job;
}

ChildJob shape_job(const BatteryRequest& r, const BatteryShape& s) {
    ChildJob job = child_job();
    job.argv = {self_path(), "--check-shape"};
    job.argv.insert(job.argv.end(), s.args.begin(), s.args.end());
    job.argv.insert(job.argv.end(), r.common_args.begin(), r.common_args.end());
    job.timeout_s = shape_timeout_s();
    return job;
}

ChildJob in_turn_job(const BatteryRequest& r) {
    ChildJob job = child_job();
    job.argv = {self_path(), "--check-in-turn"};
    job.argv.insert(job.argv.end(), r.common_args.begin(), r.common_args.end());
    // The whole battery takes about a second on a current GPU; a shape that hangs is found again in its own
    // process, with its own limit, so this one need not be generous.
    job.timeout_s = shape_timeout_s();
    return job;
}

// The round trip at make check's very large shape (step 1): two matrices of 2 GB to the GPU and back, and a check
// of every element, take seconds where a battery shape takes milliseconds.
ChildJob round_trip_job(const BatteryRequest& r) {
    ChildJob job = child_job();
    job.argv = {self_path(), "--check-round-trip"};
    job.argv.insert(job.argv.end(), r.round_trip_shape->args.begin(), r.round_trip_shape->args.end());
    job.argv.insert(job.argv.end(), r.common_args.begin(), r.common_args.end());
    job.timeout_s = 12 * shape_timeout_s();
    return job;
}

// One tool over all the sanitizer shapes, in one process: compute-sanitizer takes seconds to start.
ChildJob sanitizer_job(const std::string& sanitizer, const std::string& tool, const BatteryRequest& r) {
    ChildJob job = child_job();
    job.reports = ChildJob::Reports::None;  // the tool's findings and the exit code say what it found
    job.argv = {self_path(), "--check-sanitizer-shapes", "--no-guards"};
    job.argv.insert(job.argv.end(), r.common_args.begin(), r.common_args.end());
    std::vector<std::string> prefix = {sanitizer, "--tool",           tool, "--error-exitcode", "86", "--print-limit",
                                       "20",      "--show-backtrace", "no"};
    // cudaMalloc packs small allocations end to end: a matrix whose size is a multiple of its alignment (every
    // one with both sides multiples of 32) has the next allocation right after it, and a read a row past its end
    // lands in that one, where memcheck sees nothing wrong. A padding of its own after every allocation (1 MiB,
    // more than any tile of the sanitizer shapes) makes every such read a read outside all allocations. The
    // option is in every compute-sanitizer of CUDA 12 and 13 (2022.3, with CUDA 11.8, has it already).
    if (tool == "memcheck") prefix.insert(prefix.end(), {"--padding", "1048576"});
    if (tool == "memcheck" && r.check_leaks) prefix.insert(prefix.end(), {"--leak-check", "full"});
    job.argv.insert(job.argv.begin(), prefix.begin(), prefix.end());
    job.timeout_s = sanitizer_timeout_s();
    return job;
}

// What one shape's child said (its ShapeReport), or why it said nothing.
struct ShapeOutcome {
    bool pass = false;
    bool timed_out = false;
    std::string not_run_why;  // not_run_reason(), when the shape could not run here
    std::string headline;
    std::vector<std::string> details;
    std::optional<ShapeReport> report;  // where the child sent one
};

// A child that ended with no report: the harness's refusal of a shape too large for the machine (measure/'s
// require_*_memory with WhenShort::Skip) prints its SKIP line and exits 0 before any report can be sent.
std::optional<std::string> skipped_for_memory(const ChildResult& r) {
    if (r.exit_code != kExitOk) return std::nullopt;
    for (const auto& line : nonempty_lines(r.out))
        if (line.rfind("SKIP not tried here: ", 0) == 0) return line;
    return std::nullopt;
}

// `again`: the shape's second run, by itself (run_again_alone).
ShapeOutcome read_shape(const ChildResult& r, bool again = false) {
    ShapeOutcome o;
    o.not_run_why = not_run_reason(r);
    if (!o.not_run_why.empty()) {
        o.headline = "NOT RUN: " + o.not_run_why;
        return o;
    }
    if (r.timed_out) {
        o.timed_out = true;
        o.headline = fmt::format("FAIL: {}{}: the kernel never finished", describe_ending(r),
                                 again ? ", also when run again by itself" : "");
        o.details.push_back(
            "an endless loop (a loop whose counter never reaches its bound), or a __syncthreads() "
            "that some threads of the block never reach");
        return o;
    }
    if (auto reports = reports_in(r.reports); !reports.empty()) {
        o.report = std::move(reports.back());
        o.pass = o.report->outcome != ShapeReport::Outcome::Fail && r.exit_code == kExitOk;
        o.headline = o.report->headline;
        o.details = o.report->details;
        return o;
    }
    if (const auto skip = skipped_for_memory(r)) {
        o.pass = true;
        o.headline = *skip;
        return o;
    }
    // The program ended before it could say anything: a CUDA call that failed in the step's own host code
    // (step 1), or a crash.
    o.headline = fmt::format("FAIL: the program ended ({}) before its verdict", describe_ending(r));
    for (const auto& line : nonempty_lines(last_lines(r.err, 3))) o.details.push_back(line);
    return o;
}

struct ToolOutcome {
    bool clean = false;
    std::string not_run_why;  // as for a shape
    std::string line;
    std::vector<SanitizerFinding> findings;
    std::string tool_lines;  // the tool's own lines ("========= ..."), indented, at most 40
};

std::string tool_lines_indented(const std::string& output, int most) {
    std::istringstream lines(output);
    std::string line, kept;
    int count = 0;
    while (std::getline(lines, line))
        if (line.rfind("=========", 0) == 0 && count++ < most) kept += "    " + line + "\n";
    if (count > most) kept += fmt::format("    ({} more lines)\n", count - most);
    return kept;
}

ToolOutcome read_tool(const std::string& tool, const ChildResult& r) {
    ToolOutcome o;
    o.findings = parse_sanitizer_output(tool, r.out + r.err);
    o.tool_lines = tool_lines_indented(r.out + r.err, 40);
    // What a tool found in a program that ended before its ready line is the refusal itself, not the student's
    // code (not_run_reason says why).
    const bool ended_before_ready = !r.ready && !r.timed_out;
    o.not_run_why = o.findings.empty() || ended_before_ready ? not_run_reason(r) : std::string();
    if (!o.not_run_why.empty()) {
        o.line = "NOT RUN: " + o.not_run_why;
    } else if (r.timed_out) {
        o.line = fmt::format("not finished ({}); the shapes above say why", describe_ending(r));
    } else if (!o.findings.empty() || r.exit_code == 86) {
        o.line = o.findings.empty() ? "FOUND PROBLEMS (see make sanitize)" : "FAIL: " + o.findings.front().sentence();
    } else if (r.exit_code == kExitOk || r.exit_code == kExitWrongAnswer || r.exit_code == kExitCudaError) {
        // A wrong answer or a CUDA error is the battery's to report; the tool itself found nothing.
        o.clean = true;
        o.line = "clean";
    } else {
        o.line = fmt::format("could not run ({}): {}", describe_ending(r), last_lines(r.err, 1));
        if (!o.line.empty() && o.line.back() == '\n') o.line.pop_back();
    }
    return o;
}

// A tool whose only findings are CUDA calls that failed with cudaErrorLaunchFailure stopped a kernel without
// saying why, which a busy GPU can make a tool do even for a bug it names in every other run (step5/MEASURED.md,
// "Notes moved from the code"). Such a tool runs once more, by itself, and its second answer stands: the same
// again for a kernel that traps.
bool stopped_a_kernel_without_a_report(const ToolOutcome& o) {
    return !o.findings.empty() && std::all_of(o.findings.begin(), o.findings.end(), [](const SanitizerFinding& f) {
        return f.is_api_error() && f.api_error == "cudaErrorLaunchFailure";
    });
}

void run_unexplained_tools_again(std::vector<ToolOutcome>& outcomes, const std::vector<std::string>& tools,
                                 const std::string& sanitizer, const BatteryRequest& request) {
    for (size_t t = 0; t < outcomes.size(); ++t) {
        if (!stopped_a_kernel_without_a_report(outcomes[t])) continue;
        // Kept in the log: the cause of these has not been seen yet, and the second run may not show it.
        fmt::print("{} stopped a kernel without saying why: running it again, by itself. What it printed:\n{}",
                   tools[t], outcomes[t].tool_lines);
        std::fflush(stdout);
        run_children({sanitizer_job(sanitizer, tools[t], request)}, 1,
                     [&](size_t, const ChildResult& again) { outcomes[t] = read_tool(tools[t], again); });
    }
}

void print_block(const std::string& label, const std::string& headline, const std::vector<std::string>& details) {
    fmt::print("  {:<14} {}\n", label, headline);
    for (const auto& d : details) fmt::print("  {:<14}   -> {}\n", "", d);
    std::fflush(stdout);
}

// "a", "a and b", "a, b and c".
std::string joined_with_and(const std::vector<std::string>& items) {
    std::string out;
    for (size_t i = 0; i < items.size(); ++i) out += (i == 0 ? "" : i + 1 < items.size() ? ", " : " and ") + items[i];
    return out;
}

// Strips "FAIL: " for the summary.
std::string reason_of(const std::string& headline) {
    return headline.rfind("FAIL: ", 0) == 0 ? headline.substr(6) : headline;
}

}  // namespace

std::string refusal_in(const std::string& err) { return refusal_line(err); }

std::string not_run_reason(const ChildResult& r) {
    if (r.timed_out && !r.ready)
        return fmt::format("not ready to start after {:.0f} s: the GPU or the machine is busy with other programs",
                           r.seconds);
    if (r.timed_out) return {};
    // Before its ready line a child has run none of the student's code, so its refusal stands whatever the exit
    // code: under compute-sanitizer, a program refused its CUDA context ends with the tool's code (memcheck reports
    // the failed call that makes the context, racecheck the exit code).
    if (!r.ready || r.exit_code == kExitOutOfMemory) return refusal_line(r.err);
    return {};
}

std::string what_to_do_when_not_run(const std::string& why) {
    if (why.rfind("not enough device memory", 0) == 0)
        return "end some of the programs that hold it, or wait for them (nvidia-smi lists them), and run make check "
               "again";
    if (why.rfind("not enough host memory", 0) == 0)
        return "free some (or ask the job for more) and run make check again";
    return "run make check again when it is less busy";
}

std::vector<std::optional<ChildResult>> run_again_alone(const std::vector<ChildJob>& jobs) {
    std::vector<std::optional<ChildResult>> results(jobs.size());
    for (size_t i = 0; i < jobs.size(); ++i) {
        run_children({jobs[i]}, 1, [&](size_t, const ChildResult& r) { results[i] = r; });
        if (results[i]->timed_out) break;
    }
    return results;
}

std::vector<std::optional<ChildResult>> finished_shapes(const std::string& reports, size_t shape_count) {
    std::vector<std::optional<ChildResult>> finished(shape_count);
    for (const ShapeReport& report : reports_in(reports)) {
        if (report.shape < 0 || static_cast<size_t>(report.shape) >= shape_count) continue;
        ChildResult r;
        r.exit_code = report.exit_code;
        r.reports = report_line(report);
        finished[report.shape] = r;
    }
    return finished;
}

std::string mixed_up_sizes_hint(const std::vector<BatteryShape>& shapes, const std::vector<bool>& passed) {
    bool equal_sides_tried = false, unequal_failed = false;
    for (size_t i = 0; i < shapes.size() && i < passed.size(); ++i) {
        if (shapes[i].outgrows_a_grid) continue;
        if (shapes[i].equal_sides && !passed[i]) return {};
        equal_sides_tried |= shapes[i].equal_sides;
        unequal_failed |= !shapes[i].equal_sides && !passed[i];
    }
    if (!equal_sides_tried || !unequal_failed) return {};
    return "every shape with equal sides passes and only the others fail: is one size used where another belongs "
           "(rows for cols, M for N)?";
}

std::string grid_height_hint(const std::vector<BatteryShape>& shapes, const std::vector<bool>& passed) {
    bool long_failed = false, short_tried = false;
    for (size_t i = 0; i < shapes.size() && i < passed.size(); ++i) {
        if (!shapes[i].outgrows_a_grid && !passed[i]) return {};
        long_failed |= shapes[i].outgrows_a_grid && !passed[i];
        short_tried |= !shapes[i].outgrows_a_grid;
    }
    if (!long_failed || !short_tried) return {};
    return fmt::format(
        "only the shapes with a side over {} (65535 blocks of 16) fail: a grid is at most 65535 "
        "blocks tall (y); is the count there capped, and does each thread loop over what the grid "
        "does not reach?",
        kSideOfOneGridHeight);
}

std::string unsteady_answers_hint(size_t unsteady, size_t failing) {
    if (unsteady == 0) return {};
    const std::string which = failing == 1          ? "the failing shape"
                              : unsteady == failing ? fmt::format("all {} failing shapes", failing)
                                                    : fmt::format("{} of the {} failing shapes", unsteady, failing);
    return which +
           " gave another answer when launched again, with every element written: look first for a value "
           "read before it is set, or a race, rather than a wrong size (the shapes that pass may pass by luck)";
}

bool unsteady_answer(const std::string& headline) {
    return headline.find(kChangedByRelaunch) != std::string::npos &&
           headline.find(kNeverWrittenEither) == std::string::npos &&
           headline.find(kFromUnsetShared) == std::string::npos;
}

std::string non_blocking_stream_hint() {
    return "the program made a stream with cudaStreamNonBlocking, which the checks' work on the default stream "
           "never waits for: a kernel on it runs before the NaN they pour into the output, so every shape fails until "
           "the kernel is launched on the default stream";
}

std::string byte_count_hint(bool battery_passed) {
    if (!battery_passed) return {};
    return "only the round trip with matrices of more than 2^31 bytes fails: is a byte count kept in an int (or "
           "worked out in int, with a 4 for sizeof(float))? Past 2^31 it turns negative; count bytes in size_t";
}

// The tools of make check and make sanitize alike. synccheck is the one that names a __syncthreads() inside an if
// that only some threads of a warp enter; racecheck, if it sees anything, blames the accesses around it.
const std::vector<std::string> kSanitizerTools = {"memcheck", "racecheck", "synccheck"};

namespace {

// What run_battery has found so far, phase by phase.
struct BatteryRun {
    const BatteryRequest& request;
    std::string sanitizer;  // empty where compute-sanitizer was not found
    int parallel;
    std::vector<ShapeOutcome> shapes;
    std::vector<bool> shape_done;
    std::vector<ToolOutcome> tools;
    ShapeOutcome round_trip;
    size_t next_to_print = 0;

    explicit BatteryRun(const BatteryRequest& r)
        : request(r),
          sanitizer(find_sanitizer()),
          parallel(parallel_children(r)),
          shapes(r.shapes.size()),
          shape_done(r.shapes.size(), false) {}

    bool has_round_trip() const { return request.round_trip_shape.has_value(); }
    // The shapes print in the battery's order, each once every shape before it has.
    void print_finished_in_order() {
        for (; next_to_print < shapes.size() && shape_done[next_to_print]; ++next_to_print)
            print_block(request.shapes[next_to_print].label, shapes[next_to_print].headline,
                        shapes[next_to_print].details);
    }
};

void print_battery_header(const BatteryRun& run) {
    const BatteryRequest& request = run.request;
    const bool has_round_trip = run.has_round_trip();
    fmt::print(
        "{}: {} shapes{}; outputs poisoned with NaN and guarded by canaries{}, and the device and pinned "
        "memory the calls allocate and the shared memory every launch finds start as NaN too; two more "
        "calls at each shape, the last one verified too, and two at larger sizes after the small ones, "
        "which fail a launch that leaves memory (or a stream, event, texture or surface object or graph) "
        "behind on every call, or device memory at every new size; a failing answer launched once more, to "
        "see whether it changes; +N: the matrices start N floats past an aligned address\n",
        request.title, request.shapes.size(),
        has_round_trip
            ? fmt::format(", then the round trip at {} (over 2^31 bytes a matrix)", request.round_trip_shape->label)
            : std::string(),
        has_round_trip ? ", host matrices by pages with no access" : "");
    if (request.one_process_at_a_time)
        fmt::print(
            "this GPU takes one process at a time (compute mode exclusive-process), so they run one after "
            "another\n");
    std::fflush(stdout);
}

// The tools, every shape in one process, and step 1's round trip.
void run_first_pass(BatteryRun& run) {
    std::vector<ChildJob> jobs;
    // The slow sanitizer runs start first, so they overlap with the shapes.
    if (!run.sanitizer.empty())
        for (const auto& tool : kSanitizerTools) jobs.push_back(sanitizer_job(run.sanitizer, tool, run.request));
    const size_t in_turn = jobs.size();
    run.tools.resize(in_turn);
    jobs.push_back(in_turn_job(run.request));
    if (run.has_round_trip()) jobs.push_back(round_trip_job(run.request));
    run_children(jobs, run.parallel, [&](size_t job, const ChildResult& r) {
        if (job < in_turn) {
            run.tools[job] = read_tool(kSanitizerTools[job], r);
            return;
        }
        if (job > in_turn) {
            run.round_trip = read_shape(r);
            return;
        }
        const auto finished = finished_shapes(r.reports, run.shapes.size());
        for (size_t i = 0; i < run.shapes.size(); ++i) {
            if (!finished[i]) continue;
            run.shapes[i] = read_shape(*finished[i]);
            run.shape_done[i] = true;
        }
        run.print_finished_in_order();
    });
}

// Shapes that timed out beside others: once more each, by itself (run_again_alone).
void run_no_answers_again(BatteryRun& run, std::vector<size_t> no_answer) {
    std::sort(no_answer.begin(), no_answer.end());
    fmt::print(
        "{} shape{} gave no answer in {:.0f} s beside other shapes: running {} again, one at a time, "
        "by {}\n",
        no_answer.size(), no_answer.size() > 1 ? "s" : "", shape_timeout_s(), no_answer.size() > 1 ? "them" : "it",
        no_answer.size() > 1 ? "themselves" : "itself");
    std::fflush(stdout);
    std::vector<ChildJob> again;
    for (size_t i : no_answer) again.push_back(shape_job(run.request, run.request.shapes[i]));
    const auto second = run_again_alone(again);
    for (size_t k = 0; k < no_answer.size(); ++k) {
        // After a shape that timed out by itself too, the rest keep their first answer.
        if (second[k]) run.shapes[no_answer[k]] = read_shape(*second[k], true);
        run.shape_done[no_answer[k]] = true;
    }
    run.print_finished_in_order();
}

// The shape that crashed or hung the first pass's process, and those after it: a process each.
void run_the_rest_a_process_each(BatteryRun& run) {
    std::vector<size_t> rest;
    std::vector<ChildJob> rest_jobs;
    for (size_t i = 0; i < run.shapes.size(); ++i) {
        if (run.shape_done[i]) continue;
        rest.push_back(i);
        rest_jobs.push_back(shape_job(run.request, run.request.shapes[i]));
    }
    const bool side_by_side = rest_jobs.size() > 1 && run.parallel > 1;
    std::vector<size_t> no_answer;  // shapes that timed out beside others: their verdict waits for a second run
    run_children(rest_jobs, run.parallel, [&](size_t job, const ChildResult& r) {
        run.shapes[rest[job]] = read_shape(r);
        if (side_by_side && run.shapes[rest[job]].timed_out) {
            no_answer.push_back(rest[job]);
            return;
        }
        run.shape_done[rest[job]] = true;
        run.print_finished_in_order();
    });
    if (!no_answer.empty()) run_no_answers_again(run, no_answer);
}

bool ran(const ShapeOutcome& o) { return o.not_run_why.empty(); }
bool failed(const ShapeOutcome& o) { return !o.pass && ran(o); }

// The hint that reads a pattern into the failing shapes, where there is one to read.
std::vector<std::string> pattern_hints(const BatteryRun& run, size_t failing, size_t not_run) {
    std::vector<bool> passed;
    for (const ShapeOutcome& o : run.shapes) passed.push_back(o.pass);
    const auto unsteady = std::count_if(run.shapes.begin(), run.shapes.end(), [&](const ShapeOutcome& o) {
        return failed(o) && o.report && o.report->unsteady;
    });
    const bool stream_made = std::any_of(run.shapes.begin(), run.shapes.end(), [&](const ShapeOutcome& o) {
        return failed(o) && o.report && o.report->non_blocking_stream;
    });
    if (stream_made) return {non_blocking_stream_hint()};  // every shape fails for it: no pattern to read
    if (unsteady) return {unsteady_answers_hint(unsteady, failing)};
    std::vector<std::string> hints;
    if (not_run) return hints;  // with some not run, there is no pattern to read
    for (auto hint : {mixed_up_sizes_hint(run.request.shapes, passed), grid_height_hint(run.request.shapes, passed)})
        if (!hint.empty()) hints.push_back(std::move(hint));
    return hints;
}

// What the shapes and the round trip got wrong. A shape not run here (too little memory, a GPU too busy to start
// it) is neither passed nor failed: it counts for no hint, and alone it makes the verdict NOT CHECKED, not FAIL.
std::vector<std::string> shape_reasons(const BatteryRun& run) {
    const auto& shapes = run.shapes;
    const size_t failing = std::count_if(shapes.begin(), shapes.end(), failed);
    const size_t not_run = std::count_if(shapes.begin(), shapes.end(), std::not_fn(ran));
    std::vector<std::string> reasons;
    if (failing) {
        const auto first = std::find_if(shapes.begin(), shapes.end(), failed);
        reasons.push_back(fmt::format("{} of {} shapes fail, first {}: {}", failing, shapes.size(),
                                      run.request.shapes[first - shapes.begin()].label, reason_of(first->headline)));
        for (auto& hint : pattern_hints(run, failing, not_run)) reasons.push_back(std::move(hint));
    }
    const bool round_trip_not_run = run.has_round_trip() && !ran(run.round_trip);
    if (run.has_round_trip() && !run.round_trip.pass && !round_trip_not_run) {
        reasons.push_back(fmt::format("the round trip at {}: {}", run.request.round_trip_shape->label,
                                      reason_of(run.round_trip.headline)));
        if (auto hint = byte_count_hint(failing == 0 && not_run == 0); !hint.empty())
            reasons.push_back(std::move(hint));
    }
    return reasons;
}

// Prints each tool's line; adds what they found to `reasons`; returns the tools that could not run here, and
// sets `checks_note` to what the PASS line says of them.
std::vector<std::string> report_tools(const BatteryRun& run, std::vector<std::string>& reasons,
                                      std::string& checks_note) {
    if (run.sanitizer.empty()) {
        checks_note =
            "memory, race and barrier checks not run (compute-sanitizer not found; it comes with the CUDA Toolkit)";
        fmt::print("{}\n", checks_note);
        return {};
    }
    const bool failing = std::any_of(run.shapes.begin(), run.shapes.end(), failed);
    const bool any_timeout =
        std::any_of(run.shapes.begin(), run.shapes.end(), [](const ShapeOutcome& o) { return o.timed_out; });
    fmt::print("memory checks at {} (compute-sanitizer, guards off):\n", joined_with_and(run.request.sanitizer_shapes));
    std::vector<std::string> not_run_tools;
    bool all_clean = true;
    for (size_t t = 0; t < kSanitizerTools.size(); ++t) {
        const ToolOutcome& o = run.tools[t];
        all_clean &= o.clean;
        if (!o.not_run_why.empty()) {  // what it found, if anything, is about the refusal
            not_run_tools.push_back(kSanitizerTools[t]);
            print_block(kSanitizerTools[t], o.line, {});
            continue;
        }
        std::vector<std::string> more;
        for (size_t f = 1; f < o.findings.size() && f < 4; ++f) more.push_back(o.findings[f].sentence());
        print_block(kSanitizerTools[t], o.line, more);
        // A failed CUDA call is already a failing shape above; a bad access or a race is news.
        const auto news = std::find_if(o.findings.begin(), o.findings.end(),
                                       [&](const SanitizerFinding& f) { return !f.is_api_error() || !failing; });
        if (news != o.findings.end())
            reasons.push_back(news->sentence());
        else if (o.findings.empty() && !o.clean && !any_timeout)
            reasons.push_back(kSanitizerTools[t] + " " + o.line);
    }
    checks_note = all_clean ? "memcheck, racecheck and synccheck clean" : "";
    return not_run_tools;
}

// NOT CHECKED: what could not run here, and the first reason why; empty where everything ran.
std::string not_checked_reason(const BatteryRun& run, const std::vector<std::string>& not_run_tools) {
    const auto& shapes = run.shapes;
    const auto not_run = std::count_if(shapes.begin(), shapes.end(), std::not_fn(ran));
    const bool round_trip_not_run = run.has_round_trip() && !ran(run.round_trip);
    if (!not_run && !round_trip_not_run && not_run_tools.empty()) return {};
    std::vector<std::string> what;
    if (not_run) what.push_back(fmt::format("{} of {} shapes", not_run, shapes.size()));
    if (round_trip_not_run) what.push_back("the round trip at " + run.request.round_trip_shape->label);
    what.insert(what.end(), not_run_tools.begin(), not_run_tools.end());
    const auto shape = std::find_if_not(shapes.begin(), shapes.end(), ran);
    const auto tool =
        std::find_if(run.tools.begin(), run.tools.end(), [](const ToolOutcome& o) { return !o.not_run_why.empty(); });
    const std::string& why = shape != shapes.end() ? shape->not_run_why
                             : round_trip_not_run  ? run.round_trip.not_run_why
                                                   : tool->not_run_why;
    return fmt::format("{} could not run here, and nothing that ran failed: {}; {}", joined_with_and(what), why,
                       what_to_do_when_not_run(why));
}

std::string pass_reason(const BatteryRun& run, const std::string& checks_note) {
    std::string round_trip_note;
    if (run.has_round_trip()) {
        const std::string& label = run.request.round_trip_shape->label;
        round_trip_note = run.round_trip.headline.rfind("SKIP", 0) == 0
                              ? fmt::format(" (the round trip at {} not tried here: too little memory)", label)
                              : fmt::format(", and the round trip at {}", label);
    }
    return fmt::format("correct on all {} shapes{}{}{}", run.shapes.size(), round_trip_note,
                       checks_note.empty() ? "" : "; ", checks_note);
}

// The map of the shape shape_to_map picks among the failing ones, under the FAIL line; where its picture went.
std::string print_the_map(const BatteryRun& run) {
    std::vector<std::optional<ShapeReport>> failing;
    for (const ShapeOutcome& o : run.shapes) failing.push_back(failed(o) ? o.report : std::nullopt);
    const auto shape = shape_to_map(failing);
    return shape ? print_map(*failing[*shape], run.request.shapes[*shape].label) : std::string();
}

}  // namespace

BatteryOutcome run_battery(const BatteryRequest& request) {
    BatteryRun run(request);
    print_battery_header(run);
    run_first_pass(run);
    run_the_rest_a_process_each(run);
    run_unexplained_tools_again(run.tools, kSanitizerTools, run.sanitizer, request);
    // Printed last, as the header said: it usually finishes last too.
    if (run.has_round_trip())
        print_block(request.round_trip_shape->label, run.round_trip.headline, run.round_trip.details);

    std::vector<std::string> reasons = shape_reasons(run);
    std::string checks_note;
    const std::vector<std::string> not_run_tools = report_tools(run, reasons, checks_note);
    BatteryOutcome outcome;
    outcome.sanitizers_ran = !run.sanitizer.empty();
    if (const std::string why = not_checked_reason(run, not_run_tools); reasons.empty() && !why.empty()) {
        outcome = {kExitOutOfMemory, why, outcome.sanitizers_ran, ""};
        fmt::print("NOT CHECKED: {}\n", why);
    } else if (reasons.empty()) {
        outcome.reason = pass_reason(run, checks_note);
        fmt::print("PASS: {}\n", outcome.reason);
    } else {
        outcome.exit_code = kExitWrongAnswer;
        for (size_t i = 0; i < reasons.size(); ++i) outcome.reason += (i ? "; " : "") + reasons[i];
        fmt::print("FAIL: {}\n", outcome.reason);
        outcome.map_picture = print_the_map(run);
    }
    std::fflush(stdout);
    return outcome;
}

int run_sanitizers(const BatteryRequest& request) {
    const std::string sanitizer = find_sanitizer();
    if (sanitizer.empty()) {
        fmt::print(stderr,
                   "error: compute-sanitizer not found; it ships with the CUDA Toolkit (add its bin/ to PATH)\n");
        return kExitBadUsage;
    }
    const std::vector<std::string>& tools = kSanitizerTools;
    std::vector<ChildJob> jobs;
    for (const auto& tool : tools) jobs.push_back(sanitizer_job(sanitizer, tool, request));
    std::vector<ToolOutcome> outcomes(jobs.size());
    run_children(jobs, request.one_process_at_a_time ? 1 : static_cast<int>(jobs.size()),
                 [&](size_t i, const ChildResult& r) { outcomes[i] = read_tool(tools[i], r); });
    run_unexplained_tools_again(outcomes, tools, sanitizer, request);

    fmt::print("{} under compute-sanitizer at {} (guards off):\n", request.title,
               joined_with_and(request.sanitizer_shapes));
    bool clean = true, not_run = false;
    for (size_t t = 0; t < tools.size(); ++t) {
        const ToolOutcome& o = outcomes[t];
        std::vector<std::string> all;
        for (size_t f = 1; f < o.findings.size() && o.not_run_why.empty(); ++f) all.push_back(o.findings[f].sentence());
        print_block(tools[t], o.line, all);
        not_run |= !o.not_run_why.empty();
        clean &= o.clean || !o.not_run_why.empty();
    }
    return !clean ? kExitWrongAnswer : not_run ? kExitOutOfMemory : kExitOk;
}

std::filesystem::path map_picture_path(const std::filesystem::path& program) {
    const fs::path path = program.empty() ? fs::path(self_path()) : program;
    return path.parent_path() / "maps" / (path.filename().string() + ".svg");
}

std::string print_map(const ShapeReport& report, const std::string& label, const std::filesystem::path& picture) {
    if (report.map.empty()) return {};
    const char* colour = std::getenv("WORKSHOP_COLOR");
    const bool in_colour = (colour && std::string(colour) == "always") || isatty(STDOUT_FILENO);
    fmt::print("the map of the wrong answer{}: {}\n{}", label.empty() ? "" : " at " + label,
               report.map_headline.empty() ? "no pattern stands out" : report.map_headline,
               in_colour ? report.map_in_colour : report.map);
    try {
        std::error_code error;
        fs::create_directories(picture.parent_path(), error);
        write_file_atomically(picture, report.map_svg);
        fmt::print("the map as a picture: {}\n", picture.string());
        std::fflush(stdout);
        return picture.string();
    } catch (const FileError& e) { fmt::print("note: the map's picture was not written: {}\n", e.what()); }
    std::fflush(stdout);
    return {};
}

std::optional<size_t> shape_to_map(const std::vector<std::optional<ShapeReport>>& reports) {
    std::optional<size_t> best;
    const auto better = [&](size_t i) {
        const ShapeReport &a = *reports[i], &b = *reports[*best];
        const bool a_blocks = a.map_blocks_down >= 2 && a.map_blocks_across >= 2;
        const bool b_blocks = b.map_blocks_down >= 2 && b.map_blocks_across >= 2;
        return a_blocks != b_blocks ? a_blocks : a.map_elements < b.map_elements;
    };
    for (size_t i = 0; i < reports.size(); ++i)
        if (reports[i] && !reports[i]->map.empty() && (!best || better(i))) best = i;
    return best;
}

}  // namespace workshop
