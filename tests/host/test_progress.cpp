// The student's progress record: each verdict kept whole under concurrent writers, the states told apart, and
// nothing but a real verdict able to change it.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "base/files.hpp"
#include "progress/progress.hpp"

namespace fs = std::filesystem;
using namespace workshop;

namespace {

// A checkout outside git: step1..step5 with a transpose.cu and a matmul.cu each.
struct Checkout {
    fs::path top;
    Checkout() {
        std::string pattern = (fs::temp_directory_path() / "progress-test.XXXXXX").string();
        top = ::mkdtemp(pattern.data());
        for (int step = 1; step <= kSteps; ++step)
            for (const auto& track : all_tracks()) write(step, track, "// step " + std::to_string(step) + "\n");
    }
    ~Checkout() {
        std::error_code ignored;
        fs::remove_all(top, ignored);
    }
    void write(int step, const std::string& track, const std::string& text) const {
        fs::create_directories(step_file(top, step, track).parent_path());
        std::ofstream(step_file(top, step, track)) << text;
    }
};

StepVerdict verdict(int step, const std::string& track, Outcome outcome, double rate = 0, double percent = 0) {
    return StepVerdict{step, track, outcome, rate, rate > 0 ? "GB/s" : "", percent};
}

}  // namespace

TEST(Progress, StatesFollowTheLastVerdictAndTheFile) {
    Checkout c;
    EXPECT_EQ(Progress(c.top).state(3, "transpose"), StepState::None);
    remember_verdict(c.top, verdict(3, "transpose", Outcome::Pass, 975, 98));
    remember_verdict(c.top, verdict(2, "transpose", Outcome::Pass, 473, 48));
    remember_verdict(c.top, verdict(1, "matmul", Outcome::Fail));
    remember_verdict(c.top, verdict(1, "transpose", Outcome::PassWithoutKernel));
    Progress p(c.top);
    EXPECT_EQ(p.state(3, "transpose"), StepState::Done);
    EXPECT_EQ(p.summary(3, "transpose"), "PASS 975 GB/s, 98%");
    EXPECT_EQ(p.state(2, "transpose"), StepState::Slow);
    EXPECT_EQ(p.summary(2, "transpose"), "PASS 473 GB/s, 48% (slow)");
    EXPECT_EQ(p.state(1, "matmul"), StepState::Failed);
    EXPECT_EQ(p.state(1, "transpose"), StepState::Slow);
    EXPECT_EQ(p.summary(1, "transpose"), "PASS, no kernel yet");
    EXPECT_EQ(p.done_count(), 1);
    EXPECT_EQ(p.next(all_tracks()), std::make_pair(1, std::string("transpose")));
    EXPECT_EQ(p.next({"matmul"}), std::make_pair(1, std::string("matmul")));

    c.write(3, "transpose", "// an edit after the PASS\n");
    EXPECT_EQ(Progress(c.top).state(3, "transpose"), StepState::Edited);
    c.write(3, "transpose", "// step 3\n");
    EXPECT_EQ(Progress(c.top).state(3, "transpose"), StepState::Done);
    forget_verdict(c.top, 3, "transpose");
    EXPECT_EQ(Progress(c.top).state(3, "transpose"), StepState::None);
    EXPECT_EQ(Progress(c.top).state(2, "transpose"), StepState::Slow);
}

// Too little memory or a busy GPU says nothing about the code: the PASS before it stands.
TEST(Progress, NotCheckedKeepsTheLastVerdict) {
    Checkout c;
    remember_verdict(c.top, verdict(3, "transpose", Outcome::Pass, 975, 98));
    remember_verdict(c.top, verdict(3, "transpose", Outcome::NotChecked));
    EXPECT_EQ(Progress(c.top).state(3, "transpose"), StepState::Done);
    remember_verdict(c.top, verdict(4, "matmul", Outcome::NotChecked));
    EXPECT_FALSE(Progress(c.top).remembered(4, "matmul"));
}

// Every step and track written by a process of its own, many times each, all at once: none is lost.
TEST(Progress, WritersAtOnceLoseNothing) {
    Checkout c;
    std::vector<pid_t> writers;
    for (int step = 1; step <= kSteps; ++step) {
        for (const auto& track : all_tracks()) {
            const pid_t pid = ::fork();
            ASSERT_GE(pid, 0);
            if (pid == 0) {
                try {
                    for (int i = 0; i < 20; ++i) remember_verdict(c.top, verdict(step, track, Outcome::Pass, 100, 90));
                } catch (...) { ::_exit(1); }
                ::_exit(0);
            }
            writers.push_back(pid);
        }
    }
    for (pid_t pid : writers) {
        int status = 0;
        ASSERT_EQ(::waitpid(pid, &status, 0), pid);
        EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    EXPECT_EQ(Progress(c.top).done_count(), 2 * kSteps);
}

TEST(Progress, ARecordThatIsNotOneIsReportedNotReplaced) {
    Checkout c;
    fs::create_directories(c.top / ".workshop");
    std::ofstream(c.top / ".workshop" / "progress.json") << "VERDICT step 5 transpose: PASS\n";
    EXPECT_THROW(Progress{c.top}, FileError);
    EXPECT_THROW(remember_verdict(c.top, verdict(1, "transpose", Outcome::Fail)), FileError);
    std::ifstream in(c.top / ".workshop" / "progress.json");
    std::stringstream kept;
    kept << in.rdbuf();
    EXPECT_EQ(kept.str(), "VERDICT step 5 transpose: PASS\n");
}

TEST(Progress, RefusesStepsAndTracksThatDoNotExist) {
    Checkout c;
    EXPECT_THROW(remember_verdict(c.top, verdict(6, "transpose", Outcome::Pass, 1, 100)), FileError);
    EXPECT_THROW(remember_verdict(c.top, verdict(1, "../../x", Outcome::Pass, 1, 100)), FileError);
}

TEST(Progress, StartingPointsAreKeptOnceOutsideGit) {
    Checkout c;
    EXPECT_THROW(starting_point(c.top, 2, "matmul"), FileError);
    keep_starting_points(c.top);
    c.write(2, "matmul", "// the student's work\n");
    keep_starting_points(c.top);
    EXPECT_EQ(starting_point(c.top, 2, "matmul"), "// step 2\n");
}
