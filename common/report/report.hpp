// Results as rows: printed for people, or as CSV / JSON for scripts, tables and charts.
#pragma once

#include <string>
#include <vector>

namespace workshop {

struct ResultRow {
    std::string track;   // transpose | matmul
    std::string name;    // "step 3", "step 3 solution", "copy kernel", "cuBLAS SGEMM FP32", ...
    std::string kind;    // step | cpu | reference | limit
    std::string shape;   // "8192x8192", "4096x4096x4096"
    std::string status;  // PASS | FAIL | empty when not checked
    int reps = 0;
    double median_ms = 0, min_ms = 0, max_ms = 0;
    double rate = 0;               // in `unit`
    std::string unit;              // GB/s | GFLOP/s
    double pct_of_reference = -1;  // of the yardstick measured in the same run (copy kernel, cuBLAS FP32); < 0: none
    double pct_of_peak = -1;       // of the theoretical DRAM bandwidth / FP32 peak; < 0: none
    std::string device;
    std::string note;
    std::string date;  // YYYY-MM-DD, the day it was measured; empty where not known
};

std::string csv_header();
std::string to_csv(const ResultRow& row);
// Parses one line written by to_csv (or by an older version, which wrote no date); false if it is not such a
// line.
bool from_csv(const std::string& line, ResultRow& row);
// Every line of `csv` that from_csv accepts, in order.
std::vector<ResultRow> parse_rows(const std::string& csv);

std::string to_json(const std::vector<ResultRow>& rows);

// A rate as the tables print it: whole numbers from 1000 up (351729, never 3.5173e+05), four significant digits
// below (549.5, 8.926); "-" for none.
std::string format_rate(double rate);

// An aligned text table: name, status, median, rate, % of reference, % of peak, note.
std::string to_table(const std::vector<ResultRow>& rows, const std::string& reference_label);

std::string csv_escape(const std::string& field);
std::string json_escape(const std::string& text);

}  // namespace workshop
