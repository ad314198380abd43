#include "report/roofline.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <regex>
#include <tuple>

#include "report/chart_axis.hpp"

namespace workshop {

namespace {

// How each step's kernel tiles C (solutions/stepN/matmul.cu). For every step along k, a tile of tile_m x tile_n
// outputs loads tile_m floats of A and tile_n floats of B from global memory and does tile_m x tile_n
// multiply-adds with them, 2 flops each:
//     intensity = 2 tile_m tile_n / (4 (tile_m + tile_n)) = tile_m tile_n / (2 (tile_m + tile_n)) flops per byte.
// Steps 1 and 2 reuse nothing: a thread loads A(i, k) and B(k, j) for each of its multiply-adds, a 1 x 1 tile,
// 8 bytes for 2 flops, 0.25. Step 3 shares 32 x 32 tiles through shared memory: T / 4 = 8. Step 4 keeps step 3's
// 32 x 32 block tile (its 8 outputs a thread save shared-memory reads, not global ones): 8. Step 5's block tile
// is 128 x 128: 32. These are the bytes a kernel requests; the caches serve part of them, so DRAM moves fewer,
// and a point can sit above the DRAM slope.
struct MatmulTiling {
    int step, tile_m, tile_n;
};
constexpr MatmulTiling kTilings[] = {{1, 1, 1}, {2, 1, 1}, {3, 32, 32}, {4, 32, 32}, {5, 128, 128}};

// The step of a row named "step 3", "step 3: shared-memory tiles" or "step 3 solution"; 0 for any other name.
int step_of(const std::string& name) {
    static const std::regex pattern("step ([1-9][0-9]*)([: ].*)?");
    std::smatch m;
    return std::regex_match(name, m, pattern) ? std::atoi(m[1].str().c_str()) : 0;
}

}  // namespace

double matmul_step_intensity(int step) {
    for (const auto& t : kTilings)
        if (t.step == step) return double(t.tile_m) * t.tile_n / (2.0 * (t.tile_m + t.tile_n));
    return 0;
}

double product_intensity(const std::string& shape) {
    std::smatch m;
    if (!std::regex_match(shape, m, std::regex("([1-9][0-9]{0,8})x([1-9][0-9]{0,8})x([1-9][0-9]{0,8})"))) return 0;
    const double M = std::stod(m[1]), N = std::stod(m[2]), K = std::stod(m[3]);
    return 2 * M * N * K / (4 * (M * K + K * N + M * N));
}

Roofline roofline_of(const std::vector<ResultRow>& rows, const std::string& reference, double dram_gbps) {
    Roofline roof;
    roof.dram_gbps = dram_gbps > 0 && std::isfinite(dram_gbps) ? dram_gbps : 0;
    for (const auto& r : rows) {
        if (!(r.rate > 0) || !std::isfinite(r.rate)) continue;
        const int step = step_of(r.name);
        // A wrong answer's speed is no result, as in the other charts.
        if (r.kind == "step" && matmul_step_intensity(step) > 0 && r.status != "FAIL" && r.status != "ERROR")
            roof.steps.push_back({fmt::format("step {}", step), matmul_step_intensity(step), r.rate});
        else if (r.name == reference && product_intensity(r.shape) > 0)
            roof.references.push_back({r.name, product_intensity(r.shape), r.rate});
        else if (r.kind == "limit" && r.unit == "GFLOP/s")
            roof.fp32_gflops = r.rate;
    }
    return roof;
}

namespace {

using namespace svg_parts;

// Where the roofline's parts go: both axes logarithmic, ending on round ticks.
struct RoofLayout {
    static constexpr double kPlotW = 600, kPlotH = 400, kTop = 84;
    chart::Axis x, y;
    double left = 0, bottom = kTop + kPlotH;
    double px(double v) const { return left + kPlotW * std::clamp(x.fraction(v), 0.0, 1.0); }
    double py(double v) const { return bottom - kPlotH * std::clamp(y.fraction(v), 0.0, 1.0); }
    double right() const { return left + kPlotW; }
};

// A log axis from a little below the smallest value to a little above the largest, on 1-2-5 ticks where they fit.
chart::Axis log_axis(std::vector<double> values, double below, double above, int max_ticks) {
    values.erase(std::remove_if(values.begin(), values.end(), [](double v) { return !(v > 0) || !std::isfinite(v); }),
                 values.end());
    if (values.empty()) values = {0.1, 1};
    const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
    chart::Axis axis;
    axis.log = true;
    axis.ticks = chart::log_ticks(*lo * below, *hi * above, max_ticks);
    axis.lo = axis.ticks.front();
    axis.hi = axis.ticks.back();
    return axis;
}

double ridge(const Roofline& r) { return r.dram_gbps > 0 && r.fp32_gflops > 0 ? r.fp32_gflops / r.dram_gbps : 0; }

RoofLayout lay_out(const Roofline& r) {
    std::vector<double> xs = {ridge(r)}, ys = {r.fp32_gflops};
    for (const auto* points : {&r.steps, &r.references})
        for (const auto& p : *points) xs.push_back(p.intensity), ys.push_back(p.gflops);
    RoofLayout l;
    l.x = log_axis(xs, 0.6, 1.25, static_cast<int>(RoofLayout::kPlotW / (chart::text_width("5000", kSmallPx) + 16)));
    l.y = log_axis(ys, 0.6, 1.3, static_cast<int>(RoofLayout::kPlotH / (2.4 * kSmallPx)));
    double tick_w = 0;
    for (double tick : l.y.ticks) tick_w = std::max(tick_w, chart::text_width(chart::tick_label(tick), kSmallPx));
    l.left = kMargin + tick_w + 8;
    return l;
}

// The grid at both axes' ticks, their labels, the frame, and what each axis measures.
std::string grid(const ChartText& t, const RoofLayout& l) {
    const double top = RoofLayout::kTop;
    std::string svg = text(l.left, top - 12, kLabelPx, "start", t.unit + " (log scale)");
    for (double tick : l.y.ticks) {
        svg += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{2:.1f}\" y2=\"{1:.1f}\" stroke=\"#e4e4e4\"/>\n",
                           l.left, l.py(tick), l.right());
        svg += text(l.left - 6, l.py(tick) + 4, kSmallPx, "end", chart::tick_label(tick), false, " class=\"y-tick\"");
    }
    for (double tick : l.x.ticks) {
        svg += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" stroke=\"#e4e4e4\"/>\n",
                           l.px(tick), top, l.bottom);
        svg += text(l.px(tick), l.bottom + 16, kSmallPx, "middle", chart::tick_label(tick), false, " class=\"x-tick\"");
    }
    svg += fmt::format("<rect x=\"{:.1f}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#999\"/>\n",
                       l.left, top, RoofLayout::kPlotW, RoofLayout::kPlotH);
    return svg + text(l.left + RoofLayout::kPlotW / 2, l.bottom + 38, kLabelPx, "middle",
                      "arithmetic intensity: flops per byte requested from global memory (log scale)");
}

