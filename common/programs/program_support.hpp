// What the transpose and matmul programs share: option handling, the launch model, output and the battery.
#pragma once

#include <fmt/format.h>

#include <cstdio>
#include <functional>
#include <new>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ledger/allocations.hpp"
#include "check/battery.hpp"
#include "measure/device_info.hpp"
#include "base/exit_codes.hpp"
#include "programs/options.hpp"
#include "measure/perf_model.hpp"
#include "report/report.hpp"
#include "check/sanitizer_report.hpp"
#include "step/step_api.cuh"
#include "check/shapes.hpp"
#include "check/step_checks.hpp"
#include "programs/verdict_run.hpp"
#include "measure/gpu_timing_lock.hpp"
#include "measure/timing.hpp"

#ifndef WORKSHOP_STEP
#define WORKSHOP_STEP 0
#endif
#ifndef WORKSHOP_LABEL
#define WORKSHOP_LABEL "step"
#endif
// The top of the checkout, for the student's own programs only (built from stepN/): their make check keeps the
// student's progress there. Empty for the solutions and the student-bug programs.
#ifndef WORKSHOP_CHECKOUT_TOP
#define WORKSHOP_CHECKOUT_TOP ""
#endif

namespace workshop {

constexpr int kStep = WORKSHOP_STEP;
constexpr const char* kCheckoutTop = WORKSHOP_CHECKOUT_TOP;
inline const char* program_label() { return WORKSHOP_LABEL; }

// Parses the command line; prints the usage or one error line and exits when there is nothing to run.
Options parse_or_exit(Track track, int argc, char** argv);

inline TimingPlan timing_plan(const Options& o) { return {o.warmup, o.reps, o.budget_s, o.flush_l2, o.min_time_s}; }

struct LaunchModel {
    int64_t blocks = 0;
    int threads_per_block = 0;
    int blocks_per_sm = 0;
    double occupancy = 0;
    Waves waves;
};

LaunchModel model_launch(const LaunchInfo& launch, const DeviceFacts& device);
std::string describe_launch(const LaunchModel& model);

// "note: ... fits in L2" when the working set is small enough that repeated runs are served from L2.
std::string l2_note(double working_set_bytes, const DeviceFacts& device);

// Prints rows as the chosen format; the human form gets `details` (lines of prose) under the table.
void print_results(const Options& o, const std::string& title, const std::vector<ResultRow>& rows,
                   const std::string& reference_label, const std::vector<std::string>& details);

// Why any check of a program that made a stream with cudaStreamNonBlocking may fail (cuda_objects.hpp),
// said after every FAIL of such a program; empty for the others.
std::string non_blocking_stream_note();

// --check-shape: prints the verdict of one shape (its first line PASS, SKIP or FAIL: <what went wrong>, then the
// hint and anything else found), sends it as a ShapeReport to the battery that started this process (on its report
// channel, battery.hpp), and returns the exit code. `what` names the function judged in step 1, where there are two
// ("transpose_from_host: ").
int report_shape(const Verdict& v, const std::string& what = "");

// What make run checked: each verdict with what it judged ("" for the kernel; the round trip in step 1), as
// report_shape's `what`.
using RunChecks = std::vector<std::pair<Verdict, std::string>>;

// The first of `checks` that failed; nullptr when every one passed.
const RunChecks::value_type* first_failure(const RunChecks& checks);

// A check's line among the table's details: PASS, or where its FAIL is said in full (under the table).
std::string pass_or_fail_below(const Verdict& v);

// make run's verdict, under its table, for each check that failed: the same FAIL line, hint and notes as make
// check gives, last on the screen (nothing where everything passed, and nothing in the CSV form). In the JSON
// form, the first failure as failure_line, after the rows, for workshop_results to show with its map.
void print_failures_under_the_table(const Options& o, const RunChecks& checks);

// --check-shape's report from the kernel's check and, where the step has one (step 1), the check of the round
// trip through host memory, `round_trip` (else empty). Step 1's starting point launches no kernel yet: then
// only the round trip is judged. `function_prefix` is "transpose" or "matmul". (The step comes as an argument:
// this file is compiled once for all programs, so kStep is not known here.)
int report_checked_shape(int step, const CheckResult& kernel, const std::function<Verdict()>& round_trip,
                         const std::string& function_prefix);

// The shapes make check tries beyond the battery: compute-sanitizer's, and step 1's very large round trip.
template <typename Shape>
struct ExtraShapes {
    std::vector<Shape> sanitizer;
    Shape round_trip;
};

// The battery of this program's track and step, for --check and --sanitize.
template <typename Shape>
BatteryRequest battery_request(const std::string& track, int step, const std::vector<Shape>& shapes,
                               const ExtraShapes<Shape>& extra, const Options& o) {
    BatteryRequest r;
    r.check_leaks = step == 1;
    r.title = fmt::format("{} battery, {}", track, program_label());
    for (const Shape& s : shapes) r.shapes.push_back({s.label(), s.args(), s.equal_sides(), s.outgrows_a_grid()});
    for (const Shape& s : extra.sanitizer) r.sanitizer_shapes.push_back(s.label());
    if (step == 1) r.round_trip_shape = BatteryShape{extra.round_trip.label(), extra.round_trip.args()};
    r.common_args = {"--seed", std::to_string(o.seed), "--say-ready"};
    r.one_process_at_a_time = gpu_takes_one_process_at_a_time();
    return r;
}

// The step's timing and its yardsticks', taken in turn (time_on_gpu_in_turn) so that the step's share of a
// yardstick is measured under the same conditions. `step` is empty when there is no kernel yet; when it is not,
// this first waits for make check's gate.
struct StepAndReferenceTimings {
    std::optional<Timing> step;
    std::vector<Timing> references;  // in the order of the launches given
};
StepAndReferenceTimings time_step_and_references(const std::function<void()>& step,
                                                 const std::vector<std::function<void()>>& references,
                                                 const TimingPlan& plan, const std::function<void()>& before_each = {});

// make check's timing run makes its context, its data and its checked run beside the battery, then waits at
// make check's gate. A GPU that takes one process at a time would then turn the battery's processes away, so
// there this waits at the gate first, before the context. Elsewhere it returns at once.
void wait_for_timing_gate_before_the_context();

// Whether make check is timing this run (WORKSHOP_TIMING_GATE is set). Such a run ends at its own checked run
// if that is wrong: a kernel can pass every shape of the battery and still be wrong at the size that is timed
// (a grid written for the sizes tried by hand), and the time of a wrong kernel means nothing.
bool timed_by_make_check();
// Which further calls the checked run at the timed size makes: all of them in make run, none in make check, whose
// battery has made them at every one of its shapes, and which checks a launch again after the timing.
FurtherCalls further_calls_before_timing();
// What a FAIL line about such a run starts with ("at the size make check times (8192x8192): "); empty otherwise.
std::string where_make_check_times(const std::string& shape);

// The timed launches must leave the right answer too. A kernel that keeps state from one launch to the next (a
// __device__ counter or flag that nothing resets) can pass its first, checked launch and then do little or nothing,
// fast, and its time would be a lie. So after the timing the programs check one more launch (`again`) of a kernel
// whose first launch passed: when it is wrong, this reports it and returns the exit code, and nothing timed is
// shown; when it is right, nothing. (A kernel wrong from its first launch is shown with its time and FAIL.)
std::optional<int> report_wrong_after_timing(const Verdict& again, const std::string& shape);

// The timed figure must be the kernel's. The events are on the default stream, where every step launches; a
// kernel on a stream made with cudaStreamNonBlocking runs beside them, unseen, and is timed at a few microseconds
// (cuda_objects.hpp). So where the program made such a stream, this launches the step a few more times
// with the host's clock around the launch and cudaDeviceSynchronize(), which waits for every stream, and when
// that takes over 0.1 ms and more than three times the fastest timed launch, it reports that the time is not
// the kernel's (FAIL) and returns the exit code; otherwise nothing.
std::optional<int> report_time_the_events_missed(const std::function<void()>& launch, const Timing& timed,
                                                 const std::string& shape);

// The options of one battery shape for a --check-in-turn or --check-sanitizer-shapes child: --check-shape at that
// shape, with the seed and the guards of `base`.
Options options_for_shape(const TransposeShape& shape, const Options& base);
Options options_for_shape(const MatmulShape& shape, const Options& base);

// One battery shape's checks, holding the GPU's timing lock shared (measure/gpu_timing_lock.hpp): side by side with
// the other checks' shapes, never beside a timing. Where it must wait, make check's child says so (kChildPaused,
// then kChildReady): the wait is no part of its time limit.
template <typename Check>
int checking_the_gpu(Check check, const Options& shape, bool say_ready) {
    const auto say = [say_ready](bool waiting) {
        if (!say_ready) return;
        fmt::print("{}\n", waiting ? kChildPaused : kChildReady);
        std::fflush(stdout);
    };
    const GpuTimingLock no_timing_meanwhile(std::getenv("WORKSHOP_TIMING_LOCK"), GpuUse::Checking, say);
    return check(shape);
}

// --check-in-turn: every shape of the battery in this process, one after the other, each report naming its shape
// (ShapeReport::shape). A CUDA error may have poisoned the context, so it stops there; run_battery gives the shapes
// left a process each.
template <typename Shape, typename CheckOneShape>
int check_shapes_in_turn(const std::vector<Shape>& battery, const Options& o, CheckOneShape check_one_shape) {
    for (size_t i = 0; i < battery.size(); ++i) {
        set_shape_in_turn(static_cast<int>(i));
        const int exit_code = checking_the_gpu(check_one_shape, options_for_shape(battery[i], o), o.say_ready);
        if (exit_code == kExitCudaError) return exit_code;
    }
    set_shape_in_turn(-1);
    return kExitOk;
}

// --check-sanitizer-shapes: each shape compute-sanitizer checks, in turn in this process (what --check and
// --sanitize run under each tool). Returns the first exit code that is not 0, so that a refusal for want of memory
// stays one; a CUDA error ends the run there, as it poisons the context. Last, the pinned host memory still held
// and the host memory still registered, which memcheck's leak report counts with the device memory
// (kPinnedHostHeld, kHostRegistrationsHeld).
template <typename Shape, typename CheckOneShape>
int check_sanitizer_shapes(const std::vector<Shape>& shapes, const Options& o, CheckOneShape check_one_shape) {
    int first_not_ok = kExitOk;
    for (const Shape& s : shapes) {
        const int exit_code = checking_the_gpu(check_one_shape, options_for_shape(s, o), o.say_ready);
        if (first_not_ok == kExitOk) first_not_ok = exit_code;
        if (exit_code == kExitCudaError) break;
    }
    if (const Allocations pinned = pinned_host_allocations_held(); pinned.count > 0)
        fmt::print("{} {} {}\n", kPinnedHostHeld, pinned.count, pinned.bytes);
    if (const Allocations registered = host_registrations_held(); registered.count > 0)
        fmt::print("{} {} {}\n", kHostRegistrationsHeld, registered.count, registered.bytes);
    return first_not_ok;
}

// This program's own path, for the processes it starts of itself.
std::string this_program();

// make check (--verdict): the battery, the timing beside the solutions', the verdict line (verdict_run.hpp). The
// progress is kept only for the student's own programs (kCheckoutTop).
template <typename Shape>
int run_verdict_mode(const Options& o, const std::string& track, int step, const std::vector<Shape>& battery,
                     const ExtraShapes<Shape>& extra) {
    if (o.solution_program.empty() || (step > 1 && o.previous_program.empty())) {
        fmt::print(stderr, "error: --verdict needs --solution PROGRAM{}\n", step > 1 ? " and --previous PROGRAM" : "");
        return kExitBadUsage;
    }
    VerdictPlan plan;
    plan.step = step, plan.track = track, plan.mine = this_program();
    plan.solution = o.solution_program, plan.previous = step > 1 ? o.previous_program : "";
    plan.options = o.timing_args;
    plan.checkout_top = kCheckoutTop;
    plan.one_process_at_a_time = gpu_takes_one_process_at_a_time();
    return run_verdict(plan, [&] {
        require_a_device();
        try {
            return run_battery(battery_request(track, step, battery, extra, o));
        } catch (const std::bad_alloc&) {  // the checker's own, not the student's: no reason, so FAIL says so
            fmt::print(stderr, "not enough host memory: an allocation failed (std::bad_alloc)\n");
            return BatteryOutcome{kExitOutOfMemory, "", true, ""};
        }
    });
}

// The modes that start processes and make no CUDA context of their own: it would hold GPU memory all the while,
// and a GPU that takes one process at a time would turn the children away.
template <typename Shape>
int run_starting_mode(const Options& o, const std::string& track, int step, const std::vector<Shape>& battery,
                      const ExtraShapes<Shape>& extra) {
    if (o.mode == Mode::Verdict) return run_verdict_mode(o, track, step, battery, extra);
    require_a_device();
    const BatteryRequest request = battery_request(track, step, battery, extra, o);
    return o.mode == Mode::Check ? run_battery(request).exit_code : run_sanitizers(request);
}

// What every program does once its options are parsed (Mode says which).
template <typename Shape, typename CheckOneShape, typename CheckRoundTrip, typename RunOneSize>
int run_mode(const Options& o, const std::string& track, int step, const std::vector<Shape>& battery,
             const ExtraShapes<Shape>& extra, CheckOneShape check_one_shape, CheckRoundTrip check_round_trip,
             RunOneSize run_one_size) {
    if (o.mode == Mode::CheckRoundTrip && step != 1) {  // a usage error, said before any GPU is looked for
        fmt::print(stderr, "error: --check-round-trip checks {}_from_host, which only step 1 has\n", track);
        return kExitBadUsage;
    }
    try {
        if (o.mode == Mode::Check || o.mode == Mode::Sanitize || o.mode == Mode::Verdict)
            return run_starting_mode(o, track, step, battery, extra);
        wait_for_timing_gate_before_the_context();
        const DeviceFacts dev = require_device();
        if (o.say_ready && o.mode != Mode::OneSize) {
            fmt::print("{}\n", kChildReady);
            std::fflush(stdout);
        }
        switch (o.mode) {
            case Mode::CheckShape: return checking_the_gpu(check_one_shape, o, o.say_ready);
            case Mode::CheckRoundTrip: return checking_the_gpu(check_round_trip, o, o.say_ready);
            case Mode::CheckInTurn: return check_shapes_in_turn(battery, o, check_one_shape);
            case Mode::CheckSanitizerShapes: return check_sanitizer_shapes(extra.sanitizer, o, check_one_shape);
            default:
                if (o.format == OutputFormat::Json) set_failure_route(FailureRoute::AlsoJsonOnStdout);
                return run_one_size(o, dev);
        }
    } catch (const std::bad_alloc&) {  // past require_host_memory's estimate, or where it cannot look
        fmt::print(stderr, "not enough host memory: an allocation failed (std::bad_alloc)\n");
        return kExitOutOfMemory;
    }
}

// Fills each row's % of the same-run reference row named `reference_name` and % of `peak` (transfers excepted).
void set_percentages(std::vector<ResultRow>& rows, const std::string& reference_name, double peak);

ResultRow make_row(const std::string& track, const std::string& name, const std::string& kind, const std::string& shape,
                   const Timing& t, double rate, const std::string& unit, const DeviceFacts& device);

}  // namespace workshop
