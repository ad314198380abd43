#include <gtest/gtest.h>

#include <limits>

#include "report/report.hpp"

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
    const std::string json = to_json({sample()});
    EXPECT_NE(json.find("\"name\": \"step 3, \\\"tile\\\"\""), std::string::npos) << json;
    EXPECT_NE(json.find("\"pct_of_peak\": null"), std::string::npos) << json;
    EXPECT_NE(json.find("\"pct_of_reference\": 80.5"), std::string::npos) << json;
    EXPECT_EQ(json_escape("a\nb\\"), "a\\nb\\\\");
}

TEST(Report, JsonWritesNullForNumbersJsonCannotHold) {
    ResultRow r = sample();
    r.rate = std::numeric_limits<double>::infinity();
    r.median_ms = std::numeric_limits<double>::quiet_NaN();
    r.pct_of_reference = std::numeric_limits<double>::infinity();
    r.date = "2026-11-22";
    const std::string json = to_json({r});
    EXPECT_NE(json.find("\"rate\": null"), std::string::npos) << json;
    EXPECT_NE(json.find("\"median_ms\": null"), std::string::npos) << json;
    EXPECT_NE(json.find("\"pct_of_reference\": null"), std::string::npos) << json;
    EXPECT_NE(json.find("\"date\": \"2026-11-22\""), std::string::npos) << json;
    EXPECT_EQ(json.find("inf"), std::string::npos) << json;
    EXPECT_EQ(json.find("nan"), std::string::npos) << json;
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
