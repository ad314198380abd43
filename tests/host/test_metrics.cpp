#include <gtest/gtest.h>

#include "measure/metrics.hpp"
#include "measure/perf_model.hpp"
#include "measure/timing.hpp"

using namespace workshop;

TEST(Metrics, BandwidthIsDecimalBytesReadPlusWritten) {
    // 8192 x 8192 floats read and written: 536,870,912 bytes. In 0.2 ms that is 2684.35 GB/s.
    EXPECT_DOUBLE_EQ(transpose_bytes(8192, 8192), 536870912.0);
    EXPECT_NEAR(gigabytes_per_second(transpose_bytes(8192, 8192), 0.2e-3), 2684.35456, 1e-6);
    EXPECT_DOUBLE_EQ(transpose_bytes(3, 5), 120.0);
}

TEST(Metrics, FlopsCountMultiplyAndAdd) {
    EXPECT_DOUBLE_EQ(matmul_flops(4096, 4096, 4096), 2.0 * 4096.0 * 4096.0 * 4096.0);
    EXPECT_NEAR(gigaflops_per_second(matmul_flops(4096, 4096, 4096), 3e-3), 45812.984, 1e-3);
    EXPECT_DOUBLE_EQ(matmul_min_bytes(2, 3, 4), (8 + 12 + 6) * 4.0);
}

TEST(Metrics, TheoreticalBandwidthFromClockAndBusWidth) {
    // H100 SXM: HBM3 at 2619 MHz on a 5120-bit bus -> 2 x 2.619e9 x 640 bytes = 3352.32 GB/s.
    EXPECT_NEAR(theoretical_dram_gbps(2619000, 5120), 3352.32, 1e-9);
    // K20X: 2600 MHz effective GDDR5 reported as 2600000 kHz on 384 bits -> 249.6 GB/s, the slides' 250.
    EXPECT_NEAR(theoretical_dram_gbps(2600000, 384), 249.6, 1e-9);
}

TEST(Metrics, Fp32PeakFromLanesAndClock) {
    EXPECT_EQ(fp32_lanes_per_sm(9, 0), 128);
    EXPECT_EQ(fp32_lanes_per_sm(8, 0), 64);
    EXPECT_EQ(fp32_lanes_per_sm(8, 6), 128);
    EXPECT_EQ(fp32_lanes_per_sm(7, 0), 64);
    // H100 SXM: 132 SMs x 128 lanes x 2 x 1.98 GHz = 66.9 TFLOP/s.
    EXPECT_NEAR(fp32_peak_gflops(132, 128, 1980000), 66908.16, 1e-6);
}

TEST(PerfModel, WavesAndTail) {
    // 132 SMs x 2 blocks = 264 per wave; 600 blocks = 2 full waves + 72 in the tail.
    const Waves w = count_waves(600, 132, 2);
    EXPECT_EQ(w.full_waves, 2);
    EXPECT_EQ(w.tail_blocks, 72);
    EXPECT_NEAR(w.count, 600.0 / 264.0, 1e-12);
    EXPECT_NEAR(w.tail_fill, 72.0 / 264.0, 1e-12);
    const Waves exact = count_waves(528, 132, 2);
    EXPECT_EQ(exact.tail_blocks, 0);
    EXPECT_DOUBLE_EQ(exact.tail_fill, 1.0);
}

TEST(PerfModel, OccupancyIsResidentWarpsOverSlots) {
    EXPECT_DOUBLE_EQ(theoretical_occupancy(2, 1024, 2048), 1.0);
    EXPECT_DOUBLE_EQ(theoretical_occupancy(1, 256, 2048), 0.125);
    EXPECT_DOUBLE_EQ(theoretical_occupancy(3, 100, 2048), 12.0 / 64.0);  // 100 threads still take 4 warps
}

TEST(PerfModel, LimiterFollowsIntensityAgainstBalance) {
    EXPECT_EQ(likely_limiter(0.0, 20.0, 26400, 132), Limiter::Memory);
    EXPECT_EQ(likely_limiter(600.0, 20.0, 26400, 132), Limiter::Math);
    EXPECT_EQ(likely_limiter(600.0, 20.0, 4, 132), Limiter::Latency);  // 4 blocks on 132 SMs: the slides' step 1
    EXPECT_EQ(likely_limiter(600.0, 20.0, 131, 132), Limiter::Latency);
    EXPECT_EQ(likely_limiter(600.0, 20.0, 256, 132), Limiter::Math);  // 0.97 waves of 2 blocks per SM: every SM busy
    EXPECT_DOUBLE_EQ(machine_balance(66908.16, 3352.32), 66908.16 / 3352.32);
}

TEST(Timing, SummaryIsMedianMinMax) {
    const Timing odd = summarise({5, 1, 3});
    EXPECT_DOUBLE_EQ(odd.median_ms, 3);
    EXPECT_DOUBLE_EQ(odd.min_ms, 1);
    EXPECT_DOUBLE_EQ(odd.max_ms, 5);
    EXPECT_EQ(odd.reps(), 3);
    EXPECT_DOUBLE_EQ(summarise({4, 1, 2, 3}).median_ms, 2.5);
    EXPECT_EQ(summarise({}).reps(), 0);
}
