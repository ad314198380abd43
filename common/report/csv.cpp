#include "report/csv.hpp"

namespace workshop {

std::string csv_field(const std::string& field) {
    if (field.find_first_of(",\"\r\n") == std::string::npos) return field;
    std::string quoted = "\"";
    for (char c : field) {
        if (c == '"') quoted += '"';
        quoted += c;
    }
    return quoted + "\"";
}

std::string csv_line(const std::vector<std::string>& fields) {
    std::string line;
    for (size_t i = 0; i < fields.size(); ++i) line += (i ? "," : "") + csv_field(fields[i]);
    return line;
}

namespace {

// The reader's state between characters: the records so far, and whether the current one holds anything yet.
struct CsvReader {
    std::vector<std::vector<std::string>> records;
    std::vector<std::string> fields{""};
    bool started = false;  // a character of this record seen: an empty line is no record

    void end_record() {
        if (started) records.push_back(fields);
        fields.assign(1, "");
        started = false;
    }
};

}  // namespace

std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
    CsvReader r;
    bool quoted = false;
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (quoted) {
            if (c == '"' && i + 1 < text.size() && text[i + 1] == '"')
                r.fields.back() += '"', ++i;
            else if (c == '"')
                quoted = false;
            else
                r.fields.back() += c;
            continue;
        }
        if (c == '\n' || (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n')) {
            i += c == '\r';
            r.end_record();
            continue;
        }
        r.started = true;
        if (c == '"')
            quoted = true;
        else if (c == ',')
            r.fields.emplace_back();
        else
            r.fields.back() += c;
    }
    r.end_record();
    return r.records;
}

}  // namespace workshop
