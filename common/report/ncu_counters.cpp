#include "report/ncu_counters.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <sstream>
#include <utility>

#include "report/csv.hpp"

namespace workshop {

namespace {

// The fields of one line of ncu's CSV (a quoted value may hold a comma: "1,234").
std::vector<std::string> csv_fields(const std::string& line) {
    auto records = parse_csv(line);
    return records.empty() ? std::vector<std::string>{} : std::move(records.front());
}

long column(const std::vector<std::string>& header, const std::string& name) {
    auto at = std::find(header.begin(), header.end(), name);
    return at == header.end() ? -1 : at - header.begin();
}

std::string without_separators(std::string value) {
    value.erase(std::remove(value.begin(), value.end(), ','), value.end());
    return value;
}

std::optional<long long> whole_number(const NcuCounters& counters, const std::string& metric) {
    auto at = counters.metrics.find(metric);
    if (at == counters.metrics.end()) return std::nullopt;
    std::string digits = without_separators(at->second.value);
    if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
    return std::stoll(digits);
}

// ncu's own conflict counter (l1tex__data_bank_conflicts_*) also counts shared-memory wavefronts that the kernel's
// shared-memory instructions did not cause: it reads in the tens of thousands on a conflict-free kernel. The ideal
// number of wavefronts is ncu's total less its conflict count; the wavefronts the kernel's own instructions took
// (smsp__sass_*) less that ideal are the conflicts the code causes: 0 when it has none, 31 per instruction for a
// warp that reads one column of a 32 x 32 float tile.
const char* const kConflictParts[] = {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_",
                                      "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_",
                                      "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_"};

std::string conflict_metric(int part, const char* op) { return fmt::format("{}{}.sum", kConflictParts[part], op); }

std::string bank_conflicts(const NcuCounters& counters, const char* op) {
    auto raw = whole_number(counters, conflict_metric(0, op));
    auto all = whole_number(counters, conflict_metric(1, op));
    auto own = whole_number(counters, conflict_metric(2, op));
    if (!raw || !all || !own) return "";
    return std::to_string(std::max(*own - (*all - *raw), 0LL));
}

std::string value_of(const NcuCounters& counters, const ProfileCounter& line) {
    switch (line.reading) {
        case CounterReading::BankConflictsLoad: return bank_conflicts(counters, "ld");
        case CounterReading::BankConflictsStore: return bank_conflicts(counters, "st");
        default: break;
    }
    auto at = counters.metrics.find(line.metric);
    if (at == counters.metrics.end()) return "";
    if (line.reading == CounterReading::ValueWithUnit) return at->second.value + " " + at->second.unit;
    return without_separators(at->second.value);
}

}  // namespace

std::optional<NcuCounters> read_ncu_csv(const std::string& log) {
    std::istringstream lines(log);
    std::string line;
    std::vector<std::string> header;
    while (header.empty() && std::getline(lines, line)) {
        if (line.rfind('"', 0) == 0 && line.find("\"Metric Name\"") != std::string::npos) header = csv_fields(line);
    }
    long kernel = column(header, "Kernel Name"), name = column(header, "Metric Name");
    long unit = column(header, "Metric Unit"), value = column(header, "Metric Value");
    if (kernel < 0 || name < 0 || unit < 0 || value < 0) return std::nullopt;
    NcuCounters counters;
    while (std::getline(lines, line)) {
        if (line.rfind('"', 0) != 0) continue;
        std::vector<std::string> fields = csv_fields(line);
        if (fields.size() != header.size()) continue;
        if (counters.kernel.empty()) counters.kernel = fields[kernel];
        if (fields[kernel] != counters.kernel) break;  // a second kernel: only the first counts
        counters.metrics.emplace(fields[name], NcuMetric{fields[unit], fields[value]});
    }
    if (counters.kernel.empty()) return std::nullopt;
    return counters;
}

std::vector<ProfileCounter> profile_counters(KernelBound bound) {
    const bool memory = bound == KernelBound::Memory;
    using R = CounterReading;
    return {
        {"duration", "gpu__time_duration.sum", R::ValueWithUnit, "-"},
        {"global load efficiency (%)", "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct", R::Value,
         "100"},
        {"global store efficiency (%)", "smsp__sass_average_data_bytes_per_sector_mem_global_op_st.pct", R::Value,
         "100"},
        {"sectors per load request", "l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_ld.ratio", R::Value,
         "4 (16 with float4)"},
        {"sectors per store request", "l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_st.ratio", R::Value,
         "4 (16 with float4)"},
        {"shared load bank conflicts", "", R::BankConflictsLoad, "0"},
        {"shared store bank conflicts", "", R::BankConflictsStore, "0"},
        {"achieved occupancy (%)", "sm__warps_active.avg.pct_of_peak_sustained_active", R::Value, "near theoretical"},
        {"DRAM throughput (% of peak)", "dram__throughput.avg.pct_of_peak_sustained_elapsed", R::Value,
         memory ? "> 85" : "low: reuse from cache"},
        {"FMA pipe busy (% of peak)", "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active", R::Value,
         memory ? "-" : "> 80"},
    };
}

std::string ncu_metric_list(const std::vector<ProfileCounter>& counters) {
    std::vector<std::string> metrics;
    for (const ProfileCounter& c : counters) {
        if (!c.metric.empty()) metrics.push_back(c.metric);
    }
    for (const char* op : {"ld", "st"}) {
        for (int part = 0; part < 3; ++part) metrics.push_back(conflict_metric(part, op));
    }
    std::string list;
    for (const std::string& metric : metrics) list += (list.empty() ? "" : ",") + metric;
    return list;
}

std::string profile_table(const NcuCounters& counters, const std::vector<ProfileCounter>& lines,
                          const std::string& title) {
    std::string table = fmt::format("== {}: kernel {}\n", title, counters.kernel);
    table += fmt::format("  {:<32} {:>14}   {}\n", "counter (slides' name)", "value", "ideal");
    for (const ProfileCounter& line : lines) {
        std::string value = value_of(counters, line);
        table += fmt::format("  {:<32} {:>14}   {}\n", line.name, value.empty() ? "n/a" : value, line.ideal);
    }
    return table;
}

}  // namespace workshop
