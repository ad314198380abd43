// The roofline read back from its SVG: each step's circle, taken back through the axes' own tick labels, sits at
// its step's intensity and its row's rate, under the roofs; the roof bends at the ridge; the steps move right as
// their tiles grow; no label overlaps another.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <regex>

#include "report/chart_axis.hpp"
#include "report/roofline.hpp"

using namespace workshop;

namespace {

constexpr double kDram = 3000, kPeak = 60000;

ResultRow row(const std::string& name, const std::string& kind, double rate, const std::string& status = "PASS") {
    ResultRow r;
    r.track = "matmul";
    r.name = name;
    r.kind = kind;
    r.status = kind == "step" ? status : "";
    r.shape = "4096x4096x4096";
    r.rate = rate;
    r.unit = "GFLOP/s";
    r.device = "Test GPU";
    return r;
}

// A table as make run writes it: every rate under the roofs at its step's intensity.
std::vector<ResultRow> table() {
    return {row("CPU (OpenMP)", "cpu", 80),
            row("step 1: one thread per output (uncoalesced)", "step", 500),
            row("step 2: coalesced", "step", 700),
            row("step 3: shared-memory tiles", "step", 9000),
            row("step 4: several outputs per thread (1D)", "step", 20000),
            row("step 5: 2D register tile, float4 loads", "step", 50000),
            row("cuBLAS SGEMM FP32", "reference", 52000),
            row("cuBLAS SGEMM TF32 tensor cores", "reference", 350000),
            row("FP32 peak", "limit", kPeak)};
}

const ChartText kText{"matmul roofline, 4096 x 4096 x 4096 on Test GPU", "measured 2026-11-25", "GFLOP/s",
                      "above the DRAM roof, L1 and L2 serve part of the bytes"};

// A log axis read back from its tick labels: two ticks give the line from value to pixel.
struct ReadAxis {
    double v0 = 0, p0 = 0, v1 = 0, p1 = 0;
    double value_at(double p) const {
        return std::pow(10.0, std::log10(v0) + (p - p0) / (p1 - p0) * (std::log10(v1) - std::log10(v0)));
    }
};

double parse_tick(const std::string& label) {
    const double scale = label.back() == 'k' ? 1e3 : label.back() == 'M' ? 1e6 : 1;
    return std::stod(label) * scale;
}

ReadAxis read_axis(const std::string& svg, const std::string& cls) {
    const std::regex tick_re("<text x=\"([-0-9.]+)\" y=\"([-0-9.]+)\"[^>]*class=\"" + cls + "\">([^<]*)</text>");
    std::vector<std::pair<double, double>> ticks;  // value, pixel
    for (auto it = std::sregex_iterator(svg.begin(), svg.end(), tick_re); it != std::sregex_iterator(); ++it)
        ticks.push_back({parse_tick((*it)[3]), std::stod((*it)[cls == "x-tick" ? 1 : 2]) - (cls == "x-tick" ? 0 : 4)});
    EXPECT_GE(ticks.size(), 3u) << cls;
    if (ticks.size() < 2) return {1, 0, 10, 1};
    return {ticks.front().first, ticks.front().second, ticks.back().first, ticks.back().second};
}

struct Circle {
    double x, y;
};

std::map<std::string, Circle> circles(const std::string& svg) {
    static const std::regex circle_re(
        R"re(<circle cx="([-0-9.]+)" cy="([-0-9.]+)" r="[0-9.]+" fill="#[0-9a-f]{6}"><title>([^<]*)</title>)re");
    std::map<std::string, Circle> found;
    for (auto it = std::sregex_iterator(svg.begin(), svg.end(), circle_re); it != std::sregex_iterator(); ++it)
        found[(*it)[3]] = {std::stod((*it)[1]), std::stod((*it)[2])};
    return found;
}

}  // namespace

TEST(Roofline, EachStepsIntensityComesFromItsTiles) {
    EXPECT_DOUBLE_EQ(matmul_step_intensity(1), 0.25);  // two floats loaded per multiply-add
    EXPECT_DOUBLE_EQ(matmul_step_intensity(2), 0.25);
    EXPECT_DOUBLE_EQ(matmul_step_intensity(3), 8);   // a 32 x 32 shared tile: T / 4
    EXPECT_DOUBLE_EQ(matmul_step_intensity(4), 8);   // step 3's block tile
    EXPECT_DOUBLE_EQ(matmul_step_intensity(5), 32);  // a 128 x 128 block tile
    EXPECT_EQ(matmul_step_intensity(0), 0);
    EXPECT_EQ(matmul_step_intensity(6), 0);
    for (int step = 2; step <= 5; ++step) EXPECT_GE(matmul_step_intensity(step), matmul_step_intensity(step - 1));
    EXPECT_NEAR(product_intensity("4096x4096x4096"), 682.67, 0.01);  // each matrix moved once
    EXPECT_EQ(product_intensity("8192x8192"), 0);
    EXPECT_EQ(product_intensity("4096x4096x"), 0);
}

TEST(Roofline, TakesTheStepsCublasAndThePeakFromTheRows) {
    std::vector<ResultRow> rows = table();
    rows.push_back(row("step 5", "step", 1, "FAIL"));  // a wrong answer's speed is no result
    const Roofline r = roofline_of(rows, "cuBLAS SGEMM FP32", kDram);
    ASSERT_EQ(r.steps.size(), 5u);
    EXPECT_EQ(r.steps[2].label, "step 3");
    EXPECT_DOUBLE_EQ(r.steps[2].intensity, 8);
    EXPECT_DOUBLE_EQ(r.steps[2].gflops, 9000);
    ASSERT_EQ(r.references.size(), 1u);  // not TF32, on its own roof
    EXPECT_EQ(r.references[0].label, "cuBLAS SGEMM FP32");
    EXPECT_DOUBLE_EQ(r.fp32_gflops, kPeak);
    EXPECT_DOUBLE_EQ(r.dram_gbps, kDram);
    EXPECT_EQ(r.l2_gbps, 0);  // the device's figures give none
}

TEST(Roofline, EachPointSitsAtItsIntensityAndRateUnderTheRoof) {
    const std::vector<ResultRow> rows = table();
    const std::string svg = svg_roofline(kText, roofline_of(rows, "cuBLAS SGEMM FP32", kDram));
    const ReadAxis x = read_axis(svg, "x-tick"), y = read_axis(svg, "y-tick");
    const auto found = circles(svg);
    ASSERT_EQ(found.size(), 6u) << svg;
    double last_intensity = 0;
    for (int step = 1; step <= 5; ++step) {
        const std::string label = "step " + std::to_string(step);
        ASSERT_TRUE(found.count(label)) << label;
        const double intensity = x.value_at(found.at(label).x), rate = y.value_at(found.at(label).y);
        EXPECT_NEAR(intensity / matmul_step_intensity(step), 1, 0.01) << label;
        EXPECT_NEAR(rate / rows[step].rate, 1, 0.01) << label;
        EXPECT_LE(rate, std::min(kDram * intensity, kPeak) * 1.01) << label << " above the roof";
        EXPECT_GE(intensity, last_intensity * 0.99) << label << " left of the step before";
        last_intensity = intensity;
        EXPECT_NE(svg.find(">" + label + "</text>"), std::string::npos) << label << " has no label";
    }
    const Circle cublas = found.at("cuBLAS SGEMM FP32");
    EXPECT_NEAR(x.value_at(cublas.x) / product_intensity("4096x4096x4096"), 1, 0.01);
    EXPECT_NEAR(y.value_at(cublas.y) / 52000, 1, 0.01);
}

TEST(Roofline, TheRoofRisesWithTheBandwidthAndBendsAtTheRidge) {
    const std::string svg = svg_roofline(kText, roofline_of(table(), "cuBLAS SGEMM FP32", kDram));
    const ReadAxis x = read_axis(svg, "x-tick"), y = read_axis(svg, "y-tick");
    static const std::regex path_re(R"re(<path class="roof" d="M([-0-9.]+),([-0-9.]+) L([-0-9.]+),([-0-9.]+)")re");
    std::vector<std::array<double, 4>> segments;
    for (auto it = std::sregex_iterator(svg.begin(), svg.end(), path_re); it != std::sregex_iterator(); ++it)
        segments.push_back({std::stod((*it)[1]), std::stod((*it)[2]), std::stod((*it)[3]), std::stod((*it)[4])});
    ASSERT_EQ(segments.size(), 2u) << svg;  // the DRAM slope, then the FP32 ceiling
    const auto& slope = segments[0];
    EXPECT_NEAR(y.value_at(slope[1]) / (kDram * x.value_at(slope[0])), 1, 0.01);  // GFLOP/s = GB/s x flop/byte
    EXPECT_NEAR(x.value_at(slope[2]) / (kPeak / kDram), 1, 0.01);                 // the ridge: 20 flops per byte
    EXPECT_NEAR(y.value_at(slope[3]) / kPeak, 1, 0.01);
    EXPECT_DOUBLE_EQ(segments[1][0], slope[2]);
    EXPECT_DOUBLE_EQ(segments[1][1], segments[1][3]);  // flat
    EXPECT_NE(svg.find(">FP32 peak 60,000 GFLOP/s</text>"), std::string::npos);
    EXPECT_NE(svg.find(">DRAM 3,000 GB/s</text>"), std::string::npos);
    EXPECT_NE(svg.find(">ridge: 20 flops per byte</text>"), std::string::npos);
}

TEST(Roofline, AxesEndOnRoundTicks) {
    const std::string svg = svg_roofline(kText, roofline_of(table(), "cuBLAS SGEMM FP32", kDram));
    for (const char* cls : {"x-tick", "y-tick"}) {
        const std::regex tick_re(std::string("class=\"") + cls + "\">([^<]*)</text>");
        int count = 0;
        for (auto it = std::sregex_iterator(svg.begin(), svg.end(), tick_re); it != std::sregex_iterator(); ++it) {
            const double v = parse_tick((*it)[1]);
            const double mantissa = v / std::pow(10.0, std::floor(std::log10(v) + 1e-9));
            EXPECT_TRUE(std::fabs(mantissa - 1) < 1e-6 || std::fabs(mantissa - 2) < 1e-6 ||
                        std::fabs(mantissa - 5) < 1e-6)
                << cls << " " << (*it)[1];
            ++count;
        }
        EXPECT_GE(count, 4) << cls;
    }
}

TEST(Roofline, NoLabelOverlapsAnother) {
    const std::string svg = svg_roofline(kText, roofline_of(table(), "cuBLAS SGEMM FP32", kDram));
    static const std::regex text_re(
        R"re(<text x="([-0-9.]+)" y="([-0-9.]+)" font-size="([0-9.]+)" text-anchor="(\w+)"([^>]*)>([^<]*)</text>)re");
    struct Box {
        std::string s;
        double l, r, t, b;
    };
    std::vector<Box> boxes;
    for (auto it = std::sregex_iterator(svg.begin(), svg.end(), text_re); it != std::sregex_iterator(); ++it) {
        const auto& m = *it;
        const double x = std::stod(m[1]), y = std::stod(m[2]), px = std::stod(m[3]);
        const double w = chart::text_width(m[6], px * (m[5].str().find("bold") != std::string::npos ? 1.1 : 1.0));
        const double l = m[4] == "start" ? x : m[4] == "middle" ? x - w / 2 : x - w;
        boxes.push_back({m[6], l, l + w, y - 0.8 * px, y + 0.25 * px});
    }
    ASSERT_GT(boxes.size(), 15u);
    for (size_t i = 0; i < boxes.size(); ++i)
        for (size_t j = i + 1; j < boxes.size(); ++j) {
            const auto &a = boxes[i], &b = boxes[j];
            const bool apart = a.r <= b.l + 0.5 || b.r <= a.l + 0.5 || a.b <= b.t + 0.5 || b.b <= a.t + 0.5;
            EXPECT_TRUE(apart) << "'" << a.s << "' overlaps '" << b.s << "'";
        }
}

TEST(Roofline, WithoutRowsOrRoofsItIsStillAChart) {
    const std::string svg = svg_roofline(kText, Roofline{});
    EXPECT_NE(svg.find("</svg>"), std::string::npos);
    EXPECT_EQ(svg.find("<circle"), std::string::npos);
    EXPECT_EQ(svg.find("class=\"roof\""), std::string::npos);
}
