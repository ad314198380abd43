#include "room/class_table.hpp"

#include <fcntl.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <ctime>
#include <fstream>
#include <map>
#include <sstream>

#include "base/exit_codes.hpp"
#include "base/files.hpp"
#include "progress/progress.hpp"

namespace workshop::room {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr off_t kLargestRecord = 1 << 16;

std::string login_of(uid_t uid) {
    const passwd* entry = ::getpwuid(uid);
    return entry ? entry->pw_name : "";
}

// One student's record, as another user wrote it: read without following a link or waiting on a FIFO.
struct Record {
    std::string owner;  // the login of the file's owner
    time_t written = 0;
    json content;
};

bool read_record(const fs::path& path, Record& record, std::string& why) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    struct stat st {};
    if (fd < 0 || ::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > kLargestRecord) {
        if (fd >= 0) ::close(fd);
        why = "not a regular file of a record's size";
        return false;
    }
    std::string text(static_cast<size_t>(st.st_size), '\0');
    const ssize_t n = ::read(fd, text.data(), text.size());
    ::close(fd);
    record.owner = login_of(st.st_uid);
    record.written = st.st_mtime;
    if (record.owner.empty()) record.owner = fmt::format("uid {}", st.st_uid);
    if (record.owner + ".json" != path.filename().string()) {
        why = fmt::format("written by {}, not by {}", printable(record.owner), printable(path.stem().string()));
        return false;
    }
    record.content = json::parse(text.substr(0, n > 0 ? n : 0), nullptr, false);
    if (record.content.is_discarded() || !record.content.is_object()) {
        why = "not a record make status wrote";
        return false;
    }
    return true;
}

std::string percent_of(const json& verdicts, const std::string& track) {
    for (const json& v : verdicts)
        if (v.value("step", 0) == 5 && v.value("track", "") == track && v.value("passed", false) &&
            v.value("percent", 0) > 0)
            return fmt::format("{}%", v.value("percent", 0));
    return "-";
}

// The first step and track, in the lessons' order, that is not done.
std::string reached(const json& verdicts) {
    for (int step = 1; step <= 5; ++step)
        for (const char* track : {"transpose", "matmul"}) {
            const bool done = std::any_of(verdicts.begin(), verdicts.end(), [&](const json& v) {
                return v.value("step", 0) == step && v.value("track", "") == track && v.value("done", false);
            });
            if (!done) return fmt::format("step {} ({})", step, track);
        }
    return "done";
}

std::string row(const Record& record) {
    const json verdicts = record.content.value("verdicts", json::array());
    char written[32] = "";
    std::strftime(written, sizeof written, "%Y-%m-%d %H:%M", std::localtime(&record.written));
    return fmt::format("{:<16} {:<20} {:<18} {:<18} {}", printable(record.owner), reached(verdicts),
                       percent_of(verdicts, "transpose"), percent_of(verdicts, "matmul"), written);
}

}  // namespace

std::vector<StepStanding> read_progress(const fs::path& checkout_top) {
    const Progress progress(checkout_top);
    std::vector<StepStanding> standings;
    for (int step = 1; step <= kSteps; ++step)
        for (const std::string& track : all_tracks()) {
            const auto remembered = progress.remembered(step, track);
            if (!remembered) continue;
            const StepVerdict& v = remembered->verdict;
            standings.push_back({step, track, v.outcome == Outcome::Pass || v.outcome == Outcome::PassWithoutKernel,
                                 progress.state(step, track) == StepState::Done,
                                 static_cast<int>(std::lround(v.percent_of_solution))});
        }
    return standings;
}

fs::path save_class_record(const fs::path& folder, const std::vector<StepStanding>& verdicts) {
    const std::string login = login_of(::geteuid());
    if (login.empty()) throw FileError(fmt::format("this user (uid {}) has no login name", ::geteuid()));
    make_shared_folder(folder);
    const fs::path file = folder / (login + ".json");
    struct stat st {};
    if (::lstat(file.c_str(), &st) == 0 && st.st_uid != ::geteuid())
        throw FileError(fmt::format("{} belongs to {}, not to {}: ask the instructor to remove it", file.string(),
                                    printable(login_of(st.st_uid)), login));
    json record = {{"verdicts", json::array()}};
    for (const StepStanding& v : verdicts)
        record["verdicts"].push_back(
            {{"step", v.step}, {"track", v.track}, {"passed", v.passed}, {"done", v.done}, {"percent", v.percent}});
    write_file_atomically(file, record.dump(2) + "\n");
    return file;
}

int show_class_table(const fs::path& folder, std::ostream& out, std::ostream& err) {
    std::error_code error;
    if (!fs::is_directory(folder, error)) {
        err << fmt::format("error: the class folder '{}' does not exist (set WORKSHOP_CLASS_DIR, or name the folder)\n",
                           printable(folder.string()));
        return kExitBadUsage;
    }
    std::map<std::string, Record> records;  // by login, so the table is in order
    std::vector<std::string> ignored;
    for (const auto& entry : fs::directory_iterator(folder, error)) {
        const std::string name = entry.path().filename().string();
        if (name.empty() || name[0] == '.' || entry.path().extension() != ".json") continue;
        Record record;
        std::string why;
        if (read_record(entry.path(), record, why))
            records[record.owner] = record;
        else
            ignored.push_back(fmt::format("ignored: {} ({})", printable(name), why));
    }
    if (records.empty() && ignored.empty()) {
        err << fmt::format("error: no student has written a status to {} yet (make status writes it)\n",
                           printable(folder.string()));
        return kExitWrongAnswer;
    }
    out << fmt::format("class in {}: {} students\n", printable(folder.string()), records.size());
    out << fmt::format("{:<16} {:<20} {:<18} {:<18} {}\n", "student", "step reached", "step 5 transpose",
                       "step 5 matmul", "written");
    for (const auto& [login, record] : records) out << row(record) << "\n";
    std::sort(ignored.begin(), ignored.end());
    for (const std::string& line : ignored) out << line << "\n";
    return kExitOk;
}

}  // namespace workshop::room
