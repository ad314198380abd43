// The student's progress, remembered across sessions in .workshop/ at the top of the checkout (beside the
// lessons, not in build/, so that `make clean` keeps it; git ignores it). progress.json holds the latest verdict
// of every step and track. Only the code that knows a verdict records it (the verdict program, make status):
// nothing reads it back out of a program's output, which the student's code could forge. Writers take an
// exclusive flock on .workshop/progress.lock and replace the file atomically, so two at once lose nothing and
// a reader sees the old record or the new one, never half of one.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace workshop {

enum class Outcome { Pass, PassWithoutKernel, Fail, NotChecked };

struct StepVerdict {
    int step;
    std::string track;
    Outcome outcome;
    double rate = 0;
    std::string unit;
    double percent_of_solution = 0;
};

// Records the verdict about stepN/TRACK.cu under the checkout's .workshop/ (locked, atomic). Throws FileError.
void remember_verdict(const std::filesystem::path& checkout_top, const StepVerdict& verdict);

// A step counts as done from this share of its solution's speed up (what make check calls close to it).
constexpr double kDonePercent = 80;
constexpr int kSteps = 5;
// The tracks, in the order the lessons take them.
const std::vector<std::string>& all_tracks();
bool is_track(const std::string& name);

// A verdict as remembered: about the step file whose content had `checksum`, recorded at `when` (local time).
struct RememberedVerdict {
    StepVerdict verdict;
    std::string checksum;
    std::string when;
};

enum class StepState {
    Done,    // PASS close to the solution, file unchanged since
    Slow,    // PASS, but well short of the solution (or no kernel yet)
    Failed,  // FAIL
    Edited,  // there was a verdict, but the file has changed since: check it again
    None,    // no verdict yet (or the step was reset)
};

// Reads the checkout's progress; a checkout without one has none. Throws FileError where the record cannot be
// read or is not a progress record.
class Progress {
public:
    explicit Progress(std::filesystem::path checkout_top);

    std::optional<RememberedVerdict> remembered(int step, const std::string& track) const;
    StepState state(int step, const std::string& track) const;
    // A few words for a table column ("PASS 975 GB/s, 98%", "FAIL", "-").
    std::string summary(int step, const std::string& track) const;
    // What to do about a step that is not done (empty when it is).
    std::string advice(int step, const std::string& track) const;
    // The first step and track, in order, that is not done, among `tracks`; nothing when all are.
    std::optional<std::pair<int, std::string>> next(const std::vector<std::string>& tracks) const;
    int done_count() const;

private:
    std::filesystem::path top_;
    std::vector<RememberedVerdict> verdicts_;
};

// The step no longer counts (after a reset). Locked and atomic, as remember_verdict.
void forget_verdict(const std::filesystem::path& checkout_top, int step, const std::string& track);

// A short fingerprint of a file's content ("" where it cannot be read).
std::string file_checksum(const std::filesystem::path& file);

std::string state_word(StepState state);
std::filesystem::path step_file(const std::filesystem::path& checkout_top, int step, const std::string& track);

// The step file as the lesson ships it: in a git checkout of its own, the committed version (the student's last
// commit, if they commit); elsewhere (a tarball) the copy keep_starting_points kept. Throws FileError, saying why,
// when neither exists.
std::string starting_point(const std::filesystem::path& checkout_top, int step, const std::string& track);
// Outside git, keeps a copy of every step file that has none yet in .workshop/start/ (never replaced).
void keep_starting_points(const std::filesystem::path& checkout_top);

}  // namespace workshop
