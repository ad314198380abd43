#include "check/checked_launch.hpp"
#include "check/step_checks.hpp"
#include "ledger/allocations.hpp"
#include "ledger/copy_directions.hpp"

namespace workshop {

// A copy that named the wrong direction, anywhere in the calls below, is named ahead of what they found.
CheckResult CheckedProblem::run_checked(FurtherCalls further) {
    const FreshMemoryPoisoned fresh_memory_poisoned;
    const int wrong_copies_before = copies_in_the_wrong_direction();
    CheckResult result = launch_and_verify(further);
    report_copies_in_the_wrong_direction(wrong_copies_before, function_, result.verdict);
    return result;
}

CheckResult CheckedProblem::launch_and_verify(FurtherCalls further) {
    GuardedMatrix& out = output();
    out.poison();
    CheckResult result;
    const auto launch_it = [&] { return launch(); };
    if (!launch_and_record(launch_it, result.launch, result.verdict)) return result;
    const auto verify_it = [&](const float* output) { return verify(output); };
    result.verdict = judge_the_output(out, out_, right_, verify_it);
    result.verdict.add_guard_report(out.outside_writes(), input_words_changed());
    if (further == FurtherCalls::Check || !result.verdict.ok) {
        check_the_calls_after_a_checked_run(launch_it, out, out_, verify_it, function_, result.verdict);
        if (result.verdict.ok) check_calls_at_larger_sizes(result.verdict);
    }
    right_ = result.verdict.ok ? std::optional<Verdict>(result.verdict) : std::nullopt;
    if (result.verdict.outside.any()) map_a_right_output(result.verdict, output_rows(), output_cols());
    if (result.verdict.element_states) mark_launch_blocks(*result.verdict.element_states, result.launch);
    return result;
}

}  // namespace workshop
