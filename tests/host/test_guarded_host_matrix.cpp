// Step 1's round trip reads and writes host matrices with the student's own cudaMemcpy calls. These tests stand
// in for those copies with memcpy: one byte past the end (or before the start) of a guarded matrix must end the
// program with the FAIL line that names the function and the matrix, and any other crash must stay the crash
// it was.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "base/exit_codes.hpp"
#include "check/battery.hpp"
#include "base/child_processes.hpp"
#include "check/guarded_host_matrix.hpp"

using namespace workshop;

namespace {

// The FAIL line goes to stdout, where make check reads it; death tests see stderr.
void stdout_to_stderr() { dup2(STDERR_FILENO, STDOUT_FILENO); }

size_t floats_per_page() { return static_cast<size_t>(sysconf(_SC_PAGESIZE)) / sizeof(float); }

// A page of our own that may not be touched: a fault the guards must leave alone.
volatile int* untouchable_page() {
    void* p = mmap(nullptr, static_cast<size_t>(sysconf(_SC_PAGESIZE)), PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return static_cast<volatile int*>(p);
}

class GuardedHostMatrixDeath : public ::testing::Test {
protected:
    void SetUp() override { GTEST_FLAG_SET(death_test_style, "threadsafe"); }
};

}  // namespace

TEST(GuardedHostMatrix, EveryFloatCanBeWrittenAndReadBack) {
    for (const size_t count : {size_t{1}, size_t{1000}, floats_per_page(), 3 * floats_per_page() + 7}) {
        const GuardedHostMatrix m(count, "f", "out", "shape");
        ASSERT_EQ(m.size(), count);
        std::vector<float> values(count);
        for (size_t i = 0; i < count; ++i) values[i] = static_cast<float>(i) + 0.5f;
        std::memcpy(m.data(), values.data(), count * sizeof(float));
        EXPECT_EQ(std::memcmp(m.data(), values.data(), count * sizeof(float)), 0) << count << " floats";
    }
}

TEST_F(GuardedHostMatrixDeath, CopyingOneFloatTooManyIntoItFails) {
    EXPECT_EXIT(
        {
            stdout_to_stderr();
            const GuardedHostMatrix out(1000, "transpose_from_host", "out", "cols x rows = 1000 x 1");
            const std::vector<float> from(1001, 1.0f);
            std::memcpy(out.data(), from.data(), from.size() * sizeof(float));
        },
        ::testing::ExitedWithCode(kExitWrongAnswer),
        "FAIL: transpose_from_host: went past the end of `out` \\(cols x rows = 1000 x 1 floats, 4000 bytes of host "
        "memory\\)\nwas a cudaMemcpy given more bytes than `out` holds");
}

TEST_F(GuardedHostMatrixDeath, CopyingOneFloatTooManyOutOfItFails) {
    EXPECT_EXIT(
        {
            stdout_to_stderr();
            const GuardedHostMatrix A(3, "matmul_from_host", "A", "M x K = 1 x 3");
            const GuardedHostMatrix B(5, "matmul_from_host", "B", "K x N = 3 x 5");
            std::vector<float> to(6);
            std::memcpy(to.data(), B.data(), to.size() * sizeof(float));
        },
        ::testing::ExitedWithCode(kExitWrongAnswer), "went past the end of `B` \\(K x N = 3 x 5 floats, 20 bytes");
}

// make check hears of the fault as it hears of every shape: a report on the battery's channel and, in a --json run
// (its timed run), the failure's JSON line on stdout, which the verdict reads.
TEST_F(GuardedHostMatrixDeath, TheFaultIsReportedAsJsonToo) {
    const std::string channel = ::testing::TempDir() + "guarded_host_matrix_reports.jsonl";
    std::remove(channel.c_str());
    EXPECT_EXIT(
        {
            stdout_to_stderr();
            ::setenv(kReportChannel, channel.c_str(), 1);
            std::fclose(std::fopen(channel.c_str(), "w"));
            set_failure_route(FailureRoute::AlsoJsonOnStdout);
            const GuardedHostMatrix out(1000, "transpose_from_host", "out", "cols x rows = 1000 x 1");
            const std::vector<float> from(1001, 1.0f);
            std::memcpy(out.data(), from.data(), from.size() * sizeof(float));
        },
        ::testing::ExitedWithCode(kExitWrongAnswer),
        "\n\\{\"failure\":\\{.*\"reason\":\"transpose_from_host: went past the end of `out`");
    std::ifstream in(channel);
    const auto reports = reports_in(std::string(std::istreambuf_iterator<char>(in), {}));
    ASSERT_EQ(reports.size(), 1u);
    EXPECT_EQ(reports[0].outcome, ShapeReport::Outcome::Fail);
    EXPECT_EQ(reports[0].exit_code, kExitWrongAnswer);
    EXPECT_EQ(reports[0].headline.rfind("FAIL: transpose_from_host: went past the end of `out`", 0), 0u);
    EXPECT_EQ(reports[0].details.size(), 1u);
    std::remove(channel.c_str());
}

// A matrix of whole pages starts on a page, so the float before it lies on the guard page before it.
TEST_F(GuardedHostMatrixDeath, ReadingBeforeItsStartFails) {
    EXPECT_EXIT(
        {
            stdout_to_stderr();
            const GuardedHostMatrix in(2 * floats_per_page(), "transpose_from_host", "in", "shape");
            std::vector<float> to(2);
            std::memcpy(to.data(), in.data() - 1, to.size() * sizeof(float));
        },
        ::testing::ExitedWithCode(kExitWrongAnswer),
        "FAIL: transpose_from_host: went before the start of `in` \\(shape floats of host memory\\)");
}

TEST_F(GuardedHostMatrixDeath, AnyOtherFaultIsStillASegfault) {
    EXPECT_EXIT(
        {
            const GuardedHostMatrix m(10, "f", "m", "shape");
            *untouchable_page() = 1;
        },
        ::testing::KilledBySignal(SIGSEGV), "");
}

TEST_F(GuardedHostMatrixDeath, ASegvSentByAnotherProcessStillEndsTheProgram) {
    EXPECT_EXIT(
        {
            const GuardedHostMatrix m(10, "f", "m", "shape");
            kill(getpid(), SIGSEGV);
            sleep(5);
            std::exit(0);
        },
        ::testing::KilledBySignal(SIGSEGV), "");
}

TEST_F(GuardedHostMatrixDeath, OnceTheMatricesAreGoneTheHandlerIsToo) {
    EXPECT_EXIT(
        {
            { const GuardedHostMatrix m(10, "f", "m", "shape"); }
            struct sigaction now {};
            sigaction(SIGSEGV, nullptr, &now);
            std::exit(now.sa_handler == SIG_DFL ? 7 : 8);
        },
        ::testing::ExitedWithCode(7), "");
}
