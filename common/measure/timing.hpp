// Timing: warm-up runs first (module load, caches, clocks), then repeated runs; the median is the figure, the
// spread says how far to trust it.
#pragma once

#include <functional>
#include <vector>

namespace workshop {

struct TimingPlan {
    int warmup = 2;
    int reps = 20;          // timed runs, at least
    double budget_s = 5.0;  // stop after this much timed work, never under kMinReps runs; 0 = no limit
    bool flush_l2 = false;
    // Keep timing past `reps` until this many seconds of wall time have passed since the first timed run:
    // 20 runs of a 0.2 ms transpose last 4 ms, and whatever else the machine does in those 4 ms lands in the
    // median by chance. The programs ask for 1 s; 0 (the default here) times exactly `reps` runs.
    double min_time_s = 0;
    static constexpr int kMinReps = 3;
};

struct Timing {
    std::vector<double> ms;  // every timed run
    double median_ms = 0, min_ms = 0, max_ms = 0;
    int reps() const { return static_cast<int>(ms.size()); }
    double median_s() const { return median_ms * 1e-3; }
};

// Fills median/min/max from `ms`.
Timing summarise(std::vector<double> ms);

// Times `run` with CUDA events around each launch, queued in batches ahead of the GPU so that the host's launch
// latency stays out of the figure (timing.cu says why). `run` only enqueues work; errors are checked every batch.
Timing time_on_gpu(const std::function<void()>& run, const TimingPlan& plan);

// Times several launches in turn: each round launches every one of them once, in order, so they all run under
// the same clocks and temperature and a share of one in another is fair. Timed one after the other instead,
// whichever came first after the GPU sat idle read low (half a point or more of a transpose's share of the
// copy, RESULTS.md). One Timing per launch, in the same order; the budget is per launch, as above.
//
// `before_each`, when given, is queued untimed before every timed run (unless L2 is flushed, when the flush is what
// every run follows), so that every timed run follows the same launch. In turn without it, each launch had its own
// predecessor, and the predecessor counts (RESULTS.md): a run starts while the last lines the run before it wrote
// are still in L2, and pays for writing them to DRAM.
std::vector<Timing> time_on_gpu_in_turn(const std::vector<std::function<void()>>& runs, const TimingPlan& plan,
                                        const std::function<void()>& before_each = {});

// Times a host function with a steady clock (for work that synchronises itself, such as a round trip with
// copies, or CPU code).
Timing time_on_host(const std::function<void()>& run, const TimingPlan& plan);

}  // namespace workshop
