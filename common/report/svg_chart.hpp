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
    std::string footnote;  // one line under the chart, or none where empty
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

// The parts every chart is drawn with (these charts and the roofline's), one look for all of them.
namespace svg_parts {

constexpr double kMargin = 16, kTitlePx = 17, kSubtitlePx = 12, kLabelPx = 13, kLegendPx = 12, kSmallPx = 11;
constexpr double kBoldFactor = 1.1;  // bold text is about this much wider

// One line of text, its &, < and > escaped. `halo` draws a white outline under it, so that it stays readable
// across a grid line; `extra` holds more attributes (a fill, a class).
std::string text(double x, double y, double px, const char* anchor, const std::string& s, bool halo = false,
                 const char* extra = "");
// The document, its background, the title and the subtitle.
std::string header(double width, double height, const ChartText& t);
// The chart must be at least this wide for its title, its subtitle and its footnote.
double title_width(const ChartText& t);
// The footnote's line at `y`, from the left margin; nothing where there is none.
std::string footnote(double y, const ChartText& t);

}  // namespace svg_parts

}  // namespace workshop
