#include "check/child_processes.hpp"

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

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
    std::vector<std::string> env;
    const std::string name = std::string(kReportChannel) + "=";
    for (char** e = environ; *e; ++e)
        if (std::strncmp(*e, name.c_str(), name.size()) != 0) env.emplace_back(*e);
    if (with_channel) env.push_back(fmt::format("{}/dev/fd/{}", name, kReportFd));
    return env;
}

std::optional<Running> start(const ChildJob& job, size_t index) {
    int out[2], err[2];
    if (pipe(out) != 0) return std::nullopt;
    if (pipe(err) != 0) {
        close(out[0]), close(out[1]);
        return std::nullopt;
    }
    const int reports = report_file(job);
    std::vector<char*> argv, envp;
    for (const auto& a : job.argv) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    const std::vector<std::string> env = child_environment(reports >= 0);
    for (const auto& e : env) envp.push_back(const_cast<char*>(e.c_str()));
    envp.push_back(nullptr);

    const pid_t pid = fork();
    if (pid == 0) {  // the child: only async-signal-safe calls until exec
        setpgid(0, 0);
        // No child reads input, and none should reach the terminal that make watch reads its keys from.
        const int nothing = open("/dev/null", O_RDONLY);
        if (nothing > STDIN_FILENO) dup2(nothing, STDIN_FILENO), close(nothing);
        dup2(out[1], STDOUT_FILENO);
        dup2(err[1], STDERR_FILENO);
        close(out[0]), close(out[1]), close(err[0]), close(err[1]);
        if (reports >= 0) dup2(reports, kReportFd);  // above 9, so none of the pipes closed above
        execvpe(argv[0], argv.data(), envp.data());
        const char message[] = "could not start the program\n";
        (void)!write(STDERR_FILENO, message, sizeof message - 1);
        _exit(127);
    }
    close(out[1]), close(err[1]);
    if (pid < 0) {
        close(out[0]), close(err[0]);
        if (reports >= 0) close(reports);
        return std::nullopt;
    }
    setpgid(pid, pid);  // also here, so the group exists whichever of the two runs first
    const auto now = Clock::now();
    Running r{index, pid, out[0], err[0], reports, now, now + as_duration(job.timeout_s), {}};
    if (!job.ready_line.empty()) {
        r.result.ready = false;
        r.deadline = now + as_duration(job.start_timeout_s);
    }
    return r;
}

}  // namespace

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
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    int out[2];
    if (::pipe2(out, O_CLOEXEC) != 0) {
        run.ending = fmt::format("could not start {}: {}", argv.at(0), std::strerror(errno));
        return run;
    }
    // The child's stdout is the pipe (dup2 leaves it open across exec).
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
    if (quiet) {
        posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
        posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
    }
    pid_t pid = 0;
    const int error = ::posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    ::close(out[1]);
    if (error != 0) {
        ::close(out[0]);
        run.ending = fmt::format("could not start {}: {}", argv[0], std::strerror(error));
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
