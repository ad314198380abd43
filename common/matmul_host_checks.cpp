#include "matrix_data.hpp"
#include "step_checks.hpp"

namespace workshop {

Verdict check_matmul_from_host(int M, int N, int K, uint64_t seed) {
    const MatmulInputs in(M, N, K, seed);
    std::vector<float> C(static_cast<size_t>(M) * N);
    fill_poison(C.data(), C.size());
    matmul_from_host(in.A.data(), in.B.data(), C.data(), M, N, K);
    return verify_matmul_result(in, C, M, N, K);
}

}  // namespace workshop
