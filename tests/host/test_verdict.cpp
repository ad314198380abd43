#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "programs/timing_runs.hpp"
#include "programs/verdict.hpp"
#include "programs/verdict_run.hpp"
#include "scratch_folder.hpp"

using namespace workshop;

namespace {

VerdictFacts pass(double rate, double solution) {
    VerdictFacts f;
    f.step = 3;
    f.track = "transpose";
    f.outcome = Outcome::Pass;
    f.rate = rate;
    f.unit = "GB/s";
    f.solution_rate = solution;
    return f;
}

}  // namespace

TEST(VerdictLine, PassWithTheLastStep) {
    VerdictFacts f = pass(1500, 1900);
    f.previous_rate = 1900;
    const std::vector<std::string> expected = {
        "VERDICT step 3 transpose: PASS, 1500 GB/s, 79% of the solution, 0.79x step 2",
        "  (correct, but well short of the solution: hints/transpose.md (h in make watch) and make profile show what "
        "to "
        "change)"};
    EXPECT_EQ(verdict_lines(f), expected);
}

TEST(VerdictLine, PassInStepOneHasNoLastStep) {
    VerdictFacts f = pass(812.4, 812.6);
    f.step = 1;
    f.track = "matmul";
    f.unit = "GFLOP/s";
    EXPECT_EQ(verdict_lines(f),
              std::vector<std::string>{"VERDICT step 1 matmul: PASS, 812 GFLOP/s, 100% of the solution"});
}

TEST(VerdictLine, AdviceOnlyUnderEightyPercent) {
    EXPECT_EQ(verdict_lines(pass(80, 100)).size(), 1u);
    EXPECT_EQ(verdict_lines(pass(79.9, 100)).size(), 2u);
    EXPECT_EQ(verdict_lines(pass(250, 100))[0], "VERDICT step 3 transpose: PASS, 250 GB/s, 250% of the solution");
}

TEST(VerdictLine, RoundsAsPrintfDoes) {
    VerdictFacts f = pass(2.5, 1);  // ties go to the even neighbour, as awk's printf took them
    f.previous_rate = 2.5 / 1.125;
    EXPECT_EQ(verdict_lines(f)[0].substr(0, 60), "VERDICT step 3 transpose: PASS, 2 GB/s, 250% of the solution");
    f = pass(2.25, 2.25);
    f.previous_rate = 2;
    EXPECT_EQ(verdict_lines(f)[0], "VERDICT step 3 transpose: PASS, 2 GB/s, 100% of the solution, 1.12x step 2");
}

TEST(VerdictLine, PassWithoutTheSanitizers) {
    VerdictFacts f = pass(1000, 1000);
    f.sanitizers_ran = false;
    EXPECT_EQ(
        verdict_lines(f)[0],
        "VERDICT step 3 transpose: PASS, 1000 GB/s, 100% of the solution; memory, race and barrier checks not run "
        "(no compute-sanitizer)");
}

TEST(VerdictLine, PassOnTheCpuPath) {
    VerdictFacts f;
    f.step = 1;
    f.track = "transpose";
    f.outcome = Outcome::PassWithoutKernel;
    const std::vector<std::string> expected = {
        "VERDICT step 1 transpose: PASS on the CPU path; no kernel launched yet (write transpose_on_device / "
        "matmul_on_device)"};
    EXPECT_EQ(verdict_lines(f), expected);
    EXPECT_EQ(step_verdict(f).outcome, Outcome::PassWithoutKernel);
    EXPECT_EQ(step_verdict(f).rate, 0);
}

TEST(VerdictLine, FailAndNotCheckedSayWhy) {
    VerdictFacts f;
    f.step = 2;
    f.track = "matmul";
    f.reason = "1 of 16 shapes fail";
    EXPECT_EQ(verdict_lines(f), std::vector<std::string>{"VERDICT step 2 matmul: FAIL (1 of 16 shapes fail)"});
    f.outcome = Outcome::NotChecked;
    f.reason = "not enough device memory";
    EXPECT_EQ(verdict_lines(f),
              std::vector<std::string>{"VERDICT step 2 matmul: NOT CHECKED (not enough device memory)"});
}

