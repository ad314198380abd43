#include "report/svg_chart.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "report/chart_axis.hpp"

namespace workshop {

namespace {

using chart::text_width;

constexpr double kMargin = 16, kTitlePx = 17, kSubtitlePx = 12, kLabelPx = 13, kLegendPx = 12, kSmallPx = 11;
constexpr double kBoldFactor = 1.1;  // bold text is about this much wider
const char* const kStepColors[] = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#b07aa1"};
const char* const kOtherColors[] = {"#222222", "#9c755f", "#17a2b8", "#c9a300", "#7f7f7f", "#ff9da7"};

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

// One line of text. `halo` draws a white outline under it, so that it stays readable across a grid line.
std::string text(double x, double y, double px, const char* anchor, const std::string& s, bool halo = false,
                 const char* extra = "") {
    return fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"{}\" text-anchor=\"{}\"{}{}>{}</text>\n", x, y, px,
                       anchor, halo ? " stroke=\"white\" stroke-width=\"3\" paint-order=\"stroke\"" : "", extra,
                       esc(s));
}

// The document, its background, the title and the subtitle.
std::string header(double width, double height, const ChartText& t) {
    return fmt::format(
               "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0:.0f}\" height=\"{1:.0f}\" "
               "viewBox=\"0 0 {0:.0f} {1:.0f}\" font-family=\"Helvetica, Arial, sans-serif\">\n"
               "<rect width=\"{0:.0f}\" height=\"{1:.0f}\" fill=\"white\"/>\n",
               width, height) +
           text(width / 2, 28, kTitlePx, "middle", t.title, false, " font-weight=\"bold\"") +
           text(width / 2, 48, kSubtitlePx, "middle", t.subtitle, false, " fill=\"#555\"");
}

// The chart must be wide enough for its title and subtitle.
double title_width(const ChartText& t) {
    return std::max(text_width(t.title, kTitlePx * kBoldFactor), text_width(t.subtitle, kSubtitlePx)) + 2 * kMargin;
}

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

std::string svg_bar_chart(const ChartText& t, const std::vector<Bar>& bars, const std::vector<LimitLine>& limits) {
    const double row_h = 26, plot_w = 560, limit_row_h = 16;
    double label_w = 0, value_w = 0;
    std::vector<double> values;
    for (const auto& b : bars) {
        label_w = std::max(label_w, text_width(b.label, kLabelPx));
        value_w = std::max(value_w, text_width(chart::value_label(b.value), kSmallPx));
        values.push_back(b.value);
    }
    for (const auto& l : limits) values.push_back(l.value);
    const chart::Axis axis = chart::value_axis(values, ticks_that_fit(plot_w));
    const double left = kMargin + label_w + 12;
    auto x_of = [&](double v) { return left + plot_w * std::clamp(axis.fraction(v), 0.0, 1.0); };

    // Limit labels above the bars, each ending at its line (or starting there, where it would run off the left
    // edge), in as many rows as they need so that none overlaps another. Taken from left to right, a label in
    // a higher row belongs to a line further right, so no line crosses another's label.
    std::vector<std::string> limit_text;
    std::vector<std::pair<double, double>> spans;
    for (const auto& l : limits) {
        limit_text.push_back(fmt::format("{} {}", l.label, chart::value_label(l.value)));
        const double x = x_of(l.value), w = text_width(limit_text.back(), kSmallPx);
        spans.push_back(x - 3 - w >= kMargin ? std::pair{x - 3 - w, x - 3} : std::pair{x + 3, x + 3 + w});
    }
    const std::vector<int> rows = chart::assign_rows(spans, 8);
    const int row_count = rows.empty() ? 0 : *std::max_element(rows.begin(), rows.end()) + 1;
    const double top = 66 + row_count * limit_row_h;
    const double bottom = top + bars.size() * row_h;
    const double width = std::max(left + plot_w + value_w + 12 + kMargin, title_width(t));
    const double height = bottom + 52;

    std::string svg = header(width, height, t);
    for (double tick : axis.ticks) {
        const double x = x_of(tick);
        svg += fmt::format(
            "<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" "
            "stroke=\"#e4e4e4\"/>\n",
            x, top, bottom);
        svg += text(x, bottom + 16, kSmallPx, "middle", chart::tick_label(tick));
    }
    svg += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" stroke=\"#999\"/>\n", left,
                       top, bottom);
    svg += text(left + plot_w / 2, bottom + 38, kLabelPx, "middle", axis_unit(t, axis));

    std::vector<std::string> labels;
    for (const auto& b : bars) labels.push_back(b.label);
    const std::vector<std::string> colors = chart_colors(labels);
    // Bars first, then the limit lines across them, then every label, so that a label's white halo breaks a
    // dashed line that runs through it instead of the line striking the digits out.
    for (size_t i = 0; i < bars.size(); ++i) {
        const double y = top + i * row_h, end = x_of(bars[i].value);
        svg += text(left - 8, y + 17, kLabelPx, "end", bars[i].label);
        if (bars[i].value > 0)
            svg += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.0f}\" fill=\"{}\"/>\n",
                               left, y + 4, std::max(end - left, 2.0), row_h - 8, colors[i]);
    }
    for (size_t i = 0; i < limits.size(); ++i)
        svg += fmt::format(
            "<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" stroke=\"#333\" "
            "stroke-dasharray=\"5,4\"/>\n",
            x_of(limits[i].value), top - 4 - rows[i] * limit_row_h, bottom);
    // A value goes after its bar, or inside the bar's end in white where a limit line would run through it.
    for (size_t i = 0; i < bars.size(); ++i) {
        const double end = std::max(x_of(bars[i].value), left + 2), y = top + i * row_h + 17;
        const std::string value = chart::value_label(bars[i].value);
        const double w = text_width(value, kSmallPx);
        const bool crossed = std::any_of(limits.begin(), limits.end(), [&](const LimitLine& l) {
            return x_of(l.value) > end - 1 && x_of(l.value) < end + 4 + w + 2;
        });
        if (crossed && end - left > w + 12)
            svg += text(end - 5, y, kSmallPx, "end", value, false, " fill=\"white\"");
        else
            svg += text(end + 4, y, kSmallPx, "start", value, true);
    }
    for (size_t i = 0; i < limits.size(); ++i) {
        const double x = x_of(limits[i].value);
        const bool ends_at_line = spans[i].second <= x;
        svg += text(ends_at_line ? x - 3 : x + 3, top - 8 - rows[i] * limit_row_h, kSmallPx,
                    ends_at_line ? "end" : "start", limit_text[i], true);
    }
    return svg + "</svg>\n";
}

