#include "measure/perf_model.hpp"

#include <algorithm>

namespace workshop {

Waves count_waves(int64_t total_blocks, int sm_count, int blocks_per_sm) {
    Waves w;
    const int64_t per_wave = static_cast<int64_t>(sm_count) * std::max(blocks_per_sm, 1);
    if (per_wave <= 0 || total_blocks <= 0) return w;
    w.count = static_cast<double>(total_blocks) / static_cast<double>(per_wave);
    w.full_waves = total_blocks / per_wave;
    w.tail_blocks = total_blocks % per_wave;
    w.tail_fill = w.tail_blocks == 0 ? 1.0 : static_cast<double>(w.tail_blocks) / static_cast<double>(per_wave);
    return w;
}

double theoretical_occupancy(int blocks_per_sm, int threads_per_block, int max_threads_per_sm) {
    if (max_threads_per_sm <= 0) return 0.0;
    const int warps_per_block = (threads_per_block + 31) / 32;
    const double resident = static_cast<double>(blocks_per_sm) * warps_per_block;
    return std::min(1.0, resident / (max_threads_per_sm / 32.0));
}

Limiter likely_limiter(double intensity, double balance, int64_t blocks, int sm_count) {
    if (blocks < sm_count) return Limiter::Latency;
    return intensity < balance ? Limiter::Memory : Limiter::Math;
}

const char* limiter_name(Limiter limiter) {
    switch (limiter) {
        case Limiter::Memory: return "memory bandwidth";
        case Limiter::Math: return "FP32 math";
        case Limiter::Latency: return "latency (fewer blocks than SMs: some SMs have nothing to do)";
    }
    return "?";
}

}  // namespace workshop
