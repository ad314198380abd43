#include "programs/timing_runs.hpp"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>

#include "measure/timing.hpp"

namespace workshop {

namespace {

// The run's ends of its gate and reply pipes: WORKSHOP_TIMING_GATE and WORKSHOP_TIMING_REPLY name them, as
// program_support.cpp reads them.
constexpr int kGateFd = 3, kReplyFd = 4;
// A first slice waits for the run's set-up, which the battery may have slowed; later ones only for the slice.
constexpr double kFirstReplySeconds = 300, kReplySeconds = 60;

std::vector<std::string> environment_for(bool keep_timing_lock) {
    std::vector<std::string> dropped = {"WORKSHOP_TIMING_GATE", "WORKSHOP_TIMING_REPLY"};
    if (!keep_timing_lock) dropped.push_back("WORKSHOP_TIMING_LOCK");  // the parent holds it
    std::vector<std::string> env = environment_without(dropped);
    env.push_back(fmt::format("WORKSHOP_TIMING_GATE=/dev/fd/{}", kGateFd));
    env.push_back(fmt::format("WORKSHOP_TIMING_REPLY=/dev/fd/{}", kReplyFd));
    return env;
}

// A run that ended early (wrong at its size, or refused it) has closed its end: the word is lost, and the SIGPIPE
// of writing it is held back and dropped, not left to end this process. (Ignoring SIGPIPE instead would pass
// SIG_IGN on to every program this one starts.)
bool say(int gate, const std::string& words) {
    sigset_t pipe_signal, before;
    sigemptyset(&pipe_signal);
    sigaddset(&pipe_signal, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_signal, &before);
    const bool lost = write(gate, words.data(), words.size()) != static_cast<ssize_t>(words.size());
    const timespec at_once{0, 0};
    if (lost) sigtimedwait(&pipe_signal, nullptr, &at_once);
    pthread_sigmask(SIG_SETMASK, &before, nullptr);
    return !lost;
}

// The value below which a share q of the sorted `values` lie (linear between neighbours).
double quantile(const std::vector<double>& sorted, double q) {
    const double at = q * static_cast<double>(sorted.size() - 1);
    const size_t below = static_cast<size_t>(at);
    const size_t above = std::min(below + 1, sorted.size() - 1);
    return sorted[below] + (at - static_cast<double>(below)) * (sorted[above] - sorted[below]);
}

double seconds_timed(const std::vector<std::vector<double>>& slices) {
    double ms = 0;
    for (const auto& slice : slices)
        for (const double m : slice) ms += m;
    return ms / 1e3;
}

}  // namespace

TimingRun::TimingRun(const std::vector<std::string>& argv, bool keep_timing_lock) {
    int gate[2], reply[2];
    if (pipe2(gate, O_CLOEXEC) != 0) return;
    if (pipe2(reply, O_CLOEXEC) != 0) {
        close(gate[0]), close(gate[1]);
        return;
    }
    const int gate_in = above_the_child_descriptors(gate[0]), reply_out = above_the_child_descriptors(reply[1]);
    gate_ = gate[1], reply_ = reply[0];
    out_ = above_the_child_descriptors(memfd_create("timing-out", MFD_CLOEXEC));
    err_ = above_the_child_descriptors(memfd_create("timing-err", MFD_CLOEXEC));
    const ProcessStart how{argv,
                           environment_for(keep_timing_lock),
                           {{out_, STDOUT_FILENO}, {err_, STDERR_FILENO}, {gate_in, kGateFd}, {reply_out, kReplyFd}}};
    if (out_ < 0 || err_ < 0 || gate_in < 0 || reply_out < 0) {
        start_errno_ = errno;
    } else if ((pid_ = start_process(how)) < 0) {
        start_errno_ = errno;
    }
    close(gate_in), close(reply_out);
}

std::optional<std::vector<double>> TimingRun::time_a_slice(double seconds, double timeout_s) {
    if (pid_ < 0 || gate_ < 0 || !say(gate_, fmt::format("round {}\n", seconds))) return std::nullopt;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
    for (size_t end; (end = pending_.find('\n')) == std::string::npos;) {
        const auto left =
            std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        pollfd ready{reply_, POLLIN, 0};
        const int polled = poll(&ready, 1, static_cast<int>(std::max<int64_t>(left.count(), 0)));
        if (polled < 0 && errno == EINTR) continue;
        if (polled <= 0) {
            silent_ = true;
            return std::nullopt;
        }
        char buffer[4096];
        const ssize_t n = read(reply_, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return std::nullopt;  // the run has ended
        pending_.append(buffer, static_cast<size_t>(n));
    }
    const size_t end = pending_.find('\n');
    const std::string line = pending_.substr(0, end);
    pending_.erase(0, end + 1);
    try {
        const nlohmann::json reply = nlohmann::json::parse(line);
        return reply.at("ms").get<std::vector<double>>();
    } catch (const nlohmann::json::exception&) { return std::nullopt; }
}

ChildResult TimingRun::wait_for_it() {
    ChildResult r;
    int status = 0;
    while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {}
    pid_ = -1;
    if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) r.signal = WTERMSIG(status), r.exit_code = 128 + r.signal;
    r.out = read_from_the_start(out_);
    r.err = read_from_the_start(err_);
    return r;
}

ChildResult TimingRun::finish(const std::string& word) {
    if (pid_ < 0) {
        ChildResult r;
        r.exit_code = 127;
        r.err = fmt::format("could not start the timing run: {}\n", std::strerror(start_errno_));
        return r;
    }
    if (silent_) {
        kill(-pid_, SIGKILL);
        ChildResult r = wait_for_it();
        r.timed_out = true;
        return r;
    }
    let_go(word);
    return wait_for_it();
}

void TimingRun::let_go(const std::string& word) {
    if (pid_ < 0 || silent_ || gate_ < 0) return;
    say(gate_, word + "\n");
    close(gate_), gate_ = -1;
}

void TimingRun::stop() {
    if (gate_ >= 0) close(gate_), gate_ = -1;
    if (pid_ > 0) {
        kill(-pid_, SIGKILL);
        wait_for_it();
    }
    for (int* fd : {&reply_, &out_, &err_})
        if (*fd >= 0) close(*fd), *fd = -1;
}

double ratio_uncertainty(const std::vector<std::vector<double>>& mine, const std::vector<std::vector<double>>& other) {
    const size_t rounds = std::min(mine.size(), other.size());
    std::vector<double> ratios;
    for (size_t r = 0; r < rounds; ++r) {
        const double mine_ms = summarise(mine[r]).median_ms, other_ms = summarise(other[r]).median_ms;
        if (mine_ms > 0 && other_ms > 0) ratios.push_back(other_ms / mine_ms);
    }
    if (ratios.size() < 3) return INFINITY;
    std::sort(ratios.begin(), ratios.end());
    const double spread = quantile(ratios, 0.75) - quantile(ratios, 0.25);
    return 1.58 * spread / std::sqrt(static_cast<double>(ratios.size())) / quantile(ratios, 0.5);
}

double slowed_by_others(const std::vector<std::vector<double>>& slices) {
    std::vector<double> all;
    for (const auto& slice : slices) all.insert(all.end(), slice.begin(), slice.end());
    if (all.size() < 3) return 0;
    std::sort(all.begin(), all.end());
    const double fast = quantile(all, 0.1);
    return fast > 0 ? quantile(all, 0.5) / fast - 1 : 0;
}

std::string ratio_doubt(const std::vector<std::vector<double>>& mine, const std::vector<std::vector<double>>& other) {
    const double uncertainty = ratio_uncertainty(mine, other);
    if (std::isinf(uncertainty)) return "too few rounds were timed to compare";
    if (uncertainty > kRatioDoubt)
        return fmt::format("the GPU was busy: its rounds gave ratios that pin it down only to {}{:.0f}%", "\u00b1",
                           100 * uncertainty);
    const double unequal = std::abs(slowed_by_others(mine) - slowed_by_others(other));
    if (unequal > kRatioDoubt)
        return fmt::format("the GPU was busy, and other work slowed one run {:.0f}% more than the other",
                           100 * unequal);
    return {};
}

namespace {

bool enough(const Rounds& rounds, int done) {
    if (done < kMinRounds) return false;
    for (const auto& slices : rounds.slices)
        if (seconds_timed(slices) < kMinSecondsEach) return false;
    for (size_t i = 1; i < rounds.slices.size(); ++i)
        if (ratio_uncertainty(rounds.slices[0], rounds.slices[i]) > kRatioDoubt / 2) return false;
    return true;
}

}  // namespace

Rounds time_in_rounds(const std::vector<TimingRun*>& runs) {
    Rounds rounds;
    rounds.slices.resize(runs.size());
    const auto start = std::chrono::steady_clock::now();
    for (int done = 0; done < kMaxRounds; ++done) {
        // Every other round in the other order, so that no run always follows the same one.
        for (size_t k = 0; k < runs.size(); ++k) {
            const size_t i = done % 2 ? runs.size() - 1 - k : k;
            const auto slice = runs[i]->time_a_slice(kSliceSeconds, done == 0 ? kFirstReplySeconds : kReplySeconds);
            if (!slice || slice->empty()) {
                for (size_t j = 0; j < runs.size(); ++j) rounds.slices[j].resize(static_cast<size_t>(done));
                rounds.complete = false;
                return rounds;
            }
            rounds.slices[i].push_back(*slice);
        }
        const double spent = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (enough(rounds, done + 1) || spent > kMaxRoundsSeconds) break;
    }
    return rounds;
}

}  // namespace workshop