// A label's box, to keep labels apart.
struct Box {
    double left, right, top, bottom;
    bool overlaps(const Box& o) const { return left < o.right && o.left < right && top < o.bottom && o.top < bottom; }
};

Box box_of(double x, double y, const char* anchor, const std::string& s, double px) {
    const double w = chart::text_width(s, px);
    const double left = anchor[0] == 's' ? x : anchor[0] == 'm' ? x - w / 2 : x - w;
    return {left, left + w, y - 0.8 * px, y + 0.25 * px};
}

// A slope: y = gbps * x from the left edge (or where it enters the plot) to `end` on the x axis.
std::string slope(const RoofLayout& l, double gbps, double end, const char* style) {
    const double from = std::max(l.x.lo, l.y.lo / gbps), to = std::min({end, l.x.hi, l.y.hi / gbps});
    if (!(to > from)) return "";
    return fmt::format("<path class=\"roof\" d=\"M{:.1f},{:.1f} L{:.1f},{:.1f}\" fill=\"none\" {}/>\n", l.px(from),
                       l.py(gbps * from), l.px(to), l.py(gbps * to), style);
}

// The labels placed so far (and the circles), which a new label must not overlap, and the plot it must stay in.
struct Placer {
    Box plot;
    std::vector<Box> taken;

    // The first of `spots` (x, y, anchor) where `s` fits, taken; false where none does.
    bool place(const std::string& s, const std::vector<std::tuple<double, double, const char*>>& spots,
               std::string& svg, const char* extra = "") {
        for (const auto& [x, y, anchor] : spots) {
            const Box b = box_of(x, y, anchor, s, kSmallPx);
            const bool inside =
                b.left >= plot.left && b.right <= plot.right && b.top >= plot.top && b.bottom <= plot.bottom;
            if (!inside || std::any_of(taken.begin(), taken.end(), [&](const Box& o) { return o.overlaps(b); }))
                continue;
            taken.push_back(b);
            svg += text(x, y, kSmallPx, anchor, s, true, extra);
            return true;
        }
        return false;
    }
};

// A slope's label, above and left of its middle: the line runs below and right of it there.
void label_slope(const RoofLayout& l, double gbps, double end, const std::string& s, Placer& placer, std::string& svg) {
    const double from = std::max(l.x.lo, l.y.lo / gbps), to = std::min({end, l.x.hi, l.y.hi / gbps});
    if (!(to > from)) return;
    for (double share : {0.4, 0.25, 0.6, 0.1}) {
        const double x = from * std::pow(to / from, share);
        if (placer.place(s, {{l.px(x) - 4, l.py(gbps * x) - 5, "end"}}, svg)) return;
    }
}

