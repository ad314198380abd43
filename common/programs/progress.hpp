// The student's progress: the latest verdict of every step and track, kept under the checkout's .workshop/.
#pragma once

#include <filesystem>
#include <string>

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

}  // namespace workshop
