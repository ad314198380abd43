// The charts' layout, read back from the SVG: every label's box (estimated as the chart estimates it) is
// inside the canvas and overlaps no other, the axis is logarithmic with round ticks where the values span
// more than 10x, and the slowest step's bar is still long enough to read.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <regex>
#include <set>

#include "report/chart_axis.hpp"
#include "report/svg_chart.hpp"

using namespace workshop;

namespace {

struct TextBox {
    std::string text;
    double left, right, top, bottom;
    bool halo;
    double px;
};

std::string unescape(std::string s) {
    for (const auto& [from, to] : {std::pair{"&lt;", "<"}, {"&gt;", ">"}, {"&amp;", "&"}})
        for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at))
            s.replace(at, std::strlen(from), to);
    return s;
}

std::vector<TextBox> text_boxes(const std::string& svg) {
    static const std::regex text_re(
        R"re(<text x="([-0-9.]+)" y="([-0-9.]+)" font-size="([0-9.]+)" text-anchor="(\w+)"([^>]*)>([^<]*)</text>)re");
    std::vector<TextBox> boxes;
    for (auto it = std::sregex_iterator(svg.begin(), svg.end(), text_re); it != std::sregex_iterator(); ++it) {
        const auto& m = *it;
        const double x = std::stod(m[1]), y = std::stod(m[2]), px = std::stod(m[3]);
        const std::string attrs = m[5], text = unescape(m[6]);
        const double w = chart::text_width(text, px * (attrs.find("bold") != std::string::npos ? 1.1 : 1.0));
        const double left = m[4] == "start" ? x : m[4] == "middle" ? x - w / 2 : x - w;
        boxes.push_back(
            {text, left, left + w, y - 0.8 * px, y + 0.25 * px, attrs.find("stroke=") != std::string::npos, px});
    }
    return boxes;
}

std::pair<double, double> canvas(const std::string& svg) {
    std::smatch m;
    EXPECT_TRUE(std::regex_search(svg, m, std::regex(R"re(<svg [^>]*width="([0-9.]+)" height="([0-9.]+)")re")));
    return {std::stod(m[1]), std::stod(m[2])};
}

// Every label inside the canvas, no two overlapping.
void expect_clean_layout(const std::string& svg) {
    const auto boxes = text_boxes(svg);
    ASSERT_GT(boxes.size(), 5u);
    const auto [width, height] = canvas(svg);
    for (const auto& b : boxes) {
        EXPECT_GE(b.left, 0) << b.text;
        EXPECT_LE(b.right, width) << b.text;
        EXPECT_GE(b.top, 0) << b.text;
        EXPECT_LE(b.bottom, height) << b.text;
    }
    for (size_t i = 0; i < boxes.size(); ++i)
        for (size_t j = i + 1; j < boxes.size(); ++j) {
            const auto &a = boxes[i], &b = boxes[j];
            const bool apart = a.right <= b.left + 0.5 || b.right <= a.left + 0.5 || a.bottom <= b.top + 0.5 ||
                               b.bottom <= a.top + 0.5;
            EXPECT_TRUE(apart) << "'" << a.text << "' overlaps '" << b.text << "'";
        }
}

double parse_tick(const std::string& label) {
    const double scale = label.back() == 'k' ? 1e3 : label.back() == 'M' ? 1e6 : 1;
    return std::stod(label) * scale;
}

// The axis tick labels: small, without a halo (value labels have one), numbers.
std::vector<double> tick_values(const std::string& svg) {
    std::vector<double> ticks;
    for (const auto& b : text_boxes(svg))
        if (b.px == 11 && !b.halo && std::regex_match(b.text, std::regex(R"([0-9.]+[kM]?)")))
            ticks.push_back(parse_tick(b.text));
    return ticks;
}

bool is_125(double v) {
    const double mantissa = v / std::pow(10.0, std::floor(std::log10(v) + 1e-9));
    return std::fabs(mantissa - 1) < 1e-6 || std::fabs(mantissa - 2) < 1e-6 || std::fabs(mantissa - 5) < 1e-6;
}

