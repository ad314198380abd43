// What the transpose and matmul programs share: option handling, the launch model, output and the battery.
#pragma once

#include <fmt/format.h>

#include <string>
#include <vector>

#include "battery.hpp"
#include "device_info.hpp"
#include "options.hpp"
#include "perf_model.hpp"
#include "report.hpp"
#include "step_api.cuh"
#include "step_checks.hpp"
#include "timing.hpp"

#ifndef WORKSHOP_STEP
#define WORKSHOP_STEP 0
#endif
#ifndef WORKSHOP_LABEL
#define WORKSHOP_LABEL "step"
#endif

namespace workshop {

constexpr int kStep = WORKSHOP_STEP;
inline const char* program_label() { return WORKSHOP_LABEL; }

// Parses the command line; prints the usage or one error line and exits when there is nothing to run.
Options parse_or_exit(Track track, int argc, char** argv);

inline TimingPlan timing_plan(const Options& o) { return {o.warmup, o.reps, o.budget_s, o.flush_l2}; }

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

// --check-shape: prints the verdict of one shape for the battery that started this process (its first line
// PASS, SKIP or FAIL: <what went wrong>, then the hint and anything else found) and returns the exit code.
// `what` names the function judged in step 1, where there are two ("transpose_from_host: ").
int report_shape(const Verdict& v, const std::string& what = "");

// The battery of this program's track, for --check and --sanitize.
template <typename Shape>
BatteryRequest battery_request(const std::string& track, const std::vector<Shape>& shapes, const Shape& sanitizer_shape,
                               const Options& o) {
    BatteryRequest r;
    r.title = fmt::format("{} battery, {}", track, program_label());
    for (const Shape& s : shapes) r.shapes.push_back({s.label(), s.args()});
    r.sanitizer_shape = {sanitizer_shape.label(), sanitizer_shape.args()};
    r.common_args = {"--seed", std::to_string(o.seed)};
    return r;
}

// Fills each row's % of the same-run reference row named `reference_name` and % of `peak` (transfers excepted).
void set_percentages(std::vector<ResultRow>& rows, const std::string& reference_name, double peak);

ResultRow make_row(const std::string& track, const std::string& name, const std::string& kind,
                   const std::string& shape, const Timing& t, double rate, const std::string& unit,
                   const DeviceFacts& device);

}  // namespace workshop
