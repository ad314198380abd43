#include "programs/one_size_run.hpp"

#include <utility>

#include "check/checked_launch.hpp"

namespace workshop {

CheckResult launched_unverified(const std::function<LaunchInfo()>& launch) {
    CheckResult launched;
    launch_and_record(launch, launched.launch, launched.verdict);
    return launched;
}

OneSizeRun::OneSizeRun(int step, std::string function_prefix, std::string shape, CheckResult checked, bool verified)
    : function_prefix_(std::move(function_prefix)),
      shape_(std::move(shape)),
      checked_(std::move(checked)),
      verified_(verified),
      kernel_pending_(step == 1 && !checked_.launch.kernel) {}

std::optional<int> OneSizeRun::check_before_timing(const std::function<Verdict()>& round_trip) {
    if (!checked_.timeable()) return report_shape(checked_.verdict, where_make_check_times(shape_));
    if (!kernel_pending_ && verified_) checks_.emplace_back(checked_.verdict, "");
    if (round_trip && verified_) {
        const std::string label = function_prefix_ + "_from_host (round trip through the GPU): ";
        const Verdict trip = round_trip();
        details.push_back(label + pass_or_fail_below(trip));
        checks_.emplace_back(trip, label);
        // A failure, not a wrong answer: the function reset the device, and the buffers to time are gone.
        if (!trip.failure.empty()) return report_shape(trip, label);
    }
    const auto* const failing = first_failure(checks_);
    if (!kernel_pending_ && timed_by_make_check() && failing)
        return report_shape(failing->first, where_make_check_times(shape_) + failing->second);
    return std::nullopt;
}

std::optional<int> OneSizeRun::check_after_timing(const std::function<Verdict()>& again,
                                                  const std::function<void()>& launch,
                                                  const std::optional<Timing>& step) {
    if (kernel_pending_ || !checked_.verdict.ok) return std::nullopt;
    if (verified_)
        if (const auto failed = report_wrong_after_timing(again(), shape_)) return failed;
    return report_time_the_events_missed(launch, *step, shape_);
}

bool OneSizeRun::add_step_row(const std::optional<Timing>& step, const std::function<ResultRow(const Timing&)>& row) {
    if (kernel_pending_) {
        details.push_back(fmt::format("{0}_on_device launches no kernel yet: write it (the TODOs in step1/{0}.cu)",
                                      function_prefix_));
        return false;
    }
    ResultRow r = row(*step);
    r.status = first_failure(checks_) ? "FAIL" : verified_ ? "PASS" : "UNCHECKED";
    rows.push_back(r);
    details.push_back("kernel: " + (verified_ ? pass_or_fail_below(checked_.verdict)  // its own, the round trip apart
                                              : std::string("not checked (--unverified)")));
    return true;
}

int OneSizeRun::report(const Options& o, const std::string& title, const std::string& reference_label) const {
    print_results(o, title, rows, reference_label, details);
    print_failures_under_the_table(o, checks_);
    return first_failure(checks_) ? kExitWrongAnswer : kExitOk;
}

}  // namespace workshop
