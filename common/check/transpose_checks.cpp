#include <fmt/format.h>

#include "check/checked_launch.hpp"
#include "verify/matrix_data.hpp"
#include "check/step_checks.hpp"

namespace workshop {

TransposeProblem::TransposeProblem(int rows, int cols, uint64_t seed, CheckSetup setup)
    : CheckedProblem("transpose_on_device", setup),
      rows_(rows),
      cols_(cols),
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
        {{first.label(), [&] { return first.launch(); }}, {second.label(), [&] { return second.launch(); }}}, function_,
        verdict);
}

Verdict TransposeProblem::verify(const float* output) const {
    return verify_transpose(in_.data(), output, rows_, cols_);
}

int64_t TransposeProblem::input_words_changed() const { return d_in_.words_changed_since_upload(in_.data()); }

CheckResult check_transpose_on_device(int rows, int cols, uint64_t seed, CheckSetup setup) {
    return TransposeProblem(rows, cols, seed, setup).run_checked();
}

}  // namespace workshop
