#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "base/child_processes.hpp"
#include "shell_job.hpp"

using namespace workshop;

namespace {

std::map<size_t, ChildResult> run_all(const std::vector<ChildJob>& jobs, int parallel) {
    std::map<size_t, ChildResult> results;
    run_children(jobs, parallel, [&](size_t i, const ChildResult& r) {
        EXPECT_EQ(results.count(i), 0u) << "job " << i << " reported twice";
        results[i] = r;
    });
    return results;
}

// One job that prints "@@ ready" when it is ready (and, where `pause_line` is set, "@@ pause" before it waits for
// another check), run alone.
ChildResult run_with_ready_line(const std::string& script, double timeout_s, double start_timeout_s,
                                bool pause_line = false) {
    ChildJob job = shell(script, timeout_s);
    job.ready_line = "@@ ready";
    if (pause_line) job.pause_line = "@@ pause";
    job.start_timeout_s = start_timeout_s;
    return run_all({job}, 1).at(0);
}

}  // namespace

TEST(ChildProcesses, CollectsOutputErrorsAndExitCodes) {
    const auto r = run_all({shell("echo out; echo err >&2; exit 3"), shell("printf 'a\\nb\\n'")}, 2);
    ASSERT_EQ(r.size(), 2u);
    EXPECT_EQ(r.at(0).out, "out\n");
    EXPECT_EQ(r.at(0).err, "err\n");
    EXPECT_TRUE(r.at(0).exited(3));
    EXPECT_EQ(r.at(1).out, "a\nb\n");
    EXPECT_TRUE(r.at(1).exited(0));
}

TEST(ChildProcesses, ACrashIsReportedAsTheSignal) {
    const auto r = run_all({shell("kill -SEGV $$")}, 1);
    EXPECT_EQ(r.at(0).signal, 11);
    EXPECT_EQ(describe_ending(r.at(0)), "killed by SIGSEGV");
}

TEST(ChildProcesses, AHangIsKilledAtItsTimeoutWithWhatItStarted) {
    // The child starts a grandchild that would outlive it; the whole process group must go.
    const auto r = run_all({shell("sleep 30 & echo started; wait", 0.5), shell("echo quick")}, 2);
    EXPECT_TRUE(r.at(0).timed_out);
    EXPECT_EQ(r.at(0).out, "started\n");
    EXPECT_LT(r.at(0).seconds, 5);
    EXPECT_EQ(describe_ending(r.at(0)).rfind("no answer after", 0), 0u);
    EXPECT_TRUE(r.at(1).exited(0));
}

TEST(ChildProcesses, RunsEveryJobWhateverTheParallelism) {
    std::vector<ChildJob> jobs;
    for (int i = 0; i < 9; ++i) jobs.push_back(shell("echo " + std::to_string(i)));
    for (int parallel : {1, 3, 16}) {
        const auto r = run_all(jobs, parallel);
        ASSERT_EQ(r.size(), jobs.size());
        for (size_t i = 0; i < jobs.size(); ++i) EXPECT_EQ(r.at(i).out, std::to_string(i) + "\n");
    }
}

TEST(ChildProcesses, AProgramThatCannotStartSaysSo) {
    ChildJob missing;
    missing.argv = {"/no/such/program"};
    const auto r = run_all({missing}, 1);
    EXPECT_TRUE(r.at(0).exited(127));
    EXPECT_NE(r.at(0).err.find("could not start"), std::string::npos);
}

TEST(ChildProcesses, TheClockStartsAtTheReadyLine) {
    // Slow to get ready (as a CUDA context on a busy GPU), then quick: within its limit.
    const auto r = run_with_ready_line("sleep 1; echo '@@ ready'; sleep 0.2; echo done", 0.6, 10);
    EXPECT_FALSE(r.timed_out);
    EXPECT_TRUE(r.ready);
    EXPECT_TRUE(r.exited(0));
    EXPECT_LT(r.seconds, 0.6);
}

TEST(ChildProcesses, ALineThatOnlyContainsTheReadyLineIsNotIt) {
    const auto r = run_with_ready_line("echo 'not @@ ready'; echo '@@ ready now'; sleep 30", 30, 0.5);
    EXPECT_TRUE(r.timed_out);
    EXPECT_FALSE(r.ready);
    EXPECT_EQ(describe_ending(r).rfind("not ready after", 0), 0u) << describe_ending(r);
}

TEST(ChildProcesses, AHangAfterTheReadyLineIsKilledAtItsTimeout) {
    const auto r = run_with_ready_line("echo '@@ ready'; sleep 30", 0.5, 30);
    EXPECT_TRUE(r.timed_out);
    EXPECT_TRUE(r.ready);
    EXPECT_LT(r.seconds, 5);
    EXPECT_EQ(describe_ending(r).rfind("no answer after", 0), 0u);
}

TEST(ChildProcesses, AChildReadsNothing) {
    // This process's input holds a line; a child that read its parent's input (make watch's terminal, where the
    // student's keys wait) would get it.
    int keys[2];
    ASSERT_EQ(pipe(keys), 0);
    ASSERT_EQ(write(keys[1], "h\n", 2), 2);
    const int saved = dup(STDIN_FILENO);
    dup2(keys[0], STDIN_FILENO);
    const auto r = run_all({shell("read key; echo \"[$key]\"")}, 1).at(0);
    dup2(saved, STDIN_FILENO);
    close(saved), close(keys[0]), close(keys[1]);
    EXPECT_EQ(r.out, "[]\n");
}

