#include "programs/program_support.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

#include "report/wrong_answer_map.hpp"
#include "step/cuda_check.cuh"
#include "base/exit_codes.hpp"
#include "ledger/cuda_objects.hpp"

namespace workshop {

Options parse_or_exit(Track track, int argc, char** argv) {
    const ParseOutcome parsed = parse_options(track, argc, argv);
    if (!parsed.ok()) {
        fmt::print(stderr, "error: {}\n", parsed.error);
        std::exit(kExitBadUsage);
    }
    if (parsed.options.help) {
        fmt::print("{}", usage_text(track, argc > 0 ? argv[0] : "program"));
        std::exit(kExitOk);
    }
    return parsed.options;
}

namespace {
Options shape_check(const Options& base) {
    Options o;
    o.mode = Mode::CheckShape;
    o.seed = base.seed;
    o.guards = base.guards;
    return o;
}
}  // namespace

Options options_for_shape(const TransposeShape& shape, const Options& base) {
    Options o = shape_check(base);
    o.rows = shape.rows, o.cols = shape.cols, o.misalign = shape.misalign;
    return o;
}

Options options_for_shape(const MatmulShape& shape, const Options& base) {
    Options o = shape_check(base);
    o.M = shape.M, o.N = shape.N, o.K = shape.K, o.misalign = shape.misalign;
    return o;
}

std::string this_program() {
    std::error_code error;
    const std::filesystem::path p = std::filesystem::read_symlink("/proc/self/exe", error);
    return error ? std::string("/proc/self/exe") : p.string();
}

bool timed_by_make_check() {
    const char* gate = std::getenv("WORKSHOP_TIMING_GATE");
    return gate && *gate;
}

FurtherCalls further_calls_before_timing() { return timed_by_make_check() ? FurtherCalls::Skip : FurtherCalls::Check; }

std::string where_make_check_times(const std::string& shape) {
    return timed_by_make_check() ? fmt::format("at the size make check times ({}): ", shape) : std::string();
}

namespace {

// A leak or a misused call already names the function it judges ("leak: every call of transpose_from_host ..."):
// the name is said once, where the kernel's own leak says it too.
std::string unless_the_headline_names_it(const std::string& what, const std::string& headline) {
    const std::string function = what.substr(0, what.find(':'));
    return !function.empty() && headline.find(function) != std::string::npos ? "" : what;
}

// Prints the report's lines, then sends it: on the report channel where the battery gave one, and a failure as a
// line of JSON on stdout, after the map of a wrong answer, where this is a --json run (make check's timed run).
int say_and_send(ShapeReport report) {
    fmt::print("{}\n", report.headline);
    for (const auto& line : report.details) fmt::print("{}\n", line);
    std::fflush(stdout);
    report.shape = shape_in_turn();
    send_report(report);
    if (report.outcome == ShapeReport::Outcome::Fail && failure_route() == FailureRoute::AlsoJsonOnStdout) {
        print_map(report, "");  // make check shows what its timed run printed, the map with it
        fmt::print("{}\n", failure_line(report));
        std::fflush(stdout);
    }
    return report.exit_code;
}

int64_t blocks_along(int64_t elements, int64_t block) { return block > 0 ? (elements + block - 1) / block : 0; }

// The map of a wrong answer, where the verdict has one (Verdict::element_states): not after a failed launch, whose
// output means nothing.
void add_map(ShapeReport& r, const Verdict& v) {
    if (!v.element_states || !v.failure.empty()) return;
    const OutputStates out = output_states_of(v);
    MapStyle in_colour;
    in_colour.colour = true;
    r.map = terminal_map(out);
    r.map_in_colour = terminal_map(out, in_colour);
    r.map_headline = map_headline(out);
    r.map_svg = svg_map(out);
    r.map_elements = out.rows * out.cols;
    r.map_blocks_down = blocks_along(out.rows, out.block_rows);
    r.map_blocks_across = blocks_along(out.cols, out.block_cols);
}

// The FAIL line of a verdict and what follows it: the hint, the note on a non-blocking stream, and the wrong
// elements where the headline named something else.
ShapeReport failure_report(const Verdict& v, const std::string& what) {
    const std::string headline = v.headline();
    ShapeReport r =
        report_of_a_line(ShapeReport::Outcome::Fail, "FAIL: " + unless_the_headline_names_it(what, headline) + headline,
                         v.failure.empty() ? kExitWrongAnswer : kExitCudaError);
    const std::string note = non_blocking_stream_note();
    // The stream races the poison and the checks, so it explains a wrong answer, and the answer's own hint (a
    // size mixed up, a value read before it is set) would send the student after a bug that may not be there.
    const bool the_stream_explains_it = !note.empty() && !v.a_call_explains_it();
    if (!v.hint.empty() && !the_stream_explains_it) {
        r.hint = v.hint;
        std::istringstream hint_lines(v.hint);
        for (std::string line; std::getline(hint_lines, line);) r.details.push_back(line);
    }
    if (!note.empty()) r.details.push_back(note);
    if (v.failure.empty() && (v.outside.any() || v.input_words_changed) && v.wrong)
        r.details.push_back(fmt::format("also {} of {} elements wrong", v.wrong, v.checked));
    r.unsteady = unsteady_answer(headline);
    r.non_blocking_stream = !note.empty();
    add_map(r, v);
    return r;
}

}  // namespace

std::optional<int> report_wrong_after_timing(const Verdict& again, const std::string& shape) {
    if (again.ok) return std::nullopt;
    Verdict v = again;
    if (!v.a_call_explains_it() && non_blocking_stream_note().empty())  // else those say why
        v.hint =
            "right on its first launch, wrong after the timed ones: does the kernel keep state from one launch "
            "to the next (a __device__ counter or flag that nothing resets)?" +
            (again.hint.empty() ? std::string() : "\n" + again.hint);
    return report_shape(v, fmt::format("after the timed runs at {}: ", shape));
}

std::optional<int> report_time_the_events_missed(const std::function<void()>& launch, const Timing& timed,
                                                 const std::string& shape) {
    if (non_blocking_streams_made() == 0) return std::nullopt;
    // The shortest of a few: a launch function may do host work of its own, which the wall clock sees and the
    // events do not, but not less of it every time.
    double wall_s = std::numeric_limits<double>::infinity();
    for (int i = 0; i < 3; ++i) {
        const auto start = std::chrono::steady_clock::now();
        launch();
        CUDA_CHECK(cudaDeviceSynchronize());
        wall_s = std::min(wall_s, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    // The fastest timed launch, not the median: on a GPU shared with other programs, two events with nothing
    // between them can still be stamped a time slice apart, and make test runs many programs at once.
    if (wall_s < 1e-4 || wall_s < 3 * timed.min_ms * 1e-3) return std::nullopt;
    ShapeReport report = report_of_a_line(
        ShapeReport::Outcome::Fail,
        fmt::format("FAIL: {}the timing cannot see the kernel: a launch and cudaDeviceSynchronize() take {:.3f} ms, "
                    "the fastest timed launch {:.3f} ms",
                    where_make_check_times(shape), wall_s * 1e3, timed.min_ms),
        kExitWrongAnswer);
    report.details.push_back(non_blocking_stream_note());
    report.non_blocking_stream = true;
    return say_and_send(report);
}

namespace {

// make check starts its timing runs while the battery is still running, so that their set-up (the data, the upload,
// the checked run) overlaps with it. WORKSHOP_TIMING_GATE then names the gate, a pipe the run inherits
// (programs/timing_runs.hpp), and this reads make check's words from it once the battery is over: "go" to time
// alone, as the programs always do; "round SECONDS" to time one short slice and say its times on the reply pipe
// (WORKSHOP_TIMING_REPLY), again and again, then "end". The slices of the student's run and the solutions' take
// turns, so whatever else runs on the GPU weighs on each of them alike. Anything else (make check ended, or found
// the kernel wrong) ends the program: nothing is timed.
std::ifstream& timing_gate() {
    static std::ifstream gate(std::getenv("WORKSHOP_TIMING_GATE"));
    return gate;
}

std::string next_gate_word() {
    std::string word;
    if (!(timing_gate() >> word) || (word != "go" && word != "round" && word != "end")) std::exit(kExitOk);
    return word;
}

// The first word, read before the context where the GPU takes one process at a time, and kept for the timing.
std::optional<std::string>& first_gate_word() {
    static std::optional<std::string> word;
    return word;
}

std::string take_first_gate_word() {
    if (!timed_by_make_check()) return "go";
    if (!first_gate_word()) first_gate_word() = next_gate_word();
    return *first_gate_word();
}

double slice_seconds() {
    double seconds = 0;
    if (!(timing_gate() >> seconds) || !(seconds > 0) || seconds > 10) std::exit(kExitOk);
    return seconds;
}

// A slice's times, one JSON line on the reply pipe; a parent that has gone ends the run.
void reply_with(const std::vector<double>& ms) {
    static std::ofstream reply(std::getenv("WORKSHOP_TIMING_REPLY") ? std::getenv("WORKSHOP_TIMING_REPLY") : "");
    reply << nlohmann::json{{"ms", ms}}.dump() << std::endl;
    if (!reply) std::exit(kExitOk);
}

// make check's rounds: one slice a round, each after a warm-up only the first time; the timing is all of them.
Timing time_in_rounds(const std::function<void()>& step, const TimingPlan& plan,
                      const std::function<void()>& before_each) {
    TimingPlan slice = plan;
    slice.reps = 1, slice.budget_s = 0;
    std::vector<double> all;
    std::string word = "round";
    for (; word == "round"; word = next_gate_word()) {
        // The first slice runs for the time asked; the others, as many runs as the first says fill that time.
        const double seconds = slice_seconds();
        if (all.empty()) {
            slice.min_time_s = seconds;
        } else {
            const double run_s = std::max(summarise(all).median_s(), 1e-7);
            slice.reps = static_cast<int>(std::clamp(seconds / run_s, 1.0, 1000.0));
            slice.min_time_s = 0;
        }
        const Timing timed = time_on_gpu_in_turn({step}, slice, before_each).front();
        slice.warmup = 0;
        all.insert(all.end(), timed.ms.begin(), timed.ms.end());
        reply_with(timed.ms);
    }
    if (word != "end") std::exit(kExitOk);
    return summarise(std::move(all));
}

}  // namespace

void wait_for_timing_gate_before_the_context() {
    if (timed_by_make_check() && gpu_takes_one_process_at_a_time()) take_first_gate_word();
}

StepAndReferenceTimings time_step_and_references(const std::function<void()>& step,
                                                 const std::vector<std::function<void()>>& references,
                                                 const TimingPlan& plan, const std::function<void()>& before_each) {
    StepAndReferenceTimings result;
    std::vector<std::function<void()>> launches;
    if (step) {
        if (take_first_gate_word() == "round") {
            result.step = time_in_rounds(step, plan, before_each);
            result.references = time_on_gpu_in_turn(references, plan, before_each);
            return result;
        }
        launches.push_back(step);
    }
    launches.insert(launches.end(), references.begin(), references.end());
    std::vector<Timing> timings = time_on_gpu_in_turn(launches, plan, before_each);
    if (step) result.step = timings.front();
    result.references.assign(timings.begin() + (step ? 1 : 0), timings.end());
    return result;
}

std::string non_blocking_stream_note() {
    if (non_blocking_streams_made() == 0) return {};
    return std::string(kNonBlockingStreamMade) +
           ", which the harness's work on the default stream never waits for (the NaN poured into the output before "
           "each checked launch, the timing's events): launch the kernel on the default stream (no stream in "
           "<<<...>>>)";
}

int report_shape(const Verdict& v, const std::string& what) {
    if (v.ok) return say_and_send(report_of_a_line(ShapeReport::Outcome::Pass, "PASS", kExitOk));
    return say_and_send(failure_report(v, what));
}

const RunChecks::value_type* first_failure(const RunChecks& checks) {
    const auto failed = std::find_if(checks.begin(), checks.end(), [](const auto& c) { return !c.first.ok; });
    return failed == checks.end() ? nullptr : &*failed;
}

std::string pass_or_fail_below(const Verdict& v) { return v.ok ? "PASS" : "FAIL (under the table)"; }

void print_failures_under_the_table(const Options& o, const RunChecks& checks) {
    if (o.format == OutputFormat::Json) {  // for make run, which prints it, and the map, under its table
        if (const auto* failing = first_failure(checks))
            fmt::print("{}\n", failure_line(failure_report(failing->first, failing->second)));
        return;
    }
    if (o.format != OutputFormat::Human) return;
    for (const auto& [verdict, what] : checks)
        if (!verdict.ok) {
            const ShapeReport report = failure_report(verdict, what);
            fmt::print("{}\n", report.headline);
            for (const auto& line : report.details) fmt::print("{}\n", line);
            print_map(report, "");
        }
}

int report_checked_shape(int step, const CheckResult& kernel, const std::function<Verdict()>& round_trip,
                         const std::string& function_prefix) {
    const bool kernel_pending = step == 1 && !kernel.launched_kernel();
    if (!kernel_pending && !kernel.verdict.ok) return report_shape(kernel.verdict);
    if (round_trip) {
        const Verdict host = round_trip();
        if (!host.ok) return report_shape(host, function_prefix + "_from_host: ");
        if (kernel_pending)
            return say_and_send(report_of_a_line(
                ShapeReport::Outcome::Pass,
                fmt::format("PASS {0}_from_host ({0}_on_device launches no kernel yet)", function_prefix), kExitOk));
    }
    if (kernel_pending)
        return say_and_send(report_of_a_line(ShapeReport::Outcome::Skip, "SKIP no kernel yet", kExitOk));
    return report_shape(kernel.verdict);
}

LaunchModel model_launch(const LaunchInfo& launch, const DeviceFacts& device) {
    LaunchModel m;
    if (!launch.kernel) return m;
    m.blocks = int64_t{launch.grid.x} * launch.grid.y * launch.grid.z;
    m.threads_per_block = static_cast<int>(launch.block.x * launch.block.y * launch.block.z);
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&m.blocks_per_sm, launch.kernel, m.threads_per_block,
                                                             launch.shared_bytes));
    m.occupancy = theoretical_occupancy(m.blocks_per_sm, m.threads_per_block, device.max_threads_per_sm);
    m.waves = count_waves(m.blocks, device.sm_count, m.blocks_per_sm);
    return m;
}

std::string describe_launch(const LaunchModel& m) {
    if (m.blocks == 0) return "no kernel launched";
    std::string tail =
        m.waves.tail_blocks == 0 ? "no partial wave" : fmt::format("last wave {:.0f}% full", 100 * m.waves.tail_fill);
    return fmt::format(
        "{} blocks x {} threads; {} blocks/SM resident, theoretical occupancy {:.0f}%; "
        "{:.2f} waves ({})",
        m.blocks, m.threads_per_block, m.blocks_per_sm, 100 * m.occupancy, m.waves.count, tail);
}

std::string l2_note(double working_set_bytes, const DeviceFacts& device) {
    if (working_set_bytes > static_cast<double>(device.l2_bytes)) return {};
    return fmt::format(
        "the data ({:.1f} MB) fits in the {:.0f} MB L2: repeated runs are served from L2, so this is "
        "not DRAM bandwidth (use a larger size, or --flush-l2)",
        working_set_bytes / 1e6, device.l2_bytes / 1e6);
}

void print_results(const Options& o, const std::string& title, const std::vector<ResultRow>& rows,
                   const std::string& reference_label, const std::vector<std::string>& details) {
    switch (o.format) {
        case OutputFormat::Csv:
            fmt::print("{}\n", csv_header());
            for (const auto& r : rows) fmt::print("{}\n", to_csv(r));
            break;
        case OutputFormat::Json: fmt::print("{}", to_json(rows)); break;
        case OutputFormat::Human:
            fmt::print("{}\n{}", title, to_table(rows, reference_label));
            for (const auto& d : details) fmt::print("  {}\n", d);
            break;
    }
}

void set_percentages(std::vector<ResultRow>& rows, const std::string& reference_name, double peak) {
    double reference = -1;
    for (const auto& r : rows)
        if (r.name == reference_name) reference = r.rate;
    for (auto& r : rows) {
        if (r.kind == "transfer") continue;
        if (reference > 0) r.pct_of_reference = 100 * r.rate / reference;
        if (peak > 0) r.pct_of_peak = 100 * r.rate / peak;
    }
}

ResultRow make_row(const std::string& track, const std::string& name, const std::string& kind, const std::string& shape,
                   const Timing& t, double rate, const std::string& unit, const DeviceFacts& device) {
    ResultRow r;
    r.track = track;
    r.name = name;
    r.kind = kind;
    r.shape = shape;
    r.reps = t.reps();
    r.median_ms = t.median_ms;
    r.min_ms = t.min_ms;
    r.max_ms = t.max_ms;
    r.rate = rate;
    r.unit = unit;
    r.device = device.name;
    return r;
}

}  // namespace workshop
