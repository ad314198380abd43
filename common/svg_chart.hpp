// Charts an instructor can drop on a slide: plain SVG, no dependencies.
#pragma once

#include <string>
#include <vector>

namespace workshop {

struct Bar {
    std::string label;
    double value = 0;
};

struct LimitLine {
    std::string label;
    double value = 0;
};

// Horizontal bars (one per kernel) with vertical lines for the limits (copy kernel, peak, cuBLAS).
std::string svg_bar_chart(const std::string& title, const std::string& unit, const std::vector<Bar>& bars,
                          const std::vector<LimitLine>& limits);

struct Series {
    std::string label;
    std::vector<std::pair<double, double>> points;  // (x, y)
    bool dashed = false;                             // limits are drawn dashed
};

// Value against problem size, x on a log2 axis: one line per kernel.
std::string svg_line_chart(const std::string& title, const std::string& x_label, const std::string& unit,
                           const std::vector<Series>& series);

}  // namespace workshop
