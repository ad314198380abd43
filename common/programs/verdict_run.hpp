// make check in one process: the battery, then (where it passes) the student's program, this step's solution and
// the last step's timed at one size, in turns (timing_runs.hpp), then the VERDICT line (verdict.hpp), the student's
// progress record, and the exit code (0 PASS, 3 no GPU, 4 NOT CHECKED, else FAIL). No shell between them: each
// timing run is a child process started with an argument vector, and says its rate as JSON (--json).
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "check/battery.hpp"

namespace workshop {

struct VerdictPlan {
    int step = 0;
    std::string track;                   // "transpose" or "matmul"
    std::string mine;                    // the student's program (this one)
    std::string solution, previous;      // this step's solution and the last step's (empty in step 1)
    std::vector<std::string> options;    // for every timing run: --min-time 0.2, then the options given
    std::filesystem::path checkout_top;  // where the progress is kept; empty: none kept (a solution, a bug)
    bool one_process_at_a_time = false;  // the GPU's compute mode: then each run is timed alone, in turn
};

// What a timing run's JSON (--json: the rows of the table) says of the step's own row.
struct TimedRate {
    std::optional<double> rate;  // none where the run launched no kernel (step 1's starting point)
    std::string unit;
};
// Reads the step's row from a program's --json output; nothing where there is no JSON array of rows.
std::optional<TimedRate> step_rate_in(const std::string& json_output);

// The options a timing run gets: the verdict's own default first (a fifth of a second of timing, not the programs'
// second: the verdict comes within seconds of a save; options given win), then the options given, then what
// makes it say its rate as JSON and time nothing else.
std::vector<std::string> timing_run_options(const std::vector<std::string>& given);

// Runs make check: `battery` runs the battery (and returns kExitNoDevice where there is no GPU); returns the exit
// code.
int run_verdict(const VerdictPlan& plan, const std::function<BatteryOutcome()>& battery);

}  // namespace workshop
