// workshop_progress: what the shell glue (make status, make watch, make configure) asks of the student's progress
// record, and the parts of make watch's screen that are more than glue (the hints, the speed line, the advice, the
// reset). It never records a verdict from text: the verdict program and `status` record what they measured.
//   workshop_progress [--top CHECKOUT] COMMAND [ARGUMENTS]      (CHECKOUT: the current folder unless given)
#include <unistd.h>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <ctime>
#include <fstream>
#include <functional>
#include <iostream>
#include <iterator>
#include <map>
#include <sstream>

#include "base/exit_codes.hpp"
#include "base/files.hpp"
#include "progress/progress.hpp"
#include "progress/progress_status.hpp"

namespace fs = std::filesystem;
using namespace workshop;

namespace {

// The record could not be read or written (FileError): one line, and this exit code.
constexpr int kExitFileError = 1;

const char* const kUsage =
    "usage: workshop_progress [--top CHECKOUT] COMMAND\n"
    "  state STEP TRACK          done, slow, failed, edited or none\n"
    "  summary STEP TRACK        the last verdict in a few words\n"
    "  advice STEP TRACK         what to do about a step that is not done\n"
    "  next [TRACKS]             STEP TRACK of the first step not done (nothing when all are)\n"
    "  done-count                how many steps and tracks are done\n"
    "  forget STEP TRACK         the step no longer counts (after a reset)\n"
    "  keep-starting-points      outside git, keeps a copy of every step file as it ships\n"
    "  starting-point STEP TRACK the step file as it ships\n"
    "  reset STEP TRACK          the step file back to its starting point, the student's version kept beside it\n"
    "  hint-count STEP TRACK     how many hints the step has\n"
    "  hint STEP TRACK N         hint N\n"
    "  speed-line STEP TRACK     the last PASS's speed beside the solution's and the device's limit (the limit row\n"
    "                            of a program's --json output on stdin)\n"
    "  watch-advice STEP TRACK OUTCOME   make watch's next line after a check that ended in OUTCOME\n"
    "  status BUILD_DIR [--recorded] [--class-rows FILE]   make status's table\n"
    "  standing                  every step's state and summary, the next step and the done count, as JSON\n"
    "exit codes: 0 done, 1 a file could not be read or written, 2 bad usage, 3 (status) no CUDA device\n";

struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct Call {
    fs::path top;
    std::vector<std::string> args;  // after the command

    void want(size_t count) const {
        if (args.size() != count) throw UsageError(fmt::format("{} arguments given, {} wanted", args.size(), count));
    }
    int step() const {
        const std::string& s = args.at(0);
        if (s.size() != 1 || s[0] < '1' || s[0] > '0' + kSteps)
            throw UsageError(fmt::format("step '{}' is not 1 to {}", printable(s), kSteps));
        return s[0] - '0';
    }
    std::string track() const {
        if (!is_track(args.at(1)))
            throw UsageError(fmt::format("track '{}' is not transpose or matmul", printable(args.at(1))));
        return args.at(1);
    }
    std::string file() const { return fmt::format("step{}/{}.cu", step(), track()); }
};

std::string read_text(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

// The hints file holds <details><summary>Hint N: title</summary> ... </details> blocks, from the idea to nearly
// the code.
fs::path hints_file(const Call& c) { return c.top / fmt::format("step{}/hints/{}.md", c.step(), c.track()); }

int count_hints(const std::string& text) {
    int count = 0;
    for (size_t at = text.find("<summary>Hint "); at != std::string::npos; at = text.find("<summary>Hint ", at + 1))
        ++count;
    return count;
}

std::string hint_title(const std::string& line) {
    std::string title = line.substr(line.find("<summary>Hint ") + 14);
    title = title.substr(title.find_first_not_of("0123456789"));
    if (!title.empty() && title[0] == ':') title.erase(0, 1);
    title.erase(0, title.find_first_not_of(' '));
    return title.substr(0, title.find("</summary>"));
}

// Hint `want` as "Hint N of M: title" and its body, empty lines squeezed to one.
std::string hint_text(const std::string& text, int want) {
    const int total = count_hints(text);
    std::istringstream lines(text);
    std::string line, out;
    int n = 0;
    bool blank = false;
    while (std::getline(lines, line)) {
        if (line.find("<summary>Hint ") != std::string::npos) {
            if (++n == want) {
                const std::string title = hint_title(line);
                out += fmt::format("Hint {} of {}{}\n", n, total, title.empty() ? "" : ": " + title);
            }
            continue;
        }
        if (n != want || line.find("</details>") != std::string::npos || (line.empty() && blank)) continue;
        blank = line.empty();
        out += line + "\n";
    }
    if (want == total) out += "(that was the last hint; h starts again from the first)\n";
    return out;
}

int hint(const Call& c) {
    c.want(3);
    const std::string text = read_text(hints_file(c));
    const int total = count_hints(text);
    const int want = std::atoi(c.args[2].c_str());
    if (total == 0)
        fmt::print("no hints for step {} {} ({} is missing)\n", c.step(), c.track(), hints_file(c).string());
    else if (want < 1 || want > total)
        throw UsageError(fmt::format("there is no hint {}: step {} {} has {}", c.args[2], c.step(), c.track(), total));
    else
        fmt::print("{}", hint_text(text, want));
    return kExitOk;
}

int speed_line(const Call& c) {
    c.want(2);
    const auto r = Progress(c.top).remembered(c.step(), c.track());
    if (!r || r->verdict.outcome != Outcome::Pass) return kExitOk;
    const StepVerdict& v = r->verdict;
    const double solution = v.percent_of_solution > 0 ? 100 * v.rate / v.percent_of_solution : 0;
    std::string line = fmt::format("yours: {:.0f} {}, {:.0f}% of the solution ({:.0f} {})", v.rate, v.unit,
                                   v.percent_of_solution, solution, v.unit);
    const std::string rows(std::istreambuf_iterator<char>(std::cin), {});
    if (const auto limit = row_of_kind(rows, "limit"))
        line += fmt::format("; the limit ({}): {:.0f} {}, of which yours is {:.0f}%", limit->name, limit->rate,
                            limit->unit, 100 * v.rate / limit->rate);
    fmt::print("{}\n", line);
    return kExitOk;
}

std::string slow_advice(const Call& c) {
    const auto r = Progress(c.top).remembered(c.step(), c.track());
    if (r && r->verdict.outcome == Outcome::PassWithoutKernel)
        return fmt::format("correct, but no kernel runs yet: the TODO(step {}) markers in {}, h for a hint", c.step(),
                           c.file());
    return "correct, but well short of the solution: p to profile, h for a hint, then save again";
}

std::string done_advice(const Call& c) {
    if (c.step() < kSteps)
        return fmt::format("step {} {} is done: n for step {} (step{}/README.md)", c.step(), c.track(), c.step() + 1,
                           c.step() + 1);
    return fmt::format("the {} track is done: t for the other track, l for the list", c.track());
}

int watch_advice(const Call& c) {
    c.want(3);
    const std::map<std::string, std::function<std::string()>> advice{
        {"compiling", [] { return std::string("wait for the result"); }},
        {"checking", [] { return std::string("wait for the result"); }},
        {"build_error", [&] { return fmt::format("fix the first error above in {} and save", c.file()); }},
        {"no_gpu",
         [] {
             return std::string(
                 "the code compiles; run the checks where there is a GPU (make check), or press h for a hint");
         }},
        {"failed",
         [] {
             return std::string("the first failing shape and its likely cause are above; h for a hint, s to sanitize");
         }},
        {"not_checked",
         [] {
             return std::string(
                 "part of the check could not run here (above: too little free memory, or a GPU too "
                 "busy): save again once that has passed");
         }},
        {"broken",
         [] { return std::string("the check stopped before its verdict (above); fix what it says and save"); }},
        {"slow", [&] { return slow_advice(c); }},
        {"done", [&] { return done_advice(c); }},
    };
    const auto found = advice.find(c.args[2]);
    fmt::print("{}\n", found != advice.end()
                           ? found->second()
                           : fmt::format("edit {} (the TODO(step {}) markers) and save", c.file(), c.step()));
    return kExitOk;
}

std::string backup_name(const fs::path& path) {
    const std::time_t now = std::time(nullptr);
    std::tm local{};
    localtime_r(&now, &local);
    char stamp[32];
    std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &local);
    std::string backup = path.string() + ".bak-" + stamp;
    std::error_code error;
    while (fs::exists(fs::symlink_status(backup, error))) backup += "x";
    return backup;
}

// r in make watch: the step file back to its starting point; the student's version stays beside it.
int reset(const Call& c) {
    c.want(2);
    const fs::path path = step_file(c.top, c.step(), c.track());
    std::string fresh;
    try {
        fresh = starting_point(c.top, c.step(), c.track());
    } catch (const FileError& e) {
        fmt::print("reset: {}\n", e.what());
        return kExitOk;
    }
    const std::string mine = read_text(path);
    if (mine == fresh) {
        forget_verdict(c.top, c.step(), c.track());
        fmt::print("reset: {} is already at its starting point\n", c.file());
        return kExitOk;
    }
    const fs::path backup = backup_name(path);
    write_file_atomically(backup, mine);
    std::error_code ignored;
    fs::last_write_time(backup, fs::last_write_time(path, ignored), ignored);
    write_file_atomically(path, fresh);
    forget_verdict(c.top, c.step(), c.track());
    fmt::print("reset: {} is back at its starting point; your version is in {}\n", c.file(),
               fs::relative(backup, c.top, ignored).string());
    return kExitOk;
}

int status(const Call& c) {
    if (c.args.empty()) throw UsageError("status needs the build folder");
    StatusRequest request;
    request.top = c.top;
    request.build = c.args[0];
    for (size_t i = 1; i < c.args.size(); ++i) {
        if (c.args[i] == "--recorded")
            request.mode = StatusMode::Recorded;
        else if (c.args[i] == "--class-rows" && i + 1 < c.args.size())
            request.class_rows = c.args[++i];
        else
            throw UsageError(fmt::format("unknown status option '{}'", printable(c.args[i])));
    }
    const char* term = std::getenv("TERM");
    request.emphasis = ::isatty(STDOUT_FILENO) && !(term && std::string(term) == "dumb");
    return print_status(request);
}

std::vector<std::string> tracks_in(const std::vector<std::string>& args) {
    std::vector<std::string> tracks;
    for (const auto& arg : args) {
        std::istringstream words(arg);
        for (std::string word; words >> word;) {
            if (!is_track(word))
                throw UsageError(fmt::format("track '{}' is not transpose or matmul", printable(word)));
            tracks.push_back(word);
        }
    }
    return tracks.empty() ? all_tracks() : tracks;
}

// For tools that read the student's standing (the class table): JSON, one object.
int standing(const Call& c) {
    c.want(0);
    const Progress progress(c.top);
    nlohmann::json steps = nlohmann::json::array();
    for (int step = 1; step <= kSteps; ++step)
        for (const auto& track : all_tracks())
            steps.push_back({{"step", step},
                             {"track", track},
                             {"state", state_word(progress.state(step, track))},
                             {"summary", progress.summary(step, track)}});
    const auto next = progress.next(all_tracks());
    nlohmann::json out{{"done", progress.done_count()}, {"steps", steps}, {"next", nullptr}};
    if (next) out["next"] = {{"step", next->first}, {"track", next->second}};
    fmt::print("{}\n", out.dump(2));
    return kExitOk;
}

int print_line(const std::string& line) {
    if (!line.empty()) fmt::print("{}\n", line);
    return kExitOk;
}

const std::map<std::string, std::function<int(const Call&)>>& commands() {
    static const std::map<std::string, std::function<int(const Call&)>> table{
        {"state",
         [](const Call& c) { return c.want(2), print_line(state_word(Progress(c.top).state(c.step(), c.track()))); }},
        {"summary", [](const Call& c) { return c.want(2), print_line(Progress(c.top).summary(c.step(), c.track())); }},
        {"advice", [](const Call& c) { return c.want(2), print_line(Progress(c.top).advice(c.step(), c.track())); }},
        {"next",
         [](const Call& c) {
             const auto next = Progress(c.top).next(tracks_in(c.args));
             return print_line(next ? fmt::format("{} {}", next->first, next->second) : "");
         }},
        {"done-count",
         [](const Call& c) { return c.want(0), print_line(std::to_string(Progress(c.top).done_count())); }},
        {"forget", [](const Call& c) { return c.want(2), forget_verdict(c.top, c.step(), c.track()), kExitOk; }},
        {"keep-starting-points", [](const Call& c) { return c.want(0), keep_starting_points(c.top), kExitOk; }},
        {"starting-point",
         [](const Call& c) {
             return c.want(2), fmt::print("{}", starting_point(c.top, c.step(), c.track())), kExitOk;
         }},
        {"reset", reset},
        {"hint-count",
         [](const Call& c) { return c.want(2), print_line(std::to_string(count_hints(read_text(hints_file(c))))); }},
        {"hint", hint},
        {"speed-line", speed_line},
        {"watch-advice", watch_advice},
        {"status", status},
        {"standing", standing},
    };
    return table;
}

}  // namespace

int main(int argc, char** argv) {
    std::vector<std::string> args(argv + 1, argv + argc);
    Call call;
    call.top = fs::current_path();
    if (args.size() >= 2 && args[0] == "--top") {
        call.top = args[1];
        args.erase(args.begin(), args.begin() + 2);
    }
    if (args.empty() || args[0] == "--help" || args[0] == "-h") {
        fmt::print(args.empty() ? stderr : stdout, "{}", kUsage);
        return args.empty() ? kExitBadUsage : kExitOk;
    }
    const auto command = commands().find(args[0]);
    if (command == commands().end()) {
        fmt::print(stderr, "error: unknown command '{}'; {}", printable(args[0]), kUsage);
        return kExitBadUsage;
    }
    call.args.assign(args.begin() + 1, args.end());
    try {
        return command->second(call);
    } catch (const UsageError& e) {
        fmt::print(stderr, "error: {} {}: {}\n", "workshop_progress", args[0], e.what());
        return kExitBadUsage;
    } catch (const std::exception& e) {  // FileError, and filesystem errors the record met
        fmt::print(stderr, "error: {}\n", e.what());
        return kExitFileError;
    }
}