const ChartText kMatmulText{"matmul 4096 x 4096 x 4096 on NVIDIA H100 80GB HBM3",
                            "measured 2026-11-22; each bar the median of its timed runs; dashed: the limits", "GFLOP/s",
                            ""};

// The H100's `make run` figures: 92 to 66,908 GFLOP/s, the two limits 30% apart.
const std::vector<Bar> kMatmulBars{{"CPU (OpenMP)", 92.06},
                                   {"step 1: one thread per output (uncoalesced)", 972.3},
                                   {"step 2: coalesced", 5480},
                                   {"step 3: shared-memory tiles", 8794},
                                   {"step 4: several outputs per thread (1D)", 17030},
                                   {"step 5: 2D register tile, float4 loads", 46758}};
const std::vector<LimitLine> kMatmulLimits{{"cuBLAS SGEMM FP32", 51273}, {"FP32 peak", 66908}};

}  // namespace

TEST(SvgChart, BarChartNamesTheGpuTheSizeAndTheDate) {
    const std::string svg = svg_bar_chart(kMatmulText, kMatmulBars, kMatmulLimits);
    EXPECT_EQ(svg.rfind("<svg", 0), 0u);
    EXPECT_NE(svg.find(">matmul 4096 x 4096 x 4096 on NVIDIA H100 80GB HBM3<"), std::string::npos);
    EXPECT_NE(svg.find("measured 2026-11-22"), std::string::npos);
    EXPECT_NE(svg.find(">FP32 peak 66,908<"), std::string::npos);
    // Step 5's value would sit on the cuBLAS line: it goes inside its bar, in white.
    EXPECT_NE(svg.find("fill=\"white\">46,758<"), std::string::npos);
    EXPECT_NE(svg.find(">17,030<"), std::string::npos);
    EXPECT_NE(svg.find("</svg>"), std::string::npos);
}

TEST(SvgChart, BarChartOverAThousandfoldRangeIsLogWithRoundTicksAndReadableBars) {
    const std::string svg = svg_bar_chart(kMatmulText, kMatmulBars, kMatmulLimits);
    EXPECT_NE(svg.find(">GFLOP/s (log scale)<"), std::string::npos);
    const auto ticks = tick_values(svg);
    ASSERT_GE(ticks.size(), 4u);
    for (double t : ticks) EXPECT_TRUE(is_125(t)) << t;
    EXPECT_LE(ticks.front(), 92.06);
    EXPECT_GE(ticks.back(), 66908);
    // Every step's bar is at least a quarter of the plot (560 px) long; on a linear axis step 1's would be 8 px.
    const auto colors = chart_colors({"step 1", "step 2", "step 3", "step 4", "step 5"});
    for (const auto& color : colors) {
        std::smatch m;
        ASSERT_TRUE(std::regex_search(svg, m, std::regex("<rect [^>]*width=\"([0-9.]+)\"[^>]*fill=\"" + color + "\"")));
        EXPECT_GE(std::stod(m[1]), 140) << color;
    }
    expect_clean_layout(svg);
}

TEST(SvgChart, BarChartWithinTenfoldIsLinearFromZero) {
    const std::string svg = svg_bar_chart({"transpose", "today", "GB/s", ""}, {{"step 4", 1606.8}, {"step 5", 2826.6}},
                                          {{"copy kernel", 2893.1}, {"theoretical DRAM bandwidth", 3352.3}});
    EXPECT_EQ(svg.find("log scale"), std::string::npos);
    const auto ticks = tick_values(svg);
    ASSERT_GE(ticks.size(), 3u);
    EXPECT_EQ(ticks.front(), 0);
    EXPECT_GE(ticks.back(), 3352.3);
    for (size_t i = 1; i < ticks.size(); ++i) EXPECT_TRUE(is_125(ticks[i] - ticks[i - 1]));
    expect_clean_layout(svg);
}