TEST(VerdictLine, TheProgressKeepsTheShareOfTheSolution) {
    const StepVerdict v = step_verdict(pass(1500, 2000));
    EXPECT_EQ(v.step, 3);
    EXPECT_EQ(v.track, "transpose");
    EXPECT_EQ(v.outcome, Outcome::Pass);
    EXPECT_EQ(v.rate, 1500);
    EXPECT_EQ(v.unit, "GB/s");
    EXPECT_EQ(v.percent_of_solution, 75);
}

TEST(VerdictLine, ReadsTheStepsRowFromTheJson) {
    const auto timed = step_rate_in(
        R"([{"kind": "reference", "rate": 3000, "unit": "GB/s"}, {"kind": "step", "rate": 976.5, "unit": "GB/s"}])");
    ASSERT_TRUE(timed);
    EXPECT_EQ(timed->rate, 976.5);
    EXPECT_EQ(timed->unit, "GB/s");
    const auto no_kernel = step_rate_in("[\n]\n");
    ASSERT_TRUE(no_kernel);
    EXPECT_FALSE(no_kernel->rate);
    EXPECT_FALSE(step_rate_in("FAIL: at the size make check times (8192x8192): 3 of 4 elements never written\n"));
    EXPECT_FALSE(step_rate_in(""));
}

TEST(VerdictLine, ReadsTheRowsAfterWhatTheKernelPrinted) {
    const auto timed =
        step_rate_in("thread 0: [x]\n[debug]\n[\n  {\"kind\": \"step\", \"rate\": 512, \"unit\": \"GB/s\"}\n]\n");
    ASSERT_TRUE(timed);
    EXPECT_EQ(timed->rate, 512);
    EXPECT_FALSE(step_rate_in("[\n  {\"kind\": \"step\", \"rate\": 512}\n"));  // cut short
}

TEST(VerdictLine, TimingRunsGetAFifthOfASecondUnlessTold) {
    EXPECT_EQ(
        timing_run_options({"--min-time", "1"}),
        (std::vector<std::string>{"--min-time", "0.2", "--min-time", "1", "--json", "--no-references", "--no-host"}));
}

namespace {

// Rounds of slices of `ms` each, scaled round by round by `load` (what else ran on the GPU then).
std::vector<std::vector<double>> rounds_of(double ms, const std::vector<double>& load) {
    std::vector<std::vector<double>> rounds;
    for (const double l : load) rounds.push_back({ms * l, ms * l * 1.01, ms * l * 0.99});
    return rounds;
}

const std::vector<double> kBusyRoom = {1, 3.1, 1.2, 2.5, 1, 4, 1.7, 1, 2.2, 3};

}  // namespace

TEST(TimingRounds, ALoadThatWeighsOnBothAlikeLeavesTheRatioSure) {
    // Each round's load lands on both runs: the ratio of each round is the same, however busy the GPU.
    const auto mine = rounds_of(2.0, kBusyRoom), solution = rounds_of(1.0, kBusyRoom);
    EXPECT_NEAR(ratio_uncertainty(mine, solution), 0.0, 1e-9);
    EXPECT_EQ(ratio_doubt(mine, solution), "");
}

TEST(TimingRounds, ALoadThatFallsOnOneSideMakesTheRatioUncertain) {
    const auto mine = rounds_of(1.0, kBusyRoom), solution = rounds_of(1.0, std::vector<double>(10, 1.0));
    EXPECT_GT(ratio_uncertainty(mine, solution), kRatioDoubt);
    const std::string doubt = ratio_doubt(mine, solution);
    EXPECT_NE(doubt.find("busy"), std::string::npos) << doubt;
}

TEST(TimingRounds, TooFewRoundsAreNeverSure) {
    const auto two = rounds_of(1.0, {1, 1});
    EXPECT_TRUE(std::isinf(ratio_uncertainty(two, two)));
    EXPECT_NE(ratio_doubt(two, two), "");
}

