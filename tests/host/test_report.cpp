// Results as rows (CSV, JSON, tables) and the files of a run, written as one set.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>

#include "base/files.hpp"
#include "report/report.hpp"
#include "scratch_folder.hpp"

using namespace workshop;

namespace {

ResultRow sample() {
    ResultRow r;
    r.track = "transpose";
    r.name = "step 3, \"tile\"";
    r.kind = "step";
    r.shape = "8192x8192";
    r.status = "PASS";
    r.reps = 20;
    r.median_ms = 0.25;
    r.min_ms = 0.24;
    r.max_ms = 0.3;
    r.rate = 2147.48;
    r.unit = "GB/s";
    r.pct_of_reference = 80.5;
    r.device = "NVIDIA H100 80GB HBM3";
    return r;
}

nlohmann::json first_row(const std::string& json) { return nlohmann::json::parse(json).at(0); }

}  // namespace

TEST(Report, CsvRoundTripsWithQuotesAndCommas) {
    const ResultRow r = sample();
    const std::string line = to_csv(r);
    EXPECT_NE(line.find("\"step 3, \"\"tile\"\"\""), std::string::npos) << line;
    ResultRow back;
    ASSERT_TRUE(from_csv(line, back));
    EXPECT_EQ(back.name, r.name);
    EXPECT_EQ(back.reps, 20);
    EXPECT_DOUBLE_EQ(back.rate, 2147.48);
    EXPECT_DOUBLE_EQ(back.pct_of_reference, 80.5);
    EXPECT_DOUBLE_EQ(back.pct_of_peak, -1);
    EXPECT_FALSE(from_csv(csv_header(), back));
    EXPECT_FALSE(from_csv("not,a,row", back));
}

TEST(Report, CsvCarriesTheDateAndReadsFilesWrittenWithoutOne) {
    ResultRow r = sample();
    r.date = "2026-11-22";
    const std::string line = to_csv(r);
    EXPECT_EQ(line.substr(line.size() - 11), ",2026-11-22") << line;
    EXPECT_EQ(csv_header().substr(csv_header().size() - 5), ",date");
    ResultRow back;
    ASSERT_TRUE(from_csv(line, back));
    EXPECT_EQ(back.date, "2026-11-22");
    // The same row as written before rows had a date: 15 fields.
    const std::string old_line = line.substr(0, line.size() - 11);
    ASSERT_TRUE(from_csv(old_line, back)) << old_line;
    EXPECT_EQ(back.date, "");
    EXPECT_EQ(back.device, r.device);
    EXPECT_FALSE(from_csv(line + ",extra", back));
}

TEST(Report, JsonEscapesAndUsesNullForMissingRatios) {
    ResultRow r = sample();
    r.note = "line\nbreak \\ and \x1b[31m";
    const nlohmann::json row = first_row(to_json({r}));
    EXPECT_EQ(row.at("name"), "step 3, \"tile\"");
    EXPECT_EQ(row.at("note"), r.note);
    EXPECT_TRUE(row.at("pct_of_peak").is_null());
    EXPECT_EQ(row.at("pct_of_reference"), 80.5);
    EXPECT_EQ(row.at("reps"), 20);
}

TEST(Report, JsonWritesNullForNumbersJsonCannotHold) {
    ResultRow r = sample();
    r.rate = std::numeric_limits<double>::infinity();
    r.median_ms = std::numeric_limits<double>::quiet_NaN();
    r.pct_of_reference = std::numeric_limits<double>::infinity();
    r.date = "2026-11-22";
    const std::string json = to_json({r});
    const nlohmann::json row = first_row(json);
    EXPECT_TRUE(row.at("rate").is_null()) << json;
    EXPECT_TRUE(row.at("median_ms").is_null()) << json;
    EXPECT_TRUE(row.at("pct_of_reference").is_null()) << json;
    EXPECT_EQ(row.at("date"), "2026-11-22");
    EXPECT_EQ(json.find("inf"), std::string::npos) << json;
    EXPECT_EQ(json.find("nan"), std::string::npos) << json;
}

TEST(Report, JsonKeepsTheCsvColumnsInOrderOneRowALine) {
    const std::string json = to_json({sample(), sample()});
    EXPECT_EQ(std::count(json.begin(), json.end(), '\n'), 4) << json;  // "[", two rows, "]"
    std::string keys;
    const auto parsed = nlohmann::ordered_json::parse(json);
    for (const auto& item : parsed.at(0).items()) keys += "," + item.key();
    EXPECT_EQ(keys.substr(1), csv_header());
}

TEST(Report, JsonReadsBackTheRowsItWrote) {
    ResultRow r = sample();
    r.median_ms = 0.123456789;  // kept to 6 significant digits, as in the CSV
    r.date = "2026-11-22";
    std::vector<ResultRow> back;
    std::string error;
    ASSERT_TRUE(rows_from_json(to_json({r, sample()}), back, error)) << error;
    ASSERT_EQ(back.size(), 2u);
    EXPECT_EQ(back[0].name, r.name);
    EXPECT_EQ(back[0].device, r.device);
    EXPECT_EQ(back[0].date, "2026-11-22");
    EXPECT_EQ(back[0].reps, 20);
    EXPECT_DOUBLE_EQ(back[0].median_ms, 0.123457);
    EXPECT_DOUBLE_EQ(back[0].rate, 2147.48);
    EXPECT_DOUBLE_EQ(back[0].pct_of_reference, 80.5);
    EXPECT_DOUBLE_EQ(back[0].pct_of_peak, -1);  // null: none
    // An object holding the rows under "rows" is read the same way.
    ASSERT_TRUE(rows_from_json("{\"verdict\": \"PASS\", \"rows\": " + to_json({r}) + "}", back, error)) << error;
    EXPECT_EQ(back.size(), 1u);
}

