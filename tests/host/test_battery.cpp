// How make check reads the child that checks every shape in turn: which shapes it finished, with what, and
// which it did not (those get a process each).
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "check/battery.hpp"
#include "shell_job.hpp"
#include "verify/verify.hpp"

using namespace workshop;

namespace {

// A --check-in-turn child's report of shape I, as it writes it on its channel.
std::string report(int i, const std::string& headline, int exit_code,
                   ShapeReport::Outcome outcome = ShapeReport::Outcome::Pass) {
    ShapeReport r;
    r.shape = i;
    r.headline = headline;
    r.exit_code = exit_code;
    r.outcome = outcome;
    return report_line(r) + "\n";
}

}  // namespace

TEST(ShapesInTurn, EveryShapeFinishedKeepsItsOwnReportAndExitCode) {
    const std::string reports = report(0, "PASS", 0) + report(1, "FAIL: 3 of 9 wrong", 1, ShapeReport::Outcome::Fail);
    const auto finished = finished_shapes(reports, 2);
    ASSERT_TRUE(finished[0] && finished[1]);
    EXPECT_EQ(finished[0]->exit_code, 0);
    EXPECT_EQ(finished[1]->exit_code, 1);
    const auto second = reports_in(finished[1]->reports);
    ASSERT_EQ(second.size(), 1u);
    EXPECT_EQ(second[0].headline, "FAIL: 3 of 9 wrong");
    EXPECT_EQ(second[0].outcome, ShapeReport::Outcome::Fail);
}

TEST(ShapesInTurn, AShapeTheChildDiedInIsNotFinishedNorAreThoseAfterIt) {
    // A fault that ended the process inside shape 1: it reported shape 0 and nothing more.
    const auto finished = finished_shapes(report(0, "PASS", 0), 4);
    EXPECT_TRUE(finished[0]);
    EXPECT_FALSE(finished[1]);
    EXPECT_FALSE(finished[2]);
    EXPECT_FALSE(finished[3]);
}

TEST(ShapesInTurn, ACudaErrorEndsTheTurnAfterItsOwnVerdict) {
    const auto finished = finished_shapes(
        report(0, "FAIL: the launch failed: invalid configuration argument", 5, ShapeReport::Outcome::Fail), 3);
    ASSERT_TRUE(finished[0]);
    EXPECT_EQ(finished[0]->exit_code, 5);
    EXPECT_FALSE(finished[1]);
    EXPECT_FALSE(finished[2]);
}

TEST(ShapesInTurn, ReportsThatAreNotReportsCountForNothing) {
    // An index past the battery, one with none, a line that is no JSON, JSON that is no report, a cut line.
    const std::string full = report(2, "PASS", 0);
    const std::string reports = report(7, "PASS", 0) + report(-1, "PASS", 0) + "PASS\n" +
                                "{\"shape\": 1, \"outcome\": \"maybe\", \"headline\": \"PASS\", \"exit_code\": 0}\n" +
                                "[1, 2]\n" + full.substr(0, full.size() / 2) + "\n";
    const auto finished = finished_shapes(reports, 4);
    for (size_t i = 0; i < finished.size(); ++i) EXPECT_FALSE(finished[i]) << "shape " << i;
}

TEST(ShapesInTurn, NothingReportedMeansNothingFinished) {
    const auto finished = finished_shapes("", 3);
    ASSERT_EQ(finished.size(), 3u);
    for (const auto& f : finished) EXPECT_FALSE(f);
}

TEST(ShapeReports, RoundTripThroughJsonWithEveryField) {
    ShapeReport r;
    r.shape = 3;
    r.outcome = ShapeReport::Outcome::Fail;
    r.headline = "FAIL: 5 of 64 wrong; \"quoted\" and a tab\t";
    r.reason = "5 of 64 wrong";
    r.hint = "a hint";
    r.details = {"a hint", "a note"};
    r.exit_code = 1;
    r.unsteady = true;
    r.non_blocking_stream = true;
    r.map = "  x.\n";
    r.map_in_colour = "\033[31mx\033[0m\n";
    r.map_headline = "scattered";
    r.map_svg = "/tmp/maps/p.svg";
    const auto back = report_from_line(report_line(r));
    ASSERT_TRUE(back);
    EXPECT_EQ(back->shape, 3);
    EXPECT_EQ(back->outcome, ShapeReport::Outcome::Fail);
    EXPECT_EQ(back->headline, r.headline);
    EXPECT_EQ(back->details, r.details);
    EXPECT_TRUE(back->unsteady);
    EXPECT_TRUE(back->non_blocking_stream);
    EXPECT_EQ(back->map_in_colour, r.map_in_colour);
    EXPECT_EQ(back->map_svg, r.map_svg);
    EXPECT_EQ(report_line(r).find('\n'), std::string::npos);  // one line, whatever the text holds
}

