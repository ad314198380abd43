#include <vector>

#include <fmt/format.h>

#include "check/checked_launch.hpp"
#include "verify/cpu_reference.hpp"
#include "measure/cublas_reference.hpp"
#include "step/device_buffer.cuh"
#include "verify/matrix_data.hpp"
#include "measure/metrics.hpp"
#include "check/step_checks.hpp"

namespace workshop {

void fill_matmul_inputs(float* A, float* B, int M, int N, int K, uint64_t seed) {
    fill_random(A, static_cast<size_t>(M) * K, seed);
    fill_random(B, static_cast<size_t>(K) * N, seed + 1);
}

MatmulInputs::MatmulInputs(int M, int N, int K, uint64_t seed)
    : A(static_cast<size_t>(M) * K), B(static_cast<size_t>(K) * N) {
    fill_matmul_inputs(A.data(), B.data(), M, N, K, seed);
}

// Small products against the CPU in double; large ones against cuBLAS in strict FP32 on the same inputs.
Verdict verify_matmul_result(const float* A, const float* B, const float* C, int M, int N, int K) {
    const size_t a = static_cast<size_t>(M) * K, b = static_cast<size_t>(K) * N, c = static_cast<size_t>(M) * N;
    const double tolerance =
        matmul_tolerance(K, max_abs(A, static_cast<int64_t>(a)), max_abs(B, static_cast<int64_t>(b)));
    if (matmul_flops(M, N, K) / 2 <= kCpuReferenceMaxMacs) {
        std::vector<double> ref(c);
        matmul_reference(A, B, ref.data(), M, N, K);
        return verify_matmul(C, ref.data(), M, N, tolerance);
    }
    DeviceBuffer<float> dA(a), dB(b), dRef(c);
    dA.upload(A);
    dB.upload(B);
    Cublas cublas;
    cublas.sgemm_fp32(dA.get(), dB.get(), dRef.get(), M, N, K);
    std::vector<float> ref(c);
    dRef.download(ref.data());
    // Both sides carry FP32 rounding error, so allow it twice.
    return verify_matmul(C, ref.data(), M, N, 2 * tolerance);
}

MatmulProblem::MatmulProblem(int M, int N, int K, uint64_t seed, CheckSetup setup)
    : CheckedProblem("matmul_on_device", setup),
      M_(M),
      N_(N),
      K_(K),
      in_(M, N, K, seed),
      d_A_(in_.A.size(), setup.layout_of(0)),
      d_B_(in_.B.size(), setup.layout_of(1)),
      d_C_(size_t{static_cast<size_t>(M)} * N, setup.layout_of(2)) {
    d_A_.upload(in_.A.data());
    d_B_.upload(in_.B.data());
}

LaunchInfo MatmulProblem::launch() { return matmul_on_device(d_A_.get(), d_B_.get(), d_C_.get(), M_, N_, K_); }

std::string MatmulProblem::label() const { return fmt::format("{}x{}x{}", M_, N_, K_); }

// Not where guards are off: that is how compute-sanitizer runs the shapes, and under it every launch is slow.
void MatmulProblem::check_calls_at_larger_sizes(Verdict& verdict) const {
    const size_t M2 = side_for_the_growth_check(M_, 2), N2 = side_for_the_growth_check(N_, 2),
                 K2 = side_for_the_growth_check(K_, 2);
    if (!setup_.guards || M2 * K2 + K2 * N2 + M2 * N2 > kMostFloatsForTheGrowthCheck) return;
    const auto larger = [&](int call, uint64_t seed) {
        return MatmulProblem(side_for_the_growth_check(M_, call), side_for_the_growth_check(N_, call),
                             side_for_the_growth_check(K_, call), seed, setup_);
    };
    MatmulProblem first = larger(1, 1), second = larger(2, 2);
    check_larger_calls_leave_no_memory(
        {{first.label(), [&] { return first.launch(); }}, {second.label(), [&] { return second.launch(); }}}, function_,
        verdict);
}

Verdict MatmulProblem::verify(const float* output) const {
    return verify_matmul_result(in_.A.data(), in_.B.data(), output, M_, N_, K_);
}

int64_t MatmulProblem::input_words_changed() const {
    return d_A_.words_changed_since_upload(in_.A.data()) + d_B_.words_changed_since_upload(in_.B.data());
}

CheckResult check_matmul_on_device(int M, int N, int K, uint64_t seed, CheckSetup setup) {
    return MatmulProblem(M, N, K, seed, setup).run_checked();
}

}  // namespace workshop