TEST(Report, JsonThatIsNotRowsIsRefusedWithTheReason) {
    std::vector<ResultRow> rows;
    std::string error;
    EXPECT_FALSE(rows_from_json("FAIL: wrong answer at (3, 4)\n", rows, error));
    EXPECT_EQ(error, "not JSON");
    EXPECT_FALSE(rows_from_json("{\"rate\": 1}", rows, error));
    EXPECT_FALSE(rows_from_json("[{\"rate\": 1}]", rows, error));
    EXPECT_EQ(error, "a row is not an object with a name and a kind");
    EXPECT_TRUE(rows_from_json("[]", rows, error));
    EXPECT_TRUE(rows.empty());
}

TEST(Report, JsonOfANameThatIsNotUtf8IsStillWritten) {
    ResultRow r = sample();
    r.device = "GPU \xff\xfe";
    std::string json;
    ASSERT_NO_THROW(json = to_json({r}));
    EXPECT_EQ(first_row(json).at("device"), "GPU \xEF\xBF\xBD\xEF\xBF\xBD");  // U+FFFD twice
}

TEST(Report, CsvFileIsTheHeaderAndOneLineARow) {
    EXPECT_EQ(to_csv(std::vector<ResultRow>{sample()}), csv_header() + "\n" + to_csv(sample()) + "\n");
    EXPECT_EQ(parse_rows(to_csv(std::vector<ResultRow>{sample(), sample()})).size(), 2u);
}

TEST(ResultFiles, ASetIsWrittenWholeAndReplacesTheOldOne) {
    ScratchFolder dir;
    const auto out = dir.path / "results" / "h100";  // made where missing
    write_result_files(out, {{"a.csv", "old a\n"}, {"b.svg", "old b\n"}});
    write_result_files(out, {{"a.csv", "new a\n"}, {"b.svg", "new b\n"}});
    EXPECT_EQ(read_file(out / "a.csv"), "new a\n");
    EXPECT_EQ(read_file(out / "b.svg"), "new b\n");
    EXPECT_EQ(std::distance(std::filesystem::directory_iterator(out), std::filesystem::directory_iterator()), 2);
}

TEST(ResultFiles, AFullDiskLeavesEveryOldFileAsItWas) {
    ScratchFolder dir;
    write_result_files(dir.path, {{"a.csv", "old a\n"}, {"b.svg", "old b\n"}});
    std::string error;
    {
        const FileSizeLimit full_disk(4096);
        ASSERT_TRUE(full_disk.set());
        try {
            // a.csv fits and is written first: it must not replace the old one while b.svg cannot be written.
            write_result_files(dir.path, {{"a.csv", "new a\n"}, {"b.svg", std::string(10000, 'x')}});
        } catch (const FileError& e) { error = e.what(); }
    }
    EXPECT_NE(error.find("cannot write " + (dir.path / "b.svg").string() + ": File too large"), std::string::npos)
        << error;
    EXPECT_EQ(error.find('\n'), std::string::npos) << error;
    EXPECT_EQ(read_file(dir.path / "a.csv"), "old a\n");
    EXPECT_EQ(read_file(dir.path / "b.svg"), "old b\n");
    EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.path), std::filesystem::directory_iterator()), 2);
}

TEST(ResultFiles, AFolderThatCannotBeMadeIsOneLineNamingIt) {
    ScratchFolder dir;
    std::ofstream(dir.path / "a file") << "x";
    const auto out = dir.path / "a file" / "results";
    try {
        write_result_files(out, {{"a.csv", "a\n"}});
        FAIL() << "wrote under a regular file";
    } catch (const FileError& e) {
        EXPECT_EQ(std::string(e.what()), "cannot make the folder " + out.string() + ": Not a directory");
    }
}

TEST(Report, TableShowsEveryRowAndItsRatio) {
    const std::string table = to_table({sample()}, "copy");
    EXPECT_NE(table.find("% copy"), std::string::npos);
    EXPECT_NE(table.find("80.5%"), std::string::npos) << table;
    EXPECT_NE(table.find(" 2147 "), std::string::npos) << table;
}

TEST(Report, RatesPrintWholeFromAThousandUpAndNeverInExponentForm) {
    EXPECT_EQ(format_rate(351729.4), "351729");  // the TF32 row of a matmul sweep
    EXPECT_EQ(format_rate(4081.1), "4081");
    EXPECT_EQ(format_rate(549.53), "549.5");
    EXPECT_EQ(format_rate(8.9261), "8.926");
    EXPECT_EQ(format_rate(0), "-");
    EXPECT_EQ(format_rate(-1), "-");
}

TEST(Report, TableRowsWithoutANoteEndWithoutBlanks) {
    ResultRow row = sample();
    row.note.clear();
    const std::string table = to_table({row}, "copy");
    EXPECT_EQ(table.find(" \n"), std::string::npos) << table;
}
