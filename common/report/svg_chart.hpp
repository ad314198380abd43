// Charts an instructor can drop on a slide: plain SVG, no dependencies. Axes end on round ticks and turn
// logarithmic where the values span more than 10x (chart_axis.hpp); no two labels overlap; the title says
// what was measured on which GPU, the subtitle when.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace workshop {

struct ChartText {
    std::string title;     // what, how big, and on which GPU
    std::string subtitle;  // when, and how the figures were taken
    std::string unit;      // of the values: GB/s, GFLOP/s
};

struct Bar {
    std::string label;
    double value = 0;
};

struct LimitLine {
    std::string label;
    double value = 0;
};

// Horizontal bars (one per kernel) with dashed vertical lines for the limits (copy kernel, peak, cuBLAS),
// labelled above the bars.
std::string svg_bar_chart(const ChartText& text, const std::vector<Bar>& bars, const std::vector<LimitLine>& limits);

struct Series {
    std::string label;
    std::vector<std::pair<double, double>> points;  // (x, y)
    bool dashed = false;                            // references and limits are drawn dashed
};

// Value against problem size, x on a log2 axis: one line per kernel, the legend in the order of the lines'
// right ends.
std::string svg_line_chart(const ChartText& text, const std::string& x_label, const std::vector<Series>& series);

// The colours of bars or series with these labels: "step N ..." always gets step N's colour (so both charts
// agree), "CPU ..." grey, the rest (references, limits) one distinct colour each.
std::vector<std::string> chart_colors(const std::vector<std::string>& labels);

}  // namespace workshop