std::string svg_line_chart(const ChartText& t, const std::string& x_label, const std::vector<Series>& series) {
    const double plot_w = 600, plot_h = 380, top = 84;
    std::vector<double> ys;
    std::set<double> xs;
    for (const auto& s : series)
        for (const auto& [x, y] : s.points) {
            if (x > 0) xs.insert(x);
            ys.push_back(y);
        }
    if (xs.empty()) xs = {1, 2};
    const double x_min = std::log2(*xs.begin()), x_span = std::max(std::log2(*xs.rbegin()) - x_min, 1.0);
    const chart::Axis axis = chart::value_axis(ys, static_cast<int>(plot_h / (2.4 * kSmallPx)));
    double tick_w = 0;
    for (double tick : axis.ticks) tick_w = std::max(tick_w, text_width(chart::tick_label(tick), kSmallPx));
    const double left = kMargin + tick_w + 8, bottom = top + plot_h;
    auto px = [&](double x) { return left + plot_w * (std::log2(x) - x_min) / x_span; };
    auto py = [&](double y) { return bottom - plot_h * std::clamp(axis.fraction(y), 0.0, 1.0); };

    // The legend lists the series from the highest right end to the lowest, the order of the lines themselves.
    std::vector<size_t> order;
    for (size_t i = 0; i < series.size(); ++i) order.push_back(i);
    auto last_y = [&](size_t i) { return series[i].points.empty() ? 0.0 : series[i].points.back().second; };
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return last_y(a) > last_y(b); });
    double legend_w = 0;
    for (const auto& s : series) legend_w = std::max(legend_w, text_width(s.label, kLegendPx));
    const double legend_x = left + plot_w + 18;
    const double width = std::max(legend_x + 34 + legend_w + kMargin, title_width(t));
    const double height = std::max(bottom + 56, top + 20.0 * series.size());

    std::string svg = header(width, height, t);
    svg += text(left, top - 12, kLabelPx, "start", axis_unit(t, axis));
    for (double tick : axis.ticks) {
        svg += fmt::format(
            "<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{2:.1f}\" y2=\"{1:.1f}\" "
            "stroke=\"#e4e4e4\"/>\n",
            left, py(tick), left + plot_w);
        svg += text(left - 6, py(tick) + 4, kSmallPx, "end", chart::tick_label(tick));
    }
    // x ticks at the measured sizes, every other one left out while their labels would touch.
    double last_label_end = -1e9;
    for (double x : xs) {
        const std::string label = fmt::format("{:g}", x);  // a size, written out: 16384, not 16.384k
        const double w = text_width(label, kSmallPx);
        svg += fmt::format(
            "<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" "
            "stroke=\"#e4e4e4\"/>\n",
            px(x), top, bottom);
        if (px(x) - w / 2 < last_label_end + 8) continue;
        svg += text(px(x), bottom + 16, kSmallPx, "middle", label);
        last_label_end = px(x) + w / 2;
    }
    svg += fmt::format("<rect x=\"{:.1f}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#999\"/>\n", left,
                       top, plot_w, plot_h);
    svg += text(left + plot_w / 2, bottom + 38, kLabelPx, "middle", x_label);

    std::vector<std::string> labels;
    for (const auto& s : series) labels.push_back(s.label);
    const std::vector<std::string> colors = chart_colors(labels);
    // The dashed reference lines first: a step that reaches one (step 5 at the copy kernel) is drawn over it.
    std::vector<size_t> drawing_order;
    for (bool dashed : {true, false})
        for (size_t i = 0; i < series.size(); ++i)
            if (series[i].dashed == dashed) drawing_order.push_back(i);
    for (size_t i : drawing_order) {
        const auto& s = series[i];
        const std::string dash = s.dashed ? " stroke-dasharray=\"7,4\"" : "";
        std::string path;
        for (const auto& [x, y] : s.points)
            path += fmt::format("{}{:.1f},{:.1f} ", path.empty() ? "M" : "L", px(x), py(y));
        svg +=
            fmt::format("<path d=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2.2\"{}/>\n", path, colors[i], dash);
        if (!s.dashed)
            for (const auto& [x, y] : s.points)
                svg +=
                    fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3\" fill=\"{}\"/>\n", px(x), py(y), colors[i]);
    }
    for (size_t rank = 0; rank < order.size(); ++rank) {
        const size_t i = order[rank];
        const double y = top + 10 + 20 * rank;
        svg += fmt::format(
            "<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{2:.1f}\" y2=\"{1:.1f}\" stroke=\"{3}\" "
            "stroke-width=\"2.2\"{4}/>\n",
            legend_x, y, legend_x + 26, colors[i], series[i].dashed ? " stroke-dasharray=\"7,4\"" : "");
        svg += text(legend_x + 32, y + 4, kLegendPx, "start", series[i].label);
    }
    return svg + "</svg>\n";
}

}  // namespace workshop
