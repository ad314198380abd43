#include "progress/progress.hpp"

#include <sys/file.h>
#include <unistd.h>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>

#include "base/files.hpp"
#include "base/child_processes.hpp"

namespace workshop {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

fs::path record_folder(const fs::path& top) { return top / ".workshop"; }
fs::path record_file(const fs::path& top) { return record_folder(top) / "progress.json"; }

const char* outcome_name(Outcome outcome) {
    switch (outcome) {
        case Outcome::Pass: return "pass";
        case Outcome::PassWithoutKernel: return "pass without kernel";
        case Outcome::Fail: return "fail";
        case Outcome::NotChecked: return "not checked";
    }
    return "";
}

std::optional<Outcome> outcome_named(const std::string& name) {
    for (Outcome o : {Outcome::Pass, Outcome::PassWithoutKernel, Outcome::Fail})
        if (name == outcome_name(o)) return o;
    return std::nullopt;
}

bool is_step(int step) { return step >= 1 && step <= kSteps; }

json to_json(const RememberedVerdict& r) {
    const StepVerdict& v = r.verdict;
    return {{"step", v.step},         {"track", v.track}, {"outcome", outcome_name(v.outcome)},
            {"rate", v.rate},         {"unit", v.unit},   {"percent_of_solution", v.percent_of_solution},
            {"checksum", r.checksum}, {"when", r.when}};
}

// One entry of the record; nothing where it is not one a writer here made (a hand edit, a newer version).
std::optional<RememberedVerdict> from_json(const json& entry) {
    try {
        RememberedVerdict r;
        r.verdict.step = entry.at("step").get<int>();
        r.verdict.track = entry.at("track").get<std::string>();
        r.checksum = entry.at("checksum").get<std::string>();
        r.when = entry.value("when", std::string());
        const auto outcome = outcome_named(entry.at("outcome").get<std::string>());
        if (!outcome || !is_step(r.verdict.step) || !is_track(r.verdict.track)) return std::nullopt;
        r.verdict.outcome = *outcome;
        r.verdict.rate = entry.value("rate", 0.0);
        r.verdict.unit = entry.value("unit", std::string());
        r.verdict.percent_of_solution = entry.value("percent_of_solution", 0.0);
        return r;
    } catch (const json::exception&) { return std::nullopt; }
}

std::vector<RememberedVerdict> read_record(const fs::path& top) {
    const fs::path file = record_file(top);
    std::error_code missing;
    if (!fs::exists(fs::symlink_status(file, missing))) return {};
    const auto text = read_whole_file(file);
    if (!text) throw FileError(fmt::format("cannot read {}: {}", file.string(), std::strerror(errno)));
    json parsed = json::parse(*text, nullptr, false);
    if (parsed.is_discarded() || !parsed.is_object() || !parsed.contains("verdicts") || !parsed["verdicts"].is_array())
        throw FileError(fmt::format("{} is not a progress record: remove it to start afresh", file.string()));
    std::vector<RememberedVerdict> verdicts;
    for (const json& entry : parsed["verdicts"])
        if (auto r = from_json(entry)) verdicts.push_back(*r);
    return verdicts;
}

size_t track_order(const std::string& track) {
    const auto& tracks = all_tracks();
    return static_cast<size_t>(std::find(tracks.begin(), tracks.end(), track) - tracks.begin());
}

void write_record(const fs::path& top, std::vector<RememberedVerdict> verdicts) {
    std::sort(verdicts.begin(), verdicts.end(), [](const RememberedVerdict& a, const RememberedVerdict& b) {
        return std::make_pair(a.verdict.step, track_order(a.verdict.track)) <
               std::make_pair(b.verdict.step, track_order(b.verdict.track));
    });
    json entries = json::array();
    for (const auto& r : verdicts) entries.push_back(to_json(r));
    write_file_atomically(record_file(top), json{{"verdicts", entries}}.dump(2) + "\n");
}

// Holds the record's lock while it lives: every change is a read, an edit and a write under one exclusive flock,
// so two writers at once (make check in two terminals, make status beside make watch) each keep the other's.
class RecordLock {
public:
    explicit RecordLock(const fs::path& top) {
        std::error_code error;
        fs::create_directories(record_folder(top), error);
        if (error) throw FileError(fmt::format("cannot make {}: {}", record_folder(top).string(), error.message()));
        fd_ = open_lock_file(record_folder(top) / "progress.lock");
        while (::flock(fd_, LOCK_EX) != 0) {
            if (errno == EINTR) continue;
            const int error_number = errno;
            ::close(fd_);
            throw FileError(fmt::format("cannot lock {}: {}", (record_folder(top) / "progress.lock").string(),
                                        std::strerror(error_number)));
        }
    }
    ~RecordLock() { ::close(fd_); }
    RecordLock(const RecordLock&) = delete;
    RecordLock& operator=(const RecordLock&) = delete;

private:
    int fd_ = -1;
};

void check_step_and_track(int step, const std::string& track) {
    if (!is_step(step) || !is_track(track))
        throw FileError(fmt::format("step {} {} is not a step and track of the workshop", step, printable(track)));
}

std::string local_time_now() {
    const std::time_t now = std::time(nullptr);
    std::tm local{};
    localtime_r(&now, &local);
    char text[32];
    return std::strftime(text, sizeof text, "%Y-%m-%d %H:%M", &local) ? text : "";
}

bool same_step(const RememberedVerdict& r, int step, const std::string& track) {
    return r.verdict.step == step && r.verdict.track == track;
}

}  // namespace

