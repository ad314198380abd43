#include "report/chart_axis.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

namespace workshop::chart {

namespace {

constexpr double kNudge = 1e-9;  // relative slack, so that 0.1 * 3 still counts as 0.3

// The largest value 1, 2 or 5 times a power of ten that is at most v (v > 0).
double round_down_125(double v) {
    const double decade = std::pow(10.0, std::floor(std::log10(v)));
    for (double m : {5.0, 2.0, 1.0})
        if (m * decade <= v * (1 + kNudge)) return m * decade;
    return decade / 2;  // v just under a power of ten, pushed below it by rounding
}

// The next value after v (itself 1, 2 or 5 times a power of ten) in 1, 2, 5, 10, 20, ...
double next_125(double v) {
    const double decade = std::pow(10.0, std::floor(std::log10(v) + kNudge));
    const double m = std::round(v / decade);
    return (m < 1.5 ? 2 : m < 3 ? 5 : 10) * decade;
}

std::string with_commas(long long whole) {
    std::string digits = std::to_string(std::llabs(whole)), out;
    for (size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return whole < 0 ? "-" + out : out;
}

}  // namespace

double Axis::fraction(double v) const {
    if (log) {
        if (v <= 0) return 0;
        return (std::log10(v) - std::log10(lo)) / (std::log10(hi) - std::log10(lo));
    }
    return (v - lo) / (hi - lo);
}

std::vector<double> linear_ticks(double lo, double hi, int max_ticks) {
    max_ticks = std::max(max_ticks, 2);
    if (!(hi > lo)) hi = lo + 1;
    const double raw = (hi - lo) / (max_ticks - 1);
    for (double decade = std::pow(10.0, std::floor(std::log10(raw)));; decade *= 10) {
        for (double m : {1.0, 2.0, 5.0}) {
            const double step = m * decade;
            const double first = std::floor(lo / step * (1 + kNudge)), last = std::ceil(hi / step * (1 - kNudge));
            if (last - first + 1 > max_ticks) continue;
            std::vector<double> ticks;
            for (double k = first; k <= last; ++k) ticks.push_back(k * step);
            return ticks;
        }
    }
}

std::vector<double> log_ticks(double lo, double hi, int max_ticks) {
    max_ticks = std::max(max_ticks, 2);
    std::vector<double> ticks{round_down_125(lo)};
    while (ticks.size() < 2 || ticks.back() < hi * (1 - kNudge)) ticks.push_back(next_125(ticks.back()));
    if (static_cast<int>(ticks.size()) <= max_ticks) return ticks;
    // Too many for the room: powers of ten only, then every second, third... power.
    const int first = static_cast<int>(std::floor(std::log10(lo) + kNudge));
    const int last = static_cast<int>(std::ceil(std::log10(hi) - kNudge));
    int every = 1;
    while ((last - first + every - 1) / every + 1 > max_ticks) ++every;
    ticks.clear();
    for (int e = first; ticks.empty() || ticks.back() < hi * (1 - kNudge); e += every)
        ticks.push_back(std::pow(10.0, e));
    return ticks;
}

Axis value_axis(const std::vector<double>& values, int max_ticks) {
    double smallest = 0, largest = 0;
    for (double v : values) {
        if (!(v > 0) || !std::isfinite(v)) continue;  // nothing measured: no bar, no say in the scale
        smallest = smallest > 0 ? std::min(smallest, v) : v;
        largest = std::max(largest, v);
    }
    Axis axis;
    if (largest > 10 * smallest && smallest > 0) {
        axis.log = true;
        axis.ticks = log_ticks(smallest, largest, max_ticks);
    } else {
        axis.ticks = linear_ticks(0, largest > 0 ? largest : 1, max_ticks);
    }
    axis.lo = axis.ticks.front();
    axis.hi = axis.ticks.back();
    return axis;
}

std::string tick_label(double v) {
    const double a = std::fabs(v);
    if (a >= 1e6 - kNudge) return fmt::format("{:g}M", v / 1e6);
    if (a >= 1e4 - kNudge) return fmt::format("{:g}k", v / 1e3);
    return fmt::format("{:g}", std::fabs(v) < 1e-12 ? 0.0 : v);
}

std::string value_label(double v) {
    if (!std::isfinite(v)) return "-";
    if (std::fabs(v) < 99.95) return fmt::format("{:.3g}", v);
    return with_commas(std::llround(v));
}

double text_width(const std::string& text, double font_px) {
    double ems = 0;
    for (unsigned char c : text) {
        if ((c & 0xC0) == 0x80) continue;  // the rest of a UTF-8 character: counted with its first byte
        if (std::strchr("ijlI|'", c))
            ems += 0.28;
        else if (std::strchr(" .,:;!", c))
            ems += 0.32;
        else if (std::strchr("ftr()[]-/", c))
            ems += 0.41;
        else if (std::strchr("csz", c))
            ems += 0.55;
        else if (c == 'w')
            ems += 0.82;
        else if (std::strchr("mMW%", c))
            ems += 1.0;
        else if (c >= 'A' && c <= 'Z')
            ems += 0.77;
        else
            ems += 0.64;  // digits, most lowercase letters, anything else
    }
    return ems * font_px * 1.05;
}

std::vector<int> assign_rows(const std::vector<std::pair<double, double>>& spans, double gap) {
    // Taken in the order of their right ends, the last span placed in a row is the one that reaches furthest.
    std::vector<size_t> order(spans.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return spans[a].second < spans[b].second; });
    std::vector<int> rows(spans.size());
    std::vector<double> row_end;  // the right end of the last span placed in each row
    for (size_t i : order) {
        size_t r = 0;
        while (r < row_end.size() && row_end[r] + gap > spans[i].first) ++r;
        if (r == row_end.size()) row_end.push_back(0);
        row_end[r] = spans[i].second;
        rows[i] = static_cast<int>(r);
    }
    return rows;
}

}  // namespace workshop::chart
