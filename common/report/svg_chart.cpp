#include "report/svg_chart.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "report/chart_axis.hpp"

namespace workshop {

namespace svg_parts {

namespace {

std::string esc(const std::string& s) {
    std::string out;
    for (char c : s) {
        if (c == '&')
            out += "&amp;";
        else if (c == '<')
            out += "&lt;";
        else if (c == '>')
            out += "&gt;";
        else
            out += c;
    }
    return out;
}

}  // namespace

std::string text(double x, double y, double px, const char* anchor, const std::string& s, bool halo,
                 const char* extra) {
    return fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"{}\" text-anchor=\"{}\"{}{}>{}</text>\n", x, y, px,
                       anchor, halo ? " stroke=\"white\" stroke-width=\"3\" paint-order=\"stroke\"" : "", extra,
                       esc(s));
}

std::string header(double width, double height, const ChartText& t) {
    return fmt::format(
               "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0:.0f}\" height=\"{1:.0f}\" "
               "viewBox=\"0 0 {0:.0f} {1:.0f}\" font-family=\"Helvetica, Arial, sans-serif\">\n"
               "<rect width=\"{0:.0f}\" height=\"{1:.0f}\" fill=\"white\"/>\n",
               width, height) +
           text(width / 2, 28, kTitlePx, "middle", t.title, false, " font-weight=\"bold\"") +
           text(width / 2, 48, kSubtitlePx, "middle", t.subtitle, false, " fill=\"#555\"");
}

double title_width(const ChartText& t) {
    return std::max({chart::text_width(t.title, kTitlePx * kBoldFactor), chart::text_width(t.subtitle, kSubtitlePx),
                     chart::text_width(t.footnote, kSmallPx)}) +
           2 * kMargin;
}

std::string footnote(double y, const ChartText& t) {
    return t.footnote.empty() ? "" : text(kMargin, y, kSmallPx, "start", t.footnote, false, " fill=\"#555\"");
}

}  // namespace svg_parts

namespace {

using namespace svg_parts;
using chart::text_width;

const char* const kStepColors[] = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#b07aa1"};
const char* const kOtherColors[] = {"#222222", "#9c755f", "#17a2b8", "#c9a300", "#7f7f7f", "#ff9da7"};

std::string axis_unit(const ChartText& t, const chart::Axis& axis) { return t.unit + (axis.log ? " (log scale)" : ""); }

// As many ticks as fit side by side with room between their labels.
int ticks_that_fit(double length) { return static_cast<int>(length / (text_width("5000", kSmallPx) + 16)); }

}  // namespace

std::vector<std::string> chart_colors(const std::vector<std::string>& labels) {
    std::vector<std::string> colors;
    size_t others = 0;
    for (const auto& label : labels) {
        const bool step = label.size() > 5 && label.rfind("step ", 0) == 0 && label[5] >= '1' && label[5] <= '5' &&
                          (label.size() == 6 || !std::isdigit(static_cast<unsigned char>(label[6])));
        if (step)
            colors.push_back(kStepColors[label[5] - '1']);
        else if (label.rfind("CPU", 0) == 0)
            colors.push_back("#a0a0a0");
        else
            colors.push_back(kOtherColors[others++ % (sizeof(kOtherColors) / sizeof(*kOtherColors))]);
    }
    return colors;
}

