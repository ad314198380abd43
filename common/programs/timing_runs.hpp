// make check's timing runs: the student's program, this step's solution and the last step's, each a child process
// started beside the battery. Each makes its data and checks its own run, then waits at its gate (a pipe) for make
// check's word, sent once the battery is over.
//
// Where the GPU takes many processes, the three are timed in rounds: each round, each run times one short slice
// and says its times back, in turn, so that whatever else runs on the GPU (the checks of the students beside this
// one) weighs on all three alike. Their ratios then hold in a busy room, where times taken minutes apart, each
// alone, wandered by a factor of two. Where the GPU takes one process at a time, each run is timed alone, in turn.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include "base/child_processes.hpp"

namespace workshop {

// One timing run, started at once, stopped (ended untimed) when destroyed while it still runs.
class TimingRun {
public:
    // `keep_timing_lock`: whether the run takes the timing lock itself (timed alone), or its parent holds it for the
    // rounds.
    TimingRun(const std::vector<std::string>& argv, bool keep_timing_lock);
    ~TimingRun() { stop(); }
    TimingRun(const TimingRun&) = delete;
    TimingRun& operator=(const TimingRun&) = delete;

    // Asks for one slice of about `seconds` and waits for its times (ms); nothing where the run has ended (a FAIL,
    // no kernel to time) or said nothing for `timeout_s`.
    std::optional<std::vector<double>> time_a_slice(double seconds, double timeout_s);
    // Says `word` ("go": time alone; "end": the rounds are over) and waits for the run to end (ends it at once where
    // it went silent in a round).
    ChildResult finish(const std::string& word);
    // Says `word` without waiting, so that several runs check their last output side by side; finish() then waits.
    void let_go(const std::string& word);
    // Ends the run untimed, if it still runs.
    void stop();

private:
    pid_t pid_ = -1;
    int gate_ = -1, reply_ = -1, out_ = -1, err_ = -1;
    std::string pending_;  // reply text read past the last line
    int start_errno_ = 0;
    bool silent_ = false;  // said nothing for a slice's whole timeout: finish() ends it
    ChildResult wait_for_it();
};

// The slices of every run, round by round: slices[run][round], each a slice's times (ms).
struct Rounds {
    std::vector<std::vector<std::vector<double>>> slices;
    bool complete = true;  // false where a run ended or went silent before the rounds were over
};

// Times `runs` in rounds until each has had enough (at least kMinRounds rounds and kMinSecondsEach of timed work)
// and the ratio of the first to each other is sure enough, or the limits are reached. Stops at the first run
// that ends.
Rounds time_in_rounds(const std::vector<TimingRun*>& runs);

// How far the ratio of `other`'s time to `mine`'s is to be trusted, either way, as a share of it: the ratio of each
// round's medians is taken (a round's slices ran moments apart, under the same load), and the interval their median
// is sure to within is McGill's notch, 1.58 x IQR / sqrt(rounds). Infinite under three rounds.
double ratio_uncertainty(const std::vector<std::vector<double>>& mine, const std::vector<std::vector<double>>& other);

// How much other work slowed a run: its median launch against its fastest tenth, less one (0.02: the median took 2%
// longer). A GPU shared in time slices stretches a long kernel more than a short one, and the same in every round,
// which the rounds' ratios cannot see; the runs' own spread can.
double slowed_by_others(const std::vector<std::vector<double>>& slices);

// Why the ratio of two runs' speeds is not to be trusted, from their rounds (the slices of each, paired by round);
// empty where it is: its uncertainty (above) is at most kRatioDoubt, and other work slowed the two runs alike
// (within kRatioDoubt of each other).
std::string ratio_doubt(const std::vector<std::vector<double>>& mine, const std::vector<std::vector<double>>& other);

constexpr int kMinRounds = 10;
constexpr int kMaxRounds = 60;
constexpr double kSliceSeconds = 0.004;
constexpr double kMinSecondsEach = 0.03;
constexpr double kMaxRoundsSeconds = 10;
constexpr double kRatioDoubt = 0.05;

}  // namespace workshop
