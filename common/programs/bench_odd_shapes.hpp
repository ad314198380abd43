// make bench, part 2: step 5 at the awkward shapes (an odd row length, a dimension one past a tile), each beside
// the references measured in the same run, so the cost of the fallback paths is in plain view.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "report/report.hpp"

namespace workshop {

// Runs a command line; returns its standard output and exit status.
using ProgramRunner = std::function<std::pair<std::string, int>(const std::string&)>;

// Times step 5's solution of `track` at that track's awkward shapes, prints one line per shape with step 5's
// rate as a share of the best reference, and appends every row to `all`. False if a run failed.
bool bench_odd_shapes(const std::string& track, const std::filesystem::path& bin, const std::string& passthrough,
                      const ProgramRunner& run, std::vector<ResultRow>& all);

}  // namespace workshop
