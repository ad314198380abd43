#include <gtest/gtest.h>

#include "report.hpp"
#include "svg_chart.hpp"

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

TEST(Report, JsonEscapesAndUsesNullForMissingRatios) {
    const std::string json = to_json({sample()});
    EXPECT_NE(json.find("\"name\": \"step 3, \\\"tile\\\"\""), std::string::npos) << json;
    EXPECT_NE(json.find("\"pct_of_peak\": null"), std::string::npos) << json;
    EXPECT_NE(json.find("\"pct_of_reference\": 80.5"), std::string::npos) << json;
    EXPECT_EQ(json_escape("a\nb\\"), "a\\nb\\\\");
}

TEST(Report, TableShowsEveryRowAndItsRatio) {
    const std::string table = to_table({sample()}, "copy");
    EXPECT_NE(table.find("% copy"), std::string::npos);
    EXPECT_NE(table.find("80.5%"), std::string::npos) << table;
    EXPECT_NE(table.find(" 2147 "), std::string::npos) << table;
}

TEST(SvgChart, BarsAndLimitsAppear) {
    const std::string svg = svg_bar_chart("transpose <8192>", "GB/s", {{"step 1", 100}, {"step 2", 900}},
                                          {{"copy kernel", 3000}});
    EXPECT_EQ(svg.rfind("<svg", 0), 0u);
    EXPECT_NE(svg.find("transpose &lt;8192&gt;"), std::string::npos);
    EXPECT_NE(svg.find("step 2"), std::string::npos);
    EXPECT_NE(svg.find("copy kernel 3000"), std::string::npos);
    EXPECT_NE(svg.find("</svg>"), std::string::npos);
}

TEST(SvgChart, LinesPerSeriesOnALogAxis) {
    const std::string svg = svg_line_chart("scaling", "side", "GB/s",
                                           {{"step 5", {{1024, 100}, {2048, 200}, {4096, 300}}, false},
                                            {"copy", {{1024, 400}, {4096, 400}}, true}});
    EXPECT_NE(svg.find("stroke-dasharray=\"6,4\""), std::string::npos);
    EXPECT_NE(svg.find(">2048<"), std::string::npos);
    EXPECT_NE(svg.find("step 5"), std::string::npos);
}
