#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "check/shapes.hpp"
#include "programs/options.hpp"

using namespace workshop;

namespace {

ParseOutcome parse(Track track, std::vector<const char*> args) {
    args.insert(args.begin(), "program");
    return parse_options(track, static_cast<int>(args.size()), args.data());
}

}  // namespace

TEST(Options, DefaultsAreTheLessonSizes) {
    const auto t = parse(Track::Transpose, {});
    ASSERT_TRUE(t.ok()) << t.error;
    EXPECT_EQ(t.options.rows, 8192);
    EXPECT_EQ(t.options.cols, 8192);
    const auto m = parse(Track::Matmul, {});
    EXPECT_EQ(m.options.M, 4096);
    EXPECT_EQ(m.options.K, 4096);
}

TEST(Options, ReadsSizesInBothSpellings) {
    const auto t = parse(Track::Transpose, {"--rows", "31", "--cols=33", "--reps", "7", "--csv"});
    ASSERT_TRUE(t.ok()) << t.error;
    EXPECT_EQ(t.options.rows, 31);
    EXPECT_EQ(t.options.cols, 33);
    EXPECT_EQ(t.options.reps, 7);
    EXPECT_EQ(t.options.format, OutputFormat::Csv);
    const auto m = parse(Track::Matmul, {"--size", "100", "--k", "7", "--check", "--format", "json"});
    ASSERT_TRUE(m.ok()) << m.error;
    EXPECT_EQ(m.options.M, 100);
    EXPECT_EQ(m.options.N, 100);
    EXPECT_EQ(m.options.K, 7);
    EXPECT_EQ(m.options.mode, Mode::Check);
    EXPECT_EQ(m.options.format, OutputFormat::Json);
}

TEST(Options, RejectsNonNumbers) {
    EXPECT_EQ(parse(Track::Transpose, {"--rows", "abc"}).error, "--rows: 'abc' is not a whole number");
    EXPECT_EQ(parse(Track::Transpose, {"--rows", "12x"}).error, "--rows: '12x' is not a whole number");
    EXPECT_EQ(parse(Track::Transpose, {"--rows", "1.5"}).error, "--rows: '1.5' is not a whole number");
    EXPECT_FALSE(parse(Track::Matmul, {"--m", ""}).ok());
}

TEST(Options, RejectsZeroAndNegativeSizes) {
    EXPECT_EQ(parse(Track::Transpose, {"--cols", "0"}).error, "--cols: 0 must be at least 1");
    EXPECT_EQ(parse(Track::Matmul, {"--k", "-5"}).error, "--k: -5 must be at least 1");
    EXPECT_FALSE(parse(Track::Matmul, {"--reps", "0"}).ok());
}

TEST(Options, RejectsUnknownOptionsAndMissingValues) {
    EXPECT_EQ(parse(Track::Transpose, {"--bogus"}).error, "unknown option '--bogus' (try --help)");
    // The other track's size options are unknown here.
    EXPECT_FALSE(parse(Track::Transpose, {"--m", "4"}).ok());
    EXPECT_FALSE(parse(Track::Matmul, {"--rows", "4"}).ok());
    EXPECT_EQ(parse(Track::Transpose, {"--size"}).error, "--size needs a value");
    EXPECT_FALSE(parse(Track::Transpose, {"--format", "xml"}).ok());
    EXPECT_FALSE(parse(Track::Transpose, {"--budget", "-1"}).ok());
}

TEST(Options, RejectsSizesBeyondIntIndexing) {
    EXPECT_FALSE(parse(Track::Transpose, {"--rows", "65536", "--cols", "65536"}).ok());
    EXPECT_TRUE(parse(Track::Transpose, {"--rows", "16384", "--cols", "16384"}).ok());
    EXPECT_FALSE(parse(Track::Matmul, {"--m", "1048576", "--n", "4096", "--k", "1"}).ok());
    EXPECT_FALSE(parse(Track::Transpose, {"--rows", "99999999999999999999"}).ok());
    EXPECT_FALSE(parse(Track::Transpose, {"--rows", "2000000"}).ok());
}

TEST(Options, HelpIsAFlag) {
    EXPECT_TRUE(parse(Track::Matmul, {"--help"}).options.help);
    EXPECT_NE(usage_text(Track::Matmul, "prog").find("--m M --n N --k K"), std::string::npos);
    EXPECT_NE(usage_text(Track::Transpose, "prog").find("--rows R --cols C"), std::string::npos);
}

