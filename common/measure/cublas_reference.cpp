#include "measure/cublas_reference.hpp"

#include <fmt/format.h>

#include <cstdlib>

#include "base/exit_codes.hpp"

namespace workshop {

namespace {

void check_cublas(cublasStatus_t status, const char* call, int line) {
    if (status == CUBLAS_STATUS_SUCCESS) return;
    fmt::print(stderr, "{}:{}: {} failed: {} ({})\n", __FILE__, line, call, cublasGetStatusName(status),
               cublasGetStatusString(status));
    std::exit(kExitCudaError);
}

#define CUBLAS_CHECK(call) check_cublas((call), #call, __LINE__)

}  // namespace

Cublas::Cublas() { CUBLAS_CHECK(cublasCreate(&handle_)); }
Cublas::~Cublas() { cublasDestroy(handle_); }

void Cublas::sgemm_fp32(const float* A, const float* B, float* C, int M, int N, int K) {
    const float alpha = 1.0f, beta = 0.0f;
    CUBLAS_CHECK(cublasGemmEx(handle_, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &alpha, A, CUDA_R_32F, M, B, CUDA_R_32F, K,
                              &beta, C, CUDA_R_32F, M, CUBLAS_COMPUTE_32F_PEDANTIC, CUBLAS_GEMM_DEFAULT));
}

void Cublas::sgemm_tf32(const float* A, const float* B, float* C, int M, int N, int K) {
    const float alpha = 1.0f, beta = 0.0f;
    CUBLAS_CHECK(cublasGemmEx(handle_, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &alpha, A, CUDA_R_32F, M, B, CUDA_R_32F, K,
                              &beta, C, CUDA_R_32F, M, CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_GEMM_DEFAULT));
}

void Cublas::transpose(const float* in, float* out, int rows, int cols) {
    // Row-major rows x cols is column-major cols x rows (leading dimension cols); its transpose, column-major
    // rows x cols with leading dimension rows, is exactly the row-major cols x rows result.
    const float alpha = 1.0f, beta = 0.0f;
    CUBLAS_CHECK(
        cublasSgeam(handle_, CUBLAS_OP_T, CUBLAS_OP_N, rows, cols, &alpha, in, cols, &beta, out, rows, out, rows));
}

}  // namespace workshop
