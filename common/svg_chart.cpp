#include "svg_chart.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace workshop {

namespace {

const char* const kPalette[] = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2",
                                "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};

std::string esc(const std::string& s) {
    std::string out;
    for (char c : s) {
        if (c == '&') out += "&amp;";
        else if (c == '<') out += "&lt;";
        else if (c == '>') out += "&gt;";
        else out += c;
    }
    return out;
}

std::string header(int width, int height, const std::string& title) {
    return fmt::format(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" "
        "font-family=\"Helvetica, Arial, sans-serif\" font-size=\"13\">\n"
        "<rect width=\"{0}\" height=\"{1}\" fill=\"white\"/>\n"
        "<text x=\"{2}\" y=\"24\" font-size=\"16\" text-anchor=\"middle\" font-weight=\"bold\">{3}</text>\n",
        width, height, width / 2, esc(title));
}

}  // namespace

std::string svg_bar_chart(const std::string& title, const std::string& unit, const std::vector<Bar>& bars,
                          const std::vector<LimitLine>& limits) {
    const int label_w = 330, plot_w = 560, bar_h = 26, top = 50;
    const int height = top + static_cast<int>(bars.size()) * bar_h + 60;
    double max_value = 1;
    for (const auto& b : bars) max_value = std::max(max_value, b.value);
    for (const auto& l : limits) max_value = std::max(max_value, l.value);
    max_value *= 1.08;
    auto x_of = [&](double v) { return label_w + plot_w * v / max_value; };

    std::string svg = header(label_w + plot_w + 40, height, title);
    for (size_t i = 0; i < bars.size(); ++i) {
        const int y = top + static_cast<int>(i) * bar_h;
        svg += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n", label_w - 8, y + 17, esc(bars[i].label));
        svg += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{:.1f}\" height=\"{}\" fill=\"{}\"/>\n", label_w, y + 4,
                           x_of(bars[i].value) - label_w, bar_h - 8, kPalette[i % 10]);
        svg += fmt::format("<text x=\"{:.1f}\" y=\"{}\" font-size=\"11\">{:.4g}</text>\n", x_of(bars[i].value) + 4, y + 17, bars[i].value);
    }
    const int bottom = top + static_cast<int>(bars.size()) * bar_h;
    for (size_t i = 0; i < limits.size(); ++i) {
        const double x = x_of(limits[i].value);
        svg += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\" stroke=\"#333\" stroke-dasharray=\"5,4\"/>\n",
                           x, top - 4, bottom + 4);
        svg += fmt::format("<text x=\"{:.1f}\" y=\"{}\" font-size=\"11\" text-anchor=\"end\">{} {:.4g}</text>\n", x - 2,
                           bottom + 18 + 14 * static_cast<int>(i), esc(limits[i].label), limits[i].value);
    }
    svg += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", label_w + plot_w / 2, height - 6, esc(unit));
    return svg + "</svg>\n";
}

std::string svg_line_chart(const std::string& title, const std::string& x_label, const std::string& unit,
                           const std::vector<Series>& series) {
    const int left = 80, plot_w = 620, top = 50, plot_h = 380, legend_w = 260;
    double x_min = 1e300, x_max = -1e300, y_max = 1;
    for (const auto& s : series)
        for (const auto& [x, y] : s.points) {
            x_min = std::min(x_min, std::log2(x));
            x_max = std::max(x_max, std::log2(x));
            y_max = std::max(y_max, y);
        }
    if (x_min >= x_max) x_max = x_min + 1;
    y_max *= 1.08;
    auto px = [&](double x) { return left + plot_w * (std::log2(x) - x_min) / (x_max - x_min); };
    auto py = [&](double y) { return top + plot_h - plot_h * y / y_max; };

    std::string svg = header(left + plot_w + legend_w, top + plot_h + 60, title);
    svg += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#999\"/>\n", left, top, plot_w, plot_h);
    for (int t = 0; t <= 4; ++t) {
        const double v = y_max * t / 4;
        svg += fmt::format("<text x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\" font-size=\"11\">{:.0f}</text>\n", left - 6, py(v) + 4, v);
    }
    for (double e = std::ceil(x_min); e <= x_max + 1e-9; e += 1) {
        svg += fmt::format("<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\" font-size=\"11\">{:.0f}</text>\n",
                           px(std::exp2(e)), top + plot_h + 16, std::exp2(e));
    }
    svg += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", left + plot_w / 2, top + plot_h + 38, esc(x_label));
    svg += fmt::format("<text x=\"16\" y=\"{}\" transform=\"rotate(-90 16 {})\" text-anchor=\"middle\">{}</text>\n",
                       top + plot_h / 2, top + plot_h / 2, esc(unit));
    for (size_t i = 0; i < series.size(); ++i) {
        const auto& s = series[i];
        const char* color = kPalette[i % 10];
        std::string path;
        for (const auto& [x, y] : s.points) path += fmt::format("{}{:.1f},{:.1f} ", path.empty() ? "M" : "L", px(x), py(y));
        svg += fmt::format("<path d=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\"{}/>\n", path, color,
                           s.dashed ? " stroke-dasharray=\"6,4\"" : "");
        const int ly = top + 10 + 18 * static_cast<int>(i);
        svg += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"{3}\" stroke-width=\"2\"{4}/>\n",
                           left + plot_w + 14, ly, left + plot_w + 40, color, s.dashed ? " stroke-dasharray=\"6,4\"" : "");
        svg += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"12\">{}</text>\n", left + plot_w + 46, ly + 4, esc(s.label));
    }
    return svg + "</svg>\n";
}

}  // namespace workshop
