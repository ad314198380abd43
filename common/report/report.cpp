// CSV and JSON are written by hand here rather than with a library (nlohmann-json, say). What is written is
// one flat table of strings and numbers: escaping (below) and null for a missing or non-finite number are the
// whole of the job, and each has a test. A library would be one more package for every student to install,
// often without root on a cluster's login node, for no behaviour the workshop needs; nothing here reads JSON.
// The one reader, from_csv, reads back only what to_csv wrote (for `workshop_results --replot`).
#include "report/report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <sstream>

namespace workshop {

std::string csv_escape(const std::string& field) {
    if (field.find_first_of(",\"\n") == std::string::npos) return field;
    std::string quoted = "\"";
    for (char c : field) {
        if (c == '"') quoted += '"';
        quoted += c;
    }
    return quoted + "\"";
}

std::string json_escape(const std::string& text) {
    std::string out;
    for (char c : text) {
        switch (c) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\n': out += "\\n"; break;
            case '\t': out += "\\t"; break;
            default:
                if (static_cast<unsigned char>(c) < 0x20)
                    out += fmt::format("\\u{:04x}", c);
                else
                    out += c;
        }
    }
    return out;
}

std::string csv_header() {
    return "track,name,kind,shape,status,reps,median_ms,min_ms,max_ms,rate,unit,pct_of_reference,pct_of_peak,device,"
           "note,date";
}

std::string to_csv(const ResultRow& r) {
    return fmt::format("{},{},{},{},{},{},{:.6g},{:.6g},{:.6g},{:.6g},{},{:.4g},{:.4g},{},{},{}", csv_escape(r.track),
                       csv_escape(r.name), r.kind, r.shape, r.status, r.reps, r.median_ms, r.min_ms, r.max_ms, r.rate,
                       r.unit, r.pct_of_reference, r.pct_of_peak, csv_escape(r.device), csv_escape(r.note),
                       csv_escape(r.date));
}

namespace {

std::vector<std::string> split_csv(const std::string& line) {
    std::vector<std::string> fields(1);
    bool quoted = false;
    for (size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (quoted) {
            if (c == '"' && i + 1 < line.size() && line[i + 1] == '"')
                fields.back() += '"', ++i;
            else if (c == '"')
                quoted = false;
            else
                fields.back() += c;
        } else if (c == '"') {
            quoted = true;
        } else if (c == ',') {
            fields.emplace_back();
        } else {
            fields.back() += c;
        }
    }
    return fields;
}

}  // namespace

bool from_csv(const std::string& line, ResultRow& r) {
    auto f = split_csv(line);
    if ((f.size() != 15 && f.size() != 16) || f[0] == "track") return false;
    f.resize(16);  // files written before rows carried a date
    auto num = [](const std::string& s) { return std::strtod(s.c_str(), nullptr); };
    r = ResultRow{f[0],       f[1],      f[2],      f[3],      f[4],  std::atoi(f[5].c_str()),
                  num(f[6]),  num(f[7]), num(f[8]), num(f[9]), f[10], num(f[11]),
                  num(f[12]), f[13],     f[14],     f[15]};
    return true;
}

std::vector<ResultRow> parse_rows(const std::string& csv) {
    std::vector<ResultRow> rows;
    std::istringstream lines(csv);
    std::string line;
    ResultRow r;
    while (std::getline(lines, line))
        if (from_csv(line, r)) rows.push_back(r);
    return rows;
}

std::string to_json(const std::vector<ResultRow>& rows) {
    std::string out = "[\n";
    for (size_t i = 0; i < rows.size(); ++i) {
        const ResultRow& r = rows[i];
        // JSON has no NaN or Infinity: a number that is not finite (or a ratio < 0, meaning none) is null.
        auto num = [](double v) { return std::isfinite(v) ? fmt::format("{:.6g}", v) : std::string("null"); };
        auto ratio = [](double v) {
            return v < 0 || !std::isfinite(v) ? std::string("null") : fmt::format("{:.4g}", v);
        };
        out += fmt::format(
            "  {{\"track\": \"{}\", \"name\": \"{}\", \"kind\": \"{}\", \"shape\": \"{}\", \"status\": \"{}\", "
            "\"reps\": {}, \"median_ms\": {}, \"min_ms\": {}, \"max_ms\": {}, \"rate\": {}, \"unit\": \"{}\", "
            "\"pct_of_reference\": {}, \"pct_of_peak\": {}, \"device\": \"{}\", \"note\": \"{}\", "
            "\"date\": \"{}\"}}{}\n",
            json_escape(r.track), json_escape(r.name), json_escape(r.kind), json_escape(r.shape), json_escape(r.status),
            r.reps, num(r.median_ms), num(r.min_ms), num(r.max_ms), num(r.rate), json_escape(r.unit),
            ratio(r.pct_of_reference), ratio(r.pct_of_peak), json_escape(r.device), json_escape(r.note),
            json_escape(r.date), i + 1 < rows.size() ? "," : "");
    }
    return out + "]\n";
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

}  // namespace workshop
