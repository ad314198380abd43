#include "check/guarded_host_matrix.hpp"

#include <fmt/format.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <new>
#include <stdexcept>

#include "base/exit_codes.hpp"
#include "check/battery.hpp"

namespace workshop {

namespace {

// What the fault handler knows of one matrix. The handler may only call async-signal-safe functions, so the FAIL
// lines are written out beforehand, and it only compares addresses and calls write() and _exit().
struct Guard {
    std::atomic<bool> in_use{false};
    uintptr_t before_begin = 0, before_end = 0, after_begin = 0, after_end = 0;
    char past_the_end[512] = {};
    char before_the_start[512] = {};
    // The same as the battery's reports (ShapeReport), one line of JSON each, for the report channel, and as a
    // --json run says a failure on stdout (failure_line; empty where this run does not).
    char past_the_end_report[2048] = {};
    char before_the_start_report[2048] = {};
    char past_the_end_json[2048] = {};
    char before_the_start_json[2048] = {};
};

constexpr int kGuards = 16;  // a round trip has at most three matrices
Guard guards[kGuards];
int guards_in_use = 0;  // changed outside the handler only, on one thread
struct sigaction previous_segv, previous_bus;
int channel = -1;  // the report channel (battery.hpp), opened before any fault

bool within(uintptr_t a, uintptr_t begin, uintptr_t end) { return a >= begin && a < end; }

void write_all(int fd, const char* text) {
    size_t left = std::strlen(text);
    while (fd >= 0 && left > 0) {
        const ssize_t n = write(fd, text, left);
        if (n <= 0) break;
        text += n;
        left -= static_cast<size_t>(n);
    }
}

void say_and_exit(const char* line, const char* report, const char* json) {
    write_all(STDOUT_FILENO, line);
    write_all(STDOUT_FILENO, json);
    write_all(channel, report);
    _exit(kExitWrongAnswer);
}

void on_fault(int signal_number, siginfo_t* info, void*) {
    const auto address = reinterpret_cast<uintptr_t>(info->si_addr);
    for (const Guard& g : guards) {
        if (!g.in_use.load(std::memory_order_acquire)) continue;
        if (within(address, g.after_begin, g.after_end))
            say_and_exit(g.past_the_end, g.past_the_end_report, g.past_the_end_json);
        if (within(address, g.before_begin, g.before_end))
            say_and_exit(g.before_the_start, g.before_the_start_report, g.before_the_start_json);
    }
    // Not one of ours: put back what was there before and return, so that the access faults again and ends the
    // program as it would have without the guards (or goes to the handler that was there). A signal that another
    // process sent (kill) has no access to repeat, so it is sent again; it arrives once this handler returns.
    sigaction(signal_number, signal_number == SIGSEGV ? &previous_segv : &previous_bus, nullptr);
    if (info->si_code <= 0) raise(signal_number);
}

void watch_faults() {
    if (guards_in_use++ > 0) return;
    struct sigaction action {};
    action.sa_sigaction = on_fault;
    action.sa_flags = SA_SIGINFO;
    sigemptyset(&action.sa_mask);
    sigaction(SIGSEGV, &action, &previous_segv);
    sigaction(SIGBUS, &action, &previous_bus);
}

void stop_watching_faults() {
    if (--guards_in_use > 0) return;
    sigaction(SIGSEGV, &previous_segv, nullptr);
    sigaction(SIGBUS, &previous_bus, nullptr);
}

template <size_t N>
void copy_line(char (&to)[N], const std::string& line) {
    const size_t n = std::min(line.size(), N - 1);
    std::memcpy(to, line.data(), n);
    to[n] = '\0';
}

// The FAIL line and its hint, printed, and the same as a report line (with its newline) for the channel and, in a
// --json run, as its failure line for stdout.
void compose(char (&line)[512], char (&report)[2048], char (&json)[2048], const std::string& headline,
             const std::string& hint) {
    copy_line(line, headline + "\n" + hint + "\n");
    ShapeReport r = report_of_a_line(ShapeReport::Outcome::Fail, headline, kExitWrongAnswer);
    r.shape = shape_in_turn();
    r.hint = hint;
    r.details = {hint};
    const std::string as_report = report_line(r) + "\n", as_failure = failure_line(r) + "\n";
    const bool said_on_stdout = failure_route() == FailureRoute::AlsoJsonOnStdout;
    // Cut short, either would be no JSON.
    copy_line(report, as_report.size() < sizeof report ? as_report : std::string());
    copy_line(json, said_on_stdout && as_failure.size() < sizeof json ? as_failure : std::string());
}

}  // namespace

GuardedHostMatrix::GuardedHostMatrix(size_t count, const std::string& function, const std::string& name,
                                     const std::string& shape)
    : count_(count) {
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    const size_t bytes = count * sizeof(float);
    const size_t data_pages = (bytes + page - 1) / page;
    mapping_bytes_ = (data_pages + 2) * page;
    void* mapping =
        mmap(nullptr, mapping_bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (mapping == MAP_FAILED) throw std::bad_alloc();
    mapping_ = mapping;
    char* base = static_cast<char*>(mapping);
    char* after = base + (data_pages + 1) * page;
    if (mprotect(base, page, PROT_NONE) != 0 || mprotect(after, page, PROT_NONE) != 0) {
        munmap(mapping_, mapping_bytes_);
        throw std::runtime_error("mprotect failed for a guarded host matrix");
    }
    data_ = reinterpret_cast<float*>(after - bytes);

    for (int i = 0; i < kGuards && slot_ < 0; ++i)
        if (!guards[i].in_use.load()) slot_ = i;
    if (slot_ < 0) {
        munmap(mapping_, mapping_bytes_);
        throw std::logic_error("more guarded host matrices at once than the fault handler can tell apart");
    }
    Guard& g = guards[slot_];
    g.before_begin = reinterpret_cast<uintptr_t>(base);
    g.before_end = g.before_begin + page;
    g.after_begin = reinterpret_cast<uintptr_t>(after);
    g.after_end = g.after_begin + page;
    compose(g.past_the_end, g.past_the_end_report, g.past_the_end_json,
            fmt::format("FAIL: {0}: went past the end of `{1}` ({2} floats, {3} bytes of host memory)", function, name,
                        shape, bytes),
            fmt::format("was a cudaMemcpy given more bytes than `{0}` holds: sizeof(double) for sizeof(float), or "
                        "another matrix's size?",
                        name));
    compose(g.before_the_start, g.before_the_start_report, g.before_the_start_json,
            fmt::format("FAIL: {0}: went before the start of `{1}` ({2} floats of host memory)", function, name, shape),
            fmt::format("was a cudaMemcpy given a pointer below `{}`?", name));
    channel = report_channel();
    g.in_use.store(true, std::memory_order_release);
    watch_faults();
}

GuardedHostMatrix::~GuardedHostMatrix() {
    stop_watching_faults();
    guards[slot_].in_use.store(false, std::memory_order_release);
    munmap(mapping_, mapping_bytes_);
}

}  // namespace workshop
