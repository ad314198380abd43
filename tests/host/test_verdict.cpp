#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "programs/rate_cache.hpp"
#include "programs/verdict.hpp"
#include "programs/verdict_run.hpp"

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

struct RateCacheTest : ::testing::Test {
    std::filesystem::path dir, program;
    int runs = 0;
    void SetUp() override {
        char name[] = "/tmp/rate_cache_XXXXXX";
        ASSERT_NE(mkdtemp(name), nullptr);
        dir = name;
        program = dir / "solution3_transpose";
        std::ofstream(program) << "program";
    }
    void TearDown() override { std::filesystem::remove_all(dir); }
    std::optional<double> rate(long max_age, std::vector<std::string> options = {}, std::time_t now = 1000) {
        return remembered_rate(
            program, options, max_age, [&] { return ++runs, std::optional<double>(976.5); }, now);
    }
};

}  // namespace

TEST_F(RateCacheTest, OffMeasuresEveryTime) {
    EXPECT_EQ(rate(0), 976.5);
    EXPECT_EQ(rate(0), 976.5);
    EXPECT_EQ(runs, 2);
    EXPECT_FALSE(std::filesystem::exists(dir / ".rates.json"));
}

TEST_F(RateCacheTest, OnRemembersPerOptionsAndBuild) {
    EXPECT_EQ(rate(60), 976.5);
    EXPECT_EQ(rate(60), 976.5);
    EXPECT_EQ(runs, 1);
    EXPECT_EQ(rate(60, {"--size", "4096"}), 976.5);
    EXPECT_EQ(runs, 2);
    std::ofstream(program) << "program, rebuilt";
    EXPECT_EQ(rate(60), 976.5);
    EXPECT_EQ(runs, 3);
}

TEST_F(RateCacheTest, ForgetsWhatIsTooOld) {
    EXPECT_EQ(rate(60, {}, 1000), 976.5);
    EXPECT_EQ(rate(60, {}, 1060), 976.5);
    EXPECT_EQ(runs, 1);
    EXPECT_EQ(rate(60, {}, 1061), 976.5);
    EXPECT_EQ(runs, 2);
}

TEST_F(RateCacheTest, AGarbledCacheIsMeasuredAround) {
    std::ofstream(dir / ".rates.json") << "{\"rates\": [{\"key\": 3}, 7, null";
    EXPECT_EQ(rate(60), 976.5);
    EXPECT_EQ(rate(60), 976.5);
    EXPECT_EQ(runs, 1);
}

TEST_F(RateCacheTest, NothingMeasuredNothingRemembered) {
    const auto none = remembered_rate(
        program, {}, 60, [&] { return ++runs, std::optional<double>(); }, 1000);
    EXPECT_FALSE(none);
    EXPECT_EQ(rate(60), 976.5);
    EXPECT_EQ(runs, 2);
}

TEST(Verdict, MakeWatchGetsTheLineInTheColourOfItsOutcome) {
    const std::string line = "VERDICT step 3 transpose: FAIL (...)";
    EXPECT_EQ(workshop::coloured(line, workshop::Outcome::Fail), "\033[31m" + line + "\033[0m");
    EXPECT_EQ(workshop::coloured(line, workshop::Outcome::NotChecked).substr(0, 5), "\033[33m");
    EXPECT_EQ(workshop::coloured(line, workshop::Outcome::Pass).substr(0, 5), "\033[32m");
}
