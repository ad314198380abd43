// CSV goes through report/csv.hpp both ways (RFC 4180 quoting), read back for `workshop_results --replot`. JSON goes through nlohmann-json both ways: the step
// programs print their rows with to_json, and workshop_results reads them back with rows_from_json.
#include "report/report.hpp"

#include <fmt/format.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>
#include <sstream>

#include "base/files.hpp"
#include "report/csv.hpp"

namespace workshop {

namespace {

// The columns, in the order of every CSV file and JSON row: tests and the pages read them by these names.
const std::vector<std::string> kColumns = {"track",       "name",   "kind",   "shape", "status", "reps",
                                           "median_ms",   "min_ms", "max_ms", "rate",  "unit",   "pct_of_reference",
                                           "pct_of_peak", "device", "note",   "date"};

}  // namespace

std::string csv_header() { return csv_line(kColumns); }

std::string to_csv(const ResultRow& r) {
    return csv_line(
        {r.track, r.name, r.kind, r.shape, r.status, std::to_string(r.reps), fmt::format("{:.6g}", r.median_ms),
         fmt::format("{:.6g}", r.min_ms), fmt::format("{:.6g}", r.max_ms), fmt::format("{:.6g}", r.rate), r.unit,
         fmt::format("{:.4g}", r.pct_of_reference), fmt::format("{:.4g}", r.pct_of_peak), r.device, r.note, r.date});
}

std::string to_csv(const std::vector<ResultRow>& rows) {
    std::string csv = csv_header() + "\n";
    for (const auto& r : rows) csv += to_csv(r) + "\n";
    return csv;
}

namespace {

// One record's fields as a row; false where they are not one (the header, or the wrong number of fields).
bool row_of(std::vector<std::string> f, ResultRow& r) {
    if ((f.size() != kColumns.size() && f.size() != kColumns.size() - 1) || f[0] == kColumns[0]) return false;
    f.resize(kColumns.size());  // files written before rows carried a date
    auto num = [](const std::string& s) { return std::strtod(s.c_str(), nullptr); };
    r = ResultRow{f[0],       f[1],      f[2],      f[3],      f[4],  std::atoi(f[5].c_str()),
                  num(f[6]),  num(f[7]), num(f[8]), num(f[9]), f[10], num(f[11]),
                  num(f[12]), f[13],     f[14],     f[15]};
    return true;
}

}  // namespace

bool from_csv(const std::string& record, ResultRow& r) {
    const auto records = parse_csv(record);
    return records.size() == 1 && row_of(records.front(), r);
}

std::vector<ResultRow> parse_rows(const std::string& csv) {
    std::vector<ResultRow> rows;
    ResultRow r;
    for (const auto& fields : parse_csv(csv))
        if (row_of(fields, r)) rows.push_back(r);
    return rows;
}

namespace {

using Json = nlohmann::ordered_json;  // the columns in the order of the CSV

// As many significant digits as the CSV keeps: a number read back prints as it was written.
Json rounded(double v, int digits) {
    if (!std::isfinite(v)) return nullptr;  // JSON has no NaN or Infinity
    return std::strtod(fmt::format("{:.{}g}", v, digits).c_str(), nullptr);
}

Json ratio(double v) { return v < 0 ? Json(nullptr) : rounded(v, 4); }

Json row_json(const ResultRow& r) {
    return Json{{"track", r.track},
                {"name", r.name},
                {"kind", r.kind},
                {"shape", r.shape},
                {"status", r.status},
                {"reps", r.reps},
                {"median_ms", rounded(r.median_ms, 6)},
                {"min_ms", rounded(r.min_ms, 6)},
                {"max_ms", rounded(r.max_ms, 6)},
                {"rate", rounded(r.rate, 6)},
                {"unit", r.unit},
                {"pct_of_reference", ratio(r.pct_of_reference)},
                {"pct_of_peak", ratio(r.pct_of_peak)},
                {"device", r.device},
                {"note", r.note},
                {"date", r.date}};
}

std::string text_of(const Json& row, const char* key) {
    const auto it = row.find(key);
    return it != row.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// A number, or `none` where the row holds null (or nothing) there.
double number_of(const Json& row, const char* key, double none) {
    const auto it = row.find(key);
    return it != row.end() && it->is_number() ? it->get<double>() : none;
}

ResultRow row_from_json(const Json& j) {
    ResultRow r;
    r.track = text_of(j, "track");
    r.name = text_of(j, "name");
    r.kind = text_of(j, "kind");
    r.shape = text_of(j, "shape");
    r.status = text_of(j, "status");
    r.reps = static_cast<int>(number_of(j, "reps", 0));
    r.median_ms = number_of(j, "median_ms", 0);
    r.min_ms = number_of(j, "min_ms", 0);
    r.max_ms = number_of(j, "max_ms", 0);
    r.rate = number_of(j, "rate", 0);
    r.unit = text_of(j, "unit");
    r.pct_of_reference = number_of(j, "pct_of_reference", -1);
    r.pct_of_peak = number_of(j, "pct_of_peak", -1);
    r.device = text_of(j, "device");
    r.note = text_of(j, "note");
    r.date = text_of(j, "date");
    return r;
}

}  // namespace

std::string to_json(const std::vector<ResultRow>& rows) {
    std::string out = "[";
    for (size_t i = 0; i < rows.size(); ++i) {
        // A name or a device that is not valid UTF-8 gets U+FFFD where the bytes were, rather than no file.
        out += (i == 0 ? "\n  " : ",\n  ") + row_json(rows[i]).dump(-1, ' ', false, Json::error_handler_t::replace);
    }
    return out + "\n]\n";
}

bool rows_from_json(const std::string& text, std::vector<ResultRow>& rows, std::string& error) {
    const Json parsed = Json::parse(text, nullptr, false);
    if (parsed.is_discarded()) {
        error = "not JSON";
        return false;
    }
    const Json& list = parsed.is_object() && parsed.contains("rows") ? parsed["rows"] : parsed;
    if (!list.is_array()) {
        error = "JSON, but not a list of result rows";
        return false;
    }
    rows.clear();
    for (const auto& item : list) {
        if (!item.is_object() || !item.contains("name") || !item.contains("kind")) {
            error = "a row is not an object with a name and a kind";
            return false;
        }
        rows.push_back(row_from_json(item));
    }
    return true;
}

nlohmann::json last_json_array(const std::string& output) {
    for (size_t at = output.rfind('['); at != std::string::npos;
         at = at ? output.rfind('[', at - 1) : std::string::npos) {
        if (at > 0 && output[at - 1] != '\n') continue;
        nlohmann::json rows =
            nlohmann::json::parse(output.begin() + static_cast<std::ptrdiff_t>(at), output.end(), nullptr, false);
        if (rows.is_array()) return rows;
    }
    return nlohmann::json(nlohmann::json::value_t::discarded);
}

std::string format_rate(double rate) {
    if (!(rate > 0)) return "-";
    return rate >= 1000 ? fmt::format("{:.0f}", rate) : fmt::format("{:.4g}", rate);
}

std::string to_table(const std::vector<ResultRow>& rows, const std::string& reference_label) {
    size_t name_width = 4;
    for (const auto& r : rows) name_width = std::max(name_width, r.name.size());
    const std::string unit = rows.empty() ? "" : rows.front().unit;
    std::string out = fmt::format("  {:<{}}  {:<6} {:>10} {:>10} {:>9} {:>9}  {}\n", "", name_width, "check",
                                  "median ms", unit, "% " + reference_label, "% peak", "note");
    for (const auto& r : rows) {
        auto pct = [](double v) { return v < 0 ? std::string("-") : fmt::format("{:.1f}%", v); };
        const std::string ms = r.median_ms > 0 ? fmt::format("{:.4g}", r.median_ms) : "-";
        std::string line = fmt::format("  {:<{}}  {:<6} {:>10} {:>10} {:>9} {:>9}  {}", r.name, name_width,
                                       r.status.empty() ? "-" : r.status, ms, format_rate(r.rate),
                                       pct(r.pct_of_reference), pct(r.pct_of_peak), r.note);
        line.erase(line.find_last_not_of(' ') + 1);  // no trailing blanks where a row has no note
        out += line + "\n";
    }
    return out;
}

namespace {

std::string why(int error) { return std::strerror(error); }

// The reason at the end of a FileError's line ("cannot write PATH: REASON"), to name the file it was meant for
// rather than the hidden one it was written to.
std::string reason_in(const FileError& e) {
    const std::string line = e.what();
    const size_t at = line.rfind(": ");
    return at == std::string::npos ? line : line.substr(at + 2);
}

// A folder removed with what is in it when the scope ends: the files not moved into place, if any.
struct StagingFolder {
    std::filesystem::path path;
    ~StagingFolder() {
        std::error_code ignored;
        std::filesystem::remove_all(path, ignored);
    }
};

}  // namespace

void make_result_folder(const std::filesystem::path& folder) {
    std::error_code error;
    std::filesystem::create_directories(folder, error);
    if (error) throw FileError(fmt::format("cannot make the folder {}: {}", folder.string(), error.message()));
    if (!std::filesystem::is_directory(folder, error))
        throw FileError(fmt::format("cannot write in {}: not a folder", folder.string()));
}

void write_result_files(const std::filesystem::path& folder, const std::vector<ResultFile>& files) {
    make_result_folder(folder);
    std::string pattern = (folder / ".results.XXXXXX").string();
    if (!::mkdtemp(pattern.data())) throw FileError(fmt::format("cannot write in {}: {}", folder.string(), why(errno)));
    const StagingFolder staged{pattern};
    for (const auto& f : files) {
        try {
            write_file_atomically(staged.path / f.name, f.content);
        } catch (const FileError& e) {
            throw FileError(fmt::format("cannot write {}: {} (no file replaced: the older ones are as they were)",
                                        (folder / f.name).string(), reason_in(e)));
        }
    }
    for (const auto& f : files)
        if (::rename((staged.path / f.name).c_str(), (folder / f.name).c_str()) != 0)
            throw FileError(fmt::format("cannot replace {}: {}", (folder / f.name).string(), why(errno)));
}

}  // namespace workshop
