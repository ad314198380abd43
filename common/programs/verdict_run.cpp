#include "programs/verdict_run.hpp"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cstdlib>

#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>
#include <sstream>

#include "report/report.hpp"
#include "base/exit_codes.hpp"
#include "base/files.hpp"
#include "check/child_processes.hpp"
#include "programs/rate_cache.hpp"
#include "programs/verdict.hpp"

extern char** environ;

namespace workshop {

namespace {

// The gate's end in the timing run: WORKSHOP_TIMING_GATE names it (/dev/fd/3), as program_support.cpp reads it.
constexpr int kGateFd = 3;

// A descriptor above the standard ones and the gate's, closed on exec, so that posix_spawn's dup2 onto 0-3 always
// makes a copy the child keeps.
int high_fd(int fd) {
    const int high = fcntl(fd, F_DUPFD_CLOEXEC, 10);
    close(fd);
    return high;
}

std::string read_all(int fd) {
    std::string text;
    char buffer[4096];
    if (lseek(fd, 0, SEEK_SET) < 0) return text;
    for (ssize_t n; (n = read(fd, buffer, sizeof buffer)) > 0 || (n < 0 && errno == EINTR);)
        if (n > 0) text.append(buffer, static_cast<size_t>(n));
    return text;
}

// The student's timing run, started beside the battery: it makes its data and checks its own run, then waits
// at the gate (a pipe it inherits) for the word go, sent once the battery and the sanitizers are over, so that
// its time is that of a GPU running nothing of this check. Closed without a word (a FAIL, or this process
// ended), the gate ends it untimed. What it prints waits in memory files, to be shown only if it is the run that
// fails (so a missing GPU is reported once, by the battery).
class GatedRun {
public:
    explicit GatedRun(const std::vector<std::string>& argv);
    ~GatedRun() { stop(); }
    GatedRun(const GatedRun&) = delete;
    GatedRun& operator=(const GatedRun&) = delete;

    // Says go and waits for the run to end.
    ChildResult open_gate_and_wait();
    // Ends the run untimed, if it still runs.
    void stop();

private:
    pid_t pid_ = -1;
    int gate_ = -1, out_ = -1, err_ = -1;
    ChildResult wait_for_it();
};

GatedRun::GatedRun(const std::vector<std::string>& argv) {
    int gate[2];
    if (pipe2(gate, O_CLOEXEC) != 0) return;
    const int gate_in = high_fd(gate[0]);
    gate_ = gate[1];
    out_ = high_fd(memfd_create("timing-out", MFD_CLOEXEC));
    err_ = high_fd(memfd_create("timing-err", MFD_CLOEXEC));
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, out_, STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&actions, err_, STDERR_FILENO);
    posix_spawn_file_actions_adddup2(&actions, gate_in, kGateFd);
    posix_spawnattr_t attributes;
    posix_spawnattr_init(&attributes);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);  // a group of its own, ended as one
    std::vector<std::string> env = {fmt::format("WORKSHOP_TIMING_GATE=/dev/fd/{}", kGateFd)};
    for (char** e = environ; *e; ++e)
        if (std::strncmp(*e, "WORKSHOP_TIMING_GATE=", 21) != 0) env.emplace_back(*e);
    std::vector<char*> args, envp;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    for (const auto& e : env) envp.push_back(const_cast<char*>(e.c_str()));
    args.push_back(nullptr), envp.push_back(nullptr);
    if (out_ < 0 || err_ < 0 || gate_in < 0 ||
        posix_spawn(&pid_, args[0], &actions, &attributes, args.data(), envp.data()) != 0)
        pid_ = -1;
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    close(gate_in);
}

ChildResult GatedRun::wait_for_it() {
    ChildResult r;
    int status = 0;
    while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {}
    pid_ = -1;
    if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) r.signal = WTERMSIG(status), r.exit_code = 128 + r.signal;
    r.out = read_all(out_);
    r.err = read_all(err_);
    return r;
}

