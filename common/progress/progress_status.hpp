// make status: where a student stands. For every step and track: does the student's file build, does it pass
// the shape battery, how fast is it next to that step's solution, and the verdict make check last gave. The
// first step not done is marked with what to do next (make watch starts there). What is measured here is a
// verdict too: it is recorded, except where no GPU or too little of one let the check run.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace workshop {

enum class StatusMode {
    Live,      // runs every built program: its check and its speed beside the solution's
    Recorded,  // runs nothing: the remembered verdicts only
};

struct StatusRequest {
    std::filesystem::path top;    // the checkout
    std::filesystem::path build;  // the build folder; BUILD/status/TARGET.log holds a failed build's messages
    StatusMode mode = StatusMode::Live;
    std::filesystem::path class_rows;  // where set: the rows for the class folder, as class.sh's class_save reads them
    bool emphasis = false;             // the next step in bold (on a terminal)
};

// Prints the table and the next step. Returns 0, or kExitNoDevice when every program that ran said there is no
// CUDA device (the table then shows whether each step builds).
int print_status(const StatusRequest& request);

// The first row of `kind` (step, limit, ...) in a program's JSON rows (what --json prints): its name, speed and
// unit; nothing where there is no such row with a speed (a step that launched no kernel) or no rows at all.
struct RateRow {
    std::string name;
    double rate = 0;
    std::string unit;
};
std::optional<RateRow> row_of_kind(const std::string& json_rows, const std::string& kind);

}  // namespace workshop