namespace {

// Where a bar chart's parts go: the value axis, the bars' rows, and the limits' labels above them, in as many rows
// as they need so that none overlaps another.
struct BarLayout {
    static constexpr double kRowH = 26, kPlotW = 560, kLimitRowH = 16;
    chart::Axis axis;
    double left = 0, top = 0, bottom = 0, width = 0, height = 0;
    std::vector<std::string> limit_text;
    std::vector<std::pair<double, double>> spans;  // each limit label's left and right end
    std::vector<int> rows;                         // each limit label's row above the bars
    double x_of(double v) const { return left + kPlotW * std::clamp(axis.fraction(v), 0.0, 1.0); }
};

BarLayout lay_out_bars(const ChartText& t, const std::vector<Bar>& bars, const std::vector<LimitLine>& limits) {
    BarLayout l;
    double label_w = 0, value_w = 0;
    std::vector<double> values;
    for (const auto& b : bars) {
        label_w = std::max(label_w, text_width(b.label, kLabelPx));
        value_w = std::max(value_w, text_width(chart::value_label(b.value), kSmallPx));
        values.push_back(b.value);
    }
    for (const auto& limit : limits) values.push_back(limit.value);
    l.axis = chart::value_axis(values, ticks_that_fit(BarLayout::kPlotW));
    l.left = kMargin + label_w + 12;
    // Limit labels above the bars, each ending at its line (or starting there, where it would run off the left
    // edge), in as many rows as they need so that none overlaps another. Taken from left to right, a label in
    // a higher row belongs to a line further right, so no line crosses another's label.
    for (const auto& limit : limits) {
        l.limit_text.push_back(fmt::format("{} {}", limit.label, chart::value_label(limit.value)));
        const double x = l.x_of(limit.value), w = text_width(l.limit_text.back(), kSmallPx);
        l.spans.push_back(x - 3 - w >= kMargin ? std::pair{x - 3 - w, x - 3} : std::pair{x + 3, x + 3 + w});
    }
    l.rows = chart::assign_rows(l.spans, 8);
    const int row_count = l.rows.empty() ? 0 : *std::max_element(l.rows.begin(), l.rows.end()) + 1;
    l.top = 66 + row_count * BarLayout::kLimitRowH;
    l.bottom = l.top + bars.size() * BarLayout::kRowH;
    l.width = std::max(l.left + BarLayout::kPlotW + value_w + 12 + kMargin, title_width(t));
    l.height = l.bottom + 52 + (t.footnote.empty() ? 0 : 18);
    return l;
}

// The grid lines at the ticks, their labels, the axis and its unit.
std::string bar_grid(const ChartText& t, const BarLayout& l) {
    std::string svg;
    for (double tick : l.axis.ticks) {
        const double x = l.x_of(tick);
        svg += fmt::format(
            "<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" "
            "stroke=\"#e4e4e4\"/>\n",
            x, l.top, l.bottom);
        svg += text(x, l.bottom + 16, kSmallPx, "middle", chart::tick_label(tick));
    }
    svg += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" stroke=\"#999\"/>\n", l.left,
                       l.top, l.bottom);
    return svg + text(l.left + BarLayout::kPlotW / 2, l.bottom + 38, kLabelPx, "middle", axis_unit(t, l.axis));
}

// Each bar's value after its end, or inside the bar's end in white where a limit line would run through it; then
// the limits' labels.
std::string bar_value_labels(const BarLayout& l, const std::vector<Bar>& bars, const std::vector<LimitLine>& limits) {
    std::string svg;
    for (size_t i = 0; i < bars.size(); ++i) {
        const double end = std::max(l.x_of(bars[i].value), l.left + 2), y = l.top + i * BarLayout::kRowH + 17;
        const std::string value = chart::value_label(bars[i].value);
        const double w = text_width(value, kSmallPx);
        const bool crossed = std::any_of(limits.begin(), limits.end(), [&](const LimitLine& limit) {
            return l.x_of(limit.value) > end - 1 && l.x_of(limit.value) < end + 4 + w + 2;
        });
        if (crossed && end - l.left > w + 12)
            svg += text(end - 5, y, kSmallPx, "end", value, false, " fill=\"white\"");
        else
            svg += text(end + 4, y, kSmallPx, "start", value, true);
    }
    for (size_t i = 0; i < limits.size(); ++i) {
        const double x = l.x_of(limits[i].value);
        const bool ends_at_line = l.spans[i].second <= x;
        svg += text(ends_at_line ? x - 3 : x + 3, l.top - 8 - l.rows[i] * BarLayout::kLimitRowH, kSmallPx,
                    ends_at_line ? "end" : "start", l.limit_text[i], true);
    }
    return svg;
}

}  // namespace

