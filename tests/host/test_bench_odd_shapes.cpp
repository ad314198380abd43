// make bench's awkward-shape table, with the step 5 program replaced by a runner that answers with JSON rows, so
// that what the table prints and when the bench fails can be checked without a GPU; and the runner itself, which
// starts a program with its arguments as they are, no shell between.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "base/exit_codes.hpp"
#include "programs/bench_odd_shapes.hpp"

using namespace workshop;

namespace {

ResultRow row(const std::string& track, const std::string& name, const std::string& kind, double rate,
              const std::string& status = "") {
    ResultRow r;
    r.track = track;
    r.name = name;
    r.kind = kind;
    r.shape = "8191x8193";
    r.status = status;
    r.reps = 20;
    r.median_ms = 0.14;
    r.rate = rate;
    r.unit = track == "transpose" ? "GB/s" : "GFLOP/s";
    return r;
}

ProgramRun answer(const std::string& out, int exit_code = 0) {
    return ProgramRun{out, exit_code, fmt::format("exit {}", exit_code)};
}

// One run of the transpose program: step 5, the two copies and cublasSgeam, with the step's check as given.
std::string transpose_run(const std::string& status) {
    return to_json({row("transpose", "step 5 solution", "step", 3863.2, status),
                    row("transpose", "copy kernel", "reference", 4150.0),
                    row("transpose", "cudaMemcpy device-to-device", "reference", 4173.4),
                    row("transpose", "cuBLAS transpose (cublasSgeam)", "reference", 3423.0)});
}

struct Bench {
    bool ok = false;
    std::string printed, errors;
    std::vector<ResultRow> rows;
};

Bench bench(const std::string& track, const ProgramRunner& run) {
    Bench b;
    testing::internal::CaptureStdout();
    testing::internal::CaptureStderr();
    b.ok = bench_odd_shapes(track, "/opt/kit/bin", {"--reps", "20"}, run, b.rows);
    b.errors = testing::internal::GetCapturedStderr();
    b.printed = testing::internal::GetCapturedStdout();
    return b;
}

}  // namespace

TEST(OddShapes, EachShapeRunsStepFiveWithTheBenchOptions) {
    std::vector<std::vector<std::string>> runs;
    const auto record = [&](const std::vector<std::string>& argv) {
        runs.push_back(argv);
        return answer(transpose_run("PASS"));
    };
    bench("transpose", record);
    ASSERT_EQ(runs.size(), 3u);
    EXPECT_EQ(runs[1], (std::vector<std::string>{"/opt/kit/bin/solution5_transpose", "--json", "--no-host", "--budget",
                                                 "0", "--rows", "8191", "--cols", "8193", "--reps", "20"}));
    runs.clear();
    bench("matmul", record);
    ASSERT_EQ(runs.size(), 5u);
    EXPECT_EQ(runs[2], (std::vector<std::string>{"/opt/kit/bin/solution5_matmul", "--json", "--no-host", "--budget",
                                                 "0", "--m", "4099", "--n", "4099", "--k", "4099", "--reps", "20"}));
}

TEST(OddShapes, TransposeLineGivesWholeRatesAndBothShares) {
    const Bench b = bench("transpose", [](const std::vector<std::string>&) { return answer(transpose_run("PASS")); });
    EXPECT_TRUE(b.ok);
    // 3863.2 / 4173.4 (the faster copy) = 92.57%; 3863.2 / 3423 = 112.86%.
    EXPECT_NE(b.printed.find("8191 x 8193                 3863        4173      3423   92.6% / 112.9%"),
              std::string::npos)
        << b.printed;
    EXPECT_NE(b.printed.find("GB/s; step 5 as % of best copy / of sgeam"), std::string::npos) << b.printed;
    EXPECT_EQ(b.printed.find("e+"), std::string::npos) << b.printed;
    ASSERT_EQ(b.rows.size(), 12u);  // 3 shapes x 4 rows, all kept for the CSV and JSON files
    EXPECT_EQ(b.rows[0].name, "step 5");
    for (const auto& r : b.rows) EXPECT_EQ(r.note, "awkward shape");
}

TEST(OddShapes, MatmulLineGivesTheShareOfCublas) {
    const auto run = [](const std::vector<std::string>&) {
        return answer(to_json({row("matmul", "step 5 solution", "step", 49373.4, "PASS"),
                               row("matmul", "cuBLAS SGEMM FP32", "reference", 51365.0),
                               row("matmul", "cuBLAS TF32 tensor cores", "reference", 136123.0)}));
    };
    const Bench b = bench("matmul", run);
    EXPECT_TRUE(b.ok);
    EXPECT_NE(b.printed.find("4097 x 4096 x 4096         49373       51365   96.1%"), std::string::npos) << b.printed;
    EXPECT_EQ(b.printed.find("e+"), std::string::npos) << b.printed;
}

TEST(OddShapes, AWrongAnswerAFailedRunOrNoRowsFailTheBench) {
    EXPECT_FALSE(bench("transpose", [](const std::vector<std::string>&) { return answer(transpose_run("FAIL")); }).ok);
    const Bench crashed =
        bench("transpose", [](const std::vector<std::string>&) { return answer(transpose_run("PASS"), 3); });
    EXPECT_FALSE(crashed.ok);
    EXPECT_NE(crashed.errors.find("--rows 8191 --cols 8193 failed (exit 3)"), std::string::npos) << crashed.errors;
    const Bench silent = bench("transpose", [](const std::vector<std::string>&) { return answer("FAIL: no JSON"); });
    EXPECT_FALSE(silent.ok);
    EXPECT_NE(silent.errors.find("--rows 8191 --cols 8193 printed no result rows (not JSON)"), std::string::npos)
        << silent.errors;
    const Bench no_step = bench("transpose", [](const std::vector<std::string>&) {
        return answer(to_json({row("transpose", "copy kernel", "reference", 4150.0)}));
    });
    EXPECT_FALSE(no_step.ok);
    EXPECT_NE(no_step.printed.find("step 5: no row"), std::string::npos) << no_step.printed;
}

