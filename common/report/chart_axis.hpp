// The arithmetic behind the charts, kept apart from the drawing so that it can be tested: round ticks, when an
// axis must be logarithmic, how wide a label is, and rows for labels that would otherwise collide.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace workshop::chart {

// A value axis. Its ends are ticks, so the axis starts and ends on a round value.
struct Axis {
    bool log = false;
    double lo = 0, hi = 1;
    std::vector<double> ticks;  // from lo to hi, each 1, 2 or 5 times a power of ten (or a multiple of the step)
    // Where v falls along the axis: 0 at lo, 1 at hi.
    double fraction(double v) const;
};

// An axis for these values with at most max_ticks ticks (as many as there is room for labels). Linear from 0
// while the largest value is at most 10 times the smallest; beyond that logarithmic, so that values a
// thousand times apart (a first kernel and the last) can all be read. Values of 0 or less are left out.
Axis value_axis(const std::vector<double>& values, int max_ticks);

// Round steps for a linear axis from lo to hi: the step is 1, 2 or 5 times a power of ten and there are at
// most max_ticks ticks; the first tick is at or below lo, the last at or above hi.
std::vector<double> linear_ticks(double lo, double hi, int max_ticks);

// Ticks for a log axis covering [lo, hi] (both > 0): 1, 2 and 5 times each power of ten where there is room
// for max_ticks of them, else 1 times each power of ten (every other power when even that is too many).
std::vector<double> log_ticks(double lo, double hi, int max_ticks);

// A tick label without an exponent: 0.5, 20, 500, 2000, 50k, 2M.
std::string tick_label(double v);
// A measured value: three significant digits below 100 (8.17, 92.1), whole with thousands commas from 100
// (972, 46,758).
std::string value_label(double v);

// The width in pixels of text in a sans-serif font of font_px pixels, estimated a little generously from
// the widths of DejaVu Sans (what librsvg and most Linux browsers pick for "Helvetica, Arial, sans-serif").
double text_width(const std::string& text, double font_px);

// For labels spanning [left, right] on one line: a row for each so that labels in the same row are at least
// `gap` apart; row 0 first. Labels are placed in the order of their right ends, so of two labels that
// overlap, the one ending further right goes in the higher row.
std::vector<int> assign_rows(const std::vector<std::pair<double, double>>& spans, double gap);

}  // namespace workshop::chart
