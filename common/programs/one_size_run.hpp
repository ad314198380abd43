// What make run does at one size in either track, around the track's own timing and rows: the verdicts taken before
// the timing (the checked launch, and step 1's round trip), the checks after it, the step's row and the report.
// A wrong answer is still timed and shown, with FAIL; a run ends early only where its time would mean nothing.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "programs/program_support.hpp"

namespace workshop {

// --unverified: the step's launch at the timed size, waited for, a failure caught, the output not read.
CheckResult launched_unverified(const std::function<LaunchInfo()>& launch);

class OneSizeRun {
public:
    // `function_prefix` is "transpose" or "matmul"; `checked` is the step's checked launch at this size, or where
    // not `verified` (--unverified) its launch alone (launched_unverified), whose output nothing judges (nor step
    // 1's round trip).
    OneSizeRun(int step, std::string function_prefix, std::string shape, CheckResult checked, bool verified);

    // Step 1's starting point, before the student writes its kernel: the round trip is judged, nothing is timed.
    bool kernel_pending() const { return kernel_pending_; }

    // The verdicts before the timing; `round_trip` checks step 1's round trip through host memory (else empty).
    // Where the run must end here, its exit code, the report printed: a launch that failed, a round trip that
    // reset the device, or a wrong answer in the run make check times.
    std::optional<int> check_before_timing(const std::function<Verdict()>& round_trip);

    // After the timing, where the first launch was right: `again` checks one more launch, and the runs the events
    // missed are looked for (program_support.hpp). The exit code where either is reported.
    std::optional<int> check_after_timing(const std::function<Verdict()>& again, const std::function<void()>& launch,
                                          const std::optional<Timing>& step);

    // The step's row, made from its timing by `row`, with PASS or FAIL (UNCHECKED where not verified) and its verdict
    // among the details; while step 1 has no kernel yet, the line that says so. Returns whether there was a kernel.
    bool add_step_row(const std::optional<Timing>& step, const std::function<ResultRow(const Timing&)>& row);

    // Prints the table, `details` under it and every FAIL under those; returns the program's exit code.
    int report(const Options& o, const std::string& title, const std::string& reference_label) const;

    std::vector<ResultRow> rows;
    std::vector<std::string> details;

private:
    std::string function_prefix_, shape_;
    CheckResult checked_;
    bool verified_;
    bool kernel_pending_;
    RunChecks checks_;
};

}  // namespace workshop
