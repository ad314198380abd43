// make profile's counters: read from Nsight Compute's CSV (ncu --csv) and shown under the names the slides use,
// each beside its ideal.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace workshop {

// One metric as ncu printed it: the value keeps ncu's thousands separators ("1,015,914"); the unit may be empty.
struct NcuMetric {
    std::string unit, value;
};

// The first profiled kernel's name and metrics.
struct NcuCounters {
    std::string kernel;
    std::map<std::string, NcuMetric> metrics;
};

// Finds ncu's CSV table in `log` (the program's own output and ncu's ==PROF== lines around it are passed over) and
// reads the first kernel's metrics; nothing where the log holds no such table.
std::optional<NcuCounters> read_ncu_csv(const std::string& log);

// A line of the table: the slides' name, how its value is found, and the value to aim for.
enum class CounterReading {
    Value,              // the metric's value, without separators
    ValueWithUnit,      // the value as ncu printed it, and its unit (ncu picks the duration's: nsecond, usecond)
    BankConflictsLoad,  // computed from three metrics: see bank_conflicts()
    BankConflictsStore,
};
struct ProfileCounter {
    std::string name;
    std::string metric;  // empty for the computed ones
    CounterReading reading = CounterReading::Value;
    std::string ideal;
};

// The counters the lessons talk about; the ideals depend on whether the kernel should be bound by memory (a
// transpose) or by arithmetic (a matmul).
enum class KernelBound { Memory, Compute };
std::vector<ProfileCounter> profile_counters(KernelBound bound);

// Every metric to ask ncu for (its --metrics list), comma-separated.
std::string ncu_metric_list(const std::vector<ProfileCounter>& counters);

// The table under a title line: "== TITLE: kernel NAME", then one line a counter ("n/a" where ncu gave none).
std::string profile_table(const NcuCounters& counters, const std::vector<ProfileCounter>& lines,
                          const std::string& title);

}  // namespace workshop
