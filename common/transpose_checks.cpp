#include "checked_launch.hpp"
#include "matrix_data.hpp"
#include "step_checks.hpp"

namespace workshop {

TransposeProblem::TransposeProblem(int rows, int cols, uint64_t seed, CheckSetup setup)
    : rows_(rows),
      cols_(cols),
      in_(size_t{static_cast<size_t>(rows)} * cols),
      d_in_(in_.size(), setup.layout_of(0)),
      d_out_(in_.size(), setup.layout_of(1)) {
    fill_random(in_.data(), in_.size(), seed);
    d_in_.upload(in_.data());
}

LaunchInfo TransposeProblem::launch() { return transpose_on_device(d_in_.get(), d_out_.get(), rows_, cols_); }

CheckResult TransposeProblem::run_checked() {
    d_out_.poison();
    CheckResult result;
    if (!launch_and_record([&] { return launch(); }, result.launch, result.verdict)) return result;
    std::vector<float> out(in_.size());
    d_out_.download(out.data());
    result.verdict = verify_transpose(in_.data(), out.data(), rows_, cols_);
    result.verdict.add_guard_report(d_out_.outside_writes(), d_in_.words_changed_since_upload(in_.data()));
    if (result.verdict.ok) check_calls_leave_no_memory([&] { return launch(); }, "transpose_on_device", result.verdict);
    return result;
}

CheckResult check_transpose_on_device(int rows, int cols, uint64_t seed, CheckSetup setup) {
    return TransposeProblem(rows, cols, seed, setup).run_checked();
}

}  // namespace workshop
