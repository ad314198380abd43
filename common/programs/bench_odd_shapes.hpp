// make bench, part 2: step 5 at the awkward shapes (an odd row length, a dimension one past a tile), each beside
// the references measured in the same run, so the cost of the fallback paths is in plain view. Also the one way
// workshop_results starts a program: an argument vector, no shell between, so a path or an option with a quote,
// a space or a `;` reaches the program as it is.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "check/battery.hpp"
#include "base/child_processes.hpp"
#include "report/report.hpp"

namespace workshop {

using ProgramRunner = std::function<ProgramRun(const std::vector<std::string>& argv)>;

// The rows a step program printed with --json, or why there are none. A wrong answer is a result like any other:
// its step row says FAIL, and the failure the program printed after its rows (failure_line) comes with them.
struct StepRows {
    std::vector<ResultRow> rows;
    std::string failure;  // "failed (exit 3)", "printed no result rows (not JSON)"; empty when rows came
    std::optional<ShapeReport> wrong_answer;  // the first failing check's report, with its map
    bool ok() const { return failure.empty(); }
};

// Runs a step program (its argv asks for --json) and reads the rows it printed.
StepRows run_for_rows(const ProgramRunner& run, const std::vector<std::string>& argv);

// Times step 5's solution of `track` at that track's awkward shapes (options `passed_on` added to each run),
// prints one line per shape with step 5's rate as a share of the best reference, and appends every row to `all`.
// False if a run failed.
bool bench_odd_shapes(const std::string& track, const std::filesystem::path& bin,
                      const std::vector<std::string>& passed_on, const ProgramRunner& run, std::vector<ResultRow>& all);

}  // namespace workshop
