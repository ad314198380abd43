// Records one verdict as the verdict program does (remember_verdict), for the tests of what reads the record.
//   record_verdict CHECKOUT STEP TRACK pass|pass-without-kernel|fail|not-checked [RATE UNIT PERCENT]
#include <fmt/format.h>

#include <cstdlib>
#include <map>
#include <string>

#include "base/files.hpp"
#include "progress/progress.hpp"

int main(int argc, char** argv) {
    using workshop::Outcome;
    const std::map<std::string, Outcome> outcomes{{"pass", Outcome::Pass},
                                                  {"pass-without-kernel", Outcome::PassWithoutKernel},
                                                  {"fail", Outcome::Fail},
                                                  {"not-checked", Outcome::NotChecked}};
    if ((argc != 5 && argc != 8) || !outcomes.count(argv[4])) {
        fmt::print(stderr,
                   "usage: record_verdict CHECKOUT STEP TRACK {{pass|pass-without-kernel|fail|not-checked}} "
                   "[RATE UNIT PERCENT]\n");
        return 2;
    }
    workshop::StepVerdict verdict;
    verdict.step = std::atoi(argv[2]);
    verdict.track = argv[3];
    verdict.outcome = outcomes.at(argv[4]);
    if (argc == 8) {
        verdict.rate = std::atof(argv[5]);
        verdict.unit = argv[6];
        verdict.percent_of_solution = std::atof(argv[7]);
    }
    try {
        workshop::remember_verdict(argv[1], verdict);
    } catch (const workshop::FileError& e) {
        fmt::print(stderr, "error: {}\n", e.what());
        return 1;
    }
    return 0;
}