TEST(OddShapes, AWrongAnswerIsMarkedOnItsLine) {
    const Bench b = bench("transpose", [](const std::vector<std::string>&) { return answer(transpose_run("FAIL")); });
    EXPECT_NE(b.printed.find("92.6% / 112.9%   step 5: FAIL"), std::string::npos) << b.printed;
}

namespace {

// A step program's failure as it prints it after its rows in a --json run (make run's): with its map.
ShapeReport wrong_answer_report() {
    ShapeReport r;
    r.outcome = ShapeReport::Outcome::Fail;
    r.headline = "FAIL: 968 of 1000 wrong";
    r.reason = "968 of 1000 wrong";
    r.exit_code = kExitWrongAnswer;
    r.map = "##..\n";
    r.map_headline = "the last column of blocks never written";
    return r;
}

}  // namespace

TEST(RunForRows, AWrongAnswerKeepsItsRowsAndBringsItsMap) {
    const std::string out = transpose_run("FAIL") + failure_line(wrong_answer_report()) + "\n";
    const StepRows got = run_for_rows([&](const std::vector<std::string>&) { return answer(out, kExitWrongAnswer); },
                                      {"solution3_transpose", "--json"});
    ASSERT_TRUE(got.ok()) << got.failure;
    ASSERT_EQ(got.rows.size(), 4u);
    EXPECT_EQ(got.rows[0].status, "FAIL");
    ASSERT_TRUE(got.wrong_answer);
    EXPECT_EQ(got.wrong_answer->headline, "FAIL: 968 of 1000 wrong");
    EXPECT_EQ(got.wrong_answer->map, "##..\n");
    EXPECT_EQ(got.wrong_answer->map_headline, "the last column of blocks never written");
}

TEST(RunForRows, AWrongAnswerWithoutItsReportOrRowsIsAFailedRun) {
    const auto ran = [](const std::string& out, int exit_code) {
        return run_for_rows([&](const std::vector<std::string>&) { return answer(out, exit_code); }, {"p", "--json"});
    };
    // Exit 1 and rows, but no failure said: not a wrong answer the program stood behind.
    EXPECT_EQ(ran(transpose_run("FAIL"), kExitWrongAnswer).failure, "failed (exit 1)");
    // Wrong after the timed runs: the program says so instead of its rows; the failure is the run's, map and all.
    const StepRows after = ran("FAIL: after the timed runs\n" + failure_line(wrong_answer_report()) + "\n", 1);
    EXPECT_EQ(after.failure, "FAIL: 968 of 1000 wrong");
    ASSERT_TRUE(after.wrong_answer);
    EXPECT_EQ(after.wrong_answer->map, "##..\n");
    // Any other exit is a failed run, whatever it printed.
    EXPECT_EQ(ran(transpose_run("PASS") + failure_line(wrong_answer_report()) + "\n", 5).failure, "failed (exit 5)");
}

namespace {

struct ScratchFolder {
    std::filesystem::path path;
    ScratchFolder() {
        std::string pattern = (std::filesystem::temp_directory_path() / "runner-test.XXXXXX").string();
        path = ::mkdtemp(pattern.data());
    }
    ~ScratchFolder() {
        std::error_code ignored;
        std::filesystem::remove_all(path, ignored);
    }
};

}  // namespace

TEST(RunProgram, QuotesSpacesAndSemicolonsReachTheProgramAsTheyAre) {
    ScratchFolder dir;
    const std::string planted = (dir.path / "PWNED").string();
    const std::string attack = "--reps'; touch " + planted + "; echo '";
    const ProgramRun run = run_program({"/usr/bin/printf", "%s|", attack, "a b", "$(touch " + planted + ")"});
    EXPECT_EQ(run.exit_code, 0) << run.ending;
    EXPECT_EQ(run.out, attack + "|a b|$(touch " + planted + ")|");
    EXPECT_FALSE(std::filesystem::exists(planted));
}

TEST(RunProgram, AFolderWithAQuoteInItsNameIsNoObstacle) {
    ScratchFolder dir;
    const auto folder = dir.path / "it's a; \"checkout\"";
    std::filesystem::create_directories(folder);
    const auto program = folder / "solution1_transpose";
    std::ofstream(program) << "#!/bin/sh\nprintf '%s\\n' \"$@\"\n";
    ::chmod(program.c_str(), 0755);
    const ProgramRun run = run_program({program.string(), "--json"});
    EXPECT_EQ(run.exit_code, 0) << run.ending;
    EXPECT_EQ(run.out, "--json\n");
}

TEST(RunProgram, SaysHowTheProgramEnded) {
    const ProgramRun three = run_program({"/bin/sh", "-c", "echo partial; exit 3"});
    EXPECT_EQ(three.exit_code, 3);
    EXPECT_EQ(three.ending, "exit 3");
    EXPECT_EQ(three.out, "partial\n");
    const ProgramRun killed = run_program({"/bin/sh", "-c", "kill -9 $$"});
    EXPECT_EQ(killed.exit_code, -1);
    EXPECT_EQ(killed.ending, "killed by signal 9");
    const ProgramRun missing = run_program({"/nonexistent/solution1_transpose", "--json"});
    EXPECT_EQ(missing.exit_code, -1);
    EXPECT_EQ(missing.ending, "could not start /nonexistent/solution1_transpose: No such file or directory");
}