// A run that ended before its gate (wrong at its size, or refused it) has closed the other end: the word is lost,
// and the SIGPIPE of writing it is held back and dropped, not left to end this process. (Ignoring SIGPIPE instead
// would pass SIG_IGN on to every program this one starts.)
void say_go(int gate) {
    sigset_t pipe_signal, before;
    sigemptyset(&pipe_signal);
    sigaddset(&pipe_signal, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_signal, &before);
    const char go[] = "go\n";
    const bool lost = write(gate, go, sizeof go - 1) < 0;
    const timespec at_once{0, 0};
    if (lost) sigtimedwait(&pipe_signal, nullptr, &at_once);
    pthread_sigmask(SIG_SETMASK, &before, nullptr);
}

ChildResult GatedRun::open_gate_and_wait() {
    if (pid_ < 0) {
        ChildResult r;
        r.exit_code = 127;
        r.err = fmt::format("could not start the timing run: {}\n", std::strerror(errno));
        return r;
    }
    say_go(gate_);
    close(gate_), gate_ = -1;
    return wait_for_it();
}

void GatedRun::stop() {
    if (gate_ >= 0) close(gate_), gate_ = -1;
    if (pid_ > 0) {
        kill(-pid_, SIGKILL);
        wait_for_it();
    }
    for (int* fd : {&out_, &err_})
        if (*fd >= 0) close(*fd), *fd = -1;
}

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

void say(const std::string& line) {
    fmt::print("{}\n", line);
    std::fflush(stdout);
}

}  // namespace

std::optional<TimedRate> step_rate_in(const std::string& json_output) {
    const nlohmann::json rows = last_json_array(json_output);
    if (!rows.is_array()) return std::nullopt;
    TimedRate timed;
    for (const auto& row : rows) {
        if (!row.is_object() || row.value("kind", "") != "step") continue;
        if (row.contains("rate") && row["rate"].is_number()) timed.rate = row["rate"].get<double>();
        timed.unit = row.value("unit", "");
    }
    return timed;
}

std::vector<std::string> timing_run_options(const std::vector<std::string>& given) {
    std::vector<std::string> options = {"--min-time", "0.2"};
    options.insert(options.end(), given.begin(), given.end());
    options.insert(options.end(), {"--json", "--no-references", "--no-host"});
    return options;
}