// make check's verdict reads a failing timing run's failure from its JSON line, and shows the rest of what it said.
TEST(TimingRunSaid, TheFailureFromItsJsonTheRestShown) {
    ShapeReport r;
    r.outcome = ShapeReport::Outcome::Fail;
    r.headline = "FAIL: at the size make check times (8192x8192): 3 of 4 wrong";
    r.reason = "at the size make check times (8192x8192): 3 of 4 wrong";
    r.exit_code = 1;
    // What a kernel printed can come first; only the harness's line counts, and it comes last.
    const std::string out = "FAIL: printed by a kernel\n" + r.headline + "\nthe hint\n" + failure_line(r) + "\n";
    const TimingRunSaid said = timing_run_said(out);
    ASSERT_TRUE(said.failure);
    EXPECT_EQ(said.failure->reason, r.reason);
    EXPECT_EQ(said.shown, "FAIL: printed by a kernel\n" + r.headline + "\nthe hint\n");
    EXPECT_FALSE(timing_run_said("FAIL: a line with no JSON\n").failure);
}

namespace {

BatteryShape shape(const std::string& label, bool equal_sides, bool outgrows_a_grid = false) {
    return {label, {}, equal_sides, outgrows_a_grid};
}

const std::vector<BatteryShape> kShapes = {shape("1x1", true), shape("1x1000", false), shape("31x33", false),
                                           shape("32x32", true), shape("33x31", false)};
const std::vector<BatteryShape> kWithLongShapes = {
    shape("1x1", true), shape("31x33", false), shape("1048576x3x2", false, true), shape("5x1048576x3", false, true)};

}  // namespace

TEST(MixedUpSizes, OnlyUnequalSidesFailingIsTheSignOfASizeMixedUp) {
    EXPECT_NE(mixed_up_sizes_hint(kShapes, {true, false, true, true, false}).find("rows for cols"), std::string::npos);
}

TEST(MixedUpSizes, AFailingShapeWithEqualSidesIsSomethingElse) {
    EXPECT_EQ(mixed_up_sizes_hint(kShapes, {false, false, true, true, false}), "");
    EXPECT_EQ(mixed_up_sizes_hint(kShapes, {true, true, true, false, true}), "");
}

TEST(MixedUpSizes, NothingToSayWhenAllPassOrNoShapeHasEqualSides) {
    EXPECT_EQ(mixed_up_sizes_hint(kShapes, {true, true, true, true, true}), "");
    const std::vector<BatteryShape> unequal = {shape("31x33", false), shape("33x31", false)};
    EXPECT_EQ(mixed_up_sizes_hint(unequal, {false, true}), "");
}

TEST(MixedUpSizes, ShapesThatOutgrowAGridDoNotCount) {
    EXPECT_EQ(mixed_up_sizes_hint(kWithLongShapes, {true, true, false, false}), "");
    EXPECT_NE(mixed_up_sizes_hint(kWithLongShapes, {true, false, false, true}), "");
}

TEST(GridHeight, OnlyTheLongShapesFailingPointsAtTheGridsHeight) {
    const std::string hint = grid_height_hint(kWithLongShapes, {true, true, true, false});
    EXPECT_NE(hint.find("65535 blocks tall"), std::string::npos) << hint;
    EXPECT_NE(hint.find("1048560"), std::string::npos) << hint;
}

TEST(GridHeight, SilentWhenAShortShapeFailsOrNoneOutgrowsAGrid) {
    EXPECT_EQ(grid_height_hint(kWithLongShapes, {true, false, false, false}), "");
    EXPECT_EQ(grid_height_hint(kWithLongShapes, {true, true, true, true}), "");
    EXPECT_EQ(grid_height_hint(kShapes, {true, false, true, true, false}), "");
}

TEST(UnsteadyAnswers, ShapesThatChangeTheirAnswerPointAwayFromTheSizes) {
    EXPECT_EQ(unsteady_answers_hint(0, 5), "");
    const std::string some = unsteady_answers_hint(3, 8);
    EXPECT_EQ(some.rfind("3 of the 8 failing shapes gave another answer when launched again", 0), 0u) << some;
    EXPECT_NE(some.find("rather than a wrong size"), std::string::npos) << some;
    EXPECT_EQ(unsteady_answers_hint(8, 8).rfind("all 8 failing shapes", 0), 0u);
    EXPECT_EQ(unsteady_answers_hint(1, 1).rfind("the failing shape gave", 0), 0u);
}

