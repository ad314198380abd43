// The performance model the background lessons teach, as plain arithmetic: how many waves of blocks a launch
// takes, how full the last one is, and whether the work is bound by memory or by math.
#pragma once

#include <cstdint>
#include <string>

namespace workshop {

struct Waves {
    double count = 0;  // blocks / (SMs x resident blocks per SM); fractional part is the tail
    int64_t full_waves = 0;
    int64_t tail_blocks = 0;  // blocks in the last, partial wave (0 when the last wave is full)
    double tail_fill = 1.0;   // how full the last wave is, 0..1
};

// Blocks run in waves: each SM holds `blocks_per_sm` at a time. A small tail wave leaves most SMs idle.
Waves count_waves(int64_t total_blocks, int sm_count, int blocks_per_sm);

// Theoretical occupancy: resident warps over the SM's warp slots.
double theoretical_occupancy(int blocks_per_sm, int threads_per_block, int max_threads_per_sm);

// Flops per byte of the least DRAM traffic; the machine balance is peak flops over peak bandwidth.
inline double arithmetic_intensity(double flops, double bytes) { return bytes > 0 ? flops / bytes : 0.0; }
inline double machine_balance(double peak_gflops, double peak_gbps) {
    return peak_gbps > 0 ? peak_gflops / peak_gbps : 0.0;
}

enum class Limiter { Memory, Math, Latency };

// Below the machine balance a kernel can at best saturate memory; above it, math. A launch with fewer blocks than
// the GPU has SMs leaves some SMs with nothing to do, and is limited by latency before either. (A launch of one
// wave or a little less is not: every SM has blocks, as in step 5's split matmul at 1024^3, 256 blocks on 132 SMs.)
Limiter likely_limiter(double intensity, double balance, int64_t blocks, int sm_count);
const char* limiter_name(Limiter limiter);

}  // namespace workshop
