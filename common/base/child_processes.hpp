// Every program the harness starts beside itself, it starts here, with an argument vector and no shell in between
// (a path or an argument a student chose is never read as shell). Most run as child processes, several at a time,
// each with a time limit: the battery runs its shapes and the sanitizers this way, since a kernel that faults
// leaves its CUDA context unusable, and one that never finishes holds its process, so either can only take its own
// process down.
#pragma once

#include <sys/types.h>

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace workshop {

struct ChildJob {
    std::vector<std::string> argv;  // argv[0] is the program (a path, or a name looked up in PATH)
    double timeout_s = 60;
    // When set, the child prints this line on stdout once it is ready for its work, and timeout_s counts from
    // there; until then start_timeout_s applies. Making a CUDA context takes a few tenths of a second on an idle
    // GPU, and many seconds on one where dozens of other processes are starting theirs (a room sharing a GPU, or
    // make test's sanitizer runs): no fault of the code the child checks.
    std::string ready_line;
    double start_timeout_s = 120;
    // When set (with a ready line), the child prints this line before it waits for something outside it (another
    // check's timing on the GPU), and its ready line again once it goes on: its clock stops meanwhile, the wait
    // limited to start_timeout_s, and timeout_s counts afresh from the ready line.
    std::string pause_line;
    // Where the child reports what it found: with Reports::Channel, a file of its own on descriptor 3, named in
    // its environment as kReportChannel (/dev/fd/3), read into ChildResult::reports once it ends. What the
    // student's kernel prints goes to stdout and never reaches it.
    enum class Reports { None, Channel } reports = Reports::None;
};

// The environment variable that names a child's report channel (ChildJob::reports).
constexpr const char* kReportChannel = "WORKSHOP_CHECK_REPORTS";

struct ChildResult {
    int exit_code = -1;  // when the child exited; -1 otherwise
    int signal = 0;      // when a signal ended it
    bool timed_out = false;
    bool ready = true;   // false when the job names a ready line and the child never printed it
    double seconds = 0;  // since the child started, or since its ready line where the job names one
    std::string out, err;
    std::string reports;  // what the child wrote on its report channel, where the job gave it one
    bool exited(int code) const { return exit_code == code; }
};

// Runs every job, at most `parallel` at once (in the order given), each in a process group of its own so that a
// timeout ends the whole group. Calls on_done(i, result) as each job ends, in the order they end.
void run_children(const std::vector<ChildJob>& jobs, int parallel,
                  const std::function<void(size_t, const ChildResult&)>& on_done);

// One program started as a child, with no shell in between (posix_spawn): its arguments, its whole environment,
// and the descriptors of ours it gets under its own numbers. The pipes and files made for children are opened
// close-on-exec, so a child gets its own under the numbers given, and never another child's.
struct ProcessStart {
    std::vector<std::string> argv;  // argv[0]: a path; a bare name is looked up in PATH only with search_path
    std::vector<std::string> env;
    std::vector<std::pair<int, int>> descriptors;  // {ours, the child's number for it}, after stdin and stderr
    bool search_path = false;
    bool stdin_from_nothing = true;  // /dev/null: nothing it starts may read the keys make watch waits for
    bool stderr_to_nothing = false;
    bool own_group = true;  // a process group of its own, so that one signal ends it and all it started
};
// The child's pid, or -1 with errno saying why it could not start.
pid_t start_process(const ProcessStart& start);

// Our environment without the variables `dropped` names, for a child that is given its own values of them.
std::vector<std::string> environment_without(const std::vector<std::string>& dropped);

// `fd` moved to a descriptor above 9, closed on exec, so that dup2 onto the few a child is given (0 to 4) always
// makes a copy the child keeps; -1 (and `fd` closed) where that fails, `fd` itself where it is negative.
int above_the_child_descriptors(int fd);

// All a file holds, read from its first byte whatever its offset (a memory file a child wrote its output into).
std::string read_from_the_start(int fd);

// "exit 5", "killed by SIGSEGV", "no answer after 10 s", "not ready after 120 s".
std::string describe_ending(const ChildResult& r);

// One program run to its end, in this process group (Ctrl-C reaches it too), with no time limit: for make run's and
// make status's runs of the step programs, whose results they read.
struct ProgramRun {
    std::string out;     // what it printed on stdout
    int exit_code = -1;  // -1 where it could not start or a signal ended it
    std::string ending;  // "exit 3", "killed by signal 11", "could not start PATH: REASON"
};
// Starts argv[0] (a path, not looked up in PATH) with argv and no shell, waits for it, and returns its stdout and
// how it ended. Its stdin and stderr are ours, so its warnings reach the terminal.
ProgramRun run_program(const std::vector<std::string>& argv);
// The same with its stdin and stderr on /dev/null, for a run whose messages another command shows.
ProgramRun run_program_quietly(const std::vector<std::string>& argv);

}  // namespace workshop
