#include <vector>

#include "cpu_reference.hpp"
#include "cublas_reference.hpp"
#include "device_buffer.cuh"
#include "matrix_data.hpp"
#include "metrics.hpp"
#include "step_checks.hpp"

namespace workshop {

MatmulInputs::MatmulInputs(int M, int N, int K, uint64_t seed)
    : A(static_cast<size_t>(M) * K), B(static_cast<size_t>(K) * N) {
    fill_random(A.data(), A.size(), seed);
    fill_random(B.data(), B.size(), seed + 1);
}

// Small products against the CPU in double; large ones against cuBLAS in strict FP32 on the same inputs.
Verdict verify_matmul_result(const MatmulInputs& in, const std::vector<float>& C, int M, int N, int K) {
    const double tolerance =
        matmul_tolerance(K, max_abs(in.A.data(), static_cast<int64_t>(in.A.size())), max_abs(in.B.data(), static_cast<int64_t>(in.B.size())));
    if (matmul_flops(M, N, K) / 2 <= kCpuReferenceMaxMacs) {
        std::vector<double> ref(size_t{static_cast<size_t>(M)} * N);
        matmul_reference(in.A.data(), in.B.data(), ref.data(), M, N, K);
        return verify_matmul(C.data(), ref.data(), M, N, tolerance);
    }
    DeviceBuffer<float> dA(in.A.size()), dB(in.B.size()), dRef(C.size());
    dA.upload(in.A.data());
    dB.upload(in.B.data());
    Cublas cublas;
    cublas.sgemm_fp32(dA.get(), dB.get(), dRef.get(), M, N, K);
    std::vector<float> ref(C.size());
    dRef.download(ref.data());
    // Both sides carry FP32 rounding error, so allow it twice.
    return verify_matmul(C.data(), ref.data(), M, N, 2 * tolerance);
}

CheckResult check_matmul_on_device(int M, int N, int K, uint64_t seed) {
    const MatmulInputs in(M, N, K, seed);
    std::vector<float> C(size_t{static_cast<size_t>(M)} * N);
    DeviceBuffer<float> dA(in.A.size()), dB(in.B.size()), dC(C.size());
    dA.upload(in.A.data());
    dB.upload(in.B.data());
    poison_device(dC.get(), C.size());

    CheckResult result;
    result.launch = matmul_on_device(dA.get(), dB.get(), dC.get(), M, N, K);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());
    dC.download(C.data());
    result.verdict = verify_matmul_result(in, C, M, N, K);
    return result;
}

}  // namespace workshop
