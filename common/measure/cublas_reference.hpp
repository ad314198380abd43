// cuBLAS on the same buffers as the step: the library figure each track is measured against.
#pragma once

#include <cublas_v2.h>

namespace workshop {

class Cublas {
public:
    Cublas();
    ~Cublas();
    Cublas(const Cublas&) = delete;
    Cublas& operator=(const Cublas&) = delete;

    // C = A * B in strict FP32 (CUBLAS_COMPUTE_32F_PEDANTIC: no TF32 tensor-core shortcut), column-major.
    void sgemm_fp32(const float* A, const float* B, float* C, int M, int N, int K);
    // The same product with inputs rounded to TF32 on the tensor cores: shown apart, as a different contract.
    void sgemm_tf32(const float* A, const float* B, float* C, int M, int N, int K);
    // out (cols x rows) = transpose of in (rows x cols), both row-major, with cublasSgeam.
    void transpose(const float* in, float* out, int rows, int cols);

private:
    cublasHandle_t handle_ = nullptr;
};

}  // namespace workshop