const std::vector<std::string>& all_tracks() {
    static const std::vector<std::string> tracks{"transpose", "matmul"};
    return tracks;
}

bool is_track(const std::string& name) { return track_order(name) < all_tracks().size(); }

fs::path step_file(const fs::path& top, int step, const std::string& track) {
    return top / fmt::format("step{}", step) / (track + ".cu");
}

std::string file_checksum(const fs::path& file) {
    const auto content = read_whole_file(file);
    if (!content) return "";
    uint64_t hash = 14695981039346656037ull;  // FNV-1a, 64 bits: a fingerprint, not a defence
    for (const unsigned char c : *content) hash = (hash ^ c) * 1099511628211ull;
    return fmt::format("{:016x}-{}", hash, content->size());
}

void remember_verdict(const fs::path& top, const StepVerdict& verdict) {
    check_step_and_track(verdict.step, verdict.track);
    // NOT CHECKED is a verdict on the room (too little memory, a busy GPU), not on the code: it keeps the last one.
    if (verdict.outcome == Outcome::NotChecked) return;
    const RememberedVerdict entry{verdict, file_checksum(step_file(top, verdict.step, verdict.track)),
                                  local_time_now()};
    RecordLock lock(top);
    auto verdicts = read_record(top);
    verdicts.erase(std::remove_if(verdicts.begin(), verdicts.end(),
                                  [&](const auto& r) { return same_step(r, verdict.step, verdict.track); }),
                   verdicts.end());
    verdicts.push_back(entry);
    write_record(top, verdicts);
}

void forget_verdict(const fs::path& top, int step, const std::string& track) {
    check_step_and_track(step, track);
    RecordLock lock(top);
    auto verdicts = read_record(top);
    const auto kept =
        std::remove_if(verdicts.begin(), verdicts.end(), [&](const auto& r) { return same_step(r, step, track); });
    if (kept == verdicts.end()) return;
    verdicts.erase(kept, verdicts.end());
    write_record(top, verdicts);
}

Progress::Progress(fs::path top) : top_(std::move(top)), verdicts_(read_record(top_)) {}

std::optional<RememberedVerdict> Progress::remembered(int step, const std::string& track) const {
    for (const auto& r : verdicts_)
        if (same_step(r, step, track)) return r;
    return std::nullopt;
}

StepState Progress::state(int step, const std::string& track) const {
    const auto r = remembered(step, track);
    if (!r) return StepState::None;
    if (r->checksum != file_checksum(step_file(top_, step, track))) return StepState::Edited;
    if (r->verdict.outcome == Outcome::Fail) return StepState::Failed;
    if (r->verdict.outcome == Outcome::Pass && r->verdict.percent_of_solution >= kDonePercent) return StepState::Done;
    return StepState::Slow;
}

