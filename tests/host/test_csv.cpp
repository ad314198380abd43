// CSV as RFC 4180 has it: a field with a comma, a quote or a line end is quoted, its quotes doubled, and reads back
// as it was, whole, even where it spans lines.
#include <gtest/gtest.h>

#include "report/csv.hpp"
#include "report/report.hpp"

using namespace workshop;

TEST(Csv, QuotesOnlyTheFieldsThatNeedIt) {
    EXPECT_EQ(csv_field("plain text 1.5"), "plain text 1.5");
    EXPECT_EQ(csv_field(""), "");
    EXPECT_EQ(csv_field("a,b"), "\"a,b\"");
    EXPECT_EQ(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
    EXPECT_EQ(csv_field("two\nlines"), "\"two\nlines\"");
    EXPECT_EQ(csv_field("cr\r"), "\"cr\r\"");
    EXPECT_EQ(csv_line({"x", "a,b", "", "q\""}), "x,\"a,b\",,\"q\"\"\"");
}

TEST(Csv, AFieldWithACommaAQuoteAndANewlineRoundTrips) {
    const std::string hostile = "first, \"quoted\"\nsecond line, \"\"";
    const std::string text = csv_line({"a", hostile, "z"}) + "\n" + csv_line({"b", "", "\"only\""}) + "\n";
    EXPECT_EQ(text, "a,\"first, \"\"quoted\"\"\nsecond line, \"\"\"\"\",z\nb,,\"\"\"only\"\"\"\n");
    const auto records = parse_csv(text);
    ASSERT_EQ(records.size(), 2u);
    EXPECT_EQ(records[0], (std::vector<std::string>{"a", hostile, "z"}));
    EXPECT_EQ(records[1], (std::vector<std::string>{"b", "", "\"only\""}));
}

TEST(Csv, ReadsCrLfLineEndsAndSkipsEmptyLines) {
    const auto records = parse_csv("h1,h2\r\n\r\n1,\"x\r\ny\"\r\n\n2,\n");
    ASSERT_EQ(records.size(), 3u);
    EXPECT_EQ(records[1], (std::vector<std::string>{"1", "x\r\ny"}));
    EXPECT_EQ(records[2], (std::vector<std::string>{"2", ""}));
}

TEST(Csv, AResultRowWithEveryTextFieldHostileRoundTrips) {
    ResultRow r;
    const std::string hostile = "a,b \"c\"\nd";
    r.track = "matmul";
    r.name = "step 3: " + hostile;
    r.kind = "step" + hostile;  // every text column goes through the writer, not only the names and the note
    r.shape = "4096x4096x4096" + hostile;
    r.status = "PASS" + hostile;
    r.unit = "GFLOP/s" + hostile;
    r.device = hostile;
    r.note = hostile;
    r.date = "2026-11-25";
    r.reps = 7;
    r.rate = 8805.98;
    const std::string file = to_csv(std::vector<ResultRow>{r, r});
    const auto rows = parse_rows(file);
    ASSERT_EQ(rows.size(), 2u) << file;
    for (const auto& back : rows) {
        EXPECT_EQ(back.name, r.name);
        EXPECT_EQ(back.kind, r.kind);
        EXPECT_EQ(back.shape, r.shape);
        EXPECT_EQ(back.status, r.status);
        EXPECT_EQ(back.unit, r.unit);
        EXPECT_EQ(back.device, r.device);
        EXPECT_EQ(back.note, r.note);
        EXPECT_EQ(back.date, r.date);
        EXPECT_EQ(back.reps, 7);
        EXPECT_DOUBLE_EQ(back.rate, 8805.98);
    }
    ResultRow one;
    EXPECT_TRUE(from_csv(to_csv(r), one));  // one record, though it spans lines
    EXPECT_EQ(one.note, hostile);
    EXPECT_FALSE(from_csv(to_csv(r) + "\n" + to_csv(r), one));  // two records are not one row
}

TEST(Csv, TheHeaderKeepsItsColumnsInOrder) {
    EXPECT_EQ(csv_header(),
              "track,name,kind,shape,status,reps,median_ms,min_ms,max_ms,rate,unit,pct_of_reference,pct_of_peak,device,"
              "note,date");
}
