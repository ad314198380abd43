#include <gtest/gtest.h>

#include <cmath>

#include "report/chart_axis.hpp"

using namespace workshop::chart;

namespace {

// 1, 2 or 5 times a power of ten (any sign of the exponent).
bool is_125(double v) {
    const double mantissa = v / std::pow(10.0, std::floor(std::log10(v) + 1e-9));
    for (double m : {1.0, 2.0, 5.0})
        if (std::fabs(mantissa - m) < 1e-6) return true;
    return false;
}

}  // namespace

TEST(ChartAxis, LinearTicksAreRoundStepsCoveringTheRange) {
    EXPECT_EQ(linear_ticks(0, 72261, 8), (std::vector<double>{0, 20000, 40000, 60000, 80000}));
    EXPECT_EQ(linear_ticks(0, 3352, 8), (std::vector<double>{0, 500, 1000, 1500, 2000, 2500, 3000, 3500}));
    for (double hi : {0.7, 1.0, 3.3, 47.0, 999.0, 1001.0, 54196.0, 2.5e6})
        for (int max_ticks : {3, 5, 8, 12}) {
            const auto ticks = linear_ticks(0, hi, max_ticks);
            ASSERT_GE(ticks.size(), 2u);
            EXPECT_LE(static_cast<int>(ticks.size()), max_ticks) << hi;
            EXPECT_EQ(ticks.front(), 0);
            EXPECT_GE(ticks.back(), hi);
            const double step = ticks[1] - ticks[0];
            EXPECT_TRUE(is_125(step)) << "step " << step << " for " << hi;
            EXPECT_LT(ticks.back() - step, hi) << "one tick too many for " << hi;
        }
}

TEST(ChartAxis, LogTicksAreOneTwoFiveAndThinToPowersOfTenWhenCrowded) {
    EXPECT_EQ(log_ticks(30.3, 3352, 12), (std::vector<double>{20, 50, 100, 200, 500, 1000, 2000, 5000}));
    EXPECT_EQ(log_ticks(8.17, 66908, 8), (std::vector<double>{1, 10, 100, 1000, 10000, 100000}));
    EXPECT_EQ(log_ticks(8.17, 66908, 4), (std::vector<double>{1, 100, 10000, 1000000}));
    for (double lo : {0.03, 1.0, 7.9, 756.0})
        for (double ratio : {11.0, 150.0, 1e4}) {
            const auto ticks = log_ticks(lo, lo * ratio, 15);
            EXPECT_LE(ticks.front(), lo);
            EXPECT_GE(ticks.back(), lo * ratio * (1 - 1e-9));
            for (double t : ticks) EXPECT_TRUE(is_125(t)) << t;
        }
}

TEST(ChartAxis, LogScaleOnlyWhereTheValuesSpanMoreThanTenTimes) {
    const Axis wide = value_axis({8.17, 194.6, 2826.6, 3352.3}, 12);
    EXPECT_TRUE(wide.log);
    EXPECT_EQ(wide.lo, 5);
    EXPECT_EQ(wide.hi, 5000);
    EXPECT_NEAR(wide.fraction(wide.lo), 0, 1e-12);
    EXPECT_NEAR(wide.fraction(wide.hi), 1, 1e-12);
    EXPECT_NEAR(wide.fraction(std::sqrt(5.0 * 5000)), 0.5, 1e-12);  // the geometric middle is the middle

    const Axis narrow = value_axis({975.2, 1606.8, 2826.6, 3352.3}, 8);
    EXPECT_FALSE(narrow.log);
    EXPECT_EQ(narrow.lo, 0);
    EXPECT_EQ(narrow.hi, 3500);
    // Zero (a kernel that did not run) has no say in the scale.
    EXPECT_FALSE(value_axis({0, 100, 900}, 8).log);
    EXPECT_TRUE(value_axis({0, 10, 900}, 8).log);
}

TEST(ChartAxis, LabelsHaveNoExponents) {
    EXPECT_EQ(tick_label(0), "0");
    EXPECT_EQ(tick_label(0.5), "0.5");
    EXPECT_EQ(tick_label(0.1 * 6), "0.6");
    EXPECT_EQ(tick_label(2000), "2000");
    EXPECT_EQ(tick_label(50000), "50k");
    EXPECT_EQ(tick_label(2e6), "2M");
    EXPECT_EQ(value_label(8.16984), "8.17");
    EXPECT_EQ(value_label(92.0603), "92.1");
    EXPECT_EQ(value_label(972.295), "972");
    EXPECT_EQ(value_label(46758.2), "46,758");
    EXPECT_EQ(value_label(1234567), "1,234,567");
    EXPECT_EQ(value_label(std::nan("")), "-");
}

TEST(ChartAxis, TextWidthGrowsWithTheTextAndTheFont) {
    EXPECT_GT(text_width("mmmm", 12), text_width("iiii", 12));
    EXPECT_NEAR(text_width("step 3", 24), 2 * text_width("step 3", 12), 1e-9);
    EXPECT_GT(text_width("step 3: shared-memory tile", 13), text_width("step 3", 13));
    // A multi-byte character counts once.
    EXPECT_NEAR(text_width("\xc3\x97", 10), text_width("x", 10), 1.0);
}

TEST(ChartAxis, RowsKeepOverlappingLabelsApart) {
    // Three labels: the first two overlap, the third clears both.
    const auto rows = assign_rows({{0, 100}, {90, 150}, {170, 200}}, 8);
    EXPECT_EQ(rows, (std::vector<int>{0, 1, 0}));
    // Labels close together climb one row each; the order of their right ends decides who goes first.
    EXPECT_EQ(assign_rows({{50, 120}, {40, 110}, {60, 130}}, 8), (std::vector<int>{1, 0, 2}));
    EXPECT_TRUE(assign_rows({}, 8).empty());
}
