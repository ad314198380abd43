#include <fmt/format.h>

#include "check/checked_launch.hpp"
#include "check/guarded_host_matrix.hpp"
#include "verify/matrix_data.hpp"
#include "check/step_checks.hpp"

namespace workshop {

Verdict check_matmul_from_host(int M, int N, int K, uint64_t seed) {
    const auto floats = [](int rows, int cols) { return static_cast<size_t>(rows) * static_cast<size_t>(cols); };
    const GuardedHostMatrix A(floats(M, K), "matmul_from_host", "A", fmt::format("M x K = {} x {}", M, K));
    const GuardedHostMatrix B(floats(K, N), "matmul_from_host", "B", fmt::format("K x N = {} x {}", K, N));
    const GuardedHostMatrix C(floats(M, N), "matmul_from_host", "C", fmt::format("M x N = {} x {}", M, N));
    fill_matmul_inputs(A.data(), B.data(), M, N, K, seed);
    fill_poison(C.data(), C.size());
    return check_round_trip([&] { matmul_from_host(A.data(), B.data(), C.data(), M, N, K); },
                            [&] { return verify_matmul_result(A.data(), B.data(), C.data(), M, N, K); },
                            "matmul_from_host");
}

}  // namespace workshop
