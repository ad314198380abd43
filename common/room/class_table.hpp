// The class table: where every student of a room stands, gathered from a folder all of them write to
// (WORKSHOP_CLASS_DIR). Each student's make status writes one file there, <login>.json; make class reads them all.
// Who a file is about is the login the file system gives as its owner, never a name its writer chose: a file whose
// name is not its owner's login is shown as ignored, and every name is printed with control characters escaped.
#pragma once

#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

namespace workshop::room {

// The latest verdict of one step and track, from the student's progress record.
struct StepStanding {
    int step = 0;
    std::string track;
    bool passed = false;
    bool done = false;  // as make status counts it (progress/progress.hpp)
    int percent = 0;    // of the solution's speed; 0 where no kernel ran
};

// Where the student in the checkout at `checkout_top` stands (progress/progress.hpp); nothing where no step has a
// verdict yet.
std::vector<StepStanding> read_progress(const std::filesystem::path& checkout_top);

// Writes this user's record to `folder` (made as a shared sticky folder where it is missing) and returns its path.
// Throws FileError (base/files.hpp) where it cannot, saying why.
std::filesystem::path save_class_record(const std::filesystem::path& folder, const std::vector<StepStanding>& verdicts);

// Prints the table of every record in `folder` to `out`; problems to `err`. Returns the exit code: 0, 1 where no
// student has written yet, 2 where the folder does not exist.
int show_class_table(const std::filesystem::path& folder, std::ostream& out, std::ostream& err);

}  // namespace workshop::room
