// The solutions' rates, remembered for a while (make watch sets WORKSHOP_RATE_CACHE_S), so that a save's verdict
// times only the student's program. Kept in .rates.json beside the program, one entry per build of the program
// (its modification time and size), set of options, machine and visible GPUs:
//   {"rates": [{"key": "solution3_transpose 1733500000.123 91234 host all --min-time 0.2", "measured_at": 1733500000,
//               "rate": 976.5}]}
#pragma once

#include <ctime>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace workshop {

// WORKSHOP_RATE_CACHE_S: how many seconds a rate is remembered; 0 (unset, or not a whole number) for never.
long rate_memory_seconds();

// What identifies one measurement of `program` with `options` here.
std::string rate_key(const std::filesystem::path& program, const std::vector<std::string>& options);

// `measure()`'s rate for `program` with `options`, or the one remembered in `program`'s folder when it is at most
// `max_age_s` old (0: measured every time, nothing remembered). A rate measured is remembered (where there is one);
// a cache that cannot be read or written is measured around, never an error.
std::optional<double> remembered_rate(const std::filesystem::path& program, const std::vector<std::string>& options,
                                      long max_age_s, const std::function<std::optional<double>()>& measure,
                                      std::time_t now = std::time(nullptr));

}  // namespace workshop
