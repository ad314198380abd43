#include <chrono>
#include <optional>

#include "cuda_check.cuh"
#include "device_buffer.cuh"
#include "timing.hpp"

namespace workshop {

namespace {

// Writing a buffer twice the size of L2 pushes out whatever the last run left there, so the next run reads
// from DRAM as it would on first touch.
class L2Flusher {
public:
    L2Flusher() {
        int device = 0, l2 = 0;
        CUDA_CHECK(cudaGetDevice(&device));
        CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device));
        buffer_ = DeviceBuffer<char>(2 * static_cast<size_t>(l2));
    }
    void flush() { CUDA_CHECK(cudaMemsetAsync(buffer_.get(), 0, buffer_.bytes())); }

private:
    DeviceBuffer<char> buffer_;
};

bool over_budget(double spent_s, int done, const TimingPlan& plan) {
    return plan.budget_s > 0 && spent_s > plan.budget_s && done >= TimingPlan::kMinReps;
}

using Clock = std::chrono::steady_clock;

// Timed enough: `reps` runs and `min_time_s` of wall time since `first`. The budget, when hit, stops it sooner.
bool timed_enough(Clock::time_point first, int done, const TimingPlan& plan) {
    return done >= plan.reps && std::chrono::duration<double>(Clock::now() - first).count() >= plan.min_time_s;
}

}  // namespace

std::vector<Timing> time_on_gpu_in_turn(const std::vector<std::function<void()>>& runs, const TimingPlan& plan) {
    if (runs.empty()) return {};
    std::optional<L2Flusher> flusher;
    if (plan.flush_l2) flusher.emplace();

    for (int i = 0; i < plan.warmup; ++i)
        for (const auto& run : runs) run();
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());

    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    std::vector<std::vector<double>> ms(runs.size());
    double spent_s = 0;  // all the launches together
    const auto first = Clock::now();
    for (int i = 0; !timed_enough(first, i, plan) && !over_budget(spent_s / runs.size(), i, plan); ++i) {
        for (size_t k = 0; k < runs.size(); ++k) {
            if (flusher) flusher->flush();
            CUDA_CHECK(cudaEventRecord(start));
            runs[k]();
            CUDA_CHECK(cudaEventRecord(stop));
            CUDA_CHECK(cudaGetLastError());
            CUDA_CHECK(cudaEventSynchronize(stop));
            float elapsed = 0;
            CUDA_CHECK(cudaEventElapsedTime(&elapsed, start, stop));
            ms[k].push_back(elapsed);
            spent_s += elapsed * 1e-3;
        }
    }
    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));
    std::vector<Timing> timings;
    for (auto& m : ms) timings.push_back(summarise(std::move(m)));
    return timings;
}

Timing time_on_gpu(const std::function<void()>& run, const TimingPlan& plan) {
    return time_on_gpu_in_turn({run}, plan).front();
}

Timing time_on_host(const std::function<void()>& run, const TimingPlan& plan) {
    for (int i = 0; i < plan.warmup; ++i) run();
    std::vector<double> ms;
    double spent_s = 0;
    const auto first = Clock::now();
    for (int i = 0; !timed_enough(first, i, plan) && !over_budget(spent_s, i, plan); ++i) {
        const auto t0 = Clock::now();
        run();
        const double s = std::chrono::duration<double>(Clock::now() - t0).count();
        ms.push_back(s * 1e3);
        spent_s += s;
    }
    return summarise(std::move(ms));
}

}  // namespace workshop
