// make check's verdict: the lines it ends with, composed from what the battery and the timing runs found. Pure (no
// CUDA, no processes), so that each form of the line has a test:
//   VERDICT step N TRACK: PASS, <rate> <unit>, <n>% of the solution[, <x>x step N-1]
//     (either ratio followed by "(uncertain: <why>)" where the timing could not pin it down)
//   VERDICT step N TRACK: PASS on the CPU path; no kernel launched yet (...)
//   VERDICT step N TRACK: FAIL (<what went wrong>)
//   VERDICT step N TRACK: NOT CHECKED (<what could not run here, and why>)
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "progress/progress.hpp"

namespace workshop {

struct VerdictFacts {
    int step = 0;
    std::string track;  // "transpose" or "matmul"
    Outcome outcome = Outcome::Fail;
    std::string reason;          // FAIL and NOT CHECKED: why
    bool sanitizers_ran = true;  // PASS: false where compute-sanitizer was not found
    double rate = 0;             // Pass: the student's kernel, at the size timed
    std::string unit;            // of the rates: GB/s or GFLOP/s, as the program's JSON names it
    std::optional<double> solution_rate, previous_rate;  // the same size, this step's solution and the last step's
    std::string solution_doubt, previous_doubt;          // why a ratio to them is uncertain; empty where it is not
};

// The verdict line, and under a PASS well short of the solution (under 80% of it, and not uncertain) the advice.
std::vector<std::string> verdict_lines(const VerdictFacts& facts);

// The VERDICT line in colour for a terminal (green PASS, red FAIL, yellow NOT CHECKED): make watch asks for it with
// WORKSHOP_COLOR=always, since it shows the check's output through a pipe of its own.
std::string coloured(const std::string& verdict_line, Outcome outcome);

// What the student's progress keeps of it.
StepVerdict step_verdict(const VerdictFacts& facts);

}  // namespace workshop
