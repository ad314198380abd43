// The arithmetic behind every figure the workshop prints. Kept free of CUDA so the host tests can check it.
#pragma once

#include <cstdint>

namespace workshop {

// Decimal units throughout (1 GB = 1e9 bytes), as vendors quote bandwidth.
inline double gigabytes_per_second(double bytes, double seconds) { return bytes / 1e9 / seconds; }
inline double gigaflops_per_second(double flops, double seconds) { return flops / 1e9 / seconds; }

// A transpose reads every element once and writes it once: that is the least traffic it can cause.
inline double transpose_bytes(int rows, int cols) {
    return 2.0 * static_cast<double>(rows) * static_cast<double>(cols) * sizeof(float);
}

// One multiply and one add per (i, j, k).
inline double matmul_flops(int M, int N, int K) {
    return 2.0 * static_cast<double>(M) * static_cast<double>(N) * static_cast<double>(K);
}

// The least DRAM traffic a matmul can cause: each input read once, the output written once.
inline double matmul_min_bytes(int M, int N, int K) {
    const double m = M, n = N, k = K;
    return (m * k + k * n + m * n) * sizeof(float);
}

// DRAM moves data on both clock edges, so bytes per second = 2 x clock x bus width in bytes.
// `memory_clock_khz` and `bus_width_bits` are what cudaDevAttrMemoryClockRate and
// cudaDevAttrGlobalMemoryBusWidth report.
inline double theoretical_dram_gbps(int64_t memory_clock_khz, int64_t bus_width_bits) {
    return 2.0 * static_cast<double>(memory_clock_khz) * 1e3 * (static_cast<double>(bus_width_bits) / 8.0) / 1e9;
}

// FP32 lanes per SM by architecture; a fused multiply-add counts as two operations.
int fp32_lanes_per_sm(int cc_major, int cc_minor);

inline double fp32_peak_gflops(int sm_count, int lanes_per_sm, int64_t sm_clock_khz) {
    return static_cast<double>(sm_count) * lanes_per_sm * 2.0 * static_cast<double>(sm_clock_khz) * 1e3 / 1e9;
}

}  // namespace workshop