namespace {

VerdictFacts about(const VerdictPlan& plan) {
    VerdictFacts facts;
    facts.step = plan.step;
    facts.track = plan.track;
    return facts;
}

// The verdict where the battery did not pass: FAIL, or NOT CHECKED where part of it could not run here.
VerdictFacts battery_not_passed(const VerdictPlan& plan, const BatteryOutcome& battery) {
    VerdictFacts facts = about(plan);
    const bool not_checked = battery.exit_code == kExitOutOfMemory && !battery.reason.empty();
    facts.outcome = not_checked ? Outcome::NotChecked : Outcome::Fail;
    facts.reason = !battery.reason.empty() ? battery.reason
                                           : fmt::format("the checker itself ended with exit {}", battery.exit_code);
    return facts;
}

// The verdict where the student's timing run ended badly: it checks the run it times, so it may be wrong there (a
// size the battery does not reach), or unable to run that size. What it said is shown above the verdict.
VerdictFacts timing_run_failed(const VerdictPlan& plan, const ChildResult& run) {
    const TimingRunSaid said = timing_run_said(run.out);  // its failure as JSON, apart from what it printed
    for (const auto& line : lines_of(said.shown)) say(line);
    std::fputs(run.err.c_str(), stdout);
    const std::string failed = said.failure ? said.failure->reason : "";
    // The harness's refusal of the timed size, or of a context on a GPU that has no room or is held by another
    // process, comes before the student's code runs (as in the battery's NOT RUN).
    const std::string refusal = refusal_in(run.err);
    VerdictFacts facts = about(plan);
    if (run.exit_code == kExitOutOfMemory && failed.empty() && !refusal.empty()) {
        facts.outcome = Outcome::NotChecked;
        facts.reason = "correct on every shape, but the timed run could not start: " + refusal;
        return facts;
    }
    const auto err_lines = lines_of(run.err);
    facts.reason = !failed.empty() ? failed
                                   : fmt::format("the timing run ended with exit {}: {}", run.exit_code,
                                                 err_lines.empty() ? "" : err_lines.back());
    return facts;
}

// One yardstick's rate: `program` timed as the student's was, alone on the GPU (remembered, where make watch asks).
std::optional<double> yardstick_rate(const std::string& program, const std::vector<std::string>& options) {
    const auto measure = [&]() -> std::optional<double> {
        ChildJob job;
        job.argv = {program};
        job.argv.insert(job.argv.end(), options.begin(), options.end());
        job.timeout_s = 600;
        std::optional<double> rate;
        run_children({job}, 1, [&](size_t, const ChildResult& r) {
            if (const auto timed = step_rate_in(r.out); timed && r.exit_code == kExitOk) rate = timed->rate;
        });
        return rate;
    };
    return remembered_rate(program, options, rate_memory_seconds(), measure);
}

// The timing: the student's run, let through its gate, then the solutions'. `exit_code`: the timing run's.
VerdictFacts timed_verdict(const VerdictPlan& plan, GatedRun& mine, const BatteryOutcome& battery, int& exit_code) {
    const long remembered = rate_memory_seconds();
    say(
        fmt::format("== timing your code, this step's solution and the last step's (same size, same machine, each "
                    "alone on the GPU{})",
                    remembered > 0 ? fmt::format("; the solutions' times are remembered for {} s", remembered) : ""));
    const ChildResult run = mine.open_gate_and_wait();
    const auto timed = step_rate_in(run.out);
    exit_code = run.exit_code;
    if (run.exit_code != kExitOk || !timed) return timing_run_failed(plan, run);
    VerdictFacts facts = about(plan);
    facts.sanitizers_ran = battery.sanitizers_ran;
    if (!timed->rate) {
        facts.outcome = Outcome::PassWithoutKernel;
        return facts;
    }
    facts.outcome = Outcome::Pass;
    facts.rate = *timed->rate;
    facts.unit = timed->unit;
    const auto options = timing_run_options(plan.options);
    facts.solution_rate = yardstick_rate(plan.solution, options);
    if (!plan.previous.empty()) facts.previous_rate = yardstick_rate(plan.previous, options);
    return facts;
}

int exit_code_of(const VerdictFacts& facts, int failed_code) {
    switch (facts.outcome) {
        case Outcome::Pass:
        case Outcome::PassWithoutKernel: return kExitOk;
        case Outcome::NotChecked: return kExitOutOfMemory;
        case Outcome::Fail: break;
    }
    return failed_code != kExitOk ? failed_code : kExitWrongAnswer;
}

// The student's progress, written here, by the code that knows the verdict (not read back from its output).
void record_progress(const VerdictPlan& plan, const VerdictFacts& facts) {
    if (plan.checkout_top.empty()) return;
    try {
        remember_verdict(plan.checkout_top, step_verdict(facts));
    } catch (const FileError& e) { fmt::print(stderr, "note: the verdict is not in your progress: {}\n", e.what()); }
}

}  // namespace

int run_verdict(const VerdictPlan& plan, const std::function<BatteryOutcome()>& battery) {
    // make check's output is one report, read in order: what this program and its children would say on stderr
    // (no CUDA device, say) goes into it, so that a launcher that carries stderr apart (srun) keeps the order.
    std::fflush(stderr);
    ::dup2(STDOUT_FILENO, STDERR_FILENO);
    say(fmt::format("== step {} {}: your code on every shape, then memcheck, racecheck and synccheck", plan.step,
                    plan.track));
    std::vector<std::string> argv = {plan.mine};
    const auto options = timing_run_options(plan.options);
    argv.insert(argv.end(), options.begin(), options.end());
    GatedRun mine(argv);
    const BatteryOutcome checked = battery();
    if (checked.exit_code == kExitNoDevice) return kExitNoDevice;  // the battery said so
    VerdictFacts facts;
    int failed_code = checked.exit_code;
    if (checked.exit_code != kExitOk) {
        mine.stop();
        facts = battery_not_passed(plan, checked);
    } else {
        facts = timed_verdict(plan, mine, checked, failed_code);
    }
    const char* colour = std::getenv("WORKSHOP_COLOR");
    const std::vector<std::string> lines = verdict_lines(facts);
    for (size_t i = 0; i < lines.size(); ++i)
        say(i == 0 && colour && std::string(colour) == "always" ? coloured(lines[i], facts.outcome) : lines[i]);
    record_progress(plan, facts);
    return exit_code_of(facts, failed_code);
}

}  // namespace workshop