// A changed answer counts for that hint only when nothing else explains it: elements never written (threads race
// for one element: a wrong index), or elements taken from shared memory that no thread wrote (the slots hold what
// an earlier block left), leave the sizes' hints their say.
TEST(UnsteadyAnswers, OnlyAChangeNothingElseExplainsCounts) {
    const std::string wrong = "5 of 64 wrong; first at (row 1, col 0): expected 1, got 2";
    EXPECT_FALSE(unsteady_answer(wrong));
    const std::string changed = wrong + "; 3 elements differ " + kChangedByRelaunch;
    EXPECT_TRUE(unsteady_answer(changed));
    EXPECT_FALSE(unsteady_answer(changed + ", and 2 " + kNeverWrittenEither));
    EXPECT_FALSE(unsteady_answer(changed + ", and 2 came " + kFromUnsetShared));
}

TEST(ByteCount, OnlyTheVeryLargeRoundTripFailingPointsAtAnIntByteCount) {
    const std::string hint = byte_count_hint(true);
    EXPECT_NE(hint.find("2^31 bytes"), std::string::npos) << hint;
    EXPECT_NE(hint.find("size_t"), std::string::npos) << hint;
}

TEST(ByteCount, SilentWhenABatteryShapeFailsToo) { EXPECT_EQ(byte_count_hint(false), ""); }

namespace {
ChildResult ended(int exit_code, const std::string& err) {
    ChildResult r;
    r.exit_code = exit_code;
    r.err = err;
    return r;
}
}  // namespace

TEST(NotRun, TheHarnessRefusingMemoryIsNoVerdictOnTheCode) {
    const std::string refusal =
        "not enough device memory: a 4096x4096 transpose (input and output) needs 218103808 bytes (0.20 GiB), only "
        "68157440 bytes (0.06 GiB) are free";
    EXPECT_EQ(not_run_reason(ended(4, "@@ ready\n" + refusal + "\n")), refusal);
    EXPECT_EQ(not_run_reason(ended(4, "not enough host memory: a 1x1x1 matmul (its host copies) needs 24 bytes\n")),
              "not enough host memory: a 1x1x1 matmul (its host copies) needs 24 bytes");
    EXPECT_NE(what_to_do_when_not_run(refusal).find("nvidia-smi"), std::string::npos);
    // No context to be had: the GPU's memory held by other programs, or a GPU that takes one process at a time.
    const std::string no_room =
        "not enough device memory: no room for a CUDA context on GPU 0 (NVIDIA H100 80GB HBM3); "
        "other programs hold its memory, or as many processes as it takes";
    EXPECT_EQ(not_run_reason(ended(4, no_room + "\n")), no_room);
    const std::string busy =
        "GPU busy: GPU 0 (NVIDIA H100 80GB HBM3) takes one process at a time (compute mode "
        "exclusive-process), and another process holds it";
    EXPECT_EQ(not_run_reason(ended(4, busy + "\n")), busy);
    EXPECT_NE(what_to_do_when_not_run(busy).find("less busy"), std::string::npos);
}

TEST(NotRun, TheStudentsOwnFailedAllocationIsAFail) {
    // Step 1's cudaMalloc of a byte count gone wrong, and a std::bad_alloc, end with exit 4 too.
    EXPECT_EQ(not_run_reason(ended(4,
                                   "transpose.cu:18: cudaMalloc(&d_in, bytes) failed: cudaErrorMemoryAllocation "
                                   "(out of memory)\n")),
              "");
    EXPECT_EQ(not_run_reason(ended(4, "not enough host memory: an allocation failed (std::bad_alloc)\n")), "");
    // The refusal's words with another exit code are not the harness's refusal.
    EXPECT_EQ(not_run_reason(ended(1, "not enough device memory: needs 1 bytes\n")), "");
}

TEST(NotRun, AChildNeverReadyIsNotRunAndOneThatHangsAfterIsAFail) {
    ChildResult never_ready;
    never_ready.timed_out = true;
    never_ready.ready = false;
    never_ready.seconds = 120;
    const std::string why = not_run_reason(never_ready);
    EXPECT_EQ(why.rfind("not ready to start after 120 s", 0), 0u) << why;
    EXPECT_NE(what_to_do_when_not_run(why).find("less busy"), std::string::npos);
    ChildResult hung = never_ready;
    hung.ready = true;
    EXPECT_EQ(not_run_reason(hung), "");
}

TEST(RunAgainAlone, RunsTheJobsOneAtATime) {
    // Each job holds a lock file while it runs; one that finds it held says so with exit 9.
    const std::string lock = testing::TempDir() + "run_again_alone.lock";
    const std::string script = "[ -e " + lock + " ] && exit 9; touch " + lock + "; sleep 0.2; rm " + lock;
    const auto results = run_again_alone({shell(script, 10), shell(script, 10), shell(script, 10)});
    ASSERT_EQ(results.size(), 3u);
    for (const auto& r : results) {
        ASSERT_TRUE(r.has_value());
        EXPECT_TRUE(r->exited(0)) << "a job found another running beside it";
    }
}