std::string svg_bar_chart(const ChartText& t, const std::vector<Bar>& bars, const std::vector<LimitLine>& limits) {
    const BarLayout l = lay_out_bars(t, bars, limits);
    std::string svg = header(l.width, l.height, t) + bar_grid(t, l);
    std::vector<std::string> labels;
    for (const auto& b : bars) labels.push_back(b.label);
    const std::vector<std::string> colors = chart_colors(labels);
    // Bars first, then the limit lines across them, then every label, so that a label's white halo breaks a
    // dashed line that runs through it instead of the line striking the digits out.
    for (size_t i = 0; i < bars.size(); ++i) {
        const double y = l.top + i * BarLayout::kRowH, end = l.x_of(bars[i].value);
        svg += text(l.left - 8, y + 17, kLabelPx, "end", bars[i].label);
        if (bars[i].value > 0)
            svg += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.0f}\" fill=\"{}\"/>\n",
                               l.left, y + 4, std::max(end - l.left, 2.0), BarLayout::kRowH - 8, colors[i]);
    }
    for (size_t i = 0; i < limits.size(); ++i)
        svg += fmt::format(
            "<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" stroke=\"#333\" "
            "stroke-dasharray=\"5,4\"/>\n",
            l.x_of(limits[i].value), l.top - 4 - l.rows[i] * BarLayout::kLimitRowH, l.bottom);
    return svg + bar_value_labels(l, bars, limits) + footnote(l.bottom + 62, t) + "</svg>\n";
}

namespace {

// Where a line chart's parts go: x on a log2 axis over the measured sizes, y on the value axis.
struct LineLayout {
    static constexpr double kPlotW = 600, kPlotH = 380, kTop = 84;
    std::set<double> xs;
    double x_min = 0, x_span = 1;
    chart::Axis axis;
    double left = 0, bottom = 0;
    double px(double x) const { return left + kPlotW * (std::log2(x) - x_min) / x_span; }
    double py(double y) const { return bottom - kPlotH * std::clamp(axis.fraction(y), 0.0, 1.0); }
};

LineLayout lay_out_lines(const std::vector<Series>& series) {
    LineLayout l;
    std::vector<double> ys;
    for (const auto& s : series)
        for (const auto& [x, y] : s.points) {
            if (x > 0) l.xs.insert(x);
            ys.push_back(y);
        }
    if (l.xs.empty()) l.xs = {1, 2};
    l.x_min = std::log2(*l.xs.begin());
    l.x_span = std::max(std::log2(*l.xs.rbegin()) - l.x_min, 1.0);
    l.axis = chart::value_axis(ys, static_cast<int>(LineLayout::kPlotH / (2.4 * kSmallPx)));
    double tick_w = 0;
    for (double tick : l.axis.ticks) tick_w = std::max(tick_w, text_width(chart::tick_label(tick), kSmallPx));
    l.left = kMargin + tick_w + 8;
    l.bottom = LineLayout::kTop + LineLayout::kPlotH;
    return l;
}

// The unit, the grid at the value ticks and at the measured sizes, the frame, and the x axis's label.
std::string line_grid(const ChartText& t, const LineLayout& l, const std::string& x_label) {
    const double top = LineLayout::kTop, plot_w = LineLayout::kPlotW;
    std::string svg = text(l.left, top - 12, kLabelPx, "start", axis_unit(t, l.axis));
    for (double tick : l.axis.ticks) {
        svg += fmt::format(
            "<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{2:.1f}\" y2=\"{1:.1f}\" "
            "stroke=\"#e4e4e4\"/>\n",
            l.left, l.py(tick), l.left + plot_w);
        svg += text(l.left - 6, l.py(tick) + 4, kSmallPx, "end", chart::tick_label(tick));
    }
    // x ticks at the measured sizes, every other one left out while their labels would touch.
    double last_label_end = -1e9;
    for (double x : l.xs) {
        const std::string label = fmt::format("{:g}", x);  // a size, written out: 16384, not 16.384k
        const double w = text_width(label, kSmallPx);
        svg += fmt::format(
            "<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" "
            "stroke=\"#e4e4e4\"/>\n",
            l.px(x), top, l.bottom);
        if (l.px(x) - w / 2 < last_label_end + 8) continue;
        svg += text(l.px(x), l.bottom + 16, kSmallPx, "middle", label);
        last_label_end = l.px(x) + w / 2;
    }
    svg += fmt::format("<rect x=\"{:.1f}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#999\"/>\n",
                       l.left, top, plot_w, LineLayout::kPlotH);
    return svg + text(l.left + plot_w / 2, l.bottom + 38, kLabelPx, "middle", x_label);
}

// The lines, the dashed reference lines first: a step that reaches one (step 5 at the copy kernel) is drawn over
// it.
std::string line_paths(const LineLayout& l, const std::vector<Series>& series, const std::vector<std::string>& colors) {
    std::string svg;
    std::vector<size_t> drawing_order;
    for (bool dashed : {true, false})
        for (size_t i = 0; i < series.size(); ++i)
            if (series[i].dashed == dashed) drawing_order.push_back(i);
    for (size_t i : drawing_order) {
        const auto& s = series[i];
        const std::string dash = s.dashed ? " stroke-dasharray=\"7,4\"" : "";
        std::string path;
        for (const auto& [x, y] : s.points)
            path += fmt::format("{}{:.1f},{:.1f} ", path.empty() ? "M" : "L", l.px(x), l.py(y));
        svg +=
            fmt::format("<path d=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2.2\"{}/>\n", path, colors[i], dash);
        if (!s.dashed)
            for (const auto& [x, y] : s.points)
                svg += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3\" fill=\"{}\"/>\n", l.px(x), l.py(y),
                                   colors[i]);
    }
    return svg;
}

