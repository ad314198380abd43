// The roofline of the matmul track, for a slide: GFLOP/s against flops per byte, both on log axes, under the
// GPU's DRAM-bandwidth slope and its FP32 ceiling, with each step as a point and cuBLAS as a reference. A
// transpose does no flops, so it has no place here: its chart is the bandwidth chart (svg_chart.hpp).
#pragma once

#include <string>
#include <vector>

#include "report/report.hpp"
#include "report/svg_chart.hpp"

namespace workshop {

// The flops per byte that matmul step `step`'s kernel requests from global memory, from the tiles its lesson
// teaches (roofline.cpp says how); 0 where `step` is not 1 to 5.
double matmul_step_intensity(int step);

// The least traffic an M x N x K product needs, each matrix moved once: 2MNK / (4 (MK + KN + MN)) flops per
// byte; 0 where `shape` is not "MxNxK".
double product_intensity(const std::string& shape);

struct RooflinePoint {
    std::string label;     // "step 3", or the reference's name
    double intensity = 0;  // flops per byte
    double gflops = 0;     // measured
};

struct Roofline {
    double dram_gbps = 0;    // the slope's bandwidth; 0: not known, no slope drawn
    double l2_gbps = 0;      // an L2 slope, where the device's figures give one; 0: none drawn
    double fp32_gflops = 0;  // the ceiling; 0: not known, none drawn
    std::vector<RooflinePoint> steps;
    std::vector<RooflinePoint> references;  // cuBLAS, at the product's least traffic
};

// The roofline of one matmul table (make run's rows, or a sweep's at one size and run): every step that ran and
// did not FAIL at its step's intensity, the row named `reference` at the product's least traffic, the FP32
// peak from the limit row in GFLOP/s, and the DRAM bandwidth given (the transpose table's theoretical row).
Roofline roofline_of(const std::vector<ResultRow>& matmul_rows, const std::string& reference, double dram_gbps);

// The chart: the roofs as one dark line (and the ridge where they meet, labelled), each point a circle in its
// step's colour (chart_colors) with its label beside it, placed where it overlaps no other label. Each circle
// holds a <title> with its label, and the tick labels carry class="x-tick" / class="y-tick", for tests and
// tooltips.
std::string svg_roofline(const ChartText& text, const Roofline& roofline);

}  // namespace workshop