// A child's reports travel on a channel of its own, named in its environment: what it prints on stdout (as a
// kernel's printf does) never lands there, and a child that asked for none gets no channel, even when the parent
// had one.
TEST(ChildProcesses, ReportsGoOnAChannelOfTheirOwn) {
    ChildJob job = shell(
        "echo '{\"on\": \"stdout\"}'; echo '{\"on\": \"channel\"}' >>\"$WORKSHOP_CHECK_REPORTS\"; "
        "echo second >>\"$WORKSHOP_CHECK_REPORTS\"");
    job.reports = ChildJob::Reports::Channel;
    const ChildJob none = shell("echo \"[${WORKSHOP_CHECK_REPORTS:-none}]\"");
    ::setenv(kReportChannel, "/dev/null", 1);
    const auto r = run_all({job, none}, 2);
    ::unsetenv(kReportChannel);
    EXPECT_EQ(r.at(0).reports, "{\"on\": \"channel\"}\nsecond\n");
    EXPECT_EQ(r.at(0).out, "{\"on\": \"stdout\"}\n");
    EXPECT_EQ(r.at(1).out, "[none]\n");
    EXPECT_EQ(r.at(1).reports, "");
}

TEST(ChildProcesses, TheClockStopsWhileTheChildWaitsForAnotherCheck) {
    // A shape that waits a second for another check's timing, then is quick: within its limit of 0.6 s.
    const std::string script = "echo '@@ ready'; echo '@@ pause'; sleep 1; echo '@@ ready'; sleep 0.2; echo done";
    const auto r = run_with_ready_line(script, 0.6, 10, true);
    EXPECT_FALSE(r.timed_out) << describe_ending(r);
    EXPECT_TRUE(r.exited(0));
    // A job that names no pause line keeps its clock running.
    EXPECT_TRUE(run_with_ready_line(script, 0.6, 10).timed_out);
}

TEST(ChildProcesses, AWaitForAnotherCheckEndsAtTheStartLimit) {
    const auto r = run_with_ready_line("echo '@@ ready'; echo '@@ pause'; sleep 30", 30, 0.5, true);
    EXPECT_TRUE(r.timed_out);
    EXPECT_LT(r.seconds, 5);
}

TEST(ChildProcesses, EachReadyLineAfterAWaitGivesTheWholeLimitAgain) {
    // 0.4 s, a wait, 0.4 s: each stretch within the limit of 0.6 s, the two together not.
    const auto r = run_with_ready_line(
        "echo '@@ ready'; sleep 0.4; echo '@@ pause'; sleep 0.1; echo '@@ ready'; sleep 0.4; echo done", 0.6, 10, true);
    EXPECT_FALSE(r.timed_out) << describe_ending(r);
    EXPECT_TRUE(r.exited(0));
}

namespace {

// Waits for `pid` and returns its exit code (-1 where a signal ended it).
int exit_code_of(pid_t pid) {
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

ProcessStart shell_start(const std::string& script) {
    return ProcessStart{{"/bin/sh", "-c", script}, environment_without({}), {}};
}

}  // namespace

TEST(StartProcess, GivesEachDescriptorUnderTheNumberAsked) {
    int pipe_ends[2];
    ASSERT_EQ(pipe2(pipe_ends, O_CLOEXEC), 0);
    ProcessStart how = shell_start("echo on-five >&5");
    how.descriptors = {{pipe_ends[1], 5}};
    const pid_t pid = start_process(how);
    close(pipe_ends[1]);
    ASSERT_GT(pid, 0) << std::strerror(errno);
    char text[32] = {};
    const ssize_t n = read(pipe_ends[0], text, sizeof text - 1);
    close(pipe_ends[0]);
    EXPECT_EQ(exit_code_of(pid), 0);
    EXPECT_EQ(std::string(text, n > 0 ? size_t(n) : 0), "on-five\n");
}

// A group of its own, where one signal ends the child and all it started; else ours, where Ctrl-C reaches both.
TEST(StartProcess, AChildLeadsAGroupOfItsOwnOnlyWhenAsked) {
    const std::string leads = "read -r _ _ _ _ group _ </proc/$$/stat; [ \"$group\" = $$ ]";
    ProcessStart how = shell_start(leads);
    EXPECT_EQ(exit_code_of(start_process(how)), 0);
    how.own_group = false;
    EXPECT_EQ(exit_code_of(start_process(how)), 1);
}

// make run starts the step programs by their paths, so that no program of the same name earlier in PATH stands in
// for them: a bare name is looked up only where the caller asks (as the battery does for compute-sanitizer).
TEST(StartProcess, ABareNameIsLookedUpInPathOnlyWhenAsked) {
    ProcessStart how{{"sh", "-c", "exit 7"}, environment_without({}), {}};
    errno = 0;
    EXPECT_EQ(start_process(how), -1);
    EXPECT_EQ(errno, ENOENT);
    how.search_path = true;
    EXPECT_EQ(exit_code_of(start_process(how)), 7);
}

TEST(StartProcess, TheEnvironmentLeavesOutTheNamedVariablesOnly) {
    ASSERT_EQ(setenv("WORKSHOP_TEST_DROPPED", "1", 1), 0);
    ASSERT_EQ(setenv("WORKSHOP_TEST_DROPPED_NOT", "2", 1), 0);
    const std::vector<std::string> env = environment_without({"WORKSHOP_TEST_DROPPED"});
    unsetenv("WORKSHOP_TEST_DROPPED"), unsetenv("WORKSHOP_TEST_DROPPED_NOT");
    EXPECT_EQ(std::count(env.begin(), env.end(), "WORKSHOP_TEST_DROPPED=1"), 0);
    EXPECT_EQ(std::count(env.begin(), env.end(), "WORKSHOP_TEST_DROPPED_NOT=2"), 1);
}
