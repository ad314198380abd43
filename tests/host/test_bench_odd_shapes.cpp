// make bench's awkward-shape table, with the step 5 program replaced by a runner that answers with CSV rows, so
// that what the table prints and when the bench fails can be checked without a GPU.
#include <gtest/gtest.h>

#include <string>
#include <vector>

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

std::string csv_of(const std::vector<ResultRow>& rows) {
    std::string csv = csv_header() + "\n";
    for (const auto& r : rows) csv += to_csv(r) + "\n";
    return csv;
}

// One run of the transpose program: step 5, the two copies and cublasSgeam, with the step's check as given.
std::string transpose_run(const std::string& status) {
    return csv_of({row("transpose", "step 5 solution", "step", 3863.2, status),
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
    b.ok = bench_odd_shapes(track, "/opt/kit/bin", " --reps 20", run, b.rows);
    b.errors = testing::internal::GetCapturedStderr();
    b.printed = testing::internal::GetCapturedStdout();
    return b;
}

}  // namespace

TEST(OddShapes, EachShapeRunsStepFiveWithTheBenchOptions) {
    std::vector<std::string> commands;
    const auto record = [&](const std::string& command) {
        commands.push_back(command);
        return std::make_pair(transpose_run("PASS"), 0);
    };
    bench("transpose", record);
    ASSERT_EQ(commands.size(), 3u);
    EXPECT_EQ(commands[1],
              "'/opt/kit/bin/solution5_transpose' --csv --no-host --budget 0 --rows 8191 --cols 8193 --reps 20");
    commands.clear();
    bench("matmul", record);
    ASSERT_EQ(commands.size(), 5u);
    EXPECT_NE(commands[2].find("solution5_matmul' --csv --no-host --budget 0 --m 4099 --n 4099 --k 4099"),
              std::string::npos)
        << commands[2];
}

TEST(OddShapes, TransposeLineGivesWholeRatesAndBothShares) {
    const Bench b = bench("transpose", [](const std::string&) { return std::make_pair(transpose_run("PASS"), 0); });
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
    const auto run = [](const std::string&) {
        return std::make_pair(csv_of({row("matmul", "step 5 solution", "step", 49373.4, "PASS"),
                                      row("matmul", "cuBLAS SGEMM FP32", "reference", 51365.0),
                                      row("matmul", "cuBLAS TF32 tensor cores", "reference", 136123.0)}),
                              0);
    };
    const Bench b = bench("matmul", run);
    EXPECT_TRUE(b.ok);
    EXPECT_NE(b.printed.find("4097 x 4096 x 4096         49373       51365   96.1%"), std::string::npos) << b.printed;
    EXPECT_EQ(b.printed.find("e+"), std::string::npos) << b.printed;
}

TEST(OddShapes, AWrongAnswerAFailedRunOrNoRowsFailTheBench) {
    EXPECT_FALSE(bench("transpose", [](const std::string&) { return std::make_pair(transpose_run("FAIL"), 0); }).ok);
    const Bench crashed =
        bench("transpose", [](const std::string&) { return std::make_pair(transpose_run("PASS"), 3); });
    EXPECT_FALSE(crashed.ok);
    EXPECT_NE(crashed.errors.find("--rows 8191 --cols 8193 failed (exit 3)"), std::string::npos) << crashed.errors;
    const Bench silent =
        bench("transpose", [](const std::string&) { return std::make_pair(std::string("no CSV"), 0); });
    EXPECT_FALSE(silent.ok);
    EXPECT_NE(silent.errors.find("--rows 8191 --cols 8193 printed no result rows"), std::string::npos) << silent.errors;
    const Bench no_step = bench("transpose", [](const std::string&) {
        return std::make_pair(csv_of({row("transpose", "copy kernel", "reference", 4150.0)}), 0);
    });
    EXPECT_FALSE(no_step.ok);
    EXPECT_NE(no_step.printed.find("step 5: no row"), std::string::npos) << no_step.printed;
}

TEST(OddShapes, AWrongAnswerIsMarkedOnItsLine) {
    const Bench b = bench("transpose", [](const std::string&) { return std::make_pair(transpose_run("FAIL"), 0); });
    EXPECT_NE(b.printed.find("92.6% / 112.9%   step 5: FAIL"), std::string::npos) << b.printed;
}
