#include <fmt/format.h>

#include "check/checked_launch.hpp"
#include "check/guarded_host_matrix.hpp"
#include "verify/matrix_data.hpp"
#include "check/step_checks.hpp"

namespace workshop {

Verdict check_transpose_from_host(int rows, int cols, uint64_t seed) {
    const size_t n = size_t{static_cast<size_t>(rows)} * cols;
    const GuardedHostMatrix in(n, "transpose_from_host", "in", fmt::format("rows x cols = {} x {}", rows, cols));
    const GuardedHostMatrix out(n, "transpose_from_host", "out", fmt::format("cols x rows = {} x {}", cols, rows));
    fill_random(in.data(), n, seed);
    fill_poison(out.data(), n);
    return check_round_trip([&] { transpose_from_host(in.data(), out.data(), rows, cols); },
                            [&] { return verify_transpose(in.data(), out.data(), rows, cols); }, "transpose_from_host");
}

}  // namespace workshop
