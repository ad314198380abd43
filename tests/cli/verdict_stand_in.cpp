// make check's verdict (run_verdict) around a stand-in for the student's program, for timing_gates.sh: the stand-in
// (a script) runs this for --verdict, naming itself. Its battery is `MINE --check`, in a child process, whose exit
// code and last line stand for what run_battery returns; its timing runs are the real ones.
//   verdict_stand_in MINE STEP TRACK --verdict --solution PROGRAM [--previous PROGRAM] [options]
#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "base/exit_codes.hpp"
#include "base/child_processes.hpp"
#include "programs/options.hpp"
#include "programs/verdict_run.hpp"

using namespace workshop;

namespace {

BatteryOutcome stand_in_battery(const std::string& mine) {
    BatteryOutcome outcome;
    ChildJob job;
    job.argv = {mine, "--check"};
    run_children({job}, 1, [&](size_t, const ChildResult& r) {
        std::fputs(r.out.c_str(), stdout);
        std::fputs(r.err.c_str(), stderr);
        outcome.exit_code = r.exit_code;
        std::string last = r.out.substr(0, r.out.find_last_not_of('\n') + 1);
        last = last.substr(last.rfind('\n') + 1);
        for (const std::string word : {"PASS: ", "FAIL: ", "NOT CHECKED: "})
            if (last.rfind(word, 0) == 0) outcome.reason = last.substr(word.size());
    });
    std::fflush(stdout);
    return outcome;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 4) {
        fmt::print(stderr, "usage: verdict_stand_in MINE STEP TRACK --verdict --solution PROGRAM [...]\n");
        return kExitBadUsage;
    }
    const ParseOutcome parsed = parse_options(Track::Transpose, argc - 3, argv + 3);
    if (!parsed.ok()) {
        fmt::print(stderr, "error: {}\n", parsed.error);
        return kExitBadUsage;
    }
    VerdictPlan plan;
    plan.mine = argv[1];
    plan.step = std::stoi(argv[2]);
    plan.track = argv[3];
    plan.solution = parsed.options.solution_program;
    plan.previous = parsed.options.previous_program;
    plan.options = parsed.options.timing_args;
    const char* one_at_a_time = std::getenv("WORKSHOP_ONE_PROCESS_AT_A_TIME");
    plan.one_process_at_a_time = one_at_a_time && std::string(one_at_a_time) == "1";
    return run_verdict(plan, [&] { return stand_in_battery(plan.mine); });
}