TEST(Options, WarmupMayBeZeroButRepsMayNot) {
    EXPECT_EQ(parse(Track::Transpose, {"--warmup", "0"}).options.warmup, 0);
    EXPECT_EQ(parse(Track::Transpose, {"--reps", "0"}).error, "--reps: 0 must be at least 1");
    EXPECT_EQ(parse(Track::Transpose, {"--warmup", "-1"}).error, "--warmup: -1 must be at least 0");
}

TEST(Options, ReadsOneShapeOfTheBattery) {
    const auto t =
        parse(Track::Transpose, {"--check-shape", "--rows", "64", "--cols", "96", "--misalign", "3", "--no-guards"});
    ASSERT_TRUE(t.ok()) << t.error;
    EXPECT_EQ(t.options.mode, Mode::CheckShape);
    EXPECT_EQ(t.options.misalign, 3);
    EXPECT_FALSE(t.options.guards);
    EXPECT_FALSE(t.options.say_ready);
    EXPECT_TRUE(parse(Track::Transpose, {"--check-shape", "--say-ready"}).options.say_ready);
    EXPECT_EQ(parse(Track::Matmul, {"--sanitize"}).options.mode, Mode::Sanitize);
}

TEST(Options, ReadsTheSanitizersRunOverTheirShapes) {
    const auto m = parse(Track::Matmul, {"--check-sanitizer-shapes", "--no-guards", "--say-ready"});
    ASSERT_TRUE(m.ok()) << m.error;
    EXPECT_EQ(m.options.mode, Mode::CheckSanitizerShapes);
    EXPECT_FALSE(m.options.guards);
    EXPECT_TRUE(m.options.say_ready);
    EXPECT_EQ(parse(Track::Transpose, {}).options.mode, Mode::OneSize);
}

TEST(Options, ReadsStepOnesRoundTripAtOneShape) {
    const auto m = parse(Track::Matmul, {"--check-round-trip", "--m", "1", "--n", "32768", "--k", "16385"});
    ASSERT_TRUE(m.ok()) << m.error;
    EXPECT_EQ(m.options.mode, Mode::CheckRoundTrip);
    EXPECT_EQ(m.options.N, 32768);
    EXPECT_EQ(parse(Track::Transpose, {"--check-shape"}).options.mode, Mode::CheckShape);
}

TEST(Options, TimingGoesOnForAMinimumTime) {
    EXPECT_EQ(parse(Track::Transpose, {}).options.min_time_s, 1.0);
    EXPECT_EQ(parse(Track::Transpose, {"--min-time", "0"}).options.min_time_s, 0.0);
    EXPECT_EQ(parse(Track::Matmul, {"--min-time=2.5"}).options.min_time_s, 2.5);
    EXPECT_EQ(parse(Track::Matmul, {"--min-time", "-1"}).error,
              "--min-time: '-1' is not a number of seconds from 0 to 3600");
    EXPECT_EQ(parse(Track::Matmul, {"--min-time", "1s"}).error,
              "--min-time: '1s' is not a number of seconds from 0 to 3600");
    EXPECT_EQ(parse(Track::Transpose, {"--min-time"}).error, "--min-time needs a value");
    EXPECT_EQ(parse(Track::Transpose, {"--budget", "x"}).error,
              "--budget: 'x' is not a number of seconds from 0 to 3600");
}

TEST(Options, AMisalignmentIsZeroToThreeFloats) {
    EXPECT_EQ(parse(Track::Matmul, {"--misalign", "4"}).error, "--misalign: 4 is too large (at most 3)");
    EXPECT_EQ(parse(Track::Matmul, {"--misalign", "-1"}).error, "--misalign: -1 must be at least 0");
}

TEST(Options, OneModeARun) {
    EXPECT_EQ(parse(Track::Transpose, {"--check", "--sanitize"}).error, "--check and --sanitize: one mode at a time");
    EXPECT_EQ(parse(Track::Transpose, {"--check", "--check"}).options.mode, Mode::Check);
}