TEST(TimingRounds, OtherWorkThatSlowsOneRunMoreMakesTheRatioUncertain) {
    // Every round alike, so the rounds' ratios agree; but two of every three launches of the other run were
    // stretched by other work, and none of the student's: the runs' own spread tells.
    std::vector<std::vector<double>> mine, other;
    for (int r = 0; r < 12; ++r) mine.push_back({1.0, 1.0, 1.0}), other.push_back({2.0, 2.6, 2.6});
    EXPECT_NEAR(ratio_uncertainty(mine, other), 0.0, 1e-9);
    EXPECT_NEAR(slowed_by_others(mine), 0.0, 1e-9);
    EXPECT_NEAR(slowed_by_others(other), 0.3, 1e-9);
    EXPECT_NE(ratio_doubt(mine, other).find("slowed one run 30% more"), std::string::npos) << ratio_doubt(mine, other);
    EXPECT_EQ(ratio_doubt(other, other), "");
}

TEST(TimingRounds, TheUncertaintyIsTheMediansNotch) {
    // Ratios 0.9, 1.0 x 8, 1.1: IQR 0 around 1: sure. Spread evenly from 0.8 to 1.2 over 9 rounds: IQR 0.2,
    // notch 1.58 x 0.2 / 3 = 0.105.
    std::vector<std::vector<double>> mine, solution;
    for (int r = 0; r < 9; ++r) mine.push_back({1.0}), solution.push_back({0.8 + 0.05 * r});
    EXPECT_NEAR(ratio_uncertainty(mine, solution), 1.58 * 0.2 / 3, 1e-9);
}

TEST(VerdictLine, AnUncertainRatioIsMarkedAndGetsNoAdvice) {
    VerdictFacts f = pass(400, 980);
    f.previous_rate = 470;
    f.solution_doubt = "the GPU was busy";
    const auto lines = verdict_lines(f);
    ASSERT_EQ(lines.size(), 1u);
    EXPECT_EQ(lines[0],
              "VERDICT step 3 transpose: PASS, 400 GB/s, 41% of the solution (uncertain: the GPU was busy), 0.85x "
              "step 2");
    f.solution_doubt.clear();
    EXPECT_EQ(verdict_lines(f).size(), 2u);  // the same figures, sure: the advice
}

TEST(Verdict, MakeWatchGetsTheLineInTheColourOfItsOutcome) {
    const std::string line = "VERDICT step 3 transpose: FAIL (...)";
    EXPECT_EQ(workshop::coloured(line, workshop::Outcome::Fail), "\033[31m" + line + "\033[0m");
    EXPECT_EQ(workshop::coloured(line, workshop::Outcome::NotChecked).substr(0, 5), "\033[33m");
    EXPECT_EQ(workshop::coloured(line, workshop::Outcome::Pass).substr(0, 5), "\033[32m");
}

// Each stand-in run, once told its word, leaves a mark and ends only when all three marks are there (or after 5 s,
// with exit 1): so all three end well only if each was told before any was waited for.
TEST(TimingRun, RunsLetGoTogetherCheckTheirLastOutputSideBySide) {
    const ScratchFolder marks("timing-runs");
    const std::string script =
        "read -r word <&3; [ \"$word\" = end ] || exit 2; : >\"$1/$2\"; "
        "for _ in $(seq 50); do [ \"$(ls \"$1\" | wc -l)\" -ge 3 ] && { echo ended; exit 0; }; sleep 0.1; done; exit 1";
    std::vector<std::unique_ptr<TimingRun>> runs;
    for (const char* name : {"mine", "solution", "previous"})
        runs.push_back(std::make_unique<TimingRun>(
            std::vector<std::string>{"/bin/sh", "-c", script, "sh", marks.path.string(), name}, false));
    for (auto& run : runs) run->let_go("end");
    for (auto& run : runs) {
        const ChildResult ended = run->finish("end");
        EXPECT_EQ(ended.exit_code, 0) << ended.err;
        EXPECT_EQ(ended.out, "ended\n");
    }
}
