// Results as rows: printed for people, or as CSV / JSON for scripts, tables and charts; and the files of a run,
// written as one set.
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
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
// The header and every row, one line each: a whole CSV file.
std::string to_csv(const std::vector<ResultRow>& rows);
// Parses one record written by to_csv (or by an older version, which wrote no date); false if it is not such a
// record. A quoted field may span lines, so a record may too.
bool from_csv(const std::string& line, ResultRow& row);
// Every record of `csv` that from_csv accepts, in order (the header and records of another shape are skipped).
std::vector<ResultRow> parse_rows(const std::string& csv);

// A JSON array of the rows, one row to a line; a ratio < 0 (none) and any number JSON cannot hold are null.
std::string to_json(const std::vector<ResultRow>& rows);
// Reads the rows back from what to_json wrote (an array, or an object holding it under "rows"). False, with the
// reason in `error`, where `text` is not such JSON.
bool rows_from_json(const std::string& text, std::vector<ResultRow>& rows, std::string& error);
// The rows a step program printed with --json: the last JSON array in its output, from a line that opens it to the
// end (a kernel's printf lands on standard output too, before them). Not an array (discarded) where there is none.
nlohmann::json last_json_array(const std::string& output);

// A rate as the tables print it: whole numbers from 1000 up (351729, never 3.5173e+05), four significant digits
// below (549.5, 8.926); "-" for none.
std::string format_rate(double rate);

// An aligned text table: name, status, median, rate, % of reference, % of peak, note.
std::string to_table(const std::vector<ResultRow>& rows, const std::string& reference_label);

// One file of a set that write_result_files writes: a name inside the folder, and what it holds.
struct ResultFile {
    std::string name;
    std::string content;
};

// Writes `files` into `folder` (made where missing) as one set: each is first written whole into a new hidden
// folder inside `folder`, and only once all of them are there are they renamed into place, so a full disk or a
// failed write leaves every older file as it was. Throws FileError (base/files.hpp): one line that names the
// file and the reason.
void write_result_files(const std::filesystem::path& folder, const std::vector<ResultFile>& files);

// Makes `folder` and its parents where missing; FileError where it cannot be made or is not a folder.
void make_result_folder(const std::filesystem::path& folder);

}  // namespace workshop
