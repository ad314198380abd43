#include "programs/verdict_run.hpp"

#include <unistd.h>

#include <fmt/format.h>

#include <cstdlib>

#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>
#include <memory>
#include <sstream>

#include "report/report.hpp"
#include "base/exit_codes.hpp"
#include "base/files.hpp"
#include "base/child_processes.hpp"
#include "measure/gpu_timing_lock.hpp"
#include "programs/timing_runs.hpp"
#include "programs/verdict.hpp"

namespace workshop {

namespace {

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
    if (run.timed_out) {
        facts.reason = "the timing run stopped answering in the middle of its timed runs: does the kernel always end?";
        return facts;
    }
    facts.reason = !failed.empty() ? failed
                                   : fmt::format("the timing run ended with exit {}: {}", run.exit_code,
                                                 err_lines.empty() ? "" : err_lines.back());
    return facts;
}

// The facts of a PASS, from the timing runs' ends: the student's rate, and the solutions' where they gave one.
VerdictFacts timed_facts(const VerdictPlan& plan, const ChildResult& mine, const BatteryOutcome& battery) {
    const auto timed = step_rate_in(mine.out);
    if (mine.exit_code != kExitOk || !timed) return timing_run_failed(plan, mine);
    VerdictFacts facts = about(plan);
    facts.sanitizers_ran = battery.sanitizers_ran;
    facts.outcome = timed->rate ? Outcome::Pass : Outcome::PassWithoutKernel;
    if (timed->rate) facts.rate = *timed->rate, facts.unit = timed->unit;
    return facts;
}

std::optional<double> rate_of(const ChildResult& run) {
    const auto timed = step_rate_in(run.out);
    return run.exit_code == kExitOk && timed ? timed->rate : std::nullopt;
}

// The three runs, started beside the battery: the student's, this step's solution's and the last step's (none in
// step 1).
struct TimingRuns {
    std::unique_ptr<TimingRun> mine, solution, previous;
};

// The solutions' runs are timed unverified: make test checks them, and here the student would wait for their checks.
std::unique_ptr<TimingRun> timing_run(const std::string& program, const VerdictPlan& plan, bool keep_timing_lock) {
    std::vector<std::string> argv = {program};
    const auto options = timing_run_options(plan.options);
    argv.insert(argv.end(), options.begin(), options.end());
    if (program != plan.mine) argv.push_back("--unverified");
    return std::make_unique<TimingRun>(argv, keep_timing_lock);
}

// The timing in rounds (timing_runs.hpp says why), with no other check's timing on this GPU meanwhile.
VerdictFacts timed_in_rounds(const VerdictPlan& plan, TimingRuns& runs, const BatteryOutcome& battery, int& exit_code) {
    say("== timing your code, this step's solution and the last step's in turns (same size, same GPU, so that "
        "whatever else runs on it weighs on each alike)");
    std::vector<TimingRun*> all = {runs.mine.get(), runs.solution.get()};
    if (runs.previous) all.push_back(runs.previous.get());
    Rounds rounds;
    {
        const GpuTimingLock no_other_check_timing(std::getenv("WORKSHOP_TIMING_LOCK"));
        rounds = time_in_rounds(all);
    }
    // All let go at once: the student's run checks its output once more after its timing, and the solutions' runs
    // end meanwhile, so the verdict waits for the slowest of them, not for their sum.
    for (TimingRun* run : all) run->let_go("end");
    const ChildResult mine = runs.mine->finish("end");
    exit_code = mine.exit_code;
    VerdictFacts facts = timed_facts(plan, mine, battery);
    if (facts.outcome != Outcome::Pass) return facts;
    facts.solution_rate = rate_of(runs.solution->finish("end"));
    facts.solution_doubt = ratio_doubt(rounds.slices[0], rounds.slices[1]);
    if (runs.previous) {
        facts.previous_rate = rate_of(runs.previous->finish("end"));
        facts.previous_doubt = ratio_doubt(rounds.slices[0], rounds.slices[2]);
    }
    return facts;
}

// On a GPU that takes one process at a time: each run timed alone, in turn, nothing else on the GPU.
VerdictFacts timed_alone(const VerdictPlan& plan, TimingRuns& runs, const BatteryOutcome& battery, int& exit_code) {
    say("== timing your code, this step's solution and the last step's (same size, same GPU, each alone on it)");
    const ChildResult mine = runs.mine->finish("go");
    exit_code = mine.exit_code;
    VerdictFacts facts = timed_facts(plan, mine, battery);
    if (facts.outcome != Outcome::Pass) return facts;
    facts.solution_rate = rate_of(timing_run(plan.solution, plan, true)->finish("go"));
    if (!plan.previous.empty()) facts.previous_rate = rate_of(timing_run(plan.previous, plan, true)->finish("go"));
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
    // Every run sets up beside the battery; on a GPU that takes one process at a time, only the student's (it waits
    // at its gate before its context), the others later, each in turn.
    const bool in_rounds = !plan.one_process_at_a_time;
    TimingRuns runs;
    runs.mine = timing_run(plan.mine, plan, !in_rounds);
    if (in_rounds) {
        runs.solution = timing_run(plan.solution, plan, false);
        if (!plan.previous.empty()) runs.previous = timing_run(plan.previous, plan, false);
    }
    const BatteryOutcome checked = battery();
    if (checked.exit_code == kExitNoDevice) return kExitNoDevice;  // the battery said so
    VerdictFacts facts;
    int failed_code = checked.exit_code;
    if (checked.exit_code != kExitOk) {
        runs = TimingRuns{};  // ended untimed
        facts = battery_not_passed(plan, checked);
    } else if (in_rounds) {
        facts = timed_in_rounds(plan, runs, checked, failed_code);
    } else {
        facts = timed_alone(plan, runs, checked, failed_code);
    }
    const char* colour = std::getenv("WORKSHOP_COLOR");
    const std::vector<std::string> lines = verdict_lines(facts);
    for (size_t i = 0; i < lines.size(); ++i)
        say(i == 0 && colour && std::string(colour) == "always" ? coloured(lines[i], facts.outcome) : lines[i]);
    record_progress(plan, facts);
    return exit_code_of(facts, failed_code);
}

}  // namespace workshop