std::string Progress::summary(int step, const std::string& track) const {
    const StepState s = state(step, track);
    switch (s) {
        case StepState::Done:
        case StepState::Slow: {
            const StepVerdict v = remembered(step, track)->verdict;
            if (v.outcome == Outcome::PassWithoutKernel) return "PASS, no kernel yet";
            return fmt::format("PASS {:.0f} {}, {:.0f}%{}", v.rate, v.unit, v.percent_of_solution,
                               s == StepState::Slow ? " (slow)" : "");
        }
        case StepState::Failed: return "FAIL";
        case StepState::Edited: return "edited since the last check";
        case StepState::None: return "-";
    }
    return "-";
}

std::string Progress::advice(int step, const std::string& track) const {
    switch (state(step, track)) {
        case StepState::None: return "no verdict yet";
        case StepState::Edited: return "changed since its last verdict";
        case StepState::Failed: return "its last verdict was FAIL (make check names the first wrong element)";
        case StepState::Slow:
            return fmt::format(
                "correct, but well short of the solution: the TODOs in step{}/{}.cu, the hints and make profile", step,
                track);
        case StepState::Done: return "";
    }
    return "";
}

std::optional<std::pair<int, std::string>> Progress::next(const std::vector<std::string>& tracks) const {
    for (int step = 1; step <= kSteps; ++step)
        for (const auto& track : tracks)
            if (state(step, track) != StepState::Done) return std::make_pair(step, track);
    return std::nullopt;
}

int Progress::done_count() const {
    int done = 0;
    for (int step = 1; step <= kSteps; ++step)
        for (const auto& track : all_tracks()) done += state(step, track) == StepState::Done;
    return done;
}

std::string state_word(StepState state) {
    switch (state) {
        case StepState::Done: return "done";
        case StepState::Slow: return "slow";
        case StepState::Failed: return "failed";
        case StepState::Edited: return "edited";
        case StepState::None: return "none";
    }
    return "none";
}

namespace {

// git, run with an argument vector; its output, or nothing where it failed.
std::optional<std::string> git(const fs::path& top, std::vector<std::string> arguments) {
    ChildJob job;
    job.argv = {"git", "-C", top.string()};
    job.argv.insert(job.argv.end(), arguments.begin(), arguments.end());
    job.timeout_s = 30;
    std::optional<std::string> out;
    run_children({job}, 1, [&](size_t, const ChildResult& r) {
        if (r.exited(0)) out = r.out;
    });
    return out;
}

// Whether the workshop is a git checkout of its own (not merely a folder inside another one).
bool in_git_checkout(const fs::path& top) {
    auto shown = git(top, {"rev-parse", "--show-toplevel"});
    if (!shown) return false;
    while (!shown->empty() && shown->back() == '\n') shown->pop_back();
    std::error_code error;
    const fs::path here = fs::canonical(top, error);
    return !error && fs::path(*shown) == here;
}

fs::path kept_copy(const fs::path& top, int step, const std::string& track) {
    return record_folder(top) / "start" / fmt::format("step{}", step) / (track + ".cu");
}

}  // namespace

std::string starting_point(const fs::path& top, int step, const std::string& track) {
    check_step_and_track(step, track);
    const std::string relative = fmt::format("step{}/{}.cu", step, track);
    if (in_git_checkout(top))
        if (auto committed = git(top, {"show", "HEAD:" + relative})) return *committed;
    if (auto kept = read_whole_file(kept_copy(top, step, track))) return *kept;
    throw FileError(fmt::format("no starting point is known for {}: it is not in git, and no copy was kept", relative));
}

void keep_starting_points(const fs::path& top) {
    if (in_git_checkout(top)) return;
    for (int step = 1; step <= kSteps; ++step) {
        for (const auto& track : all_tracks()) {
            const fs::path kept = kept_copy(top, step, track);
            std::error_code error;
            if (fs::exists(fs::symlink_status(kept, error))) continue;
            const auto content = read_whole_file(step_file(top, step, track));
            if (!content) continue;
            fs::create_directories(kept.parent_path(), error);
            if (error) throw FileError(fmt::format("cannot make {}: {}", kept.parent_path().string(), error.message()));
            write_file_atomically(kept, *content);
        }
    }
}

}  // namespace workshop