// The roofs: the DRAM slope up to the ridge and the FP32 ceiling after it, as one line; an L2 slope dashed.
std::string roofs(const RoofLayout& l, const Roofline& r, Placer& placer) {
    std::string svg;
    const char* solid = "stroke=\"#333\" stroke-width=\"2.5\"";
    const double knee = ridge(r);
    if (r.l2_gbps > 0)
        svg += slope(l, r.l2_gbps, r.fp32_gflops > 0 ? r.fp32_gflops / r.l2_gbps : l.x.hi,
                     "stroke=\"#777\" stroke-width=\"1.8\" stroke-dasharray=\"7,4\"");
    if (r.dram_gbps > 0) svg += slope(l, r.dram_gbps, knee > 0 ? knee : l.x.hi, solid);
    if (r.fp32_gflops > 0 && r.fp32_gflops < l.y.hi) {
        const double from = std::clamp(knee > 0 ? knee : l.x.lo, l.x.lo, l.x.hi);
        svg += fmt::format("<path class=\"roof\" d=\"M{:.1f},{:.1f} L{:.1f},{:.1f}\" fill=\"none\" {}/>\n", l.px(from),
                           l.py(r.fp32_gflops), l.right(), l.py(r.fp32_gflops), solid);
        placer.place(fmt::format("FP32 peak {} GFLOP/s", chart::value_label(r.fp32_gflops)),
                     {{l.right() - 6, l.py(r.fp32_gflops) - 6, "end"}}, svg);
    }
    if (r.dram_gbps > 0)
        label_slope(l, r.dram_gbps, knee > 0 ? knee : l.x.hi,
                    fmt::format("DRAM {} GB/s", chart::value_label(r.dram_gbps)), placer, svg);
    if (r.l2_gbps > 0)
        label_slope(l, r.l2_gbps, r.fp32_gflops > 0 ? r.fp32_gflops / r.l2_gbps : l.x.hi,
                    fmt::format("L2 {} GB/s", chart::value_label(r.l2_gbps)), placer, svg);
    return svg;
}

// Every point as a circle (the circles first, so that no label covers one), then its label beside it.
std::string points(const RoofLayout& l, const Roofline& r, Placer& placer) {
    std::vector<RooflinePoint> all = r.steps;
    all.insert(all.end(), r.references.begin(), r.references.end());
    std::vector<std::string> labels;
    for (const auto& p : all) labels.push_back(p.label);
    const std::vector<std::string> colors = chart_colors(labels);
    std::string svg;
    constexpr double kRadius = 5;
    for (size_t i = 0; i < all.size(); ++i) {
        const double x = l.px(all[i].intensity), y = l.py(all[i].gflops);
        svg += fmt::format("<circle cx=\"{:.2f}\" cy=\"{:.2f}\" r=\"{}\" fill=\"{}\"><title>{}</title></circle>\n", x,
                           y, kRadius, colors[i], all[i].label);
        placer.taken.push_back({x - kRadius, x + kRadius, y - kRadius, y + kRadius});
    }
    for (const auto& p : all) {
        const double x = l.px(p.intensity), y = l.py(p.gflops);
        const std::vector<std::tuple<double, double, const char*>> spots = {
            {x + 8, y + 4, "start"}, {x - 8, y + 4, "end"}, {x, y + 19, "middle"}, {x, y - 10, "middle"}};
        if (!placer.place(p.label, spots, svg)) svg += text(x + 8, y + 4, kSmallPx, "start", p.label, true);
    }
    return svg;
}

}  // namespace

std::string svg_roofline(const ChartText& t, const Roofline& r) {
    const RoofLayout l = lay_out(r);
    Placer placer{{l.left + 2, l.right() - 2, RoofLayout::kTop + 2, l.bottom - 2}, {}};
    // Points first: where a roof's label and a point's would meet, the point keeps its label.
    const std::string marks = points(l, r, placer);
    std::string body = roofs(l, r, placer);
    if (const double knee = ridge(r); knee > l.x.lo && knee < l.x.hi && r.fp32_gflops < l.y.hi) {
        const std::string s = fmt::format("ridge: {} flops per byte", chart::value_label(knee));
        const double x = l.px(knee), y = l.py(r.fp32_gflops);
        placer.place(s, {{x + 6, y + 16, "start"}, {x + 6, y + 30, "start"}, {x - 6, y - 6, "end"}}, body);
    }
    const double width = std::max(l.right() + 2 * kMargin, title_width(t));
    const double height = l.bottom + 52 + (t.footnote.empty() ? 0 : 18);
    return header(width, height, t) + grid(t, l) + body + marks + footnote(l.bottom + 62, t) + "</svg>\n";
}

}  // namespace workshop
