#include <algorithm>
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

// Why the rounds are queued in batches. Waiting for each launch before the next leaves the GPU idle, and an
// event recorded on an idle GPU stamps its time at once, before the launch that follows it has left the CPU:
// every timing then held the host's launch latency too, a few microseconds that vary with the CPU's state.
// On the H100 that was 2% of a 0.19 ms copy, and it moved the medians at transpose 8192 by up to 2-3.5% from
// one process to the next; queued ahead, 0.1-0.2% (RESULTS.md). Each launch then starts as the one before it
// ends, and its events time it alone, as long as the host enqueues faster than the GPU runs. Only the first
// launch of a batch starts from idle; a batch is about 20 ms of work, so that is at most one run in a few dozen,
// which the median ignores.
constexpr double kBatchSeconds = 0.02;
constexpr int kMaxBatchRounds = 64;

// How many rounds to queue next: about kBatchSeconds of them, judged by the rounds so far (one round alone
// first), but never past `reps` while short of it (0 s of minimum time gives exactly `reps` runs) nor past
// what the budget still allows (never under kMinReps runs). `spent_s` is per launch, as the budget is.
int rounds_in_next_batch(int done, double spent_s, size_t launches_per_round, const TimingPlan& plan) {
    if (done == 0) return 1;
    const double launch_s = std::max(spent_s / done, 1e-9);  // one launch, on average
    const double round_s = launch_s * static_cast<double>(launches_per_round);
    int rounds = static_cast<int>(std::clamp(kBatchSeconds / round_s, 1.0, double{kMaxBatchRounds}));
    if (done < plan.reps) rounds = std::min(rounds, plan.reps - done);
    if (plan.budget_s > 0) {
        const double affordable = std::clamp((plan.budget_s - spent_s) / launch_s, 0.0, double{kMaxBatchRounds});
        rounds = std::min(rounds, std::max({static_cast<int>(affordable), TimingPlan::kMinReps - done, 1}));
    }
    return rounds;
}

// Start and stop events for every launch of a batch, made once.
class BatchEvents {
public:
    explicit BatchEvents(size_t launches) : events_(2 * launches) {
        for (auto& e : events_) CUDA_CHECK(cudaEventCreate(&e));
    }
    ~BatchEvents() {
        for (auto e : events_) cudaEventDestroy(e);
    }
    BatchEvents(const BatchEvents&) = delete;
    BatchEvents& operator=(const BatchEvents&) = delete;
    cudaEvent_t start(size_t launch) const { return events_[2 * launch]; }
    cudaEvent_t stop(size_t launch) const { return events_[2 * launch + 1]; }

private:
    std::vector<cudaEvent_t> events_;
};

}  // namespace

std::vector<Timing> time_on_gpu_in_turn(const std::vector<std::function<void()>>& runs, const TimingPlan& plan) {
    if (runs.empty()) return {};
    std::optional<L2Flusher> flusher;
    if (plan.flush_l2) flusher.emplace();

    for (int i = 0; i < plan.warmup; ++i)
        for (const auto& run : runs) run();
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());

    const BatchEvents events(kMaxBatchRounds * runs.size());
    std::vector<std::vector<double>> ms(runs.size());
    double spent_s = 0;  // per launch: all the launches' time over the number of launches in a round
    int done = 0;        // rounds timed
    const auto first = Clock::now();
    while (!timed_enough(first, done, plan) && !over_budget(spent_s, done, plan)) {
        const int rounds = rounds_in_next_batch(done, spent_s, runs.size(), plan);
        size_t launch = 0;
        for (int r = 0; r < rounds; ++r) {
            for (const auto& run : runs) {
                if (flusher) flusher->flush();  // between one launch's stop and the next one's start
                CUDA_CHECK(cudaEventRecord(events.start(launch)));
                run();
                CUDA_CHECK(cudaEventRecord(events.stop(launch)));
                ++launch;
            }
        }
        CUDA_CHECK(cudaGetLastError());
        CUDA_CHECK(cudaEventSynchronize(events.stop(launch - 1)));
        for (size_t l = 0; l < launch; ++l) {
            float elapsed = 0;
            CUDA_CHECK(cudaEventElapsedTime(&elapsed, events.start(l), events.stop(l)));
            ms[l % runs.size()].push_back(elapsed);
            spent_s += elapsed * 1e-3 / runs.size();
        }
        done += rounds;
    }
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
