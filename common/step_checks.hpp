// One checked run of the step linked into this program: random inputs, NaN-poisoned output, verification.
// Shared by the programs' --check battery and the GPU tests, so both judge a kernel the same way.
#pragma once

#include <cstdint>
#include <vector>

#include "step_api.cuh"
#include "verify.hpp"

namespace workshop {

struct CheckResult {
    Verdict verdict;
    LaunchInfo launch;
    bool launched_kernel() const { return launch.kernel != nullptr; }
};

CheckResult check_transpose_on_device(int rows, int cols, uint64_t seed);
Verdict check_transpose_from_host(int rows, int cols, uint64_t seed);  // step 1 programs only

// Seeded random inputs of a matmul (A: M x K, B: K x N).
struct MatmulInputs {
    std::vector<float> A, B;
    MatmulInputs(int M, int N, int K, uint64_t seed);
};

// C (M x N) against the reference product of `in`.
Verdict verify_matmul_result(const MatmulInputs& in, const std::vector<float>& C, int M, int N, int K);

CheckResult check_matmul_on_device(int M, int N, int K, uint64_t seed);
Verdict check_matmul_from_host(int M, int N, int K, uint64_t seed);    // step 1 programs only

// Which reference a matmul of this size is checked against: the CPU in double up to this many
// multiply-adds, cuBLAS in FP32 beyond (the CPU would take too long).
constexpr double kCpuReferenceMaxMacs = 3e8;

}  // namespace workshop
