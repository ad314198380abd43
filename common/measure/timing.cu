#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <optional>

#include "step/cuda_check.cuh"
#include "step/device_buffer.cuh"
#include "measure/gpu_timing_lock.hpp"
#include "measure/timing.hpp"

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
// every timing then held the host's launch latency too, a few microseconds that vary with the CPU's state, enough
// to move the medians from one process to the next (step5/MEASURED.md). Each launch then starts as the one before it
// ends, and its events time it alone, as long as the GPU never catches up with the host: the hold below sees
// to that.
constexpr double kBatchSeconds = 0.02;
constexpr int kMaxBatchRounds = 64;

// Why a batch is held back until it is all queued. Queuing alone keeps the GPU busy only while the host enqueues
// faster than the GPU runs. A 1024 x 1024 transpose lasts about 5 microseconds, not much longer than the host takes
// to enqueue it, so the GPU can catch up and sit idle, and the start events are again stamped before their launches
// have left the CPU, and two runs of one kernel read far apart (step5/MEASURED.md). So each batch begins with a
// kernel that waits on the GPU until the host says the batch is queued (a flag in host memory the GPU can read);
// then the launches run back to back, each timed alone. The wait has a limit: a run that synchronises the device
// itself (a student's launch may call cudaDeviceSynchronize) would otherwise wait for a kernel that waits for it.
// When the limit is reached the batch goes on anyway, as it did without the hold, and the rest of the call times
// without it.
constexpr unsigned long long kHoldLimitNs = 100'000'000;  // 0.1 s: queuing a batch takes milliseconds (the tests: 3 ms)

__global__ void hold_until_open(const volatile int* open, int* timed_out, unsigned long long limit_ns) {
    unsigned long long start = 0, now = 0;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    while (!*open) {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
        if (now - start > limit_ns) {
            *timed_out = 1;
            return;
        }
        __nanosleep(1000);
    }
}

class QueueHold {
public:
    QueueHold() {
        void* host = nullptr;
        if (cudaHostAlloc(&host, 2 * sizeof(int), cudaHostAllocMapped) != cudaSuccess) {
            (void)cudaGetLastError();  // no pinned memory: time without the hold
            return;
        }
        flags_ = static_cast<volatile int*>(host);
        CUDA_CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&device_flags_), host, 0));
        enabled_ = true;
    }
    ~QueueHold() {
        if (flags_) cudaFreeHost(const_cast<int*>(flags_));
    }
    QueueHold(const QueueHold&) = delete;
    QueueHold& operator=(const QueueHold&) = delete;

    // Before a batch is queued: the GPU will wait here.
    void close() {
        if (!enabled_) return;
        flags_[0] = 0, flags_[1] = 0;  // the last hold kernel has ended: its batch was waited for
        hold_until_open<<<1, 1>>>(device_flags_, device_flags_ + 1, kHoldLimitNs);
        CUDA_CHECK(cudaGetLastError());
    }
    // After the batch is queued: the GPU may go.
    void open() {
        if (!enabled_) return;
        std::atomic_thread_fence(std::memory_order_seq_cst);
        flags_[0] = 1;
    }
    // After the batch has run: a hold that ran out of time switches the hold off for the rest of the call.
    void check() {
        if (enabled_ && flags_[1]) enabled_ = false;
    }

private:
    volatile int* flags_ = nullptr;  // [0]: open, [1]: timed out
    int* device_flags_ = nullptr;
    bool enabled_ = false;
};

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

std::vector<Timing> time_on_gpu_in_turn(const std::vector<std::function<void()>>& runs, const TimingPlan& plan,
                                        const std::function<void()>& before_each) {
    if (runs.empty()) return {};
    // Under make check, no other check's timing on this GPU from the first warm-up to the last run (the header says
    // why); elsewhere the variable is not set and nothing waits.
    const GpuTimingLock no_other_check_timing(std::getenv("WORKSHOP_TIMING_LOCK"));
    std::optional<L2Flusher> flusher;
    if (plan.flush_l2) flusher.emplace();

    for (int i = 0; i < plan.warmup; ++i)
        for (const auto& run : runs) run();
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());

    const BatchEvents events(kMaxBatchRounds * runs.size());
    QueueHold hold;
    std::vector<std::vector<double>> ms(runs.size());
    double spent_s = 0;  // per launch: all the launches' time over the number of launches in a round
    int done = 0;        // rounds timed
    const auto first = Clock::now();
    while (!timed_enough(first, done, plan) && !over_budget(spent_s, done, plan)) {
        const int rounds = rounds_in_next_batch(done, spent_s, runs.size(), plan);
        hold.close();
        size_t launch = 0;
        for (int r = 0; r < rounds; ++r) {
            for (const auto& run : runs) {
                // Between one launch's stop and the next one's start: the same state of L2 for every timed run.
                if (flusher) {
                    flusher->flush();
                } else if (before_each) {
                    before_each();
                }
                CUDA_CHECK(cudaEventRecord(events.start(launch)));
                run();
                CUDA_CHECK(cudaEventRecord(events.stop(launch)));
                ++launch;
            }
        }
        hold.open();
        CUDA_CHECK(cudaGetLastError());
        CUDA_CHECK(cudaEventSynchronize(events.stop(launch - 1)));
        hold.check();
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