TEST(SvgChart, CrowdedLimitLabelsTakeRowsOfTheirOwn) {
    std::vector<LimitLine> limits;
    for (int i = 0; i < 6; ++i) limits.push_back({"a limit with a long name", 3000 + 40.0 * i});
    const std::string svg = svg_bar_chart({"crowded", "", "GB/s", ""}, {{"CPU", 8}, {"step 1", 200}}, limits);
    expect_clean_layout(svg);
}

TEST(SvgChart, TextIsEscaped) {
    const std::string svg = svg_bar_chart({"transpose <8192> & more", "", "GB/s", ""}, {{"a<b", 1}}, {});
    EXPECT_NE(svg.find("transpose &lt;8192&gt; &amp; more"), std::string::npos);
    EXPECT_NE(svg.find("a&lt;b"), std::string::npos);
}

TEST(SvgChart, StepsHaveTheSameColourInEveryChart) {
    const auto bars = chart_colors({"CPU (OpenMP)", "step 3: shared-memory tile", "copy kernel"});
    const auto lines = chart_colors({"step 1 solution", "step 3 solution", "cuBLAS SGEMM FP32", "FP32 peak"});
    EXPECT_EQ(bars[1], lines[1]);
    EXPECT_NE(lines[0], lines[1]);
    EXPECT_NE(lines[2], lines[3]);
    EXPECT_NE(bars[0], bars[2]);
}

TEST(SvgChart, LineChartIsLogWhereValuesSpanMoreThanTenfoldAndListsTheLinesInOrder) {
    const std::vector<Series> series{
        {"step 1", {{1024, 30.3}, {2048, 58.9}, {4096, 114.2}, {8192, 195.1}, {16384, 334.3}}, false},
        {"step 5", {{1024, 967.3}, {2048, 2637.9}, {4096, 2521.4}, {8192, 2786.2}, {16384, 2868.4}}, false},
        {"theoretical DRAM bandwidth", {{1024, 3352.3}, {16384, 3352.3}}, true}};
    const std::string svg =
        svg_line_chart({"transpose, side from 1024 to 16384, on a GPU", "measured 2026-11-22", "GB/s", ""},
                       "matrix side (rows = cols)", series);
    EXPECT_NE(svg.find(">GB/s (log scale)<"), std::string::npos);
    EXPECT_NE(svg.find("stroke-dasharray"), std::string::npos);
    for (const char* size : {">1024<", ">2048<", ">16384<"}) EXPECT_NE(svg.find(size), std::string::npos) << size;
    // The legend from the highest line to the lowest.
    const size_t peak = svg.find(">theoretical DRAM bandwidth<"), five = svg.find(">step 5<"),
                 one = svg.find(">step 1<");
    ASSERT_NE(one, std::string::npos);
    EXPECT_LT(peak, five);
    EXPECT_LT(five, one);
    const std::set<double> sizes{1024, 2048, 4096, 8192, 16384};
    for (double t : tick_values(svg))
        if (!sizes.count(t)) {
            EXPECT_TRUE(is_125(t)) << t;  // the y ticks
        }
    expect_clean_layout(svg);
}

TEST(SvgChart, LineChartThinsSizeLabelsThatWouldTouch) {
    Series s{"step 5", {}, false};
    for (int e = 1; e <= 24; ++e) s.points.push_back({std::exp2(e), 100.0 * e});
    const std::string svg = svg_line_chart({"many sizes", "", "GB/s", ""}, "side", {s});
    expect_clean_layout(svg);
    EXPECT_NE(svg.find(">2<"), std::string::npos);
}

TEST(SvgChart, AFootnoteIsOneLineUnderTheChartInsideTheCanvas) {
    const std::string note = "a transpose does no flops, so it has no place on a roofline: bandwidth is its measure";
    const std::string svg =
        svg_bar_chart({"transpose", "today", "GB/s", note}, {{"step 4", 1606.8}, {"step 5", 2826.6}}, {});
    EXPECT_NE(svg.find(">" + note + "</text>"), std::string::npos);
    expect_clean_layout(svg);
    const std::string without = svg_bar_chart({"transpose", "today", "GB/s", ""}, {{"step 4", 1606.8}}, {});
    EXPECT_GT(canvas(svg).second, canvas(without).second);  // room made for it
}