// The legend lists the series from the highest right end to the lowest, the order of the lines themselves.
std::vector<size_t> legend_order(const std::vector<Series>& series) {
    std::vector<size_t> order;
    for (size_t i = 0; i < series.size(); ++i) order.push_back(i);
    auto last_y = [&](size_t i) { return series[i].points.empty() ? 0.0 : series[i].points.back().second; };
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return last_y(a) > last_y(b); });
    return order;
}

}  // namespace

std::string svg_line_chart(const ChartText& t, const std::string& x_label, const std::vector<Series>& series) {
    const LineLayout l = lay_out_lines(series);
    double legend_w = 0;
    for (const auto& s : series) legend_w = std::max(legend_w, text_width(s.label, kLegendPx));
    const double legend_x = l.left + LineLayout::kPlotW + 18;
    const double width = std::max(legend_x + 34 + legend_w + kMargin, title_width(t));
    const double height = std::max(l.bottom + 56, LineLayout::kTop + 20.0 * series.size());

    std::vector<std::string> labels;
    for (const auto& s : series) labels.push_back(s.label);
    const std::vector<std::string> colors = chart_colors(labels);
    std::string svg = header(width, height, t) + line_grid(t, l, x_label) + line_paths(l, series, colors);
    const std::vector<size_t> order = legend_order(series);
    for (size_t rank = 0; rank < order.size(); ++rank) {
        const size_t i = order[rank];
        const double y = LineLayout::kTop + 10 + 20 * rank;
        svg += fmt::format(
            "<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{2:.1f}\" y2=\"{1:.1f}\" stroke=\"{3}\" "
            "stroke-width=\"2.2\"{4}/>\n",
            legend_x, y, legend_x + 26, colors[i], series[i].dashed ? " stroke-dasharray=\"7,4\"" : "");
        svg += text(legend_x + 32, y + 4, kLegendPx, "start", series[i].label);
    }
    return svg + "</svg>\n";
}

}  // namespace workshop