TEST(Options, ReadsAShapeAsTheBatteryNamesIt) {
    const auto t = parse(Track::Transpose, {"--check-shape", "--shape", "31x33+1"});
    ASSERT_TRUE(t.ok()) << t.error;
    EXPECT_EQ(t.options.rows, 31);
    EXPECT_EQ(t.options.cols, 33);
    EXPECT_EQ(t.options.misalign, 1);
    const auto m = parse(Track::Matmul, {"--shape=2175x2176x203"});
    ASSERT_TRUE(m.ok()) << m.error;
    EXPECT_EQ(m.options.M, 2175);
    EXPECT_EQ(m.options.N, 2176);
    EXPECT_EQ(m.options.K, 203);
    EXPECT_EQ(m.options.misalign, 0);
}

TEST(Options, RefusesAShapeThatIsNotOne) {
    EXPECT_EQ(parse(Track::Transpose, {"--shape", "31x33x2"}).error, "--shape: '31x33x2' is not ROWSxCOLS[+MISALIGN]");
    EXPECT_EQ(parse(Track::Matmul, {"--shape", "4x4"}).error, "--shape: '4x4' is not MxNxK[+MISALIGN]");
    EXPECT_EQ(parse(Track::Transpose, {"--shape", "31x"}).error, "--shape needs a value");
    EXPECT_EQ(parse(Track::Transpose, {"--shape", "0x4"}).error, "--shape: 0 must be at least 1");
    EXPECT_EQ(parse(Track::Transpose, {"--shape", "4x4+4"}).error, "--shape: 4 is too large (at most 3)");
    EXPECT_EQ(parse(Track::Transpose, {"--shape", "4x-4"}).error, "--shape: -4 must be at least 1");
    EXPECT_NE(parse(Track::Transpose, {"--shape", "65536x65536"}).error.find("more than 2^31-1"), std::string::npos);
}

TEST(Options, EveryShapeOfTheBatteryReadsBack) {
    for (const auto& s : transpose_battery()) {
        std::vector<std::string> args = s.args();
        const auto t = parse(Track::Transpose, {args[0].c_str(), args[1].c_str()});
        ASSERT_TRUE(t.ok()) << s.label() << ": " << t.error;
        EXPECT_EQ(t.options.rows, s.rows);
        EXPECT_EQ(t.options.cols, s.cols);
        EXPECT_EQ(t.options.misalign, s.misalign);
    }
    for (const auto& s : matmul_battery()) {
        std::vector<std::string> args = s.args();
        const auto m = parse(Track::Matmul, {args[0].c_str(), args[1].c_str()});
        ASSERT_TRUE(m.ok()) << s.label() << ": " << m.error;
        EXPECT_EQ(m.options.M, s.M);
        EXPECT_EQ(m.options.N, s.N);
        EXPECT_EQ(m.options.K, s.K);
        EXPECT_EQ(m.options.misalign, s.misalign);
    }
}

TEST(Options, TheVerdictPassesTheTimingOptionsOnAsTyped) {
    const auto t = parse(Track::Transpose, {"--verdict", "--solution", "/b/solution2_transpose", "--size", "4096",
                                            "--previous=/b/solution1_transpose", "--reps=3"});
    ASSERT_TRUE(t.ok()) << t.error;
    EXPECT_EQ(t.options.mode, Mode::Verdict);
    EXPECT_EQ(t.options.solution_program, "/b/solution2_transpose");
    EXPECT_EQ(t.options.previous_program, "/b/solution1_transpose");
    EXPECT_EQ(t.options.timing_args, (std::vector<std::string>{"--size", "4096", "--reps=3"}));
    EXPECT_EQ(parse(Track::Transpose, {"--verdict", "--solution"}).error, "--solution needs a value");
}

TEST(Options, OnlyTheSolutionsRunsAreTimedUnverified) {
    EXPECT_TRUE(parse(Track::Matmul, {}).options.verified);
    const auto run = parse(Track::Matmul, {"--unverified", "--json"});
    ASSERT_TRUE(run.ok()) << run.error;
    EXPECT_FALSE(run.options.verified);
    // make check's own run (the student's) passes its options on to the student's timing run: never this one.
    EXPECT_EQ(parse(Track::Transpose, {"--verdict", "--solution", "/b/solution2_transpose", "--unverified"}).error,
              "--unverified is for the solutions' timing runs; make check verifies your code's");
    EXPECT_EQ(parse(Track::Transpose, {"--check", "--unverified"}).error,
              "--unverified is for a timed run; --check checks every output it reads");
}
