#include "programs/verdict.hpp"

#include <fmt/format.h>

#include <cstdio>

namespace workshop {

namespace {

// The figures as C's printf writes them (%.0f, %.2f): the verdict reads the same as it always has.
std::string fixed(double value, int decimals) {
    char text[64];
    std::snprintf(text, sizeof text, "%.*f", decimals, value);
    return text;
}

std::string uncertain(const std::string& doubt) { return doubt.empty() ? "" : " (uncertain: " + doubt + ")"; }

std::string pass_line(const VerdictFacts& f) {
    std::string line = fmt::format("PASS, {} {}", fixed(f.rate, 0), f.unit);
    if (f.solution_rate && *f.solution_rate > 0)
        line += fmt::format(", {}% of the solution", fixed(100 * f.rate / *f.solution_rate, 0)) +
                uncertain(f.solution_doubt);
    else
        line += " (the solution's run gave no rate to compare with)";
    if (f.previous_rate && *f.previous_rate > 0)
        line +=
            fmt::format(", {}x step {}", fixed(f.rate / *f.previous_rate, 2), f.step - 1) + uncertain(f.previous_doubt);
    return line;
}

std::string sanitizer_note(const VerdictFacts& f) {
    return f.sanitizers_ran ? "" : "; memory, race and barrier checks not run (no compute-sanitizer)";
}

bool well_short_of_the_solution(const VerdictFacts& f) {
    // An uncertain ratio gets no advice: a correct kernel timed beside a busy room must not be rewritten for it.
    return f.outcome == Outcome::Pass && f.solution_rate && f.solution_doubt.empty() && f.rate < 0.8 * *f.solution_rate;
}

}  // namespace

std::vector<std::string> verdict_lines(const VerdictFacts& f) {
    std::string what;
    switch (f.outcome) {
        case Outcome::Pass: what = pass_line(f) + sanitizer_note(f); break;
        case Outcome::PassWithoutKernel:
            what = "PASS on the CPU path; no kernel launched yet (write transpose_on_device / matmul_on_device)" +
                   sanitizer_note(f);
            break;
        case Outcome::Fail: what = fmt::format("FAIL ({})", f.reason); break;
        case Outcome::NotChecked: what = fmt::format("NOT CHECKED ({})", f.reason); break;
    }
    std::vector<std::string> lines = {fmt::format("VERDICT step {} {}: {}", f.step, f.track, what)};
    if (well_short_of_the_solution(f))
        lines.push_back(
            fmt::format("  (correct, but well short of the solution: hints/{}.md (h in make watch) and make "
                        "profile show what to change)",
                        f.track));
    return lines;
}

std::string coloured(const std::string& verdict_line, Outcome outcome) {
    const char* colour = outcome == Outcome::Fail         ? "\033[31m"
                         : outcome == Outcome::NotChecked ? "\033[33m"
                                                          : "\033[32m";
    return colour + verdict_line + "\033[0m";
}

StepVerdict step_verdict(const VerdictFacts& f) {
    StepVerdict v{f.step, f.track, f.outcome, 0, "", 0};
    if (f.outcome != Outcome::Pass) return v;
    v.rate = f.rate;
    v.unit = f.unit;
    if (f.solution_rate && *f.solution_rate > 0) v.percent_of_solution = 100 * f.rate / *f.solution_rate;
    return v;
}

}  // namespace workshop
