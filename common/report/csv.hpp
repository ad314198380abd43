// CSV as RFC 4180 has it: every CSV the kit writes goes through csv_line, and is read back with parse_csv.
// A field holding a comma, a double quote, a carriage return or a line feed is quoted, and its quotes doubled;
// every other field is written as it is. Records end with "\n" (what spreadsheets and Python's csv module read).
#pragma once

#include <string>
#include <vector>

namespace workshop {

// One field, quoted where it must be.
std::string csv_field(const std::string& field);

// One record: the fields, each through csv_field, joined by commas; no line end.
std::string csv_line(const std::vector<std::string>& fields);

// The records of a CSV text, each a list of fields. A quoted field may hold commas, doubled quotes and line ends;
// a line end outside quotes ends the record ("\r\n" as well as "\n"), and empty lines are no records. A quote
// left open runs to the end of the text.
std::vector<std::vector<std::string>> parse_csv(const std::string& text);

}  // namespace workshop
