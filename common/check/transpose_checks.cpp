#include <fmt/format.h>

#include "ledger/allocations.hpp"
#include "check/checked_launch.hpp"
#include "ledger/copy_directions.hpp"
#include "verify/matrix_data.hpp"
#include "check/step_checks.hpp"

namespace workshop {

TransposeProblem::TransposeProblem(int rows, int cols, uint64_t seed, CheckSetup setup)
    : rows_(rows),
      cols_(cols),
      setup_(setup),
      in_(size_t{static_cast<size_t>(rows)} * cols),
      d_in_(in_.size(), setup.layout_of(0)),
      d_out_(in_.size(), setup.layout_of(1)) {
    fill_random(in_.data(), in_.size(), seed);
    d_in_.upload(in_.data());
}

LaunchInfo TransposeProblem::launch() { return transpose_on_device(d_in_.get(), d_out_.get(), rows_, cols_); }

std::string TransposeProblem::label() const { return fmt::format("{}x{}", rows_, cols_); }

// Not where guards are off: that is how compute-sanitizer runs the shapes, and under it every launch is slow.
void TransposeProblem::check_calls_at_larger_sizes(Verdict& verdict) const {
    const int rows2 = side_for_the_growth_check(rows_, 2), cols2 = side_for_the_growth_check(cols_, 2);
    if (!setup_.guards || 2 * size_t(rows2) * size_t(cols2) > kMostFloatsForTheGrowthCheck) return;
    TransposeProblem first(side_for_the_growth_check(rows_, 1), side_for_the_growth_check(cols_, 1), 1, setup_);
    TransposeProblem second(rows2, cols2, 2, setup_);
    check_larger_calls_leave_no_memory(
        {{first.label(), [&] { return first.launch(); }}, {second.label(), [&] { return second.launch(); }}},
        "transpose_on_device", verdict);
}

// A copy that named the wrong direction, anywhere in the calls below, is named ahead of what they found.
CheckResult TransposeProblem::run_checked(FurtherCalls further) {
    const FreshMemoryPoisoned fresh_memory_poisoned;
    const int wrong_copies_before = copies_in_the_wrong_direction();
    CheckResult result = launch_and_verify(further);
    report_copies_in_the_wrong_direction(wrong_copies_before, "transpose_on_device", result.verdict);
    return result;
}

CheckResult TransposeProblem::launch_and_verify(FurtherCalls further) {
    d_out_.poison();
    CheckResult result;
    if (!launch_and_record([&] { return launch(); }, result.launch, result.verdict)) return result;
    const auto verify = [&](const float* output) { return verify_transpose(in_.data(), output, rows_, cols_); };
    result.verdict = judge_the_output(d_out_, out_, right_, verify);
    result.verdict.add_guard_report(d_out_.outside_writes(), d_in_.words_changed_since_upload(in_.data()));
    if (further == FurtherCalls::Check || !result.verdict.ok) {
        check_the_calls_after_a_checked_run([&] { return launch(); }, d_out_, out_, verify, "transpose_on_device",
                                            result.verdict);
        if (result.verdict.ok) check_calls_at_larger_sizes(result.verdict);
    }
    right_ = result.verdict.ok ? std::optional<Verdict>(result.verdict) : std::nullopt;
    if (result.verdict.outside.any()) map_a_right_output(result.verdict, cols_, rows_);
    if (result.verdict.element_states) mark_launch_blocks(*result.verdict.element_states, result.launch);
    return result;
}

CheckResult check_transpose_on_device(int rows, int cols, uint64_t seed, CheckSetup setup) {
    return TransposeProblem(rows, cols, seed, setup).run_checked();
}

}  // namespace workshop