TEST(RunAgainAlone, StopsAtTheFirstThatGivesNoAnswerAgain) {
    const auto results =
        run_again_alone({shell("echo PASS", 10), shell("exit 1", 10), shell("sleep 30", 0.3), shell("echo PASS", 10)});
    ASSERT_EQ(results.size(), 4u);
    ASSERT_TRUE(results[0] && results[1] && results[2]);
    EXPECT_TRUE(results[0]->exited(0));
    EXPECT_TRUE(results[1]->exited(1)) << "a shape that fails, rather than hangs, is no reason to stop";
    EXPECT_TRUE(results[2]->timed_out);
    EXPECT_FALSE(results[3].has_value()) << "a kernel that never finishes costs one more limit, not one a shape";
}

TEST(Refusal, TheHarnessRefusalNotTheStudentsBadAlloc) {
    EXPECT_EQ(refusal_in("warming up\nnot enough device memory: a 8192x8192 transpose needs 600 MB, 1 MB free\n"),
              "not enough device memory: a 8192x8192 transpose needs 600 MB, 1 MB free");
    EXPECT_EQ(refusal_in("GPU busy: another process holds this GPU\n"), "GPU busy: another process holds this GPU");
    EXPECT_EQ(refusal_in("not enough host memory: an allocation failed (std::bad_alloc)\n"), "");
    EXPECT_EQ(refusal_in("FAIL: not enough device memory\n"), "");
    EXPECT_EQ(refusal_in(""), "");
}

// The shape whose map make check shows: the smallest failing one with two blocks or more each way, where there is one.
TEST(ShapeToMap, TheSmallestWithTwoBlocksEachWayElseTheSmallest) {
    const auto with_map = [](int64_t elements, int64_t down, int64_t across) {
        ShapeReport r;
        r.outcome = ShapeReport::Outcome::Fail;
        r.map = "  x\n";
        r.map_elements = elements;
        r.map_blocks_down = down;
        r.map_blocks_across = across;
        return std::optional<ShapeReport>(r);
    };
    ShapeReport no_map;
    no_map.outcome = ShapeReport::Outcome::Fail;
    std::vector<std::optional<ShapeReport>> reports = {with_map(1, 1, 1),
                                                       std::nullopt,
                                                       with_map(9000, 3, 2),
                                                       with_map(6000, 2, 4),
                                                       std::optional<ShapeReport>(no_map),
                                                       with_map(40, 1, 40)};
    EXPECT_EQ(shape_to_map(reports), std::optional<size_t>(3));
    reports[3] = std::nullopt, reports[2] = std::nullopt;
    EXPECT_EQ(shape_to_map(reports), std::optional<size_t>(0));
    EXPECT_EQ(shape_to_map({std::nullopt, std::optional<ShapeReport>(no_map)}), std::nullopt);
}

// Under the FAIL line: the map's headline with the shape, the map, and its picture written beside the program.
TEST(ShapeToMap, PrintsTheMapAndWritesItsPictureBesideTheProgram) {
    ShapeReport r;
    r.outcome = ShapeReport::Outcome::Fail;
    r.map = "  .x\n  legend: . right (1)  x wrong (1)\n";
    r.map_in_colour = "in colour\n";
    r.map_headline = "every element is off by a little: a term of each sum is missing";
    r.map_svg = "<svg xmlns=\"http://www.w3.org/2000/svg\"></svg>\n";
    const std::filesystem::path picture = map_picture_path();
    EXPECT_EQ(picture.filename(), "host_tests.svg");
    EXPECT_EQ(picture.parent_path().filename(), "maps");
    std::filesystem::remove(picture);
    ::unsetenv("WORKSHOP_COLOR");
    testing::internal::CaptureStdout();
    EXPECT_EQ(print_map(r, "129x65x33"), picture.string());
    const std::string out = testing::internal::GetCapturedStdout();
    EXPECT_EQ(out, "the map of the wrong answer at 129x65x33: " + r.map_headline + "\n" + r.map +
                       "the map as a picture: " + picture.string() + "\n");
    std::ifstream written(picture);
    EXPECT_EQ(std::string(std::istreambuf_iterator<char>(written), {}), r.map_svg);
    ::setenv("WORKSHOP_COLOR", "always", 1);
    testing::internal::CaptureStdout();
    print_map(r, "");
    const std::string coloured = testing::internal::GetCapturedStdout();
    ::unsetenv("WORKSHOP_COLOR");
    EXPECT_EQ(coloured.rfind("the map of the wrong answer: every element", 0), 0u) << coloured;
    EXPECT_NE(coloured.find("in colour\n"), std::string::npos) << coloured;
}
