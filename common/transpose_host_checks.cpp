#include <vector>

#include "matrix_data.hpp"
#include "step_checks.hpp"

namespace workshop {

Verdict check_transpose_from_host(int rows, int cols, uint64_t seed) {
    const size_t n = size_t{static_cast<size_t>(rows)} * cols;
    HostMatrix in(n), out(n);
    fill_random(in.data(), n, seed);
    fill_poison(out.data(), n);
    transpose_from_host(in.data(), out.data(), rows, cols);
    return verify_transpose(in.data(), out.data(), rows, cols);
}

}  // namespace workshop
