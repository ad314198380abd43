#include "base/child_processes.hpp"

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

extern char** environ;

namespace workshop {

namespace {

using Clock = std::chrono::steady_clock;

Clock::duration as_duration(double s) {
    return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
}

// The descriptor a child finds its report channel on (ChildJob::reports).
constexpr int kReportFd = 3;

struct Running {
    size_t job;
    pid_t pid;
    int out_fd, err_fd;
    int reports_fd;                       // the child's report channel, a memory file; -1 where it has none
    Clock::time_point started, deadline;  // started: at its ready line, once it has printed it
    ChildResult result;
    size_t scanned = 0;  // how much of result.out follow_the_clock has read
};

// Moves the child's clock on the lines it printed since the last look (ChildJob's ready and pause lines).
void follow_the_clock(Running& r, const ChildJob& job) {
    if (job.ready_line.empty()) return;
    const std::string& out = r.result.out;
    for (size_t end; (end = out.find('\n', r.scanned)) != std::string::npos; r.scanned = end + 1) {
        const std::string_view line(out.data() + r.scanned, end - r.scanned);
        const auto now = Clock::now();
        if (line == job.ready_line) {
            if (!r.result.ready) r.started = now;
            r.result.ready = true;
            r.deadline = now + as_duration(job.timeout_s);
        } else if (!job.pause_line.empty() && line == job.pause_line) {
            r.deadline = now + as_duration(job.start_timeout_s);
        }
    }
}

// A memory file for the child's reports, on a descriptor above those the child is given (0 to 3), closed on exec;
// -1 where the job asks for none or none could be made.
int report_file(const ChildJob& job) {
    if (job.reports != ChildJob::Reports::Channel) return -1;
    return above_the_child_descriptors(memfd_create("child-reports", MFD_CLOEXEC));
}

// The child's environment: ours, with kReportChannel naming its channel where it has one (and never inherited).
std::vector<std::string> child_environment(bool with_channel) {
    std::vector<std::string> env = environment_without({kReportChannel});
    if (with_channel) env.push_back(fmt::format("{}=/dev/fd/{}", kReportChannel, kReportFd));
    return env;
}

std::optional<Running> start(const ChildJob& job, size_t index) {
    int out[2], err[2];
    if (pipe2(out, O_CLOEXEC) != 0) return std::nullopt;
    if (pipe2(err, O_CLOEXEC) != 0) {
        close(out[0]), close(out[1]);
        return std::nullopt;
    }
    const int reports = report_file(job);
    ProcessStart how{job.argv, child_environment(reports >= 0), {{out[1], STDOUT_FILENO}, {err[1], STDERR_FILENO}}};
    if (reports >= 0) how.descriptors.push_back({reports, kReportFd});
    how.search_path = true;
    const pid_t pid = start_process(how);
    const int start_errno = errno;
    close(out[1]), close(err[1]);
    if (pid < 0) {
        close(out[0]), close(err[0]);
        if (reports >= 0) close(reports);
        errno = start_errno;
        return std::nullopt;
    }
    const auto now = Clock::now();
    Running r{index, pid, out[0], err[0], reports, now, now + as_duration(job.timeout_s), {}};
    if (!job.ready_line.empty()) {
        r.result.ready = false;
        r.deadline = now + as_duration(job.start_timeout_s);
    }
    return r;
}

}  // namespace

pid_t start_process(const ProcessStart& start) {
    std::vector<char*> argv, envp;
    for (const auto& a : start.argv) argv.push_back(const_cast<char*>(a.c_str()));
    for (const auto& e : start.env) envp.push_back(const_cast<char*>(e.c_str()));
    argv.push_back(nullptr), envp.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    if (start.stdin_from_nothing) posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    if (start.stderr_to_nothing) posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
    for (const auto& [ours, theirs] : start.descriptors) posix_spawn_file_actions_adddup2(&actions, ours, theirs);
    posix_spawnattr_t attributes;
    posix_spawnattr_init(&attributes);
    if (start.own_group) posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
    pid_t pid = -1;
    const int failed = start.search_path ? posix_spawnp(&pid, argv[0], &actions, &attributes, argv.data(), envp.data())
                                         : posix_spawn(&pid, argv[0], &actions, &attributes, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    if (failed == 0) return pid;
    errno = failed;
    return -1;
}

std::vector<std::string> environment_without(const std::vector<std::string>& dropped) {
    std::vector<std::string> env;
    for (char** e = environ; *e; ++e) {
        const std::string_view variable(*e);
        const std::string_view name = variable.substr(0, variable.find('='));
        if (std::find(dropped.begin(), dropped.end(), name) == dropped.end()) env.emplace_back(variable);
    }
    return env;
}

int above_the_child_descriptors(int fd) {
    if (fd < 0) return fd;
    const int high = fcntl(fd, F_DUPFD_CLOEXEC, 10);
    close(fd);
    return high;
}

std::string read_from_the_start(int fd) {
    std::string text;
    char buffer[4096];
    for (off_t at = 0;;) {
        const ssize_t n = pread(fd, buffer, sizeof buffer, at);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return text;
        text.append(buffer, static_cast<size_t>(n));
        at += n;
    }
}

namespace {

// Reads what is there; returns false at end of file.
bool drain(int fd, std::string& into) {
    char buffer[4096];
    const ssize_t n = read(fd, buffer, sizeof buffer);
    if (n > 0) into.append(buffer, static_cast<size_t>(n));
    return n > 0 || (n < 0 && errno == EINTR);
}

void finish(Running& r, bool killed) {
    if (killed) kill(-r.pid, SIGKILL);
    int status = 0;
    while (waitpid(r.pid, &status, 0) < 0 && errno == EINTR) {}
    if (killed) kill(-r.pid, SIGKILL);  // anything the child started and left behind
    r.result.timed_out = killed;
    if (WIFEXITED(status)) r.result.exit_code = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) r.result.signal = WTERMSIG(status);
    r.result.seconds = std::chrono::duration<double>(Clock::now() - r.started).count();
    if (r.out_fd >= 0) close(r.out_fd);
    if (r.err_fd >= 0) close(r.err_fd);
    if (r.reports_fd >= 0) {
        r.result.reports = read_from_the_start(r.reports_fd);
        close(r.reports_fd);
    }
}

}  // namespace

void run_children(const std::vector<ChildJob>& jobs, int parallel,
                  const std::function<void(size_t, const ChildResult&)>& on_done) {
    std::vector<Running> running;
    size_t next_to_start = 0, finished = 0;
    if (parallel < 1) parallel = 1;
    auto report = [&](size_t job, const ChildResult& result) {
        ++finished;
        on_done(job, result);
    };

    while (finished < jobs.size()) {
        while (next_to_start < jobs.size() && static_cast<int>(running.size()) < parallel) {
            if (auto r = start(jobs[next_to_start], next_to_start)) {
                running.push_back(std::move(*r));
            } else {
                ChildResult failed;
                failed.exit_code = 127;  // as a shell says of a program it could not start
                failed.err =
                    fmt::format("could not start {}: {}", jobs[next_to_start].argv.at(0), std::strerror(errno));
                report(next_to_start, failed);
            }
            ++next_to_start;
        }

        if (!running.empty()) {
            std::vector<pollfd> fds;
            auto nearest = running.front().deadline;
            for (const auto& r : running) {
                if (r.out_fd >= 0) fds.push_back({r.out_fd, POLLIN, 0});
                if (r.err_fd >= 0) fds.push_back({r.err_fd, POLLIN, 0});
                nearest = std::min(nearest, r.deadline);
            }
            const auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(nearest - Clock::now()).count();
            poll(fds.data(), fds.size(), static_cast<int>(std::max<long long>(0, std::min<long long>(wait + 1, 1000))));

            for (auto it = running.begin(); it != running.end();) {
                Running& r = *it;
                for (auto& f : fds) {
                    if (!(f.revents & (POLLIN | POLLHUP | POLLERR))) continue;
                    if (f.fd == r.out_fd && !drain(r.out_fd, r.result.out))
                        close(r.out_fd), r.out_fd = -1;
                    else if (f.fd == r.err_fd && !drain(r.err_fd, r.result.err))
                        close(r.err_fd), r.err_fd = -1;
                }
                const ChildJob& job = jobs[r.job];
                follow_the_clock(r, job);
                const bool closed = r.out_fd < 0 && r.err_fd < 0;
                const bool late = Clock::now() >= r.deadline;
                if (closed || late) {
                    finish(r, !closed);
                    const Running ended = std::move(r);
                    it = running.erase(it);
                    report(ended.job, ended.result);
                } else {
                    ++it;
                }
            }
        }
    }
}

std::string describe_ending(const ChildResult& r) {
    if (r.timed_out) return fmt::format("{} after {:.0f} s", r.ready ? "no answer" : "not ready", r.seconds);
    if (r.signal) {
        const char* name = sigabbrev_np(r.signal);
        return fmt::format("killed by SIG{}", name ? name : std::to_string(r.signal).c_str());
    }
    return fmt::format("exit {}", r.exit_code);
}

namespace {

// Reads `fd` to its end.
std::string read_all(int fd) {
    std::string text;
    char buffer[1 << 16];
    for (;;) {
        const ssize_t n = ::read(fd, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return text;
        text.append(buffer, static_cast<size_t>(n));
    }
}

void wait_for(pid_t pid, ProgramRun& run) {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    if (WIFEXITED(status)) {
        run.exit_code = WEXITSTATUS(status);
        run.ending = fmt::format("exit {}", run.exit_code);
    } else {
        run.ending = fmt::format("killed by signal {}", WTERMSIG(status));
    }
}

ProgramRun spawn_and_wait(const std::vector<std::string>& argv, bool quiet) {
    ProgramRun run;
    int out[2];
    if (::pipe2(out, O_CLOEXEC) != 0) {
        run.ending = fmt::format("could not start {}: {}", argv.at(0), std::strerror(errno));
        return run;
    }
    // In our process group, so that Ctrl-C reaches it too; its input and its warnings are ours unless quiet.
    ProcessStart how{argv, environment_without({}), {{out[1], STDOUT_FILENO}}};
    how.stdin_from_nothing = how.stderr_to_nothing = quiet;
    how.own_group = false;
    const pid_t pid = start_process(how);
    const int start_errno = errno;
    ::close(out[1]);
    if (pid < 0) {
        ::close(out[0]);
        run.ending = fmt::format("could not start {}: {}", argv[0], std::strerror(start_errno));
        return run;
    }
    run.out = read_all(out[0]);
    ::close(out[0]);
    wait_for(pid, run);
    return run;
}

}  // namespace

ProgramRun run_program(const std::vector<std::string>& argv) { return spawn_and_wait(argv, false); }

ProgramRun run_program_quietly(const std::vector<std::string>& argv) { return spawn_and_wait(argv, true); }

}  // namespace workshop
